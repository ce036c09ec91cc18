"""The observation tensor of `village_rules.adapters.observation` built as a NumPy array
(the adapters' extras bring NumPy), for learning loops.

`observation_tensor` builds the tensor as a list of floats, one-hot block by one-hot
block; at about 2,000 floats that costs more than a step of the engine. Here what is
static per edition data and player count is worked out once (`_Plan`: the layout, every
segment's offset, the index of every member location, tile and city), and a state's
tensor is the join of float32 byte blocks, one per part of the
state (the head, the supply, the green bag, the action spaces, the market, the pile, the
black bag, each seat, the pending step, the tail). The engine's states are immutable and
a step shares every part it did not change with the state before, so along a game each
block is looked up (by the part's identity, or by its value where that is a few small
numbers) and only the one or two parts a step changed are written. The result is the
same tensor, float for float (tests/adapters/test_observation_array.py compares them on
every state of many games; benchmarks/bench_observation.py prints the speed-up).

A solo game's tensor (`layout(data, 1)`) is built the same way, with Carla's seat and a
last block for her board.
"""

from __future__ import annotations

import struct
from collections.abc import Hashable
from dataclasses import dataclass

import numpy as np

from village_rules.adapters.observation import (
    _carla,
    _pending,
    _tiles,
    layout,
    locations,
)
from village_rules.data.components import Cube, Good, Location
from village_rules.data.edition import EditionData
from village_rules.data.tally import Tally
from village_rules.errors import ParameterError
from village_rules.model.carla_board import CarlaBoard
from village_rules.model.state import CHANCE, GameState, PlayerState, Supply

_CUBE = {id(c): i for i, c in enumerate(Cube)}
_GOOD = {id(g): i for i, g in enumerate(Good)}
"""Index by the member's identity (enum members are singletons): an enum hashes in Python,
and hashing them is most of what building a block costs."""
_CUBES = len(Cube)
_GOODS = len(Good)
_SEAT_PARTS = ("members", "counts", "cubes", "goods", "customers", "markers")

CACHE_SIZE = 4096
"""Entries each block cache keeps before it starts again empty (a bound on memory, not on
time)."""


@dataclass(frozen=True, slots=True)
class _Plan:
    """What `layout` fixes for one edition data and player count, ready for indexing."""

    size: int
    at: dict[str, int]
    """Each segment's offset, by name."""
    tile: dict[int, int]
    loc: dict[Location, int]
    at_location: tuple[bytes, ...]
    """Per location (in `locations` order): one member's one-hot, as float32 bytes."""
    city: dict[str, int]
    """Each city's index (data order), by id."""
    seat_rest: tuple[int, ...]
    """The counts, cubes, goods, customers and markers offsets from the end of the members
    segment, then the length of that rest of the block."""
    pending_size: int
    tail_size: int
    """The length of the segments `turn` … `final_turns` (a solo game's Carla segments follow)."""
    no_pending: bytes
    """The pending segments of a board during the deal: all 0."""


_PLANS: dict[tuple[int, int], tuple[EditionData, _Plan]] = {}


def _plan(data: EditionData, players: int) -> _Plan:
    key = (id(data), players)
    cached = _PLANS.get(key)
    if cached is not None and cached[0] is data:
        return cached[1]
    segments = layout(data, players)
    last = segments[-1]
    at = {s.name: s.offset for s in segments}
    pending_size = sum(s.size for s in segments if s.name.startswith("pending_"))
    no_pending = np.zeros(pending_size, np.float32).tobytes()
    places = locations(data, solo=players == 1)
    plan = _Plan(
        size=last.offset + last.size,
        at=at,
        tile={t: i for i, t in enumerate(_tiles(data))},
        loc={place: i for i, place in enumerate(places)},
        at_location=tuple(np.eye(len(places), dtype=np.float32)[i].tobytes() for i in range(len(places))),
        city={c.id: i for i, c in enumerate(data.cities)},
        seat_rest=(
            *(at[f"p0_{part}"] - at["p0_counts"] for part in _SEAT_PARTS[1:]),
            at["p1_members"] - at["p0_counts"],
        ),
        pending_size=pending_size,
        no_pending=no_pending,
        tail_size=at["final_turns"] + 1 + data.seats(players) - at["turn"],
    )
    _PLANS[key] = (data, plan)
    return plan


_SMALL = 64
"""Blocks up to this many floats are packed from a list (`struct`); longer ones are set
item by item in a zeroed NumPy array: whichever is cheaper at that size."""
_PACK: dict[int, struct.Struct] = {}


def _pack(values: list[float]) -> bytes:
    packer = _PACK.get(len(values))
    if packer is None:
        packer = _PACK[len(values)] = struct.Struct(f"<{len(values)}f")
    return packer.pack(*values)


def _frozen(size: int, where: list[int], values: list[float] | None = None) -> bytes:
    """The float32 bytes of `size` zeros with `values` (default 1) at `where`."""
    block: list[float] | np.ndarray = [0.0] * size if size <= _SMALL else np.zeros(size, np.float32)
    if values is None:
        for i in where:
            block[i] = 1.0
    else:
        for i, v in zip(where, values, strict=True):
            block[i] = v
    return _pack(block) if isinstance(block, list) else block.tobytes()


class _Blocks:
    """A cache of blocks for one kind of part: by the part's identity (`by_id`, for the
    engine's immutable objects; the entry keeps the part alive, so its id is not reused
    while cached) or by a hashable value (`by_value`)."""

    __slots__ = ("ids", "values")

    def __init__(self) -> None:
        self.ids: dict[int, tuple[object, object, bytes]] = {}
        self.values: dict[Hashable, bytes] = {}

    def clear(self) -> None:
        self.ids.clear()
        self.values.clear()

    def keep_id(self, part: object, plan: _Plan, block: bytes) -> bytes:
        if len(self.ids) >= CACHE_SIZE:
            self.ids.clear()
        self.ids[id(part)] = (part, plan, block)
        return block

    def keep_value(self, key: Hashable, block: bytes) -> bytes:
        if len(self.values) >= CACHE_SIZE:
            self.values.clear()
        self.values[key] = block
        return block


_HEAD, _SUPPLY, _GREEN, _SPACES, _MARKET, _PILE, _BAG = (_Blocks() for _ in range(7))
_SEATS, _MEMBERS, _PENDING, _TAIL, _CARLA = _Blocks(), _Blocks(), _Blocks(), _Blocks(), _Blocks()
_ALL = (_HEAD, _SUPPLY, _GREEN, _SPACES, _MARKET, _PILE, _BAG, _SEATS, _MEMBERS, _PENDING, _TAIL, _CARLA)


def _head(plan: _Plan, n: int, observer: int, current: int, state: GameState) -> bytes:
    """observer … next_start_holder."""
    holder = state.next_start_holder
    key = (id(plan), observer, current, state.round, state.start_player, holder)
    hit = _HEAD.values.get(key)
    if hit is not None:
        return hit
    at = plan.at
    block = np.zeros(at["supply_cubes"], np.float32)
    block[at["observer"] + observer] = 1.0
    block[at["current_player"] + (current if current >= 0 else (n if current == CHANCE else n + 1))] = 1.0
    block[at["round"]] = state.round
    block[at["start_player"] + state.start_player] = 1.0
    block[at["next_start_holder"] + (n if holder is None else holder)] = 1.0
    return _HEAD.keep_value(key, block.tobytes())


def _supply(plan: _Plan, supply: Supply) -> bytes:
    """supply_cubes, supply_coins_grain, supply_goods."""
    hit = _SUPPLY.ids.get(id(supply))
    if hit is not None and hit[0] is supply and hit[1] is plan:
        return hit[2]
    values = [0.0] * (_CUBES + 2 + _GOODS)
    for c, v in supply.cubes.items:
        values[_CUBE[id(c)]] = v
    values[_CUBES] = supply.coins
    values[_CUBES + 1] = supply.grain
    for g, v in supply.goods.items:
        values[_CUBES + 2 + _GOOD[id(g)]] = v
    return _SUPPLY.keep_id(supply, plan, _pack(values))


def _green(plan: _Plan, bag: Tally[Cube]) -> bytes:
    """Cubes per colour of a tally of cubes (the green bag, an action space)."""
    hit = _GREEN.ids.get(id(bag))
    if hit is not None and hit[0] is bag and hit[1] is plan:
        return hit[2]
    values = [0.0] * _CUBES
    for c, v in bag.items:
        values[_CUBE[id(c)]] = v
    return _GREEN.keep_id(bag, plan, _pack(values))


def _spaces(plan: _Plan, spaces: tuple[Tally[Cube], ...], known: list[tuple[object, bytes]]) -> bytes:
    """Cubes per action space: the spaces' own blocks joined (a step changes one or two);
    `known` holds the last (space, block) pair of each space, updated here."""
    hit = _SPACES.ids.get(id(spaces))
    if hit is not None and hit[0] is spaces and hit[1] is plan:
        return hit[2]
    if len(known) != len(spaces):
        known[:] = [(None, b"")] * len(spaces)
    blocks: list[bytes] = []
    for i, space in enumerate(spaces):
        pair = known[i]
        if pair[0] is not space:
            pair = known[i] = (space, _green(plan, space))
        blocks.append(pair[1])  # this call's own pairs, whatever another call stores meanwhile
    return _SPACES.keep_id(spaces, plan, b"".join(blocks))


def _market(plan: _Plan, available: tuple[int | None, ...], waiting: tuple[int | None, ...]) -> bytes:
    """market_available, market_waiting."""
    key = (id(plan), available, waiting)
    hit = _MARKET.values.get(key)
    if hit is not None:
        return hit
    width, tile = len(plan.tile) + 1, plan.tile
    row = available + waiting
    where = [k * width + (width - 1 if t is None else tile[t]) for k, t in enumerate(row)]
    return _MARKET.keep_value(key, _frozen(len(row) * width, where))


def _pile(plan: _Plan, pile: tuple[int, ...]) -> bytes:
    key = (id(plan), pile)
    hit = _PILE.values.get(key)
    if hit is not None:
        return hit
    return _PILE.keep_value(key, _frozen(len(plan.tile), [plan.tile[t] for t in pile]))


def _bag(monks: int, aside: int) -> bytes:
    key = (monks, aside)
    hit = _BAG.values.get(key)
    if hit is not None:
        return hit
    return _BAG.keep_value(key, _frozen(2, [0, 1], [monks, aside]))


def _members(plan: _Plan, members: tuple[Location, ...]) -> bytes:
    """The members segment, one location one-hot per member, by the identity of the
    members tuple: a step that changes a seat's grain or coins keeps its members tuple,
    and looking a location up (an enum inside a dataclass, hashed in Python) is what a
    seat costs most."""
    hit = _MEMBERS.ids.get(id(members))
    if hit is not None and hit[0] is members and hit[1] is plan:
        return hit[2]
    at, loc = plan.at_location, plan.loc
    return _MEMBERS.keep_id(members, plan, b"".join([at[loc[place]] for place in members]))


def _seat(plan: _Plan, p: PlayerState) -> bytes:
    """The seat's `p<seat>_…` segments (contiguous, laid out alike for every seat): its
    members' block and the rest."""
    hit = _SEATS.ids.get(id(p))
    if hit is not None and hit[0] is p and hit[1] is plan:
        return hit[2]
    c, cubes_at, goods_at, served, markers, size = plan.seat_rest
    rest = [0.0] * size
    rest[c : c + 4] = (p.grain, p.coins, p.lifetime, p.prestige)
    for cube, v in p.cubes.items:
        rest[cubes_at + _CUBE[id(cube)]] = v
    for good, v in p.goods.items:
        rest[goods_at + _GOOD[id(good)]] = v
    tile = plan.tile
    for k, t in enumerate(p.customers):
        rest[served + tile[t]] = k + 1
    city = plan.city
    for marked in p.markers:
        rest[markers + city[marked]] = 1.0
    return _SEATS.keep_id(p, plan, _members(plan, p.members) + _pack(rest))


def _pending_block(plan: _Plan, state: GameState) -> bytes:
    """pending_kind … pending_payment, by the pending step's value (a frozen dataclass: few
    distinct ones recur), built by the list version's own `_pending`."""
    pending = state.pending  # (the same object as last time is `_Last`'s shortcut)
    key = (id(plan), pending)
    hit = _PENDING.values.get(key)
    if hit is not None:
        return hit
    values: list[float] = []

    def one_hot(size: int, index: int | None) -> None:
        block = [0.0] * size
        block[size - 1 if index is None else index] = 1.0
        values.extend(block)

    _pending(state.pending, state, values, one_hot)
    return _PENDING.keep_value(key, np.asarray(values, np.float32).tobytes())


def _tail(plan: _Plan, n: int, state: GameState) -> bytes:
    """turn … final_turns, by value (the turn, market day and mass are frozen dataclasses)."""
    turn, day, mass, end, final = (
        state.turn,
        state.market_day,
        state.mass,
        state.end_triggered_by,
        state.final_turns,
    )
    key = (id(plan), turn, day, mass, state.deaths_owed, end, final)
    hit = _TAIL.values.get(key)
    if hit is not None:
        return hit
    at = plan.at
    first = at["turn"]
    out = np.zeros(plan.tail_size, np.float32)
    out[(n if turn is None else turn.seat)] = 1.0
    if day is not None:
        base = at["market_day"] - first
        out[base] = 1.0
        out[base + 1 + day.trigger] = 1.0
        out[base + 1 + n + day.current] = 1.0
        for k, s in enumerate(day.passed):
            out[base + 1 + 2 * n + s] = k + 1
        out[base + 1 + 3 * n : base + 4 + 3 * n] = (day.trigger_sold, day.held_deaths, day.closed)
    if mass is not None:
        base = at["mass"] - first
        out[base : base + 3] = (1, mass.bought, mass.final)
    base = at["deaths_owed"] - first
    out[base : base + n] = state.deaths_owed
    out[at["end_triggered_by"] - first + (n if end is None else end)] = 1.0
    if final is not None:
        base = at["final_turns"] - first
        out[base] = 1.0
        for k, s in enumerate(final):
            out[base + 1 + s] = k + 1
    return _TAIL.keep_value(key, out.tobytes())


class _Last:
    """The parts of the last state observed with a plan, each with its block: a learning
    loop observes each state after the one before, which shares most parts with it, so a
    part that *is* the last one (identity, no hashing) takes its block from here before any
    cache is looked up. Each entry is one (part, block) pair, stored in one assignment."""

    __slots__ = (
        "bag",
        "green",
        "head",
        "market",
        "pending",
        "pile",
        "seats",
        "space_blocks",
        "spaces",
        "supply",
        "tail",
    )

    def __init__(self) -> None:
        none: tuple[object, bytes] = (None, b"")
        self.supply = self.green = self.spaces = self.pending = self.pile = none
        self.head = self.bag = self.tail = none
        """Value-keyed parts: (key, block), the key compared with `==` (a tuple compares
        its items by identity first, so an unchanged key costs no hashing)."""
        self.market: tuple[object, object, bytes] = (None, None, b"")
        self.seats: list[tuple[object, bytes]] = []
        self.space_blocks: list[tuple[object, bytes]] = []


_LAST: dict[int, tuple[_Plan, _Last]] = {}


def observation_array(state: GameState, observer: int, *, dealing: bool = False) -> np.ndarray:
    """`observation_tensor(state, observer, dealing=dealing)` as a float32 NumPy array."""
    n = state.num_players
    if not 0 <= observer < n:
        raise ParameterError("observer", f"must be a seat 0..{n - 1}, got {observer!r}")
    plan = _plan(state.rules.data, 1 if state.is_solo else n)
    hit = _LAST.get(id(plan))
    if hit is None or hit[0] is not plan:
        hit = _LAST[id(plan)] = (plan, _Last())
    last = hit[1]
    supply, green, spaces = last.supply, last.green, last.spaces
    if supply[0] is not state.supply:
        supply = last.supply = (state.supply, _supply(plan, state.supply))
    if green[0] is not state.green_bag:
        green = last.green = (state.green_bag, _green(plan, state.green_bag))
    if spaces[0] is not state.spaces:
        spaces = last.spaces = (state.spaces, _spaces(plan, state.spaces, last.space_blocks))
    head = last.head
    current = CHANCE if dealing else state.current_player()
    key = (observer, current, state.round, state.start_player, state.next_start_holder)
    if head[0] != key:
        head = last.head = (key, _head(plan, n, observer, current, state))
    market, pile, bag = last.market, last.pile, last.bag
    if market[0] is not state.market_available or market[1] is not state.market_waiting:
        available, waiting = state.market_available, state.market_waiting
        market = last.market = (available, waiting, _market(plan, available, waiting))
    if pile[0] is not state.customer_pile:
        pile = last.pile = (state.customer_pile, _pile(plan, state.customer_pile))
    monks = (state.bag_monks, state.monks_aside)
    if bag[0] != monks:
        bag = last.bag = (monks, _bag(*monks))
    blocks = [head[1], supply[1], green[1], spaces[1], market[2], pile[1], bag[1]]
    seats = last.seats
    if len(seats) != n:
        seats = last.seats = [(None, b"")] * n
    for seat, p in enumerate(state.players):
        known = seats[seat]
        if known[0] is not p:
            known = seats[seat] = (p, _seat(plan, p))
        blocks.append(known[1])
    if dealing:
        blocks.append(plan.no_pending)
    else:
        pending = last.pending
        if pending[0] is not state.pending:
            pending = last.pending = (state.pending, _pending_block(plan, state))
        blocks.append(pending[1])
    tail = last.tail
    rest: tuple[object, ...] = (state.turn, state.market_day, state.mass, state.deaths_owed)
    rest += (state.end_triggered_by, state.final_turns)
    if tail[0] != rest:
        tail = last.tail = (rest, _tail(plan, n, state))
    blocks.append(tail[1])
    if state.carla is not None:
        blocks.append(_carla_block(state.carla, state))
    # One join of the blocks' bytes and one copy into a fresh, writable array: composing
    # small NumPy arrays (np.concatenate, slice assignments) costs more per block.
    return np.frombuffer(bytearray(b"".join(blocks)), np.float32)


def _carla_block(carla: CarlaBoard, state: GameState) -> bytes:
    """A solo game's `carla_…` segments, by the value of Carla's board (a frozen
    dataclass), built by the list version's own `_carla`."""
    hit = _CARLA.values.get(carla)
    if hit is not None:
        return hit
    values: list[float] = []

    def one_hot(size: int, index: int | None) -> None:
        block = [0.0] * size
        block[size - 1 if index is None else index] = 1.0
        values.extend(block)

    _carla(state, values, one_hot)
    return _CARLA.keep_value(carla, np.asarray(values, np.float32).tobytes())


def clear_caches() -> None:
    """Forget every cached block (the benchmark times a game from cold this way)."""
    for cache in _ALL:
        cache.clear()
    _LAST.clear()


__all__ = ["CACHE_SIZE", "clear_caches", "observation_array"]
