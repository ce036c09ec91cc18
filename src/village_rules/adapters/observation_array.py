"""The observation tensor of `village_rules.adapters.observation` built as a NumPy array
(the adapters' extras bring NumPy), for learning loops.

`observation_tensor` builds the tensor as a list of floats, one-hot block by one-hot
block; at about 2,000 floats that costs more than a step of the engine. Here:

- what is static per edition data and player count is worked out once (`_Plan`: every
  segment's offset, the index of every member location, tile and city, the one-hot bytes
  of each member location, the packers of each segment size);
- each plan keeps one preallocated float32 buffer holding the tensor of the last state it
  was asked for, together with the parts of that state it was written from (`_Written`);
- the engine's states are immutable and a step shares every part it did not change with
  the state before (the same objects), so a call compares each part of the new state with
  the written one by identity (or, for a few small numbers, by value) and rewrites only
  the segments of the parts that differ: along a game that is the one or two parts a step
  changed, and a state from anywhere (a search tree) costs at most a full write;
- the result is a copy of the buffer, so callers own their arrays.

The result is the list version's tensor float for float (tests/adapters/test_observation_array.py
compares them on every state of games of every edition and player count, in game order,
shuffled and interleaved; benchmarks/bench_observation.py prints the speed-up). Both
builders read the pending step and Carla's board through `observation_parts`.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TypeVar

import numpy as np

from village_rules.adapters.observation import layout, locations
from village_rules.adapters.observation_parts import (
    CUBES,
    PENDING_KINDS,
    SOLO_PENDING_KINDS,
    SPACES,
    carla_ones,
    customer_tiles,
    pending_entries,
)
from village_rules.data.components import Cube, Good, Location
from village_rules.data.edition import EditionData
from village_rules.data.tally import Tally
from village_rules.errors import ParameterError
from village_rules.model.state import CHANCE, GameState, PlayerState

K = TypeVar("K", Cube, Good)

_CUBE = {c: i for i, c in enumerate(Cube)}
_GOOD = {g: i for i, g in enumerate(Good)}
_GOODS = len(Good)
_F = 4
"""Bytes per float32."""
_ONE = struct.pack("<f", 1.0)

_PACKERS: dict[int, struct.Struct] = {}


def _packer(size: int) -> struct.Struct:
    """The little-endian float32 packer of `size` values (one per size, made once)."""
    packer = _PACKERS.get(size)
    if packer is None:
        packer = _PACKERS[size] = struct.Struct(f"<{size}f")
    return packer


_NOTHING = object()
"""A part no state has: what `_Written` holds for a segment not written yet."""
_DEALING = object()
"""The pending part of a board during the setup's deal (its pending segments are all 0)."""


@dataclass(slots=True)
class _Seat:
    """The parts one seat's segments were last written from."""

    player: object = _NOTHING
    members: tuple[object, ...] = ()
    places: list[object] = field(default_factory=list)
    counts: tuple[int, ...] = ()
    cubes: object = _NOTHING
    goods: object = _NOTHING
    customers: object = _NOTHING
    markers: object = _NOTHING


@dataclass(slots=True)
class _Written:
    """One plan's buffer and the parts of the state its segments were last written from."""

    array: np.ndarray
    """The tensor last written (float32)."""
    buffer: memoryview
    """Its bytes, written through `struct` and by slices."""
    seats: list[_Seat]
    spaces_count: int
    head: tuple[object, ...] = ()
    supply: object = _NOTHING
    green: object = _NOTHING
    spaces: object = _NOTHING
    space: list[object] = field(default_factory=list)
    market: tuple[object, object] = (_NOTHING, _NOTHING)
    pile: object = _NOTHING
    bag: tuple[int, int] = (-1, -1)
    pending: object = _NOTHING
    tail: tuple[object, ...] = (_NOTHING,)
    carla: object = _NOTHING
    heads: dict[object, bytes] = field(default_factory=dict)
    pendings: dict[object, bytes] = field(default_factory=dict)
    tails: dict[object, bytes] = field(default_factory=dict)
    """This plan's blocks by value: a head (its key), a pending step (the frozen step
    itself), a tail (its parts). Few distinct ones recur throughout a game, and looking one
    up costs less than working it out again."""

    def forget(self) -> None:
        """Mark every segment unwritten (after a failed call, or to start cold)."""
        self.head, self.supply, self.green, self.spaces = (), _NOTHING, _NOTHING, _NOTHING
        self.space = [_NOTHING] * self.spaces_count
        self.market, self.pile, self.bag = (_NOTHING, _NOTHING), _NOTHING, (-1, -1)
        self.pending, self.tail, self.carla = _NOTHING, (_NOTHING,), _NOTHING
        self.seats = [_Seat() for _ in self.seats]


@dataclass(frozen=True, slots=True)
class _Plan:
    """What `layout` fixes for one edition data and player count, ready for writing: byte
    offsets (`b_…`), index maps and one `struct` packer per segment size."""

    data: EditionData
    n: int
    """Seats (a solo game has two: the player's and Carla's)."""
    at: dict[str, int]
    """Each segment's offset in floats, by name."""
    tile: dict[int, int]
    loc: dict[Location, int]
    at_location: tuple[bytes, ...]
    """Per location (in `locations` order): one member's one-hot, as float32 bytes."""
    member_bytes: int
    city: dict[str, int]
    b_seat: tuple[int, ...]
    """Each seat's first byte (its members segment)."""
    b_rest: tuple[int, int, int, int, int]
    """The counts, cubes, goods, customers and markers byte offsets from a seat's first."""
    kinds: int
    b: dict[str, int]
    """Each segment's byte offset, by name."""
    market: struct.Struct
    tiles: struct.Struct
    bag: struct.Struct
    counts: struct.Struct
    markers: struct.Struct
    tail: struct.Struct
    written: _Written


_PLANS: dict[tuple[int, int], _Plan] = {}


def _plan(data: EditionData, players: int) -> _Plan:
    plan = _PLANS.get((id(data), players))
    if plan is not None and plan.data is data:
        return plan
    segments = layout(data, players)
    at = {s.name: s.offset for s in segments}
    places = locations(data, solo=players == 1)
    n = data.seats(players)
    size = segments[-1].offset + segments[-1].size
    first = at["p0_members"]
    kinds = len(SOLO_PENDING_KINDS if players == 1 else PENDING_KINDS)
    tiles = len(data.customers)
    plan = _PLANS[(id(data), players)] = _Plan(
        data=data,
        n=n,
        at=at,
        tile={t: i for i, t in enumerate(customer_tiles(data))},
        loc={place: i for i, place in enumerate(places)},
        at_location=tuple(np.eye(len(places), dtype=np.float32)[i].tobytes() for i in range(len(places))),
        member_bytes=len(places) * _F,
        city={c.id: i for i, c in enumerate(data.cities)},
        b_seat=tuple(at[f"p{seat}_members"] * _F for seat in range(n)),
        b_rest=(
            (at["p0_counts"] - first) * _F,
            (at["p0_cubes"] - first) * _F,
            (at["p0_goods"] - first) * _F,
            (at["p0_customers"] - first) * _F,
            (at["p0_markers"] - first) * _F,
        ),
        kinds=kinds,
        b={name: offset * _F for name, offset in at.items()},
        market=_packer(at["customer_pile"] - at["market_available"]),
        tiles=_packer(tiles),
        bag=_packer(2),
        counts=_packer(4),
        markers=_packer(len(data.cities)),
        tail=_packer(at["final_turns"] + 1 + n - at["turn"]),
        written=_new_written(size, n, (at["market_available"] - at["spaces"]) // CUBES),
    )
    plan.written.forget()
    return plan


def _new_written(size: int, seats: int, spaces: int) -> _Written:
    array = np.zeros(size, np.float32)
    return _Written(array, array.data.cast("B"), [_Seat() for _ in range(seats)], spaces)


CACHE_SIZE = 4096
"""Entries each block cache keeps before it starts again empty (a bound on memory)."""
_CUBE_BLOCKS: dict[object, bytes] = {}
_GOOD_BLOCKS: dict[object, bytes] = {}
"""Float32 bytes of a tally of cubes or goods by its `items` (equal for equal tallies),
one cache per kind, shared by every plan (the blocks do not depend on the layout)."""


def _keep(cache: dict[object, bytes], key: object, values: list[float]) -> bytes:
    block = _packer(len(values)).pack(*values)
    if len(cache) >= CACHE_SIZE:
        cache.clear()
    cache[key] = block
    return block


def _tally_block(
    items: tuple[tuple[K, int], ...], cache: dict[object, bytes], index: Mapping[K, int], size: int
) -> bytes:
    """Float32 bytes of a tally's `items`, one value per kind at its `index` (cached)."""
    block = cache.get(items)
    if block is None:
        values = [0.0] * size
        for kind, v in items:
            values[index[kind]] = v
        block = _keep(cache, items, values)
    return block


def _cubes(tally: Tally[Cube]) -> bytes:
    """Cubes per colour, `Cube` order."""
    return _tally_block(tally.items, _CUBE_BLOCKS, _CUBE, CUBES)


def _goods(tally: Tally[Good]) -> bytes:
    """Goods tiles per good, `Good` order."""
    return _tally_block(tally.items, _GOOD_BLOCKS, _GOOD, _GOODS)


def observation_array(state: GameState, observer: int, *, dealing: bool = False) -> np.ndarray:
    """`observation_tensor(state, observer, dealing=dealing)` as a float32 NumPy array."""
    n = len(state.players)
    if not 0 <= observer < n:
        raise ParameterError("observer", f"must be a seat 0..{n - 1}, got {observer!r}")
    plan = _plan(state.rules.data, 1 if state.carla is not None else n)
    written = plan.written
    try:
        _update(plan, written, state, observer, dealing)
    except BaseException:
        written.forget()  # a segment may be half written: write everything next time
        raise
    return written.array.copy()


def _update(plan: _Plan, written: _Written, state: GameState, observer: int, dealing: bool) -> None:
    """Rewrite the segments of every part of `state` that is not the part written last."""
    buffer, b = written.buffer, plan.b
    current = CHANCE if dealing else state.current_player()
    head: _Head = (observer, current, state.round, state.start_player, state.next_start_holder)
    if head != written.head:
        _head(plan, head)
        written.head = head
    supply = state.supply
    if supply is not written.supply:
        at = b["supply_cubes"]
        buffer[at : at + CUBES * _F] = _cubes(supply.cubes)
        plan.bag.pack_into(buffer, b["supply_coins_grain"], supply.coins, supply.grain)
        at = b["supply_goods"]
        buffer[at : at + _GOODS * _F] = _goods(supply.goods)
        written.supply = supply
    if state.green_bag is not written.green:
        at = b["green_bag"]
        buffer[at : at + CUBES * _F] = _cubes(state.green_bag)
        written.green = state.green_bag
    if state.spaces is not written.spaces:
        known, at = written.space, b["spaces"]
        for i, space in enumerate(state.spaces):
            if space is not known[i]:
                buffer[at : at + CUBES * _F] = _cubes(space)
                known[i] = space
            at += CUBES * _F
        written.spaces = state.spaces
    available, waiting = state.market_available, state.market_waiting
    if available is not written.market[0] or waiting is not written.market[1]:
        width, tile = len(plan.tile) + 1, plan.tile
        row = [0.0] * (width * (len(available) + len(waiting)))
        for k, t in enumerate(available + waiting):
            row[k * width + (width - 1 if t is None else tile[t])] = 1.0
        plan.market.pack_into(buffer, b["market_available"], *row)
        written.market = (available, waiting)
    if state.customer_pile is not written.pile:
        pile = [0.0] * len(plan.tile)
        for t in state.customer_pile:
            pile[plan.tile[t]] = 1.0
        plan.tiles.pack_into(buffer, b["customer_pile"], *pile)
        written.pile = state.customer_pile
    bag = (state.bag_monks, state.monks_aside)
    if bag != written.bag:
        plan.bag.pack_into(buffer, b["black_bag"], *bag)
        written.bag = bag
    seats = written.seats
    for seat, p in enumerate(state.players):
        if p is not seats[seat].player:
            _seat(plan, buffer, plan.b_seat[seat], p, seats[seat])
    pending = _DEALING if dealing else state.pending
    if pending is not written.pending:
        _pending(plan, pending)
        written.pending = pending
    tail = (
        state.turn,
        state.market_day,
        state.mass,
        state.deaths_owed,
        state.end_triggered_by,
        state.final_turns,
    )
    if tail != written.tail:
        _tail(plan, state, tail)
        written.tail = tail
    carla = state.carla
    if carla is not None and carla is not written.carla:
        size, ones = carla_ones(state)  # 0s and 1s only: clear the segment, set the 1s
        at = b["carla_space"]
        buffer[at : at + size * _F] = bytes(size * _F)
        for i in ones:
            buffer[at + i * _F : at + (i + 1) * _F] = _ONE
        written.carla = carla


_Head = tuple[int, int, int, int, int | None]
"""observer, current player (or CHANCE / TERMINAL), round, start player, next start holder."""


def _head(plan: _Plan, key: _Head) -> None:
    """observer … next_start_holder (laid out by the number of seats alone)."""
    n, cache = plan.n, plan.written.heads
    block = cache.get(key)
    if block is None:
        at = plan.at
        observer, current, round_, start, holder = key
        head = [0.0] * at["supply_cubes"]
        head[at["observer"] + observer] = 1.0
        head[at["current_player"] + (current if current >= 0 else (n if current == CHANCE else n + 1))] = 1.0
        head[at["round"]] = round_
        head[at["start_player"] + start] = 1.0
        head[at["next_start_holder"] + (n if holder is None else holder)] = 1.0
        block = _keep(cache, key, head)
    plan.written.buffer[0 : len(block)] = block


def _seat(plan: _Plan, buffer: memoryview, first: int, p: PlayerState, known: _Seat) -> None:
    """The seat's `p<seat>_…` segments, each rewritten only where its part changed: the
    members one by one (a step moves one), then the counts, cubes, goods, customers and
    markers."""
    if p.members is not known.members:
        places, size, one_hot = known.places, plan.member_bytes, plan.at_location
        if len(places) != len(p.members):
            places[:] = [_NOTHING] * len(p.members)
        for i, place in enumerate(p.members):
            if place is not places[i]:
                start = first + i * size
                buffer[start : start + size] = one_hot[plan.loc[place]]
                places[i] = place
        known.members = p.members
    counts_at, cubes_at, goods_at, served_at, markers_at = plan.b_rest
    counts = (p.grain, p.coins, p.lifetime, p.prestige)
    if counts != known.counts:
        plan.counts.pack_into(buffer, first + counts_at, *counts)
        known.counts = counts
    if p.cubes is not known.cubes:
        at = first + cubes_at
        buffer[at : at + CUBES * _F] = _cubes(p.cubes)
        known.cubes = p.cubes
    if p.goods is not known.goods:
        at = first + goods_at
        buffer[at : at + _GOODS * _F] = _goods(p.goods)
        known.goods = p.goods
    if p.customers is not known.customers:
        served, tile = [0.0] * len(plan.tile), plan.tile
        for k, t in enumerate(p.customers):
            served[tile[t]] = k + 1
        plan.tiles.pack_into(buffer, first + served_at, *served)
        known.customers = p.customers
    if p.markers is not known.markers:
        marked, city = [0.0] * len(plan.city), plan.city
        for c in p.markers:
            marked[city[c]] = 1.0
        plan.markers.pack_into(buffer, first + markers_at, *marked)
        known.markers = p.markers
    known.player = p


def _pending(plan: _Plan, pending: object) -> None:
    """pending_kind … pending_payment (all 0 during the deal), by the pending step."""
    cache = plan.written.pendings
    block = cache.get(pending)
    if block is None:
        n, kinds = plan.n, plan.kinds
        values = [0.0] * (kinds + n + SPACES + 2)
        if pending is not _DEALING:
            kind, seat, space, number, paid = pending_entries(pending, plan.data)  # type: ignore[arg-type]
            values[kind] = 1.0
            if seat is not None:
                values[kinds + seat] = 1.0
            if space is not None:
                values[kinds + n + space] = 1.0
            values[-2], values[-1] = number, paid
        block = _keep(cache, pending, values)
    at = plan.b["pending_kind"]
    plan.written.buffer[at : at + len(block)] = block


def _tail(plan: _Plan, state: GameState, key: tuple[object, ...]) -> None:
    """turn … final_turns, by their parts (`key`)."""
    cache = plan.written.tails
    block = cache.get(key)
    if block is None:
        block = _keep(cache, key, _tail_values(plan, state))
    at = plan.b["turn"]
    plan.written.buffer[at : at + len(block)] = block


def _tail_values(plan: _Plan, state: GameState) -> list[float]:
    at, n = plan.at, plan.n
    first = at["turn"]
    out = [0.0] * (plan.tail.size // _F)
    out[n if state.turn is None else state.turn.seat] = 1.0
    day = state.market_day
    if day is not None:
        base = at["market_day"] - first
        out[base] = 1.0
        out[base + 1 + day.trigger] = 1.0
        out[base + 1 + n + day.current] = 1.0
        for k, s in enumerate(day.passed):
            out[base + 1 + 2 * n + s] = k + 1
        out[base + 1 + 3 * n : base + 4 + 3 * n] = (day.trigger_sold, day.held_deaths, day.closed)
    mass = state.mass
    if mass is not None:
        base = at["mass"] - first
        out[base : base + 3] = (1, mass.bought, mass.final)
    base = at["deaths_owed"] - first
    out[base : base + n] = state.deaths_owed
    end = state.end_triggered_by
    out[at["end_triggered_by"] - first + (n if end is None else end)] = 1.0
    if state.final_turns is not None:
        base = at["final_turns"] - first
        out[base] = 1.0
        for k, s in enumerate(state.final_turns):
            out[base + 1 + s] = k + 1
    return out


def clear_caches() -> None:
    """Forget every plan, written buffer and cached block (the benchmark times a game from
    cold this way)."""
    _PLANS.clear()
    _CUBE_BLOCKS.clear()
    _GOOD_BLOCKS.clear()


__all__ = ["CACHE_SIZE", "clear_caches", "observation_array"]
