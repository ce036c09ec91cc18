"""Small moves shared by several actions: members between places, pieces from the supply."""

from __future__ import annotations

from village_rules.data.components import Cube, Good, Location
from village_rules.model.evolve import replace
from village_rules.model.state import GameState


def find_member(state: GameState, seat: int, location: Location, number: int) -> int | None:
    """Index of the seat's first member numbered `number` at `location`, if any."""
    numbers = state.rules.data.family_numbers
    kind = type(location)
    for i, loc in enumerate(state.players[seat].members):
        # the class first: a location dataclass's == of two classes is two Python calls
        if type(loc) is kind and loc == location and numbers[i] == number:
            return i
    return None


def numbers_at(state: GameState, seat: int, location: Location) -> list[int]:
    """The distinct numbers of the seat's members at `location`, ascending."""
    numbers = state.rules.data.family_numbers
    kind = type(location)  # the class first, as in find_member
    members = state.players[seat].members
    return sorted({numbers[i] for i, loc in enumerate(members) if type(loc) is kind and loc == location})


def move_member(state: GameState, seat: int, index: int, to: Location) -> GameState:
    """The state with one of `seat`'s members (by index) moved to `to`."""
    p = state.players[seat]
    members = list(p.members)
    members[index] = to
    return state.with_player(seat, replace(p, members=tuple(members)))


def take_good(state: GameState, seat: int, good: Good) -> GameState:
    """A good from the supply to the farmyard; nothing if the supply is out (AMB-03)."""
    if state.supply.goods[good] == 0:
        return state
    p = state.players[seat]
    state = replace(state, supply=replace(state.supply, goods=state.supply.goods.remove(good)))
    return state.with_player(seat, replace(p, goods=p.goods.add(good)))


def take_cube(state: GameState, seat: int, colour: Cube) -> GameState:
    """An influence cube from the supply to the farmyard; nothing if out (AMB-03)."""
    if state.supply.cubes[colour] == 0:
        return state
    p = state.players[seat]
    state = replace(state, supply=replace(state.supply, cubes=state.supply.cubes.remove(colour)))
    return state.with_player(seat, replace(p, cubes=p.cubes.add(colour)))


def take_coins(state: GameState, seat: int, amount: int) -> GameState:
    """Coins from the supply, as many as it holds (AMB-03)."""
    amount = min(amount, state.supply.coins)
    p = state.players[seat]
    state = replace(state, supply=replace(state.supply, coins=state.supply.coins - amount))
    return state.with_player(seat, replace(p, coins=p.coins + amount))


def take_grain(state: GameState, seat: int, amount: int) -> GameState:
    """Grain from the supply, up to the farmyard's capacity (AMB-02, AMB-03)."""
    p = state.players[seat]
    room = state.rules.data.grain_capacity - p.grain
    amount = max(0, min(amount, room, state.supply.grain))
    state = replace(state, supply=replace(state.supply, grain=state.supply.grain - amount))
    return state.with_player(seat, replace(p, grain=p.grain + amount))


def gain_prestige(state: GameState, seat: int, amount: int) -> GameState:
    """The state with `seat`'s prestige raised by `amount`."""
    p = state.players[seat]
    return state.with_player(seat, replace(p, prestige=p.prestige + amount))
