"""Observation encodings for game-tree wrappers and RL code: a fixed, versioned tensor
layout of a state as one player sees it, and the matching strings (docs/rl.md).

Information model. With the order of the green bag, the black bag and the face-down
customer pile resolved as chance at draw time (SEED-02, MASS-03, MKT-07, SET-05), nothing
in Village is private: every piece is on the table, and the customer tiles a player
serves face down (SCORE-05) were seen by everyone when they were served, so a player with
perfect recall knows them. The game is therefore one of perfect information, and every
player's observation is the whole state. The tensor adds only who is looking (`observer`).

The tensor is a flat list of floats, segment after segment as `layout(data, players)`
lists them; counts are raw numbers, choices are one-hot. It is one-to-one on states of
one game (tests/adapters/test_observation.py), so it is also a sufficient statistic of the history:
the engine's future depends on the state alone.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Callable
from dataclasses import dataclass

from village_rules.adapters.observation_parts import (
    PENDING_KINDS,
    SOLO_PENDING_KINDS,
    carla_values,
    customer_tiles,
    pending_entries,
)
from village_rules.data.components import (
    BLACK_BAG,
    CHURCH_RESERVE,
    FARMYARD,
    GRAVEYARD,
    REMOVED,
    UNBORN,
    ActionSpace,
    AtCraft,
    Building,
    Category,
    Cube,
    Good,
    InChronicle,
    Location,
    OnChurch,
    OnCouncil,
    Travelling,
)
from village_rules.data.edition import EditionData
from village_rules.data.solo_data import FateTile
from village_rules.data.tally import Tally
from village_rules.drivers.serialization import to_json
from village_rules.engine.guards import present
from village_rules.errors import ParameterError
from village_rules.model.state import CHANCE, GameState

OBSERVATION_VERSION = 1
"""Bumped whenever `layout` or the meaning of a segment changes."""


@dataclass(frozen=True, slots=True)
class Segment:
    """A named run of the tensor: `size` floats starting at `offset`."""

    name: str
    offset: int
    size: int
    meaning: str


def locations(data: EditionData, solo: bool = False) -> tuple[Location, ...]:
    """Every place a family member can be, in the order of the one-hot member segments;
    a solo game adds Carla's place beside the church track last (SOLO-04)."""
    out: list[Location] = [UNBORN, FARMYARD]
    out += [AtCraft(b) for b in Building]
    out += [OnCouncil(s) for s in range(1, data.council_stages + 1)]
    out += [OnChurch(s) for s in range(1, data.church_stages + 1)]
    out += [Travelling(c.id) for c in data.cities]
    out += [BLACK_BAG]
    out += [InChronicle(c) for c in Category]
    out += [GRAVEYARD, REMOVED]
    if solo:
        out += [CHURCH_RESERVE]
    return tuple(out)


def layout(data: EditionData, players: int) -> tuple[Segment, ...]:
    """The segments of the tensor, in order (version `OBSERVATION_VERSION`). `players=1`
    is a solo game: two seats (the player's, Carla's), Carla's place beside the church in
    the member one-hot, her two pending kinds, and a last segment for her board."""
    solo = players == 1
    n = data.seats(players)
    kinds = SOLO_PENDING_KINDS if solo else PENDING_KINDS
    tiles = len(data.customers)
    members = len(data.family_numbers)
    spec: list[tuple[str, int, str]] = [
        ("observer", n, "one-hot: the seat this observation is for"),
        ("current_player", n + 2, "one-hot: seat to act, then chance, then game over"),
        ("round", 1, "the round number"),
        ("start_player", n, "one-hot: the starting player"),
        ("next_start_holder", n + 1, "one-hot: seat holding the next starting player marker; last: council"),
        ("supply_cubes", len(Cube), "cubes in the general supply, per colour in `Cube` order"),
        ("supply_coins_grain", 2, "coins, grain in the general supply"),
        ("supply_goods", len(Good), "goods tiles in the supply, per good in `Good` order"),
        ("green_bag", len(Cube), "cubes in the green bag, per colour"),
        ("spaces", len(ActionSpace) * len(Cube), "cubes per action space and colour"),
        (
            "market_available",
            _row(data, n, "available") * (tiles + 1),
            "per available market space: one-hot over the tiles (sorted by id), last: empty",
        ),
        (
            "market_waiting",
            _row(data, n, "waiting") * (tiles + 1),
            "per waiting market space: one-hot over the tiles, last: empty",
        ),
        ("customer_pile", tiles, "1 for each tile (sorted by id) in the face-down pile"),
        ("black_bag", 2, "monks in the black bag, monks set aside during the mass"),
    ]
    locs = len(locations(data, solo))
    for seat in range(n):
        spec += [
            (f"p{seat}_members", members * locs, "per member (index order): one-hot over `locations(data)`"),
            (f"p{seat}_counts", 4, "grain, coins, life-time track position, prestige"),
            (f"p{seat}_cubes", len(Cube), "cubes in the farmyard, per colour"),
            (f"p{seat}_goods", len(Good), "goods tiles, per good"),
            (f"p{seat}_customers", tiles, "per tile (by id): 0 not served by this seat, k: served k-th"),
            (f"p{seat}_markers", len(data.cities), "1 for each city (data order) holding this seat's marker"),
        ]
    spec += [
        ("pending_kind", len(kinds), "one-hot: what the game waits for (`PENDING_KINDS` order)"),
        ("pending_seat", n, "one-hot: the seat of a pending decision"),
        ("pending_space", len(ActionSpace), "one-hot: the action space of ChooseAction / SeedDraw"),
        ("pending_number", 1, "max_stage / remaining / position of the pending step, else 0"),
        ("pending_payment", 1, "ChoosePayment: 1 + the id of the action paid for, else 0"),
        ("turn", n + 1, "one-hot: the seat whose turn is in progress; last: none"),
        (
            "market_day",
            1 + 3 * n + 3,
            "present; trigger one-hot; current one-hot; passed per seat (1-based order); "
            "trigger_sold, held_deaths, closed",
        ),
        ("mass", 3, "present, members bought so far, final"),
        ("deaths_owed", n, "deaths owed per seat"),
        ("end_triggered_by", n + 1, "one-hot: the seat that triggered the end; last: not triggered"),
        ("final_turns", 1 + n, "present; per seat 0 or its 1-based place in the final turns to come"),
    ]
    if solo:
        board = present(data.solo, "observation.layout", "the edition's solo data")
        spec += [
            ("carla_space", board.track_spaces + 1, "one-hot: her board's last cube space; last: none yet"),
            ("carla_last_cube", len(Cube) + 1, "one-hot: the colour of that cube; last: none"),
            (
                "carla_fate",
                len(board.fate_slots) * (len(FateTile) + 1),
                "per fate slot: one-hot over `FateTile`; last: face down",
            ),
            ("carla_owed", (len(Cube) + 1) + 2 * (len(ActionSpace) + 1) + 4, _CARLA_OWED),
        ]
    out: list[Segment] = []
    offset = 0
    for name, size, meaning in spec:
        out.append(Segment(name, offset, size, meaning))
        offset += size
    return tuple(out)


_CARLA_OWED = (
    "one-hot colour she looks for (last: none), one-hot space to look from, one-hot space of "
    "the cube she just took (last: none), reacted, quill, a well turn (she does not react, "
    "SOLO-25), the end triggered in her market day (END-04)"
)


def _row(data: EditionData, players: int, row: str) -> int:
    return sum(1 for s in data.market_layout(players) if s.row.value == row)


def tensor_size(data: EditionData, players: int) -> int:
    """The length of the observation tensor for an edition and player count."""
    last = layout(data, players)[-1]
    return last.offset + last.size


def observation_tensor(state: GameState, observer: int, *, dealing: bool = False) -> list[float]:
    """The state as seat `observer` sees it (all of it), laid out as `layout` says.

    With `dealing`, `state` is the board of a setup deal in progress
    (`setup.board_after`): current_player is then chance and every pending segment is 0
    (a state of play always has one pending kind)."""
    data = state.rules.data
    n = state.num_players
    check_observer(observer, n)
    tiles = customer_tiles(data)
    tile_index = {t: i for i, t in enumerate(tiles)}
    loc_index = {loc: i for i, loc in enumerate(locations(data, state.is_solo))}
    out: list[float] = []

    def one_hot(size: int, index: int | None) -> None:
        block = [0.0] * size
        block[size - 1 if index is None else index] = 1.0
        out.extend(block)

    def cube_counts(tally: Tally[Cube]) -> None:
        out.extend(float(tally[k]) for k in Cube)

    def good_counts(tally: Tally[Good]) -> None:
        out.extend(float(tally[k]) for k in Good)

    one_hot(n, observer)
    current = CHANCE if dealing else state.current_player()
    one_hot(n + 2, current if current >= 0 else (n if current == CHANCE else n + 1))
    out.append(float(state.round))
    one_hot(n, state.start_player)
    one_hot(n + 1, state.next_start_holder)
    cube_counts(state.supply.cubes)
    out += [float(state.supply.coins), float(state.supply.grain)]
    good_counts(state.supply.goods)
    cube_counts(state.green_bag)
    for space in state.spaces:
        cube_counts(space)
    for row in (state.market_available, state.market_waiting):
        for slot in row:
            one_hot(len(tiles) + 1, None if slot is None else tile_index[slot])
    pile = set(state.customer_pile)
    out += [1.0 if t in pile else 0.0 for t in tiles]
    out += [float(state.bag_monks), float(state.monks_aside)]
    locs = len(loc_index)
    for p in state.players:
        for loc in p.members:
            one_hot(locs, loc_index[loc])
        out += [float(p.grain), float(p.coins), float(p.lifetime), float(p.prestige)]
        cube_counts(p.cubes)
        good_counts(p.goods)
        served = {t: k + 1 for k, t in enumerate(p.customers)}
        out += [float(served.get(t, 0)) for t in tiles]
        out += [1.0 if c.id in p.markers else 0.0 for c in data.cities]
    if dealing:
        kinds = SOLO_PENDING_KINDS if state.is_solo else PENDING_KINDS
        out.extend([0.0] * (len(kinds) + n + len(ActionSpace) + 2))
    else:
        _pending(state, out, one_hot)
    one_hot(n + 1, None if state.turn is None else state.turn.seat)
    day = state.market_day
    if day is None:
        out += [0.0] * (1 + 3 * n + 3)
    else:
        out.append(1.0)
        one_hot(n, day.trigger)
        one_hot(n, day.current)
        order = {s: k + 1 for k, s in enumerate(day.passed)}
        out += [float(order.get(s, 0)) for s in range(n)]
        out += [float(day.trigger_sold), float(day.held_deaths), float(day.closed)]
    mass = state.mass
    out += [0.0, 0.0, 0.0] if mass is None else [1.0, float(mass.bought), float(mass.final)]
    out += [float(k) for k in state.deaths_owed]
    one_hot(n + 1, state.end_triggered_by)
    if state.final_turns is None:
        out += [0.0] * (1 + n)
    else:
        place = {s: k + 1 for k, s in enumerate(state.final_turns)}
        out += [1.0, *(float(place.get(s, 0)) for s in range(n))]
    if state.carla is not None:
        out += carla_values(state)
    return out


def _pending(state: GameState, out: list[float], one_hot: Callable[[int, int | None], None]) -> None:
    """The `pending_*` segments, from `pending_entries`."""
    n = state.num_players
    kinds = SOLO_PENDING_KINDS if state.is_solo else PENDING_KINDS
    entries = pending_entries(state.pending, state.rules.data)
    one_hot(len(kinds), entries.kind)
    if entries.seat is None:
        out.extend([0.0] * n)
    else:
        one_hot(n, entries.seat)
    if entries.space is None:
        out.extend([0.0] * len(ActionSpace))
    else:
        one_hot(len(ActionSpace), entries.space)
    out += [float(entries.number), float(entries.paid)]


def observation_string(state: GameState, observer: int) -> str:
    """The whole state as the canonical JSON of `to_json` (lossless, so one-to-one); the
    same for every observer, since nothing is private."""
    check_observer(observer, state.num_players)
    return to_json(state)


def check_observer(observer: int, seats: int) -> None:
    """`ParameterError` naming the observer unless it is one of the state's `seats`."""
    if not 0 <= observer < seats:
        raise ParameterError("observer", f"must be a seat 0..{seats - 1}, got {observer!r}")


def tensor_digest(values: list[float]) -> str:
    """A short, exact fingerprint of a tensor (for transcripts): sha256 of its float32 bytes."""
    return hashlib.sha256(struct.pack(f"<{len(values)}f", *values)).hexdigest()[:16]
