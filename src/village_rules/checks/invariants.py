"""Invariant checkers: what must hold in every reachable state and across every transition.

Each checker is a pure function of a state (or of a transition) returning a list of
`Violation`s, empty when the state is sound. `state_violations` runs them all, `check`
raises `InvariantError` listing every violation found. They are cheap (single passes over
the pieces, nothing copied) so a fuzz run can check every step.

Invariant names (the `invariant` field of a `Violation`) are the constants below; tests
and reports can match them exactly.

Conservation (every finite component is somewhere, exactly once):
  - cubes per colour, plague included: supply + green bag + action spaces + farmyards;
  - coins, grain and each goods type: supply + farmyards;
  - customer tiles: pile + market rows + served by players, each tile exactly once;
  - monks: in the black bag + set aside during a mass;
  - disc markers: at most the edition's number per player;
  - family members: one location each, as many per player as the edition has numbers.

Structure: grain capacity, no negative counts, chronicle and graveyard capacity, removed
members only once the end is triggered, markers on distinct cities, the life-time token on
its track, valid council / church stages and travel cities, valid seats, the well never
offered with an empty board, the market rows of the layout, exact chance distributions,
the pending step consistent with the turn / market day / mass in progress, the end
triggered exactly when the chronicle or the graveyard is full, and the fast legal actions
equal to the generate-and-filter oracle's (given the legal actions).

Transition: the dead stay dead, born members never become unborn again, prestige and the
round never decrease, served customers and placed markers stay.

These functions are the reference. A loop that checks every step of a game (the fuzzer,
the `VillageMachine`, the benchmarks) uses `village_rules.checks.incremental.IncrementalChecker`,
which returns exactly `state_violations(after, legal) + transition_violations(before,
action, after)` but reruns only the checks whose inputs the step changed (compared by
identity with the last state checked), with cheap sound-tests over the changed parts and
these functions themselves whenever a test is unsure; `tests/checks/test_incremental.py` checks
the two agree. The memos below (parts found sound, by identity) are a speed device of these
functions alone and give the same results.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from itertools import repeat
from math import lcm
from operator import floordiv, itemgetter, mul
from typing import Protocol, TypeVar, assert_never

from village_rules.data.components import (
    INFLUENCE,
    ActionSpace,
    AtCraft,
    Building,
    Category,
    ChurchReserve,
    Cube,
    Farmyard,
    Good,
    InBlackBag,
    InChronicle,
    InGraveyard,
    Location,
    OnChurch,
    OnCouncil,
    Removed,
    Travelling,
    Unborn,
    format_location,
)
from village_rules.data.edition import EditionData, Row
from village_rules.data.tally import Tally
from village_rules.engine.core import apply, chance_outcomes, legal_actions, legal_actions_oracle
from village_rules.errors import VillageError
from village_rules.model.actions import Action, TakeCube, Well, format_action, parse_action
from village_rules.model.pending import (
    ChooseAction,
    ChooseCarlaCube,
    ChooseCompensationCube,
    ChooseDying,
    ChoosePayment,
    ChoosePrivilege,
    ChooseSupplyCube,
    ChooseSupplyGood,
    ChooseTurn,
    FateReveal,
    GameOver,
    MarketChoice,
    MassAdvance,
    MassBuy,
    MassDraw,
    RefillDraw,
    SeedDraw,
)
from village_rules.model.state import GameState, PlayerState

# --- names --------------------------------------------------------------------------------

CUBES = "conservation.cubes"
COINS = "conservation.coins"
GRAIN = "conservation.grain"
GOODS = "conservation.goods"
CUSTOMERS = "conservation.customers"
MONKS = "conservation.monks"
MARKERS = "conservation.markers"
MEMBERS = "conservation.members"

GRAIN_CAPACITY = "structure.grain_capacity"
NON_NEGATIVE = "structure.non_negative"
CHRONICLE = "structure.chronicle"
GRAVEYARD = "structure.graveyard"
REMOVED = "structure.removed"
MARKER_PLACES = "structure.markers"
LIFETIME = "structure.lifetime"
LOCATIONS = "structure.locations"
SEATS = "structure.seats"
WELL = "structure.well"
HAS_MOVE = "structure.has_move"
MARKET_LAYOUT = "structure.market_layout"
BOARD = "structure.board"
PILE_ORDER = "structure.customer_pile"
MONKS_ASIDE = "structure.monks_aside"
CHANCE = "structure.chance"
PHASE = "structure.phase"
END_TRIGGER = "structure.end_trigger"
LEGAL_SET = "structure.legal_set"
CARLA = "structure.carla"

DEAD_STAY_DEAD = "transition.dead_stay_dead"
NEVER_UNBORN = "transition.never_unborn"
PRESTIGE = "transition.prestige"
ROUND = "transition.round"
CUSTOMERS_KEPT = "transition.customers_kept"
MARKERS_KEPT = "transition.markers_kept"
SAME_GAME = "transition.same_game"
PLAGUE_TIME = "transition.plague_time"
TRIGGER_NO_FINAL = "transition.trigger_no_final_action"

STATE_INVARIANTS: tuple[str, ...] = (
    CUBES,
    COINS,
    GRAIN,
    GOODS,
    CUSTOMERS,
    MONKS,
    MARKERS,
    MEMBERS,
    GRAIN_CAPACITY,
    NON_NEGATIVE,
    CHRONICLE,
    GRAVEYARD,
    REMOVED,
    MARKER_PLACES,
    LIFETIME,
    LOCATIONS,
    SEATS,
    WELL,
    HAS_MOVE,
    MARKET_LAYOUT,
    BOARD,
    PILE_ORDER,
    MONKS_ASIDE,
    CHANCE,
    PHASE,
    END_TRIGGER,
    LEGAL_SET,
    CARLA,
)
TRANSITION_INVARIANTS: tuple[str, ...] = (
    DEAD_STAY_DEAD,
    NEVER_UNBORN,
    PRESTIGE,
    ROUND,
    CUSTOMERS_KEPT,
    MARKERS_KEPT,
    SAME_GAME,
    PLAGUE_TIME,
    TRIGGER_NO_FINAL,
)


@dataclass(frozen=True, slots=True)
class Violation:
    """One broken invariant: which, on what component, what was expected and what was found."""

    invariant: str
    component: str
    expected: str
    actual: str

    def __str__(self) -> str:
        return f"{self.invariant} [{self.component}]: expected {self.expected}, found {self.actual}"


class InvariantError(VillageError, AssertionError):
    """A state or transition breaks invariants; `violations` lists every one found."""

    def __init__(self, violations: Sequence[Violation], context: str = "") -> None:
        self.violations: tuple[Violation, ...] = tuple(violations)
        self.context = context
        lines = [f"{len(self.violations)} invariant violation(s){' ' + context if context else ''}:"]
        lines += [f"  - {v}" for v in self.violations]
        super().__init__("\n".join(lines))

    def __reduce__(self) -> tuple[type[InvariantError], tuple[tuple[Violation, ...], str]]:
        return (InvariantError, (self.violations, self.context))

    @property
    def invariants(self) -> frozenset[str]:
        """The names of the broken invariants."""
        return frozenset(v.invariant for v in self.violations)


# --- per-edition constants, computed once -------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Totals:
    cubes: dict[Cube, int]
    goods: dict[Good, int]
    customers: tuple[int, ...]
    cities: frozenset[str]
    buildings: frozenset[Building]
    members: int


@lru_cache(maxsize=16)
def _totals(data: EditionData) -> _Totals:
    cubes = {c: data.influence_cubes_each for c in INFLUENCE}
    cubes[Cube.PLAGUE] = data.plague_cubes
    return _Totals(
        cubes={c: n for c, n in cubes.items() if n},
        goods={g: data.goods_each for g in Good if data.goods_each},
        customers=tuple(sorted(t.id for t in data.customers)),
        cities=frozenset(c.id for c in data.cities),
        buildings=frozenset(c.building for c in data.crafts),
        members=len(data.family_numbers),
    )


@lru_cache(maxsize=64)
def _market_rows(data: EditionData, players: int) -> tuple[int, int]:
    layout = data.market_layout(players)
    available = sum(1 for s in layout if s.row is Row.AVAILABLE)
    return available, len(layout) - available


# --- incremental checking: parts already found sound ------------------------------------
#
# States share their unchanged parts (a step builds a new `PlayerState` only for the seats
# it touches, a new tally only for the counts it changes). A part that passed a per-part
# check once passes it again, since it is immutable; these memos remember such parts by
# identity (holding a reference, so an id is never reused while remembered) and let a
# check skip them. Only sound parts are remembered: a part with a violation, or any new
# object, is checked in full, so every checker keeps its power. Bounded, and a pure speed
# device: results are exactly those of the full check.

_MEMO_LIMIT = 50_000
_V = TypeVar("_V")
_sound_tallies: dict[int, object] = {}
"""Tallies with no negative count, by id."""
_sound_players: dict[int, object] = {}
"""Player states with no negative count (ints, cubes, goods), by id."""
_sound_markers: dict[int, tuple[object, EditionData]] = {}
"""Marker tuples that passed `marker_violations`'s per-seat checks, by id, with the data."""
_sound_members: dict[int, tuple[object, EditionData, tuple[tuple[Category, int], ...], int, int, bool]] = {}
"""Member tuples of the right length at valid places, by id, with the data and their
chronicle counts, graves and removed members."""


_last_passed: dict[str, tuple[object, ...]] = {}
"""Per whole-state check: the parts it read in the last state it passed on. A check is a
pure function of the parts it names, so the next state with equal parts (in a playout
most parts are the very same objects, which compare at once) passes it too. One entry per
check, so bounded; the parts are kept alive by the entry, so no id is ever reused."""


def _passed_before(check: str, parts: tuple[object, ...]) -> bool:
    return _last_passed.get(check) == parts


def _passed(check: str, parts: tuple[object, ...], found: list[Violation]) -> list[Violation]:
    """`found`, remembering `parts` for `check` if it is empty."""
    if not found:
        _last_passed[check] = parts
    return found


def _remember(memo: dict[int, _V], key: object, value: _V) -> None:
    if len(memo) >= _MEMO_LIMIT:
        memo.clear()
    memo[id(key)] = value


K = TypeVar("K", Cube, Good)


def _add(counts: dict[K, int], tally: Tally[K]) -> None:
    for key, n in tally.items:
        counts[key] = counts.get(key, 0) + n


def _conserved(name: str, expected: Mapping[K, int], counts: dict[K, int]) -> list[Violation]:
    if counts == expected:
        return []
    out = [
        Violation(name, key.value, f"{want} in the game", str(counts.get(key, 0)))
        for key, want in expected.items()
        if counts.get(key, 0) != want
    ]
    out += [
        Violation(name, str(k), "no such piece", str(n)) for k, n in counts.items() if n and k not in expected
    ]
    return out


# --- conservation -------------------------------------------------------------------------


def cube_violations(state: GameState) -> list[Violation]:
    """Every cube of each colour (plague included) is in the supply, the green bag, on an
    action space or on a farmyard (payments are never half-done outside `apply`)."""
    tallies = (
        state.rules.data,
        state.supply.cubes,
        state.green_bag,
        state.spaces,
        *(p.cubes for p in state.players),
    )
    if _passed_before(CUBES, tallies):
        return []
    counts: dict[Cube, int] = {}
    for tally in (state.supply.cubes, state.green_bag, *state.spaces, *(p.cubes for p in state.players)):
        for key, n in tally.items:
            counts[key] = counts.get(key, 0) + n
    return _passed(CUBES, tallies, _conserved(CUBES, _totals(state.rules.data).cubes, counts))


def coin_violations(state: GameState) -> list[Violation]:
    """Conservation of coins: the supply and the farmyards hold the edition's coins."""
    have = state.supply.coins + sum(p.coins for p in state.players)
    want = state.rules.data.supply_coins
    return [] if have == want else [Violation(COINS, "coins", f"{want} in the game", str(have))]


def grain_violations(state: GameState) -> list[Violation]:
    """Conservation of grain: the supply and the farmyards hold the edition's grain."""
    have = state.supply.grain + sum(p.grain for p in state.players)
    want = state.rules.data.supply_grain
    return [] if have == want else [Violation(GRAIN, "grain", f"{want} in the game", str(have))]


def goods_violations(state: GameState) -> list[Violation]:
    """Conservation of goods, per good."""
    parts = (state.rules.data, state.supply.goods, *(p.goods for p in state.players))
    if _passed_before(GOODS, parts):
        return []
    counts: dict[Good, int] = {}
    _add(counts, state.supply.goods)
    for p in state.players:
        _add(counts, p.goods)
    return _passed(GOODS, parts, _conserved(GOODS, _totals(state.rules.data).goods, counts))


def customer_violations(state: GameState) -> list[Violation]:
    """Each customer tile is exactly once in the pile, on a market space or with a player."""
    parts = (
        state.rules.data,
        state.customer_pile,
        state.market_available,
        state.market_waiting,
        *(p.customers for p in state.players),
    )
    if _passed_before(CUSTOMERS, parts):
        return []
    return _passed(CUSTOMERS, parts, _customer_violations(state))


def _customer_violations(state: GameState) -> list[Violation]:
    seen = list(state.customer_pile)
    seen += [t for t in state.market_available if t is not None]
    seen += [t for t in state.market_waiting if t is not None]
    for p in state.players:
        seen += p.customers
    want = _totals(state.rules.data).customers
    seen.sort()
    if tuple(seen) == want:
        return []
    counts: dict[int, int] = {}
    for t in seen:
        counts[t] = counts.get(t, 0) + 1
    out = [
        Violation(CUSTOMERS, f"tile {t}", "exactly once", f"{counts.get(t, 0)} times")
        for t in want
        if counts.get(t, 0) != 1
    ]
    known = set(want)
    out += [
        Violation(CUSTOMERS, f"tile {t}", "no such tile", f"{n} times")
        for t, n in counts.items()
        if t not in known
    ]
    return out


def monk_violations(state: GameState) -> list[Violation]:
    """Conservation of the monks: in the black bag or set aside."""
    have = state.bag_monks + state.monks_aside
    want = state.rules.data.monks
    if have != want:
        return [
            Violation(
                MONKS,
                "monks",
                f"{want} (bag + set aside)",
                f"{have} ({state.bag_monks} in the bag + {state.monks_aside} aside)",
            )
        ]
    return []


def marker_violations(state: GameState) -> list[Violation]:
    """Disc markers: at most the edition's number per player (conservation), each on a
    distinct city of the travel map, kept sorted (structure)."""
    d = state.rules.data
    cities = _totals(d).cities
    out: list[Violation] = []
    for seat, p in enumerate(state.players):
        known = _sound_markers.get(id(p.markers))
        if known is not None and known[0] is p.markers and known[1] is d:
            continue
        before = len(out)
        if len(p.markers) > d.travel_markers:
            out.append(Violation(MARKERS, f"seat {seat}", f"at most {d.travel_markers}", str(len(p.markers))))
        if len(set(p.markers)) != len(p.markers) and state.rules.reading("AMB-19") != "c":
            # AMB-19 c (TRV-08) places a marker on every arrival while markers last
            out.append(Violation(MARKER_PLACES, f"seat {seat}", "one marker per city", repr(p.markers)))
        bad = [m for m in p.markers if m not in cities]
        if bad:
            out.append(Violation(MARKER_PLACES, f"seat {seat}", "markers on cities only", repr(bad)))
        if list(p.markers) != sorted(p.markers):
            out.append(Violation(MARKER_PLACES, f"seat {seat}", "markers sorted", repr(p.markers)))
        if len(out) == before and len(set(p.markers)) == len(p.markers):
            _remember(_sound_markers, p.markers, (p.markers, d))
    return out


_LOCATION_TYPES = (
    Unborn,
    Farmyard,
    AtCraft,
    OnCouncil,
    OnChurch,
    Travelling,
    ChurchReserve,
    InBlackBag,
    InChronicle,
    InGraveyard,
    Removed,
)
_ALWAYS_VALID = (Unborn, Farmyard, InBlackBag)


def member_violations(state: GameState) -> list[Violation]:
    """One pass over every family member: the count per player (conservation), valid
    places on the board, chronicle and graveyard within their open spaces, removed
    members only once the end is triggered, the end triggered exactly when the chronicle
    or the graveyard is full (structure)."""
    # whether the game is solo too: Carla's seat may hold members beside the church track
    solo = state.carla is not None
    parts = (state.rules, state.end_triggered_by, solo, *(p.members for p in state.players))
    if _passed_before(MEMBERS, parts):
        return []
    return _passed(MEMBERS, parts, _member_violations(state))


def _member_violations(state: GameState) -> list[Violation]:
    d = state.rules.data
    totals = _totals(d)
    out: list[Violation] = []
    chronicle: dict[Category, int] = {}
    graves = 0
    removed = 0
    for seat, p in enumerate(state.players):
        carla = state.is_carla(seat)
        known = _sound_members.get(id(p.members))
        if known is not None and known[0] is p.members and known[1] is d and known[5] is carla:
            for category, n in known[2]:
                chronicle[category] = chronicle.get(category, 0) + n
            graves += known[3]
            removed += known[4]
            continue
        before = len(out)
        mine: dict[Category, int] = {}
        my_graves = 0
        my_removed = 0
        if len(p.members) != totals.members:
            out.append(
                Violation(MEMBERS, f"seat {seat}", f"{totals.members} members", f"{len(p.members)} members")
            )
        for i, loc in enumerate(p.members):
            kind = type(loc)
            if kind in _ALWAYS_VALID:
                continue
            if isinstance(loc, InChronicle):
                mine[loc.category] = mine.get(loc.category, 0) + 1
                continue
            if kind is InGraveyard:
                my_graves += 1
                continue
            if kind is Removed:
                my_removed += 1
                continue
            if kind is ChurchReserve and carla:
                continue  # solo: Carla's "3"s and "4"s on the church (SOLO-04)
            if _valid_place(loc, d, totals):
                continue
            if not isinstance(loc, _LOCATION_TYPES):
                out.append(Violation(MEMBERS, f"seat {seat} member {i}", "one location", repr(loc)))
            else:
                out.append(
                    Violation(
                        LOCATIONS,
                        f"seat {seat} member {i}",
                        f"a place of the board (council 1..{d.council_stages}, church 1..{d.church_stages}, "
                        "a city, a craft building)",
                        format_location(loc),
                    )
                )
        for category, n in mine.items():
            chronicle[category] = chronicle.get(category, 0) + n
        graves += my_graves
        removed += my_removed
        if len(out) == before:
            entry = (p.members, d, tuple(mine.items()), my_graves, my_removed, carla)
            _remember(_sound_members, p.members, entry)
    chronicle_open, graves_open = _capacity(d, state.num_players)
    chronicle_free = 0
    category_full = False  # AMB-12 b: one full category ends the game
    for category, open_spaces in chronicle_open.items():
        count = chronicle.get(category, 0)
        chronicle_free += max(0, open_spaces - count)
        category_full = category_full or (open_spaces > 0 and count >= open_spaces)
        if count > open_spaces:
            out.append(
                Violation(CHRONICLE, category.value, f"at most {open_spaces} (open spaces)", str(count))
            )
    out += [
        Violation(CHRONICLE, category.value, "at most 0 (no such category)", str(count))
        for category, count in chronicle.items()
        if category not in chronicle_open
    ]
    if graves > graves_open:
        out.append(Violation(GRAVEYARD, "graveyard", f"at most {graves_open} (open graves)", str(graves)))
    if removed and state.end_triggered_by is None:
        out.append(Violation(REMOVED, "removed members", "none before the end is triggered", str(removed)))
    one_category = state.rules.reading("AMB-12") == "b"
    full = chronicle_free == 0 or graves >= graves_open or (one_category and category_full)
    out += _end_trigger(state, full)
    return out


@lru_cache(maxsize=64)
def _capacity(data: EditionData, players: int) -> tuple[dict[Category, int], int]:
    """Open chronicle spaces per category and open graves at a player count."""
    return {c: data.chronicle_open(c, players) for c in Category}, data.graveyard_open(players)


def _valid_place(loc: Location, d: EditionData, totals: _Totals) -> bool:
    match loc:
        case OnCouncil(stage):
            return 1 <= stage <= d.council_stages
        case OnChurch(stage):
            return 1 <= stage <= d.church_stages
        case Travelling(city):
            return city in totals.cities
        case AtCraft(building):
            return building in totals.buildings
    return False


# --- structure ----------------------------------------------------------------------------


def grain_capacity_violations(state: GameState) -> list[Violation]:
    """No farmyard holds more grain than the edition allows."""
    cap = state.rules.data.grain_capacity
    return [
        Violation(GRAIN_CAPACITY, f"seat {seat}", f"at most {cap} grain", str(p.grain))
        for seat, p in enumerate(state.players)
        if p.grain > cap
    ]


def _negative_items(where: str, tally: Tally[Cube] | Tally[Good], out: list[Violation]) -> None:
    for key, n in tally.items:
        if n < 0:
            out.append(Violation(NON_NEGATIVE, f"{where} {key.value}", ">= 0", str(n)))


def _has_negative(tally: Tally[Cube] | Tally[Good]) -> bool:
    return any(n < 0 for _, n in tally.items)


def _tallies_sound(tallies: list[Tally[Cube] | Tally[Good]]) -> bool:
    """No negative count in any of `tallies`; the sound new ones are remembered."""
    known = _sound_tallies
    for t in tallies:
        if known.get(id(t)) is t:
            continue
        if _has_negative(t):
            return False
        _remember(known, t, t)
    return True


def _players_sound(players: tuple[PlayerState, ...]) -> bool:
    """No negative coins, grain, prestige, cubes or goods; sound players are remembered
    (by identity, like the tallies: a changed player is a new object, checked in full)."""
    known = _sound_players
    for p in players:
        if known.get(id(p)) is p:
            continue
        if min(p.coins, p.grain, p.prestige) < 0 or not _tallies_sound([p.cubes, p.goods]):
            return False
        _remember(known, p, p)
    return True


def non_negative_violations(state: GameState) -> list[Violation]:
    """No count anywhere is negative (a tally refuses negatives, but plain ints do not)."""
    if (
        state.round >= 1
        and min(state.supply.coins, state.supply.grain, state.bag_monks, state.monks_aside) >= 0
        and _players_sound(state.players)
        and min(state.deaths_owed, default=0) >= 0
        and (state.mass is None or state.mass.bought >= 0)
        and (state.market_day is None or state.market_day.held_deaths >= 0)
        and _tallies_sound([state.supply.cubes, state.supply.goods, state.green_bag, *state.spaces])
    ):
        return []
    out: list[Violation] = []

    def need(component: str, value: int, least: int = 0) -> None:
        if value < least:
            out.append(Violation(NON_NEGATIVE, component, f">= {least}", str(value)))

    need("round", state.round, 1)
    need("supply coins", state.supply.coins)
    need("supply grain", state.supply.grain)
    need("bag monks", state.bag_monks)
    need("monks aside", state.monks_aside)
    _negative_items("supply", state.supply.cubes, out)
    _negative_items("supply", state.supply.goods, out)
    _negative_items("green bag", state.green_bag, out)
    for space, tally in zip(ActionSpace, state.spaces, strict=False):
        _negative_items(f"space {space.value}", tally, out)
    for seat, p in enumerate(state.players):
        need(f"seat {seat} coins", p.coins)
        need(f"seat {seat} grain", p.grain)
        need(f"seat {seat} prestige", p.prestige)
        _negative_items(f"seat {seat}", p.cubes, out)
        _negative_items(f"seat {seat}", p.goods, out)
    for seat, owed in enumerate(state.deaths_owed):
        need(f"seat {seat} deaths owed", owed)
    if state.mass is not None:
        need("mass bought", state.mass.bought)
    if state.market_day is not None:
        need("market day held deaths", state.market_day.held_deaths)
    return out


def lifetime_violations(state: GameState) -> list[Violation]:
    """Every life-time token is on the track."""
    length = state.rules.data.lifetime_track_length
    return [
        Violation(LIFETIME, f"seat {seat}", f"0 <= lifetime < {length}", str(p.lifetime))
        for seat, p in enumerate(state.players)
        if not 0 <= p.lifetime < length
    ]


def seat_violations(state: GameState) -> list[Violation]:
    """Every seat the state names (pending decision, turn, start player, market day, end of
    the game) is a seat of this game; per-seat lists have one entry per seat."""
    n = state.num_players
    out = []
    d = state.rules.data
    if state.is_solo:
        if n != 2 or d.solo is None:
            out.append(Violation(SEATS, "players", "2 seats of a solo game, with solo data", str(n)))
    elif n not in d.player_counts:
        out.append(Violation(SEATS, "players", f"{d.min_players}..{d.max_players}", str(n)))

    def seat(component: str, value: int | None, optional: bool = False) -> None:
        if value is None and optional:
            return
        if value is None or not 0 <= value < n:
            out.append(Violation(SEATS, component, f"a seat 0..{n - 1}", str(value)))

    pending_seat = getattr(state.pending, "seat", None)
    if not state.is_chance and not state.is_terminal:
        seat(f"pending {type(state.pending).__name__}", pending_seat)
    seat("start player", state.start_player)
    seat("next start holder", state.next_start_holder, optional=True)
    seat("end triggered by", state.end_triggered_by, optional=True)
    if state.turn is not None:
        seat("turn", state.turn.seat)
    day = state.market_day
    if day is not None:
        seat("market day trigger", day.trigger)
        seat("market day current", day.current)
        for s in day.passed:
            seat("market day passed", s)
    for s in state.final_turns or ():
        seat("final turns", s)
    for s in state.mass.stopped if state.mass is not None else ():
        seat("mass stopped buying", s)
    if len(state.deaths_owed) != n:
        out.append(Violation(SEATS, "deaths owed", f"{n} entries", str(len(state.deaths_owed))))
    return out


def board_violations(state: GameState) -> list[Violation]:
    """The action spaces and the market rows match the layout for the player count."""
    parts = (
        state.rules.data,
        state.spaces,
        state.market_available,
        state.market_waiting,
        state.customer_pile,
        state.monks_aside,
        state.mass is None,
        state.num_players,
    )
    if _passed_before(BOARD, parts):
        return []
    return _passed(BOARD, parts, _board_violations(state))


def _board_violations(state: GameState) -> list[Violation]:
    out = []
    if len(state.spaces) != len(ActionSpace):
        out.append(Violation(BOARD, "action spaces", str(len(ActionSpace)), str(len(state.spaces))))
    available, waiting = _market_rows(state.rules.data, state.num_players)
    if len(state.market_available) != available:
        out.append(
            Violation(MARKET_LAYOUT, "available row", f"{available} spaces", str(len(state.market_available)))
        )
    if len(state.market_waiting) != waiting:
        out.append(
            Violation(MARKET_LAYOUT, "waiting row", f"{waiting} spaces", str(len(state.market_waiting)))
        )
    if list(state.customer_pile) != sorted(set(state.customer_pile)):
        out.append(Violation(PILE_ORDER, "customer pile", "a sorted set of tiles", repr(state.customer_pile)))
    if state.monks_aside and state.mass is None:
        out.append(Violation(MONKS_ASIDE, "monks aside", "0 outside a mass", str(state.monks_aside)))
    return out


def well_violations(state: GameState, legal: Sequence[Action] | None = None) -> list[Violation]:
    """The well needs a cube left on an action space: with an empty board it is never legal.

    Uses `legal` (the state's legal actions) if given, else computes them when it matters.
    """
    if state.is_chance or state.is_terminal or state.cubes_on_board():
        return []
    actions = legal_actions(state) if legal is None else legal
    wells = [format_action(a) for a in actions if isinstance(a, Well)]
    if wells:
        return [Violation(WELL, "well", "not legal with an empty board", ", ".join(wells))]
    return []


def phase_violations(state: GameState) -> list[Violation]:
    """The pending step agrees with the bookkeeping of the turn, the market day and the
    mass: between turns nothing is in progress and no death is owed; a market choice or a
    refill happens during a market day (a refill once it is closed), a mass step during a
    mass, an action step during its seat's turn; a dying choice is owed; once the final
    actions are settled the end has been triggered, and at the end everything is done."""
    pending = state.pending
    out = []

    def bad(expected: str, actual: str) -> None:
        out.append(Violation(PHASE, type(pending).__name__, expected, actual))

    match pending:
        case ChooseTurn() | SeedDraw() | ChooseCompensationCube() | GameOver():
            if state.turn is not None or state.market_day is not None or state.mass is not None:
                busy = [
                    name
                    for name, value in (
                        ("turn", state.turn),
                        ("market day", state.market_day),
                        ("mass", state.mass),
                    )
                    if value is not None
                ]
                bad("nothing in progress", ", ".join(busy) + " in progress")
            # AMB-23 b: a death with no visible member stays owed across turns.
            if any(state.deaths_owed) and state.rules.reading("AMB-23") != "b":
                bad("no death owed", f"deaths owed {state.deaths_owed}")
            if isinstance(pending, GameOver) and state.final_turns != ():
                bad("every final action taken", f"final turns {state.final_turns}")
        case MassBuy() | MassAdvance() | MassDraw():
            if state.mass is None:
                bad("a mass in progress", "no mass")
            elif isinstance(pending, MassBuy) and pending.seat in state.mass.stopped:
                # AMB-15 b: a seat that has stopped buying is not asked again at this mass.
                bad("a buyer that has not stopped buying", f"stopped {state.mass.stopped}")
        case MarketChoice(seat):
            day = state.market_day
            if day is None or day.closed or seat in day.passed:
                bad("an open market day the seat has not passed", repr(day))
        case RefillDraw():
            if state.market_day is None or not state.market_day.closed:
                bad("a closed market day", repr(state.market_day))
        case ChooseAction(seat):
            if state.turn is None or state.turn.seat != seat:
                bad(f"seat {seat}'s turn", repr(state.turn))
        case ChooseDying(seat):
            if not 0 <= seat < len(state.deaths_owed) or state.deaths_owed[seat] <= 0:
                bad(f"a death owed by seat {seat}", f"deaths owed {state.deaths_owed}")
        case ChoosePrivilege() | ChooseSupplyCube() | ChooseSupplyGood() | ChoosePayment():
            pass  # sub-steps of an action: `state_checks` checks their fields
        case ChooseCarlaCube() | FateReveal():
            pass  # solo: `structure.carla` checks Carla's steps
        case _:
            assert_never(pending)
    if state.final_turns is not None and state.end_triggered_by is None:
        bad("final actions only once the end is triggered", f"final turns {state.final_turns}")
    return out


def end_trigger_violations(state: GameState) -> list[Violation]:
    """The end is triggered exactly when the chronicle (every open space) or the graveyard
    is full: the dead never leave, so it cannot be un-triggered, and filling either
    triggers it at once. (`member_violations` checks this too, in its single pass.)"""
    full = state.chronicle_free_total() <= 0 or state.graveyard_free() <= 0
    if state.rules.reading("AMB-12") == "b":  # one full category ends the game
        full = full or any(
            state.rules.data.chronicle_open(c, state.num_players) > 0 and state.chronicle_free(c) <= 0
            for c in Category
        )
    return _end_trigger(state, full)


def _end_trigger(state: GameState, full: bool) -> list[Violation]:
    if full == (state.end_triggered_by is not None):
        return []
    if full:
        return [Violation(END_TRIGGER, "end of the game", "triggered (chronicle or graveyard full)", "not")]
    return [
        Violation(
            END_TRIGGER,
            "end of the game",
            "not triggered while the chronicle and the graveyard have room",
            f"triggered by seat {state.end_triggered_by}",
        )
    ]


def has_move_violations(state: GameState, legal: Sequence[Action]) -> list[Violation]:
    """A decision state offers at least one legal action (`legal` are its legal actions)."""
    if state.is_chance or state.is_terminal or legal:
        return []
    return [Violation(HAS_MOVE, type(state.pending).__name__, "at least one legal action", "none")]


def legal_set_violations(state: GameState, legal: Sequence[Action]) -> list[Violation]:
    """The fast, directly generated legal actions (`legal`, from `legal_actions`) are exactly
    the actions of the original generate-and-filter path (`legal_actions_oracle`), in the
    same order (the order fixes which action a seeded random policy picks)."""
    if state.is_chance or state.is_terminal:
        return []
    oracle = legal_actions_oracle(state)
    if list(legal) == oracle:
        return []
    fast = set(legal)
    missing = [format_action(a) for a in oracle if a not in fast]
    slow = set(oracle)
    extra = [format_action(a) for a in legal if a not in slow]
    where = type(state.pending).__name__
    if not missing and not extra:
        return [Violation(LEGAL_SET, where, "the oracle's order", "the same actions in another order")]
    return [
        Violation(
            LEGAL_SET,
            where,
            "the oracle's legal actions",
            f"missing {missing or 'none'}, extra {extra or 'none'}",
        )
    ]


def chance_outcome_violations(outcomes: Sequence[tuple[Action, Fraction]]) -> list[Violation]:
    """A chance event's outcomes are distinct, each has a probability in (0, 1], and the
    probabilities sum to exactly 1."""
    if not outcomes:
        return [Violation(CHANCE, "outcomes", "at least one outcome", "none")]
    # A sound distribution passes with one look at each probability (this runs at every
    # chance step of a fuzz run); anything else is explained by the loop below.
    denominators = []
    numerators = []
    for _, p in outcomes:
        if type(p) is not Fraction:
            break
        n, d = p.as_integer_ratio()
        if not 0 < n <= d:
            break
        numerators.append(n)
        denominators.append(d)
    else:
        if len(set(map(_first, outcomes))) == len(outcomes):
            common = lcm(*denominators)
            if sum(map(mul, numerators, map(floordiv, repeat(common), denominators))) == common:
                return []
    inexact = [
        Violation(CHANCE, format_action(action), "an exact probability (a Fraction)", type(p).__name__)
        for action, p in outcomes
        if not isinstance(p, Fraction)
    ]
    if inexact:  # a float would pass or fail a sum by rounding: refused as such
        return inexact
    out = []
    seen: set[Action] = set()
    for action, p in outcomes:
        if action in seen:
            out.append(Violation(CHANCE, format_action(action), "distinct outcomes", "listed twice"))
        seen.add(action)
        if not 0 < p.numerator <= p.denominator:  # 0 < p <= 1, in integers
            out.append(Violation(CHANCE, format_action(action), "probability in (0, 1]", str(p)))
    # The exact sum in integers over the common denominator (as fast as it is exact).
    common = lcm(*(p.denominator for _, p in outcomes))
    numerator = sum(p.numerator * (common // p.denominator) for _, p in outcomes)
    if numerator != common:
        total = Fraction(numerator, common)
        out.append(Violation(CHANCE, "outcomes", "probabilities summing to 1", str(total)))
    return out


_first = itemgetter(0)


def chance_violations(state: GameState) -> list[Violation]:
    """At a chance event, the outcomes form a probability distribution."""
    if not state.is_chance:
        return []
    return chance_outcome_violations(chance_outcomes(state))


# --- all of them --------------------------------------------------------------------------


def state_violations(state: GameState, legal: Sequence[Action] | None = None) -> list[Violation]:
    """Every violation of a state invariant. Give `legal` (the state's legal actions) if you
    have them: it saves recomputing them and adds the `structure.has_move` check."""
    out = cube_violations(state)
    out += coin_violations(state)
    out += grain_violations(state)
    out += goods_violations(state)
    out += customer_violations(state)
    out += monk_violations(state)
    out += marker_violations(state)
    out += member_violations(state)
    out += grain_capacity_violations(state)
    out += non_negative_violations(state)
    out += lifetime_violations(state)
    out += seat_violations(state)
    out += board_violations(state)
    out += well_violations(state, legal)
    if legal is not None:
        out += has_move_violations(state, legal)
        out += legal_set_violations(state, legal)
    out += chance_violations(state)
    out += phase_violations(state)
    out += carla_violations(state)
    return out


def carla_violations(state: GameState) -> list[Violation]:
    """Solo mode (2023 pp. 15-18): Carla (seat 1) is never the seat to decide, takes no
    turn and no final action; she holds no coin, grain, goods, prestige or life time
    (SOLO-03, SOLO-05); her board's cube space, last cube and fate tiles fit the data,
    a face-up tile count never exceeds its set's; and her cubes are on her board only
    while she has a board. Outside a solo game no seat has a Carla-only place."""
    carla = state.carla
    if carla is None:
        return []
    out: list[Violation] = []
    solo = state.rules.data.solo
    if solo is None:
        return [Violation(CARLA, "edition data", "a solo section for a solo game", "none")]

    def bad(component: str, expected: str, actual: object) -> None:
        out.append(Violation(CARLA, component, expected, str(actual)))

    seat = getattr(state.pending, "seat", None)
    if seat == 1 and not state.is_chance and not state.is_terminal:
        bad(f"pending {type(state.pending).__name__}", "a decision of the player (seat 0), not Carla's", seat)
    if state.turn is not None and state.turn.seat != 0:
        bad("turn", "the player's turn (Carla takes none)", state.turn.seat)
    if 1 in (state.final_turns or ()):
        bad("final turns", "no final action for Carla", state.final_turns)
    if state.start_player != 0:
        bad("start player", "the player, always (SOLO-07)", state.start_player)
    p = state.players[1]
    for name, value in (
        ("coins", p.coins),
        ("grain", p.grain),
        ("prestige", p.prestige),
        ("lifetime", p.lifetime),
        ("goods", p.goods.total()),
    ):
        if value:
            bad(f"Carla's {name}", "none (she collects no goods, coins or grain, scores no prestige)", value)
    if p.markers:
        bad("Carla's markers", "no travel (she takes no action)", p.markers)
    if not -1 <= carla.space < solo.track_spaces:
        bad("Carla's board space", f"-1..{solo.track_spaces - 1}", carla.space)
    if (carla.space == -1) != (carla.last_cube is None):
        bad("Carla's last cube", "a colour exactly once a cube was placed", carla.last_cube)
    if carla.last_cube is not None and p.cubes.total() and not p.cubes[carla.last_cube]:
        bad("Carla's board", f"the last cube placed ({carla.last_cube.value}) on it", p.cubes)
    if len(carla.fate) != len(solo.fate_slots):
        bad("fate tiles", f"{len(solo.fate_slots)} slots", len(carla.fate))
    else:
        for name, tiles in solo.fate_sets:
            for tile in set(tiles):
                shown = sum(
                    1
                    for t, where in zip(carla.fate, solo.fate_slots, strict=True)
                    if t is tile and where.tile_set == name
                )
                if shown > tiles.count(tile):
                    bad(f"fate tiles {name}", f"at most {tiles.count(tile)} {tile.value} face up", shown)
    if (carla.look_for is None) != (carla.look_from is None):
        bad("Carla's owed take", "a colour and a space together", (carla.look_for, carla.look_from))
    if not carla.idle and state.turn is None:
        bad("Carla's steps", "owed only during the player's turn", carla)
    return out


def _dead(loc: Location) -> bool:
    return isinstance(loc, InChronicle | InGraveyard | Removed)


def transition_violations(before: GameState, action: Action, after: GameState) -> list[Violation]:
    """Invariants of one step `before --action--> after`."""
    found = _transition_violations(before, action, after, "")
    if found:  # again, with the action named (formatting it costs as much as the checks)
        return _transition_violations(before, action, after, format_action(action))
    return found


def _transition_violations(before: GameState, action: Action, after: GameState, text: str) -> list[Violation]:
    if before.rules != after.rules or before.num_players != after.num_players:
        return [Violation(SAME_GAME, f"after {text!r}", "the same rules and players", "a different game")]
    out = []
    if after.round < before.round:
        out.append(Violation(ROUND, f"after {text!r}", f">= {before.round}", str(after.round)))
    if isinstance(action, TakeCube) and action.cube is Cube.PLAGUE:
        out += _plague_time_violations(before, after, text)
    if before.final_turns is None and after.final_turns is not None:
        out += _trigger_final_violations(before, after, text)
    for seat, (p, q) in enumerate(zip(before.players, after.players, strict=True)):
        if q.prestige < p.prestige:
            out.append(
                Violation(PRESTIGE, f"seat {seat} after {text!r}", f">= {p.prestige}", str(q.prestige))
            )
        if q.customers[: len(p.customers)] != p.customers:
            out.append(
                Violation(
                    CUSTOMERS_KEPT, f"seat {seat} after {text!r}", f"{p.customers} kept", str(q.customers)
                )
            )
        if p.markers != q.markers and not set(p.markers) <= set(q.markers):
            out.append(
                Violation(MARKERS_KEPT, f"seat {seat} after {text!r}", f"{p.markers} kept", str(q.markers))
            )
        if p.members is q.members:
            continue
        for i, (a, b) in enumerate(zip(p.members, q.members, strict=False)):
            if a == b:
                continue
            where = f"seat {seat} member {i} after {text!r}"
            if _dead(a):
                out.append(Violation(DEAD_STAY_DEAD, where, format_location(a), format_location(b)))
            elif isinstance(b, Unborn):
                out.append(Violation(NEVER_UNBORN, where, f"born ({format_location(a)})", "unborn"))
    return out


def _plague_time_violations(before: GameState, after: GameState, text: str) -> list[Violation]:
    """TURN-03: a plague cube taken costs the edition's plague time: the taker's life-time
    token moves exactly that far (modulo the track; deaths do not move it back), however
    the engine spends it. Mutation testing (issue 25) found that no check saw a plague cube
    costing 1 time instead of 2.

    Exactly, when the step took only that cube (the round is the same and the board holds one
    cube fewer). A step may settle more: a decision with a single legal action is taken
    automatically, so when the game comes back to the taker with a lone plague cube on the
    board (a solo game after Carla's turn, or every other player's turn forced too), the same
    step takes it too, TURN-03 again (CI's data-mutation run found such a step moving the token
    4 with a plague time of 2; not an engine bug). Then the token moves a whole number of
    plague times, at least one."""
    seat = before.current_player()
    if not 0 <= seat < before.num_players or before.is_carla(seat):
        return []
    length = before.rules.data.lifetime_track_length
    moved = (after.players[seat].lifetime - before.players[seat].lifetime) % length
    plague = before.rules.data.plague_time
    expected = plague % length
    one_take = after.round == before.round and before.cubes_on_board() - after.cubes_on_board() == 1
    if one_take:
        if moved == expected:
            return []
        wanted = f"the token {expected} spaces on"
    else:
        if any(moved == (k * plague) % length for k in range(1, length + 1)):
            return []
        wanted = f"the token a whole number (>= 1) of {plague} spaces on"
    where = f"seat {seat} after {text!r}"
    return [Violation(PLAGUE_TIME, where, wanted, f"{moved} spaces on")]


def _trigger_final_violations(before: GameState, after: GameState, text: str) -> list[Violation]:
    """END-02: the player who triggered the end in their own turn (or their own market day)
    takes no final action: when the final actions are laid down, that seat is neither among
    those still to come nor the one asked to act. Games of several players only (in solo the
    market day may be Carla's, SOLO-28). Mutation testing (issue 25) found that no check saw
    the trigger player also getting a final action."""
    if before.is_solo or before.turn is None or after.end_triggered_by != before.turn.seat:
        return []
    seat = before.turn.seat
    final = after.final_turns or ()
    acting = after.pending.seat if isinstance(after.pending, ChooseTurn) else None
    if seat not in final and acting != seat:
        return []
    order = f"next {acting}, then {list(final)}" if acting is not None else str(list(final))
    return [
        Violation(TRIGGER_NO_FINAL, f"seat {seat} after {text!r}", "no final action for the trigger", order)
    ]


def check(state: GameState, legal: Sequence[Action] | None = None) -> None:
    """Raise `InvariantError` listing every violated state invariant."""
    found = state_violations(state, legal)
    if found:
        raise InvariantError(found)


def check_transition(before: GameState, action: Action, after: GameState) -> None:
    """Raise `InvariantError` listing every violated transition invariant."""
    found = transition_violations(before, action, after)
    if found:
        raise InvariantError(found, f"at {format_action(action)!r}")


def check_step(
    before: GameState, action: Action, after: GameState, legal: Sequence[Action] | None = None
) -> None:
    """Both: the state invariants of `after` and the transition invariants of the step."""
    found = state_violations(after, legal) + transition_violations(before, action, after)
    if found:
        raise InvariantError(found, f"at {format_action(action)!r}")


ApplyFn = Callable[[GameState, Action], GameState]
"""An `apply`-like function: the state after an action."""


def check_game(
    initial: GameState, actions: Sequence[Action | str], apply_action: ApplyFn = apply
) -> GameState:
    """Play `actions` from `initial` checking every state and transition invariant at every
    step; returns the final state. Raises `InvariantError` (naming the step) on the first
    violation, or what `apply_action` raises for an illegal action."""
    state = initial
    check(state)
    for k, a in enumerate(actions):
        action = parse_action(a) if isinstance(a, str) else a
        after = apply_action(state, action)
        legal = None if after.is_chance or after.is_terminal else legal_actions(after)
        found = state_violations(after, legal) + transition_violations(state, action, after)
        if found:
            raise InvariantError(found, f"at action {k + 1} ({format_action(action)!r})")
        state = after
    return state


class ReplayableLog(Protocol):
    """What `replay_checked` reads of a game log (`village_rules.drivers.play.GameLog`): the
    checks know the log by its shape, so they need nothing from the drivers above them."""

    @property
    def actions(self) -> Sequence[str]:
        """The logged actions as text."""
        ...

    def initial_state(self) -> GameState:
        """The game's state before its first action."""
        ...


def replay_checked(log: ReplayableLog, apply_action: ApplyFn = apply) -> GameState:
    """`check_game` on a game log's set-up and actions."""
    return check_game(log.initial_state(), log.actions, apply_action)
