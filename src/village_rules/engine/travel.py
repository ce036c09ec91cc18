"""Travel (2023 p. 10; 2011 "Travel") on the networkx map of `village_rules.travel_map`."""

from __future__ import annotations

from village_rules.actions import Action, Travel
from village_rules.components import FARMYARD, Travelling
from village_rules.edition import Cost, RewardKind
from village_rules.engine.common import find_member, gain_prestige, move_member, numbers_at, take_coins
from village_rules.engine.context import Ctx
from village_rules.evolve import replace
from village_rules.pending import ChooseSupplyCube, Pending
from village_rules.state import GameState
from village_rules.travel_map import adjacent, city, member_cities, path_cost


def candidates(state: GameState, seat: int) -> list[Action]:
    data = state.rules.data
    out: list[Action] = []
    for n in numbers_at(state, seat, FARMYARD):
        out += [Travel(data.village, c, n) for c in adjacent(data, data.village)]
    for origin in member_cities(state, seat):
        for n in numbers_at(state, seat, Travelling(origin)):
            out += [Travel(origin, c, n) for c in adjacent(data, origin)]
    return out


def precondition(state: GameState, seat: int, action: Action) -> str | None:
    assert isinstance(action, Travel)
    data = state.rules.data
    if action.destination == data.village:
        return "travel: a trip goes to a city, never back to the village"
    try:
        if action.destination not in adjacent(data, action.origin):
            return f"travel: {action.destination} is not adjacent to {action.origin}"
    except KeyError as exc:
        return f"travel: {exc.args[0]}"
    where = FARMYARD if action.origin == data.village else Travelling(action.origin)
    if find_member(state, seat, where, action.number) is None:
        place = "on your farmyard" if where == FARMYARD else f"in {action.origin}"
        return f"travel: you have no member numbered {action.number} {place}"
    return None


def costs(state: GameState, seat: int, action: Action) -> list[Cost]:
    """TRV-01: the path's cost (2 time, 1 wagon and its influence cubes)."""
    assert isinstance(action, Travel)
    return [path_cost(state.rules.data, action.origin, action.destination)]


def effect(state: GameState, seat: int, action: Action, ctx: Ctx) -> tuple[GameState, Pending | None]:
    assert isinstance(action, Travel)
    data = state.rules.data
    where = FARMYARD if action.origin == data.village else Travelling(action.origin)
    ctx.fire("TRV-01" if where == FARMYARD else "TRV-02")
    index = find_member(state, seat, where, action.number)
    assert index is not None
    state = move_member(state, seat, index, Travelling(action.destination))
    p = state.players[seat]
    if action.destination in p.markers or len(p.markers) >= data.travel_markers:
        ctx.fire("TRV-03")  # one marker and reward per city; none once the markers are out
        return state, None
    ctx.fire("TRV-04")
    markers = tuple(sorted((*p.markers, action.destination)))
    state = state.with_player(seat, replace(p, markers=markers))
    reward = city(data, action.destination)
    match reward.reward:
        case RewardKind.PRESTIGE:
            return gain_prestige(state, seat, reward.amount), None
        case RewardKind.COINS:
            return take_coins(state, seat, reward.amount), None
        case RewardKind.CUBES_OF_CHOICE:
            return state, ChooseSupplyCube(seat, reward.amount)
    raise AssertionError(reward)
