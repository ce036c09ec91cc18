"""Incremental invariant checking: the full checks' violations for a step, doing only the
work the transition requires.

`IncrementalChecker.step(before, action, after, legal)` returns exactly
`state_violations(after, legal) + transition_violations(before, action, after)` (the same
`Violation` values in the same order; with `oracle=False` the `structure.legal_set`
entries left out), but

- it compares `after`'s fields (and, when the players changed, each player's fields) by
  identity with the last state it checked: one `attrgetter` call each, then one `is not`
  per field into a bit mask (as fast in the playout loop as the tables of `is not` tuples
  it replaced, and no cache to bound). States are immutable and share their unchanged
  parts, so a field that is the same object holds the same value;
- each state check names the fields it reads (`_CHECKS`); a check none of whose fields
  changed returns its last result again (a check is a pure function of what it reads);
- a check whose fields changed, and whose last result was empty (so every unchanged part
  was sound), first runs a cheap sound-test over the changed parts only: the cubes,
  coins, grain and goods that left the changed places arrived at the others (a per-colour
  delta over the changed tallies and players, one pass shared with the negative-count
  test), members moved only between valid places of the living, the seats named by the
  changed fields exist, … If the sound-test passes, the
  full check would find nothing; if it does not, the full check itself runs and its
  violations are returned, so every violation text comes from the reference;
- after a state on which every check found nothing, a step that changed only fields of
  `_FUSED` (the supply, bag, spaces, monks, pending step, turn, market day, mass, deaths
  owed, farmyard counts and members: most steps of a playout) runs one fused sound-test,
  `_fused`, over the changed parts instead of one call per check; "unsure" sends it down
  the per-check path;
- the phase verdict is kept while the pending step's type (and its seat, where the check
  reads it) and the other fields the phase check reads stay (`_PHASE_SEAT_TYPES`);
- the transition checks return at once when the step is the one between the last two
  states checked (by identity) and changed nothing they read (the round, prestige,
  customers, markers, members), else look only at the players that changed, and run
  `transition_violations` itself when anything looks wrong.

Value-keyed verdict caches (per green bag, per tally pair, per step) were tried and
dropped: their hit rate over 20 playouts was 13-57% and a miss cost more than the loop it
saved. The per-mask table `_runs` is keyed by a few dozen change patterns and bounded.

A loop calls it on the states of one game in order (the fuzzer, `VillageMachine`, the
benchmarks); a state given out of order is still checked exactly, only with more work.

The first state, a state of another game (other rules or player count) and any doubt run
the full checks. `tests/checks/test_incremental.py` ties this to the reference: at every step of
seeded games (both editions, 1-5 players, several readings) and for broken states fed as
`after`, the result equals the full checks'.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import fields
from functools import lru_cache
from itertools import compress
from operator import attrgetter, is_not

from village_rules.checks import invariants as inv
from village_rules.checks.invariants import Violation
from village_rules.data.components import (
    ActionSpace,
    ChurchReserve,
    Cube,
    Farmyard,
    Good,
    InBlackBag,
    InChronicle,
    InGraveyard,
    Location,
    Removed,
    Unborn,
)
from village_rules.data.tally import K, Tally
from village_rules.model.actions import Action, TakeCube
from village_rules.model.pending import (
    CHANCE_TYPES,
    ChooseAction,
    ChooseDying,
    GameOver,
    MarketChoice,
    MassBuy,
)
from village_rules.model.state import GameState, PlayerState, Supply

_STATE_FIELDS = tuple(f.name for f in fields(GameState) if f.name != "legal_cache")
_PLAYER_FIELDS = tuple(f.name for f in fields(PlayerState))
_state_parts = attrgetter(*_STATE_FIELDS)
_player_parts = attrgetter(*_PLAYER_FIELDS)
_BIT = {name: 1 << i for i, name in enumerate(_STATE_FIELDS)}
_BIT.update({f"p.{name}": 1 << (len(_STATE_FIELDS) + i) for i, name in enumerate(_PLAYER_FIELDS)})
_ALL = (1 << len(_BIT)) - 1
_PLAYER_BITS = tuple(_BIT[f"p.{name}"] for name in _PLAYER_FIELDS)
_PLAYERS = _BIT["players"]


def _mask(*names: str) -> int:
    out = 0
    for name in names:
        out |= _BIT[name]
    return out


StateCheck = Callable[[GameState], list[Violation]]
FastTest = Callable[[GameState, int], list[Violation] | None]
"""A sound-test: [] when the check would find nothing, None when unsure (run the check)."""

# Each state check of `invariants.state_violations`, in its order, with the fields it
# reads ("p.x": field x of any player; every check reading players also reads their number,
# which changes only with the `players` field, and then all player bits are set).
_COINS_OF: Callable[[Supply | PlayerState], int] = attrgetter("coins")
_GRAIN_OF: Callable[[Supply | PlayerState], int] = attrgetter("grain")


_CHECKS: tuple[tuple[str, StateCheck, int], ...] = (
    (inv.CUBES, inv.cube_violations, _mask("rules", "supply", "green_bag", "spaces", "p.cubes")),
    (inv.COINS, inv.coin_violations, _mask("rules", "supply", "p.coins")),
    (inv.GRAIN, inv.grain_violations, _mask("rules", "supply", "p.grain")),
    (inv.GOODS, inv.goods_violations, _mask("rules", "supply", "p.goods")),
    (
        inv.CUSTOMERS,
        inv.customer_violations,
        _mask("rules", "customer_pile", "market_available", "market_waiting", "p.customers"),
    ),
    (inv.MONKS, inv.monk_violations, _mask("rules", "bag_monks", "monks_aside")),
    (inv.MARKERS, inv.marker_violations, _mask("rules", "p.markers")),
    (inv.MEMBERS, inv.member_violations, _mask("rules", "end_triggered_by", "carla", "p.members")),
    (inv.GRAIN_CAPACITY, inv.grain_capacity_violations, _mask("rules", "p.grain")),
    (
        inv.NON_NEGATIVE,
        inv.non_negative_violations,
        _mask(
            "round",
            "supply",
            "bag_monks",
            "monks_aside",
            "deaths_owed",
            "mass",
            "market_day",
            "green_bag",
            "spaces",
            "p.coins",
            "p.grain",
            "p.prestige",
            "p.cubes",
            "p.goods",
        ),
    ),
    (inv.LIFETIME, inv.lifetime_violations, _mask("rules", "p.lifetime")),
    (
        inv.SEATS,
        inv.seat_violations,
        _mask(
            "rules",
            "carla",
            "pending",
            "start_player",
            "next_start_holder",
            "end_triggered_by",
            "turn",
            "market_day",
            "final_turns",
            "mass",
            "deaths_owed",
        ),
    ),
    (
        inv.BOARD,
        inv.board_violations,
        _mask(
            "rules", "spaces", "market_available", "market_waiting", "customer_pile", "monks_aside", "mass"
        ),
    ),
)
# Then, in `state_violations`' order: the well, has-move and legal-set checks (they read
# the legal actions, a new list every step), the chance check (it reads whatever the
# chance event reads), and these two.
_PHASE_MASK = _mask(
    "rules", "pending", "turn", "market_day", "mass", "deaths_owed", "final_turns", "end_triggered_by"
)
_CARLA_MASK = _mask(
    "rules",
    "carla",
    "pending",
    "turn",
    "final_turns",
    "start_player",
    *(f"p.{name}" for name in _PLAYER_FIELDS),
)
_N_CHECKS = len(_CHECKS)
_END_OR_CARLA = _mask("end_triggered_by", "carla")
_DEAD = (InChronicle, InGraveyard, Removed)
_ALWAYS_VALID = (Unborn, Farmyard, InBlackBag)
"""As `invariants._ALWAYS_VALID`: places any member may be (matched by exact type)."""
_NON_NEGATIVE = [name for name, _, _ in _CHECKS].index(inv.NON_NEGATIVE)


_MASK_LIMIT = 4096
"""The most change patterns `IncrementalChecker._runs` keeps (a few dozen occur)."""


@lru_cache(maxsize=4096)
def _to_run(changed: int) -> tuple[int, ...]:
    """The checks of `_CHECKS` that read a changed field."""
    return tuple(i for i, (_, _, deps) in enumerate(_CHECKS) if changed & deps)


_PHASE = _N_CHECKS
_CARLA = _N_CHECKS + 1
_CHANCE = _N_CHECKS + 2

_kinds: dict[type, tuple[bool, bool]] = {}
"""Pending step type: (is a chance event, is the end), as `GameState.is_chance` /
`is_terminal` answer them (isinstance, computed once per type)."""


def _kind(pending: object) -> tuple[bool, bool]:
    kind = type(pending)
    known = _kinds.get(kind)
    if known is None:
        known = _kinds[kind] = (isinstance(pending, CHANCE_TYPES), isinstance(pending, GameOver))
    return known


def _seat_ok(value: object, n: int) -> bool:
    return type(value) is int and 0 <= value < n


class IncrementalChecker:
    """Checks the steps of one game after another: the full checks' result at the cost of
    what changed. One checker per playout loop (it remembers the last state checked); not
    thread-safe. `oracle=False` leaves out the legal-set comparison (for benchmarks)."""

    def __init__(self, oracle: bool = True) -> None:
        self.oracle = oracle
        self._parts: tuple[object, ...] | None = None
        self._players: tuple[PlayerState, ...] = ()
        self._player_parts: list[tuple[object, ...]] = []
        self._results: list[list[Violation]] = [[] for _ in range(_N_CHECKS + 3)]
        self._chance_state: GameState | None = None
        # running conservation of cubes: the tallies counted, and their sum
        self._previous: tuple[object, ...] = ()
        self._last_changed = _ALL
        """What changed between the last two states checked (`_changed`)."""
        """The fields of the state checked before the last one (what `changed` is against)."""
        self._changed_seats: tuple[int, ...] = ()
        self._checked: GameState | None = None
        """The last state checked, and the one checked before it when that was of the same
        game (`_previous` holds its fields): `transition` knows the step at once."""
        self._checked_before: GameState | None = None
        self._pairs: list[tuple[Tally[Cube], Tally[Cube]]] | None = None
        self._unsure = False
        self._all_sound = False
        """Whether every check of `_CHECKS` found nothing in the last state checked."""
        self._phase_key: object = None
        """What `phase_violations` read of the pending step when it last ran: its type,
        and its seat for the types whose check reads the seat (`_PHASE_SEAT_TYPES`)."""
        self._scan: object = _UNSCANNED
        """`_cube_scan`'s answer for the state being checked (or `_UNSCANNED`)."""
        self._board_spaces: object = None
        self._board_cubes = False
        """Whether `_board_spaces` hold a cube (`GameState.cubes_on_board` is not 0)."""
        # per check of `_CHECKS`: a sound-test of the changed parts, or None
        tests: dict[str, FastTest] = {
            inv.CUBES: self._cubes_fast,
            inv.NON_NEGATIVE: self._non_negative_fast,
            inv.SEATS: _seats_fast,
            inv.BOARD: _board_fast,
            inv.COINS: self._coins_fast,
            inv.GRAIN: self._grain_fast,
            inv.GOODS: self._goods_fast,
            inv.LIFETIME: self._lifetime_fast,
            inv.GRAIN_CAPACITY: self._grain_capacity_fast,
            inv.MEMBERS: self._members_fast,
        }
        self._fast_tests = [tests.get(name) for name, _, _ in _CHECKS]
        self._runs: dict[int, tuple[tuple[int, StateCheck, FastTest | None], ...]] = {}
        """Per change mask: (index, check, sound-test) of each check of `_CHECKS` that reads a
        changed field, in order: the step's routine, looked up once per pattern."""

    def _plan(self, changed: int) -> tuple[tuple[int, StateCheck, FastTest | None], ...]:
        runs = self._runs
        if len(runs) >= _MASK_LIMIT:
            runs.clear()
        plan = runs[changed] = tuple((i, _CHECKS[i][1], self._fast_tests[i]) for i in _to_run(changed))
        return plan

    def reset(self) -> None:
        """Forget the last state: the next check runs in full."""
        self._parts = None
        self._checked = self._checked_before = None
        self._last_changed = _ALL
        self._previous = ()
        self._players = ()
        self._player_parts = []
        self._chance_state = None
        self._board_spaces = None
        self._phase_key = None

    # --- the public checks ---------------------------------------------------------------

    def step(
        self, before: GameState, action: Action, after: GameState, legal: Sequence[Action] | None
    ) -> list[Violation]:
        """`state_violations(after, legal) + transition_violations(before, action, after)`
        (without `structure.legal_set` when `oracle` is off)."""
        out = self.state(after, legal)
        if (
            after is self._checked
            and before is self._checked_before
            and not self._last_changed & _TRANSITION_READS
        ):
            return out  # `transition`'s first answer, without the call
        out += self.transition(before, action, after)
        return out

    def state(self, state: GameState, legal: Sequence[Action] | None) -> list[Violation]:
        """`state_violations(state, legal)` (without `structure.legal_set` when `oracle`
        is off)."""
        pending = state.pending
        known = _kinds.get(type(pending))
        chance, terminal = _kind(pending) if known is None else known
        if legal is None and not (chance or terminal):
            # the full checks would compute the legal actions for the well: do as they do
            self.reset()
            return self._full(state, legal)
        changed = self._last_changed = self._changed(state)
        results = self._results
        if not changed:
            pass
        elif not changed & _UNFUSED and self._all_sound and self._fused(state, changed, chance or terminal):
            pass  # every check of `_CHECKS` still finds nothing (their results stay [])
        else:
            self._pairs = None
            self._unsure = False
            self._scan = _UNSCANNED
            runs = self._runs.get(changed)
            if runs is None:
                runs = self._plan(changed)
            whole = changed == _ALL
            for i, check, test in runs:
                if test is None or whole or results[i]:
                    results[i] = check(state)
                else:
                    found = test(state, changed)
                    results[i] = check(state) if found is None else found
            self._all_sound = not any(results[:_N_CHECKS])
        out: list[Violation] = []
        if not self._all_sound:
            for found in results[:_N_CHECKS]:
                out += found
        if not (chance or terminal):
            found = self._well(state, legal, chance, terminal)
            if found:
                out += found
        if legal is not None:
            if not (chance or terminal or legal):
                out += inv.has_move_violations(state, legal)
            if self.oracle:
                out += inv.legal_set_violations(state, legal)
        if chance:
            if changed or self._chance_state is not state:
                results[_CHANCE] = inv.chance_violations(state)
                self._chance_state = state
            if results[_CHANCE]:
                out += results[_CHANCE]
        if changed & _PHASE_MASK:
            kind = type(pending)
            key = (kind, pending.seat) if kind in _PHASE_SEAT_TYPES else kind  # type: ignore[union-attr]
            if changed & _PHASE_OTHERS or key != self._phase_key:
                results[_PHASE] = inv.phase_violations(state)
                self._phase_key = key
        if results[_PHASE]:
            out += results[_PHASE]
        if changed & _CARLA_MASK:  # (without Carla's board it finds nothing)
            results[_CARLA] = _NOTHING if state.carla is None else inv.carla_violations(state)
        if results[_CARLA]:
            out += results[_CARLA]
        return out

    def transition(self, before: GameState, action: Action, after: GameState) -> list[Violation]:
        """`transition_violations(before, action, after)`: players that are the same object
        before and after are skipped; anything that may be wrong runs the full check. A
        plague cube's take and the step that lays down the final actions (both rare) always
        run the full check (`transition.plague_time`, `transition.trigger_no_final_action`)."""
        if (isinstance(action, TakeCube) and action.cube is Cube.PLAGUE) or (
            before.final_turns is None and after.final_turns is not None
        ):
            return inv.transition_violations(before, action, after)
        if (
            after is self._checked
            and before is self._checked_before
            and not self._last_changed & _TRANSITION_READS
        ):
            # `before` and `after` are the last two states checked (so `_last_changed` is
            # what the step changed), and the step changed nothing the transition checks
            # read (the round; prestige, customers, markers and members of any player):
            # they all hold
            return []
        now = self._parts
        last = self._previous
        if before.rules is not after.rules or len(before.players) != len(after.players):
            return inv.transition_violations(before, action, after)
        if after.round < before.round:
            return inv.transition_violations(before, action, after)
        olds = before.players
        news = after.players
        if olds is news:
            return []
        # the seats that changed, when `after` is the state checked last and `before` the
        # one checked before it (as in a playout); else every seat
        seats: Sequence[int] = range(len(news))
        if now is not None and last and now[_PLAYERS_AT] is news and last[_PLAYERS_AT] is olds:
            seats = self._changed_seats
        for seat in seats:
            p = olds[seat]
            q = news[seat]
            if p is q:
                continue
            if (
                q.prestige < p.prestige
                or (q.customers is not p.customers and q.customers[: len(p.customers)] != p.customers)
                or (
                    p.markers is not q.markers
                    and p.markers != q.markers
                    and not set(p.markers) <= set(q.markers)
                )
                or (p.members is not q.members and not _members_kept(p.members, q.members))
            ):
                return inv.transition_violations(before, action, after)
        return []

    # --- internals -----------------------------------------------------------------------

    def _full(self, state: GameState, legal: Sequence[Action] | None) -> list[Violation]:
        found = inv.state_violations(state, legal)
        if not self.oracle:
            found = [v for v in found if v.invariant != inv.LEGAL_SET]
        return found

    def _changed(self, state: GameState) -> int:
        """Bits of the fields that differ (by identity) from the last state checked; all
        of them for the first state or another game. Remembers `state`'s parts."""
        parts = _state_parts(state)
        last = self._parts
        self._parts = parts
        players = state.players
        if last is None or last[0] is not parts[0]:
            self._checked = state
            return self._start(players)
        self._previous = last
        self._checked_before = self._checked
        self._checked = state
        changed = 0
        bit = 1
        for i in range(len(parts)):
            if parts[i] is not last[i]:
                changed |= bit
            bit <<= 1
        if changed & _PLAYERS:
            old = self._players
            if len(old) != len(players):
                self._checked = state
                return self._start(players)
            olds = self._player_parts
            moved: list[int] = []
            for seat in range(len(players)):
                if players[seat] is not old[seat]:
                    moved.append(seat)
                    mine = _player_parts(players[seat])
                    was = olds[seat]
                    for i in range(len(mine)):
                        if mine[i] is not was[i]:
                            changed |= _PLAYER_BITS[i]
                    olds[seat] = mine
            self._changed_seats = tuple(moved)
            self._players = players
        return changed

    def _start(self, players: tuple[PlayerState, ...]) -> int:
        """Everything changed: remember the players, forget the state before."""
        self._previous = ()
        self._checked_before = None
        self._remember_players(players)
        return _ALL

    def _remember_players(self, players: tuple[PlayerState, ...]) -> None:
        self._players = players
        self._player_parts = [_player_parts(p) for p in players]

    def _cube_pairs(self, state: GameState, changed: int) -> list[tuple[Tally[Cube], Tally[Cube]]] | None:
        """(before, now) of each cube tally (supply, bag, spaces, farmyards) that is not the
        object of the last state: one pass shared by the conservation and the
        negative-count sound-tests. Only called when the state is not of another game;
        None when the number of action spaces changed (unsure)."""
        pairs = self._pairs
        if pairs is not None or self._unsure:
            return pairs
        pairs = self._pairs = []
        if not changed & _CUBE_TALLIES:
            return pairs
        last = self._previous
        if changed & _SUPPLY:
            old = last[_SUPPLY_AT].cubes  # type: ignore[attr-defined]
            if old is not state.supply.cubes:
                pairs.append((old, state.supply.cubes))
        if changed & _BAG:
            pairs.append((last[_BAG_AT], state.green_bag))  # type: ignore[arg-type]
        if changed & _SPACES:
            spaces = state.spaces
            olds: tuple[Tally[Cube], ...] = last[_SPACES_AT]  # type: ignore[assignment]
            if len(spaces) != len(olds):
                self._unsure = True
                return None
            pairs += compress(zip(olds, spaces, strict=True), map(is_not, olds, spaces))
        if changed & _P_CUBES:
            players = state.players
            before: tuple[PlayerState, ...] = last[_PLAYERS_AT]  # type: ignore[assignment]
            for seat in self._changed_seats:
                old = before[seat].cubes
                new = players[seat].cubes
                if old is not new:
                    pairs.append((old, new))
        return pairs

    def _fused(self, state: GameState, changed: int, seatless: bool) -> bool:
        """Every sound-test a step of the common kinds needs, in one pass: True when every
        check of `_CHECKS` would again find nothing. Only for steps that changed no field
        outside `_FUSED` and follow a state on which every check found nothing; False
        (unsure: the per-check path runs) at the first doubt.

        Over the changed parts only, as the per-check sound-tests: the cubes, coins, grain,
        goods and monks that left the changed places arrived at the others, no count there
        is negative, the changed farmyards are within the grain capacity and their
        life-time tokens on the track, the pending step's and the turn's seats are seats,
        and the board still has its action spaces (the rest of what the checks read is
        the last state's, which passed). `seatless`: the pending step is a chance event or
        the end (it names no seat to decide)."""
        last = self._previous
        cubes: dict[Cube, int] = {}
        coins = grain = 0
        goods: dict[Good, int] | None = None
        if changed & _SUPPLY:
            old_supply: Supply = last[_SUPPLY_AT]  # type: ignore[assignment]
            supply = state.supply
            if supply.coins < 0 or supply.grain < 0:
                return False
            coins = supply.coins - old_supply.coins
            grain = supply.grain - old_supply.grain
            if supply.cubes is not old_supply.cubes and _shift(cubes, old_supply.cubes, supply.cubes):
                return False
            if supply.goods is not old_supply.goods:
                goods = {}
                if _shift(goods, old_supply.goods, supply.goods):
                    return False
        if changed & _BAG:
            bag: Tally[Cube] = last[_BAG_AT]  # type: ignore[assignment]
            if _shift(cubes, bag, state.green_bag):
                return False
        if changed & _SPACES:
            spaces = state.spaces
            olds: tuple[Tally[Cube], ...] = last[_SPACES_AT]  # type: ignore[assignment]
            if len(spaces) != _N_SPACES or len(olds) != _N_SPACES:
                return False
            for old, new in compress(zip(olds, spaces, strict=True), map(is_not, olds, spaces)):
                if _shift(cubes, old, new):
                    return False
        if changed & _PLAYERS:
            before: tuple[PlayerState, ...] = last[_PLAYERS_AT]  # type: ignore[assignment]
            players = state.players
            data = state.rules.data
            cap = data.grain_capacity
            length = data.lifetime_track_length
            for seat in self._changed_seats:
                p = before[seat]
                q = players[seat]
                if q.coins < 0 or not 0 <= q.grain <= cap or q.prestige < 0 or not 0 <= q.lifetime < length:
                    return False
                coins += q.coins - p.coins
                grain += q.grain - p.grain
                if q.cubes is not p.cubes and _shift(cubes, p.cubes, q.cubes):
                    return False
                if q.goods is not p.goods:
                    if goods is None:
                        goods = {}
                    if _shift(goods, p.goods, q.goods):
                        return False
        if coins or grain or any(cubes.values()) or (goods is not None and any(goods.values())):
            return False
        if changed & _MONKS:
            old_bag: int = last[_BAG_MONKS_AT]  # type: ignore[assignment]
            old_aside: int = last[_MONKS_ASIDE_AT]  # type: ignore[assignment]
            bag_monks = state.bag_monks
            aside = state.monks_aside
            if (
                bag_monks < 0
                or aside < 0
                or bag_monks + aside != old_bag + old_aside
                or (aside and state.mass is None)
            ):
                return False
        n_players = len(state.players)
        if changed & _FUSED_SEATED and not self._seated(state, changed, n_players):
            return False
        if changed & _P_MEMBERS and self._members_fast(state, changed) is None:
            return False
        if changed & _B_PENDING and not seatless:
            who: object = getattr(state.pending, "seat", None)
            if type(who) is not int or not 0 <= who < n_players:
                return False
        if changed & _B_TURN:
            turn = state.turn
            if turn is not None and (type(turn.seat) is not int or not 0 <= turn.seat < n_players):
                return False
        return True

    def _seated(self, state: GameState, changed: int, n: int) -> bool:
        """The fused test's part for the deaths owed, the market day and the mass: no
        negative count (deaths owed, held deaths, masses bought), their seats are seats,
        one death count per seat, and monks aside only during a mass."""
        if changed & _B_DEATHS_OWED:
            owed = state.deaths_owed
            if len(owed) != n or min(owed, default=0) < 0:
                return False
        if changed & _B_MARKET_DAY:
            day = state.market_day
            if day is not None and (
                day.held_deaths < 0
                or not all(_seat_ok(s, n) for s in (day.trigger, day.current, *day.passed))
            ):
                return False
        if changed & _B_MASS:
            mass = state.mass
            if mass is None:
                if state.monks_aside:
                    return False
            elif mass.bought < 0 or not all(_seat_ok(s, n) for s in mass.stopped):
                return False
        return True

    def _cube_scan(self, state: GameState, changed: int) -> tuple[bool, bool] | None:
        """(the changed cube tallies hold, per colour, as many cubes as before; one of them
        has a negative count now), or None when unsure: one pass over `_cube_pairs`,
        shared by the conservation and negative-count tests (a plain loop over the few
        pairs: a value-keyed cache of these answers was tried and lost, its hit rate in a
        playout being ~25%)."""
        scan = self._scan
        if scan is not _UNSCANNED:
            return scan  # type: ignore[return-value]
        pairs = self._cube_pairs(state, changed)
        if pairs is None:
            self._scan = None
            return None
        total: dict[Cube, int] = {}
        negative = False
        for old, new in pairs:
            negative = _shift(total, old, new) or negative
        found = self._scan = (not any(total.values()), negative)
        return found

    def _cubes_fast(self, state: GameState, changed: int) -> list[Violation] | None:
        """Conservation of cubes: the last state had every cube, so this one has them all
        if the changed tallies hold, per colour, as many cubes as they held before."""
        scan = self._cube_scan(state, changed)
        return [] if scan is not None and scan[0] else None

    def _changed_players(self, state: GameState, changed: int) -> list[tuple[PlayerState, PlayerState]]:
        """(before, now) of each player that is not the object of the last state."""
        if not changed & _PLAYERS:
            return []
        before: tuple[PlayerState, ...] = self._previous[_PLAYERS_AT]  # type: ignore[assignment]
        players = state.players
        return [(before[seat], players[seat]) for seat in self._changed_seats]

    def _coins_fast(self, state: GameState, changed: int) -> list[Violation] | None:
        """The coins that left the changed places arrived at the others (the last state
        had all of them)."""
        return self._amount_fast(state, changed, _COINS_OF)

    def _grain_fast(self, state: GameState, changed: int) -> list[Violation] | None:
        """As `_coins_fast`, for grain."""
        return self._amount_fast(state, changed, _GRAIN_OF)

    def _amount_fast(
        self, state: GameState, changed: int, amount: Callable[[Supply | PlayerState], int]
    ) -> list[Violation] | None:
        """`amount` (coins or grain) summed over the supply and the changed farmyards is
        what it was."""
        old: Supply = self._previous[_SUPPLY_AT]  # type: ignore[assignment]
        delta = amount(state.supply) - amount(old)
        for p, q in self._changed_players(state, changed):
            delta += amount(q) - amount(p)
        return None if delta else []

    def _goods_fast(self, state: GameState, changed: int) -> list[Violation] | None:
        """As `_cubes_fast`, for goods: the supply's and the changed farmyards' tallies."""
        old: Supply = self._previous[_SUPPLY_AT]  # type: ignore[assignment]
        pairs = [(p.goods, q.goods) for p, q in self._changed_players(state, changed)]
        pairs.append((old.goods, state.supply.goods))
        delta: dict[Good, int] = {}
        for before, now in pairs:
            if before is not now:
                _shift(delta, before, now)  # (a negative count is the non-negative check's)
        return None if any(delta.values()) else []

    def _lifetime_fast(self, state: GameState, changed: int) -> list[Violation] | None:
        """Only the changed players' life-time tokens can have left the track."""
        length = state.rules.data.lifetime_track_length
        for _, q in self._changed_players(state, changed):
            if not 0 <= q.lifetime < length:
                return None
        return []

    def _grain_capacity_fast(self, state: GameState, changed: int) -> list[Violation] | None:
        """Only the changed farmyards can hold too much grain."""
        cap = state.rules.data.grain_capacity
        for _, q in self._changed_players(state, changed):
            if q.grain > cap:
                return None
        return []

    def _members_fast(self, state: GameState, changed: int) -> list[Violation] | None:
        """Members that moved between places of the living, to valid places: the counts per
        seat, in the chronicle, the graveyard and removed are those of the last state, and
        so is the end trigger."""
        if changed & _END_OR_CARLA:
            return None
        data = state.rules.data
        totals = inv._totals(data)
        for (p, q), seat in zip(self._changed_players(state, changed), self._changed_seats, strict=True):
            if p.members is q.members:
                continue
            if len(p.members) != len(q.members):
                return None
            for a, b in zip(p.members, q.members, strict=True):
                if a is b or a == b:
                    continue
                if isinstance(a, _DEAD) or isinstance(b, _DEAD):
                    return None
                kind = type(b)
                if kind in _ALWAYS_VALID or (kind is ChurchReserve and state.is_carla(seat)):
                    continue
                if not inv._valid_place(b, data, totals):
                    return None
        return []

    def _non_negative_fast(self, state: GameState, changed: int) -> list[Violation] | None:
        """No negative count in the parts that changed (the rest passed last time)."""
        if changed & _NEGATIVE_SCALARS:
            supply = state.supply
            mass = state.mass
            day = state.market_day
            if not (
                state.round >= 1
                and min(supply.coins, supply.grain, state.bag_monks, state.monks_aside) >= 0
                and min(state.deaths_owed, default=0) >= 0
                and (mass is None or mass.bought >= 0)
                and (day is None or day.held_deaths >= 0)
            ):
                return None
        scan = self._cube_scan(state, changed)
        if scan is None or scan[1]:
            return None
        if changed & _SUPPLY:
            for _, n in state.supply.goods.items:
                if n < 0:
                    return None
        if changed & _PLAYERS:
            players = state.players
            for seat in self._changed_seats:
                p = players[seat]
                if p.coins < 0 or p.grain < 0 or p.prestige < 0:
                    return None
                for _, n in p.goods.items:
                    if n < 0:
                        return None
        return []

    def _well(
        self, state: GameState, legal: Sequence[Action] | None, chance: bool, terminal: bool
    ) -> list[Violation]:
        if chance or terminal:
            return []
        spaces = state.spaces
        if spaces is not self._board_spaces:
            self._board_spaces = spaces
            if self._results[_NON_NEGATIVE]:
                self._board_cubes = sum(t.total() for t in spaces) != 0
            else:  # no negative count on the board: a cube anywhere makes the sum positive
                self._board_cubes = any(n for t in spaces for _, n in t.items)
        if self._board_cubes:
            return []
        return inv.well_violations(state, legal)


_PHASE_SEAT_TYPES = frozenset({ChooseAction, ChooseDying, MarketChoice, MassBuy})
"""The pending steps whose `phase_violations` verdict reads their seat; for every other
step it reads only the type (and the other fields of `_PHASE_MASK`)."""
_PHASE_OTHERS = _PHASE_MASK & ~_BIT["pending"]

_MONKS = _mask("bag_monks", "monks_aside")
_BAG_MONKS_AT = _STATE_FIELDS.index("bag_monks")
_MONKS_ASIDE_AT = _STATE_FIELDS.index("monks_aside")
_FUSED = _mask(
    "supply",
    "green_bag",
    "spaces",
    "players",
    "bag_monks",
    "monks_aside",
    "pending",
    "turn",
    "deaths_owed",
    "market_day",
    "mass",
    "p.colour",
    "p.members",
    "p.grain",
    "p.coins",
    "p.cubes",
    "p.goods",
    "p.lifetime",
    "p.prestige",
)
"""The fields whose changes `IncrementalChecker._fused` tests (seeding draws, cube takes,
payments, masses, deaths, most actions and market-day steps); a step changing any other
field (the market rows and pile, customers, markers, the round, the start player, the end)
takes the per-check path."""
_UNFUSED = _ALL & ~_FUSED
_FUSED_SEATED = _mask("deaths_owed", "market_day", "mass")
_P_MEMBERS = _BIT["p.members"]
_N_SPACES = len(ActionSpace)  # (an enum's len is a Python-level call: counted once)
_UNSCANNED = object()
_NOTHING: list[Violation] = []
"""A shared empty result (results are only ever read, never extended in place)."""
"""`IncrementalChecker._scan` before `_cube_scan` ran for the state being checked."""


def _shift(delta: dict[K, int], old: Tally[K], new: Tally[K]) -> bool:
    """Per key, take `old`'s counts out of `delta` and put `new`'s in (so over the tallies
    that changed, `delta` ends all zero when every piece that left one arrived at another);
    True when `new` has a negative count. The one loop of every conservation sound-test."""
    get = delta.get
    for key, n in old.items:
        delta[key] = get(key, 0) - n
    negative = False
    for key, n in new.items:
        if n < 0:
            negative = True
        delta[key] = get(key, 0) + n
    return negative


def _members_kept(before: tuple[Location, ...], after: tuple[Location, ...]) -> bool:
    """No dead member moved and no born member became unborn (else: unsure)."""
    for a, b in zip(before, after, strict=False):
        if a != b and (inv._dead(a) or isinstance(b, Unborn)):
            return False
    return True


_SUPPLY = _BIT["supply"]
_BAG = _BIT["green_bag"]
_SUPPLY_AT = _STATE_FIELDS.index("supply")
_ROUND_AT = _STATE_FIELDS.index("round")
_TRANSITION_READS = _mask("round", "p.prestige", "p.customers", "p.markers", "p.members")
_BAG_AT = _STATE_FIELDS.index("green_bag")
_SPACES_AT = _STATE_FIELDS.index("spaces")
_PLAYERS_AT = _STATE_FIELDS.index("players")
_SPACES = _BIT["spaces"]
_P_CUBES = _BIT["p.cubes"]
_CUBE_TALLIES = _mask("supply", "green_bag", "spaces", "p.cubes")
_NEGATIVE_SCALARS = _mask("round", "supply", "bag_monks", "monks_aside", "deaths_owed", "mass", "market_day")


_B_CARLA = _BIT["carla"]
_B_DEATHS_OWED = _BIT["deaths_owed"]
_B_END_TRIGGERED_BY = _BIT["end_triggered_by"]
_B_FINAL_TURNS = _BIT["final_turns"]
_B_MARKET_DAY = _BIT["market_day"]
_B_MASS = _BIT["mass"]
_B_NEXT_START_HOLDER = _BIT["next_start_holder"]
_B_PENDING = _BIT["pending"]
_B_START_PLAYER = _BIT["start_player"]
_B_TURN = _BIT["turn"]


def _seats_fast(state: GameState, changed: int) -> list[Violation] | None:
    """The seats named by the changed fields are seats of the game (the player count and
    the rules are those of the last state, which passed)."""
    n = len(state.players)
    if changed & _B_CARLA:
        d = state.rules.data
        if state.carla is not None:
            if n != 2 or d.solo is None:
                return None
        elif n not in d.player_counts:
            return None
    if changed & _B_PENDING:
        chance, terminal = _kind(state.pending)
        if not (chance or terminal) and not _seat_ok(getattr(state.pending, "seat", None), n):
            return None
    if changed & _B_START_PLAYER and not _seat_ok(state.start_player, n):
        return None
    if changed & _B_NEXT_START_HOLDER and not _optional_seat_ok(state.next_start_holder, n):
        return None
    if changed & _B_END_TRIGGERED_BY and not _optional_seat_ok(state.end_triggered_by, n):
        return None
    if changed & _B_TURN and state.turn is not None and not _seat_ok(state.turn.seat, n):
        return None
    day = state.market_day
    if (
        changed & _B_MARKET_DAY
        and day is not None
        and not all(_seat_ok(s, n) for s in (day.trigger, day.current, *day.passed))
    ):
        return None
    if changed & _B_FINAL_TURNS and not all(_seat_ok(s, n) for s in state.final_turns or ()):
        return None
    mass = state.mass
    if changed & _B_MASS and mass is not None and not all(_seat_ok(s, n) for s in mass.stopped):
        return None
    if changed & _B_DEATHS_OWED and len(state.deaths_owed) != n:
        return None
    return []


def _optional_seat_ok(value: object, n: int) -> bool:
    return value is None or _seat_ok(value, n)


_BOARD_SHAPE = _mask("rules", "market_available", "market_waiting", "customer_pile")


def _board_fast(state: GameState, changed: int) -> list[Violation] | None:
    """Sound when only the action spaces' contents, the monks aside or the mass changed
    (the last state passed, so the rows and the pile are as they were)."""
    if changed & _BOARD_SHAPE:
        return None
    if len(state.spaces) != _N_SPACES:
        return None
    if state.monks_aside and state.mass is None:
        return None
    return []
