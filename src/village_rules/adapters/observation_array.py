"""The observation tensor of `village_rules.adapters.observation` built as a NumPy array
(the adapters' extras bring NumPy), for learning loops.

`observation_tensor` builds the tensor as a list of floats, one-hot block by one-hot
block; at about 2,000 floats that costs more than a step of the engine. Here the layout
is worked out once per edition data and player count (`_Plan`: every segment's offset,
the index of every member location, tile and city), and a state is written into a zeroed
float32 array with two NumPy assignments: the positions that hold a 1, and the positions
that hold a count with their values. The result is the same tensor, float for float
(tests/adapters/test_observation_array.py compares them on every state of many games;
benchmarks/bench_observation.py prints the speed-up).

A solo game's tensor (`layout(data, 1)`, which neither adapter offers) is the list
version's, converted.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from village_rules.adapters.observation import (
    _pending,
    _tiles,
    layout,
    locations,
    observation_tensor,
)
from village_rules.data.components import Cube, Good, Location
from village_rules.data.edition import EditionData
from village_rules.errors import ParameterError
from village_rules.model.pending import Pending
from village_rules.model.state import CHANCE, GameState, PlayerState

_CUBE = {c: i for i, c in enumerate(Cube)}
_GOOD = {g: i for i, g in enumerate(Good)}
_CUBES = len(Cube)
_SEAT_PARTS = ("members", "counts", "cubes", "goods", "customers", "markers")


@dataclass(frozen=True, slots=True)
class _Plan:
    """What `layout` fixes for one edition data and player count, ready for indexing."""

    size: int
    at: dict[str, int]
    """Each segment's offset, by name."""
    tile: dict[int, int]
    locs: int
    loc: dict[Location, int]
    cities: tuple[str, ...]
    pending_size: int
    seats: tuple[tuple[int, ...], ...]
    """Per seat: the offsets of its members, counts, cubes, goods, customers and markers."""
    seat_size: int
    """The length of one seat's block, from its members segment to the end of its markers."""
    board_size: int
    """The length of the board's block, from `supply_cubes` to the end of `black_bag`."""


_PLANS: dict[tuple[int, int], tuple[EditionData, _Plan]] = {}


def _plan(data: EditionData, players: int) -> _Plan:
    key = (id(data), players)
    cached = _PLANS.get(key)
    if cached is not None and cached[0] is data:
        return cached[1]
    segments = layout(data, players)
    last = segments[-1]
    at = {s.name: s.offset for s in segments}
    loc = {place: i for i, place in enumerate(locations(data))}
    pending_size = sum(s.size for s in segments if s.name.startswith("pending_"))
    plan = _Plan(
        last.offset + last.size,
        at,
        {t: i for i, t in enumerate(_tiles(data))},
        len(loc),
        loc,
        tuple(c.id for c in data.cities),
        pending_size,
        tuple(tuple(at[f"p{seat}_{part}"] for part in _SEAT_PARTS) for seat in range(data.seats(players))),
        at["p1_members"] - at["p0_members"],
        at["p0_members"] - at["supply_cubes"],
    )
    _PLANS[key] = (data, plan)
    return plan


_SEATS: dict[int, tuple[PlayerState, _Plan, np.ndarray]] = {}
"""A seat's block of the tensor (its members, counts, cubes, goods, customers, markers:
the `p<seat>_…` segments, which are contiguous and laid out alike for every seat), by the
identity of its `PlayerState`: the engine's states are immutable and a new state shares
every seat it did not change, so along a game most seats are looked up, not rebuilt. The
entry keeps the object alive, so its id cannot be reused while it is cached."""
SEAT_CACHE_SIZE = 4096
"""Entries kept before the cache starts again empty (a bound on memory, not on time)."""


def _seat_block(plan: _Plan, p: PlayerState) -> np.ndarray:
    """The seat's `p<seat>_…` segments as one float32 block (read-only: it is shared)."""
    hit = _SEATS.get(id(p))
    if hit is not None and hit[0] is p and hit[1] is plan:
        return hit[2]
    members, c, cubes_at, goods_at, served, markers = (o - plan.seats[0][0] for o in plan.seats[0])
    block = np.zeros(plan.seat_size, np.float32)
    locs, loc = plan.locs, plan.loc
    block[[members + j * locs + loc[place] for j, place in enumerate(p.members)]] = 1.0
    block[c : c + 4] = (p.grain, p.coins, p.lifetime, p.prestige)
    for cube, v in p.cubes.items:
        block[cubes_at + _CUBE[cube]] = v
    for good, v in p.goods.items:
        block[goods_at + _GOOD[good]] = v
    for k, t in enumerate(p.customers):
        block[served + plan.tile[t]] = k + 1
    for i, city in enumerate(plan.cities):
        if city in p.markers:
            block[markers + i] = 1.0
    block.flags.writeable = False
    if len(_SEATS) >= SEAT_CACHE_SIZE:
        _SEATS.clear()
    _SEATS[id(p)] = (p, plan, block)
    return block


_BOARDS: dict[tuple[int, ...], tuple[tuple[object, ...], np.ndarray]] = {}
"""The board's block (`supply_cubes` to `black_bag`, contiguous), by the identities of
the parts it is made of, as `_SEATS` keeps the seats' blocks."""


def _board_block(plan: _Plan, state: GameState) -> np.ndarray:
    """The segments `supply_cubes` … `black_bag` as one float32 block (read-only: shared)."""
    parts = (
        state.supply,
        state.green_bag,
        state.spaces,
        state.market_available,
        state.market_waiting,
        state.customer_pile,
    )
    key = (*map(id, parts), id(plan), state.bag_monks, state.monks_aside)
    hit = _BOARDS.get(key)
    if hit is not None and all(a is b for a, b in zip(hit[0], parts, strict=True)):
        return hit[1]
    at, first = plan.at, plan.at["supply_cubes"]
    where: list[int] = []
    values: list[int] = []
    for offset, tally in (
        (at["supply_cubes"], state.supply.cubes),
        (at["green_bag"], state.green_bag),
        *((at["spaces"] + i * _CUBES, space) for i, space in enumerate(state.spaces)),
    ):
        for cube, count in tally.items:
            where.append(offset - first + _CUBE[cube])
            values.append(count)
    coins = at["supply_coins_grain"] - first
    where += [coins, coins + 1]
    values += [state.supply.coins, state.supply.grain]
    goods = at["supply_goods"] - first
    for good, count in state.supply.goods.items:
        where.append(goods + _GOOD[good])
        values.append(count)
    width, tile = len(plan.tile) + 1, plan.tile
    for name, row in (("market_available", state.market_available), ("market_waiting", state.market_waiting)):
        base = at[name] - first
        where += [base + k * width + (width - 1 if t is None else tile[t]) for k, t in enumerate(row)]
        values += [1] * len(row)
    pile = at["customer_pile"] - first
    where += [pile + tile[t] for t in state.customer_pile]
    values += [1] * len(state.customer_pile)
    bag = at["black_bag"] - first
    where += [bag, bag + 1]
    values += [state.bag_monks, state.monks_aside]
    block = np.zeros(plan.board_size, np.float32)
    block[where] = values
    block.flags.writeable = False
    if len(_BOARDS) >= SEAT_CACHE_SIZE:
        _BOARDS.clear()
    _BOARDS[key] = (parts, block)
    return block


_PENDINGS: dict[tuple[Pending, int], tuple[_Plan, np.ndarray]] = {}
"""The pending segments by the pending step's value (a frozen dataclass: few distinct
ones recur, `ChooseTurn(seat=0)` and the like) and the plan's identity."""


def _pending_block(plan: _Plan, state: GameState) -> np.ndarray:
    """The segments `pending_kind` … `pending_payment` (read-only: shared), built by the
    list version's own `_pending`."""
    key = (state.pending, id(plan))
    hit = _PENDINGS.get(key)
    if hit is not None and hit[0] is plan:
        return hit[1]
    values: list[float] = []

    def one_hot(size: int, index: int | None) -> None:
        block = [0.0] * size
        block[size - 1 if index is None else index] = 1.0
        values.extend(block)

    _pending(state.pending, state, values, one_hot)
    block = np.asarray(values, np.float32)
    block.flags.writeable = False
    if len(_PENDINGS) >= SEAT_CACHE_SIZE:
        _PENDINGS.clear()
    _PENDINGS[key] = (plan, block)
    return block


def observation_array(state: GameState, observer: int, *, dealing: bool = False) -> np.ndarray:
    """`observation_tensor(state, observer, dealing=dealing)` as a float32 NumPy array."""
    n = state.num_players
    if not 0 <= observer < n:
        raise ParameterError("observer", f"must be a seat 0..{n - 1}, got {observer!r}")
    if state.is_solo:
        return np.asarray(observation_tensor(state, observer, dealing=dealing), dtype=np.float32)
    plan = _plan(state.rules.data, n)
    at = plan.at
    out = np.zeros(plan.size, np.float32)
    out[at["observer"] + observer] = 1.0
    current = CHANCE if dealing else state.current_player()
    out[at["current_player"] + (current if current >= 0 else (n if current == CHANCE else n + 1))] = 1.0
    out[at["round"]] = state.round
    out[at["start_player"] + state.start_player] = 1.0
    holder = state.next_start_holder
    out[at["next_start_holder"] + (n if holder is None else holder)] = 1.0
    first = at["supply_cubes"]
    out[first : first + plan.board_size] = _board_block(plan, state)
    size = plan.seat_size
    for offsets, p in zip(plan.seats, state.players, strict=True):
        out[offsets[0] : offsets[0] + size] = _seat_block(plan, p)
    if not dealing:
        base = at["pending_kind"]
        out[base : base + plan.pending_size] = _pending_block(plan, state)
    out[at["turn"] + (n if state.turn is None else state.turn.seat)] = 1.0
    day = state.market_day
    if day is not None:
        base = at["market_day"]
        out[base] = 1.0
        out[base + 1 + day.trigger] = 1.0
        out[base + 1 + n + day.current] = 1.0
        for k, s in enumerate(day.passed):
            out[base + 1 + 2 * n + s] = k + 1
        out[base + 1 + 3 * n : base + 4 + 3 * n] = (day.trigger_sold, day.held_deaths, day.closed)
    if state.mass is not None:
        out[at["mass"] : at["mass"] + 3] = (1, state.mass.bought, state.mass.final)
    out[at["deaths_owed"] : at["deaths_owed"] + n] = state.deaths_owed
    end = state.end_triggered_by
    out[at["end_triggered_by"] + (n if end is None else end)] = 1.0
    if state.final_turns is not None:
        base = at["final_turns"]
        out[base] = 1.0
        for k, s in enumerate(state.final_turns):
            out[base + 1 + s] = k + 1
    return out


def clear_caches() -> None:
    """Forget every cached block (the benchmark times a game from cold this way)."""
    _SEATS.clear()
    _BOARDS.clear()
    _PENDINGS.clear()


__all__ = ["clear_caches", "observation_array"]
