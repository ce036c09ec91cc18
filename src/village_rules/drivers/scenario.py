"""Building concrete game situations for tests, examples and counterexamples.

Every helper keeps the components conserved: pieces move between the supply (or the bag,
or the market) and the players, they never appear or vanish. So a scenario built here
passes the invariant checkers, and what the engine does next is the real rule.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import replace

from village_rules.data.components import UNBORN, ActionSpace, Cube, Farmyard, Good, Location, Unborn
from village_rules.data.edition import EditionData
from village_rules.data.tally import Tally
from village_rules.engine.core import apply, chance_outcomes, legal_actions
from village_rules.engine.setup import new_game
from village_rules.model.chance import sample
from village_rules.model.pending import ChooseAction, ChooseCompensationCube, ChooseTurn, Pending
from village_rules.model.state import GameState, Turn
from village_rules.rules.variant import Variant


def ready(
    edition: str | EditionData, players: int, seed: int = 0, variant: Variant | None = None
) -> GameState:
    """A new game with setup and the first seeding resolved: the start player's first turn.

    A compensation cube choice (2023, 4+ players) takes the first colour offered.
    """
    state = new_game(edition, players, seed, variant)
    rng = random.Random(seed)
    while not isinstance(state.pending, ChooseTurn):
        if isinstance(state.pending, ChooseCompensationCube):
            state = apply(state, legal_actions(state)[0])
        else:
            state = apply(state, sample(chance_outcomes(state), rng))
    return state


def emptied(
    edition: str | EditionData, players: int, seed: int = 0, variant: Variant | None = None
) -> GameState:
    """`ready`, then every cube on the board and every farmyard's cubes, goods, grain and
    coins back in the supply: a clean start for a scenario (members stay where they are)."""
    return strip_all(clear_board(ready(edition, players, seed, variant)))


def strip_all(state: GameState) -> GameState:
    """`strip` every farmyard."""
    for seat in range(state.num_players):
        state = strip(state, seat)
    return state


def give(
    state: GameState,
    seat: int,
    *,
    cubes: Mapping[Cube, int] | None = None,
    goods: Mapping[Good, int] | None = None,
    grain: int = 0,
    coins: int = 0,
) -> GameState:
    """Move pieces from the general supply to a farmyard (raises if the supply lacks them)."""
    c = Tally.of(cubes or {})
    g = Tally.of(goods or {})
    s = state.supply
    if not s.cubes.covers(c) or not s.goods.covers(g) or s.grain < grain or s.coins < coins:
        raise ValueError("the supply does not hold what the scenario wants to give")
    p = state.players[seat]
    if p.grain + grain > state.rules.data.grain_capacity:
        raise ValueError("a farmyard holds at most 5 grain")
    state = replace(
        state,
        supply=replace(
            s, cubes=s.cubes.minus(c), goods=s.goods.minus(g), grain=s.grain - grain, coins=s.coins - coins
        ),
    )
    p = replace(p, cubes=p.cubes.plus(c), goods=p.goods.plus(g), grain=p.grain + grain, coins=p.coins + coins)
    return state.with_player(seat, p)


def strip(state: GameState, seat: int) -> GameState:
    """Return every cube, good, grain and coin of a farmyard to the supply."""
    p = state.players[seat]
    s = state.supply
    state = replace(
        state,
        supply=replace(
            s,
            cubes=s.cubes.plus(p.cubes),
            goods=s.goods.plus(p.goods),
            grain=s.grain + p.grain,
            coins=s.coins + p.coins,
        ),
    )
    return state.with_player(seat, replace(p, cubes=Tally(), goods=Tally(), grain=0, coins=0))


def place(
    state: GameState, seat: int, number: int, to: Location, source: Location | None = None
) -> GameState:
    """Move one of the seat's members numbered `number` to `to`: from `source` if given,
    else from the farmyard, else from the unborn supply."""
    p = state.players[seat]
    sources: Sequence[Location] = [source] if source is not None else [Farmyard(), UNBORN]
    for where in sources:
        for i, loc in enumerate(p.members):
            if loc == where and state.number_of(i) == number:
                members = list(p.members)
                members[i] = to
                return state.with_player(seat, replace(p, members=tuple(members)))
    raise ValueError(f"seat {seat} has no member numbered {number} at {sources}")


def unborn_count(state: GameState, seat: int) -> int:
    """How many of a seat's members are still unborn."""
    return sum(1 for loc in state.players[seat].members if isinstance(loc, Unborn))


def set_lifetime(state: GameState, seat: int, position: int) -> GameState:
    """Put the life-time token `position` spaces past the quill."""
    if not 0 <= position < state.rules.data.lifetime_track_length:
        raise ValueError(f"the life-time track has {state.rules.data.lifetime_track_length} spaces")
    p = state.players[seat]
    return state.with_player(seat, replace(p, lifetime=position))


def clear_board(state: GameState) -> GameState:
    """Return every cube on the action spaces to the supply."""
    on_board: Tally[Cube] = Tally()
    for t in state.spaces:
        on_board = on_board.plus(t)
    return replace(
        state,
        supply=replace(state.supply, cubes=state.supply.cubes.plus(on_board)),
        spaces=tuple(Tally() for _ in state.spaces),
    )


def put_cubes(state: GameState, space: ActionSpace, cubes: Mapping[Cube, int]) -> GameState:
    """Move cubes from the supply onto an action space."""
    t = Tally.of(cubes)
    state = replace(state, supply=replace(state.supply, cubes=state.supply.cubes.minus(t)))
    return state.with_space(space, state.space(space).plus(t))


def at(state: GameState, pending: Pending, turn_seat: int | None = None) -> GameState:
    """The same position waiting for `pending` (with the turn of `turn_seat`, if given)."""
    return replace(state, pending=pending, turn=None if turn_seat is None else Turn(turn_seat))


def acting(state: GameState, seat: int, space: ActionSpace) -> GameState:
    """`seat` has taken a cube from `space` (without the cube) and may now perform its action."""
    return at(state, ChooseAction(seat, space), turn_seat=seat)


def arrange_market(
    state: GameState, available: Sequence[int | None], waiting: Sequence[int | None] | None = None
) -> GameState:
    """Lay out the market: the named tiles come from wherever they lie on the market or in
    the pile; tiles displaced go back to the pile."""
    wait = list(state.market_waiting) if waiting is None else list(waiting)
    if len(available) != len(state.market_available) or len(wait) != len(state.market_waiting):
        raise ValueError("the market layout has a different number of spaces")
    wanted = [t for t in (*available, *wait) if t is not None]
    if len(set(wanted)) != len(wanted):
        raise ValueError("a customer tile can lie on one space only")
    everywhere = {t for t in (*state.market_available, *state.market_waiting) if t is not None}
    everywhere |= set(state.customer_pile)
    missing = [t for t in wanted if t not in everywhere]
    if missing:
        raise ValueError(f"customer tiles {missing} are not on the market or in the pile")
    pile = tuple(sorted(everywhere - set(wanted)))
    return replace(state, market_available=tuple(available), market_waiting=tuple(wait), customer_pile=pile)
