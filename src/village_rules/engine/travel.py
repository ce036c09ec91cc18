"""Travel (2023 p. 10; 2011 "Travel") on the networkx map of `village_rules.engine.travel_map`."""

from __future__ import annotations

from functools import lru_cache

from village_rules.data.components import FARMYARD, Location, Travelling
from village_rules.data.edition import City, Cost, EditionData, RewardKind
from village_rules.engine import shared
from village_rules.engine.common import find_member, gain_prestige, move_member, numbers_at, take_coins
from village_rules.engine.context import Ctx
from village_rules.engine.guards import expect, present
from village_rules.engine.payment import can_pay
from village_rules.engine.travel_map import adjacent, city, member_cities, path_cost
from village_rules.errors import InternalError
from village_rules.model.actions import Action, Travel
from village_rules.model.evolve import replace
from village_rules.model.pending import ChooseSupplyCube, Pending
from village_rules.model.state import GameState
from village_rules.rule_ids import RuleId


def marked_starts(state: GameState, seat: int) -> tuple[str, ...]:
    """AMB-17 b: with no member on the map, the cities marked by the player count as
    presence, so a farmyard member may set out from one of them (TRV-07)."""
    if state.rules.reading("AMB-17") != "b" or member_cities(state, seat):
        return ()
    return state.players[seat].markers


def _setting_out(state: GameState, seat: int, origin: str) -> Location:
    """Where the travelling member comes from: the farmyard for a trip from the village
    (or, AMB-17 b, from a marked city), else the origin city."""
    if origin == state.rules.data.village or origin in marked_starts(state, seat):
        return FARMYARD
    return Travelling(origin)


def candidates(state: GameState, seat: int) -> list[Action]:
    """The journeys open to `seat`: a farmyard member to a city in reach."""
    data = state.rules.data
    out: list[Action] = []
    for n in numbers_at(state, seat, FARMYARD):
        out += [Travel(data.village, c, n) for c in adjacent(data, data.village)]
        for start in marked_starts(state, seat):
            out += [Travel(start, c, n) for c in adjacent(data, start) if c != data.village]
    for origin in member_cities(state, seat):
        for n in numbers_at(state, seat, Travelling(origin)):
            out += [Travel(origin, c, n) for c in adjacent(data, origin)]
    return out


def legal(state: GameState, seat: int) -> list[Action]:
    """The journeys `seat` may make, generated directly (`core._generate`; the oracle
    `core.legal_actions_oracle` still filters `candidates`), in the order of `candidates`,
    before the AMB-03 b payout check (which `core._generate` applies, as for crafts). Each
    candidate's member and adjacency hold by construction; what is left is the village as
    a destination (never), the AMB-18 b marker check (once per seat) and whether the path
    can be paid for (once per origin and destination, not per member)."""
    data = state.rules.data
    player = state.players[seat]
    if state.rules.reading("AMB-18") == "b" and len(player.markers) >= data.travel_markers:
        return []
    village = data.village

    def payable_from(origin: str) -> list[str]:
        return [c for c, cost in _paths_from(data, origin) if c != village and can_pay(cost, player, True)]

    out: list[Action] = []
    farm = numbers_at(state, seat, FARMYARD)
    if farm:
        from_village = payable_from(village)
        starts = [(start, payable_from(start)) for start in marked_starts(state, seat)]
        for n in farm:
            out += [shared.travel(village, c, n) for c in from_village]
            for start, destinations in starts:
                out += [shared.travel(start, c, n) for c in destinations]
    for origin in member_cities(state, seat):
        numbers = numbers_at(state, seat, Travelling(origin))
        if numbers:
            destinations = payable_from(origin)
            for n in numbers:
                out += [shared.travel(origin, c, n) for c in destinations]
    return out




@lru_cache(maxsize=1024)
def _paths_from(data: EditionData, origin: str) -> tuple[tuple[str, Cost], ...]:
    """(destination, path cost) of every path from `origin`, in `adjacent`'s order."""
    return tuple((c, path_cost(data, origin, c)) for c in adjacent(data, origin))


def precondition(state: GameState, seat: int, action: Action) -> str | None:
    """Why `seat` may not make this journey now, or None."""
    action = expect(action, Travel, "travel.precondition")
    data = state.rules.data
    if action.destination == data.village:
        return "travel: a trip goes to a city, never back to the village"
    try:
        if action.destination not in adjacent(data, action.origin):
            return f"travel: {action.destination} is not adjacent to {action.origin}"
    except KeyError as exc:
        return f"travel: {exc.args[0]}"
    where = _setting_out(state, seat, action.origin)
    if find_member(state, seat, where, action.number) is None:
        place = "on your farmyard" if where == FARMYARD else f"in {action.origin}"
        return f"travel: you have no member numbered {action.number} {place}"
    if state.rules.reading("AMB-18") == "b" and len(state.players[seat].markers) >= data.travel_markers:
        return "travel (AMB-18 b): you have no travel marker left"
    return None


def costs(state: GameState, seat: int, action: Action) -> list[Cost]:
    """TRV-01: the path's cost (2 time, 1 wagon and its influence cubes)."""
    action = expect(action, Travel, "travel.costs")
    return [path_cost(state.rules.data, action.origin, action.destination)]


def arrival(state: GameState, seat: int, destination: str) -> str:
    """What an arrival at `destination` brings: "mark" (a new marker and the reward,
    TRV-04), "again" (the reward without a marker, AMB-19 b, TRV-06), "remark" (another
    marker of the player's on a city already marked, and the reward, AMB-19 c, TRV-08) or
    "nothing" (TRV-03)."""
    p = state.players[seat]
    markers_left = len(p.markers) < state.rules.data.travel_markers
    if destination not in p.markers and markers_left:
        return "mark"
    reading = state.rules.reading("AMB-19")
    if reading == "b" and destination in p.markers:
        return "again"
    if reading == "c" and markers_left:
        return "remark"
    return "nothing"


def reward_due(state: GameState, seat: int, destination: str) -> City | None:
    """The city reward a trip to `destination` pays out now, if any (used by AMB-03 b)."""
    return None if arrival(state, seat, destination) == "nothing" else city(state.rules.data, destination)


def effect(state: GameState, seat: int, action: Action, ctx: Ctx) -> tuple[GameState, Pending | None]:
    """Make the journey: the traveller moves and the city's reward follows (TRV-01..07)."""
    action = expect(action, Travel, "travel.effect")
    data = state.rules.data
    where = _setting_out(state, seat, action.origin)
    if where == FARMYARD and action.origin != data.village:
        ctx.fire(RuleId.TRV_07, state)  # AMB-17 b: set out from a marked city
    ctx.fire(RuleId.TRV_01 if where == FARMYARD else RuleId.TRV_02, state)
    index = present(find_member(state, seat, where, action.number), "travel.effect", "the travelling member")
    state = move_member(state, seat, index, Travelling(action.destination))
    p = state.players[seat]
    due = arrival(state, seat, action.destination)
    if due == "mark":
        ctx.fire(RuleId.TRV_04, state)
        markers = tuple(sorted((*p.markers, action.destination)))
        state = state.with_player(seat, replace(p, markers=markers))
    elif due == "remark":
        ctx.fire(RuleId.TRV_08, state, seat)  # AMB-19 c (2023 p. 10): a marker, a reward each arrival
        markers = tuple(sorted((*p.markers, action.destination)))
        state = state.with_player(seat, replace(p, markers=markers))
    elif due == "again":
        ctx.fire(RuleId.TRV_06, state)  # AMB-19 b (2023 p. 10): the reward on every arrival
    else:
        ctx.fire(RuleId.TRV_03, state)  # one marker and reward per city; none once the markers are out
        return state, None
    reward = city(data, action.destination)
    match reward.reward:
        case RewardKind.PRESTIGE:
            return gain_prestige(state, seat, reward.amount), None
        case RewardKind.COINS:
            return take_coins(state, seat, reward.amount), None
        case RewardKind.CUBES_OF_CHOICE:
            return state, ChooseSupplyCube(seat, reward.amount)
    raise InternalError("travel.effect", f"unknown reward {reward!r}")
