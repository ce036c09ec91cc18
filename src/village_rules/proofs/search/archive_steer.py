"""Stage: search (the z3 archive steer, `prove --z3-steer`).

The z3 archive steer: a Go-Explore search on the engine, its cells cut by z3's macro
target (issue 23: a query without a hand-written steer still finds its witnesses).

A single steered playout (the removed macro-target playout, docs/proofs.md) reaches a
*count* z3 names (coins in the supply, graves filled) but rarely a *coincidence*: the end
triggered by a death that falls inside another seat's market day, the last cube of a round
taken while final actions remain, a tie after every tie-breaker. Those need many tries
from the moment just before, which the engine allows for free: `apply` is pure, so any
reached state can be played on again.

So each seeded run keeps an archive of reached states, one per *cell* (Ecoffet et al.,
"Go-Explore", 2019/2021: remember the states that are new in a coarse projection, return to
one, explore from it):

- **the cell** of a state is its counts abstraction (`archive_target.counts`) projected onto
  what z3's macro target moves (`Target.moves`, the nearest abstract state where the query's
  abstract predicate holds), after the seat relabelling that brings it nearest
  (`archive_target.nearest_relabelling`: "some seat ..." is met by whichever seat gets there),
  a numeric variable by its value, a seat, phase or flag by whether it has the target's
  value; with it the moment of the game (`MOMENT`: a market day, a mass, the end triggered,
  the final actions, the decision pending), since the coincidences above are a target
  count reached at a given moment;
- **the choice** of the cell to return to is by weight `exp(-(d - d_best) / closeness)`
  (`d`: the target distance of the cell, `d_best`: the least in the archive) over
  `sqrt(1 + times chosen)`, drawn with the run's seeded RNG: near cells first, the less
  tried among them;
- **the burst** from it plays `burst` engine steps. Chance outcomes are drawn uniformly
  among those of non-zero probability (a witness may take any of them); decisions, by a
  kind drawn per burst: towards the target (a share `greedy`: the option whose successor
  is nearest, ties at random), by a human-like policy (a share `planned`, one of
  `BURST_POLICIES`, none of which knows the query: they build the goods, coins and wagons
  that uniform play seldom does), else uniformly at random. Every state on the way whose
  cell is new enters the archive with its path; one whose cell is known replaces the stored
  one when it ranks better (`Rank`: nearer the target; then, when the target asks for no
  death, less time spent, since deaths bring the end nearer; then more held; then a
  shorter path);
- **CEGAR over targets**: when `patience` bursts in a row bring no state nearer, the
  target is blocked, with its mirror images for the other seats, and z3 is asked again
  from the initial abstraction (`Targeter.ask(now, blocked)`: the next target differs
  from each blocked one on a variable it moved; a stored state may lie past an event that
  cannot be undone, such as the end triggered at the wrong moment); the archive is cut
  anew by the new target. A target already met (distance 0: what is left is an event the counts do not
  see) is not blocked, and one is kept when z3 has no other. Where z3 gives no target at
  all, the cells are the moments alone.

After every step the query's concrete predicate is evaluated on the real path from the
real set-up; the first path that meets it is the witness, a log like any other.

Budgets are counts: engine steps per run, steps per burst, bursts of patience, z3 asks and
z3's `rlimit` per ask, and seeded runs; a new `Targeter` (z3 context) and RNG per run, so a
run depends on its seed alone, on any machine and under any load.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass, field

from village_rules.drivers.play import GameLog, Policy
from village_rules.engine.core import apply
from village_rules.engine.setup import new_game
from village_rules.errors import ParameterError
from village_rules.model.actions import Action, format_action
from village_rules.model.state import GameState
from village_rules.policies.greedy import greedy_policy
from village_rules.policies.planners import chronicle_planner, climber, traveller
from village_rules.proofs.model.abstraction import PLAYER_FIELDS
from village_rules.proofs.model.model import Constants
from village_rules.proofs.search.archive_target import (
    CATEGORICAL,
    SEAT_VALUED,
    AbstractGoal,
    Target,
    Targeter,
    counts,
    nearest_relabelling,
    relabellings,
)
from village_rules.proofs.search.history import History
from village_rules.proofs.search.search import ConcretePredicate, Witness, options
from village_rules.rules.variant import Variant

MOMENT: tuple[str, ...] = ("phase", "market_trigger", "mass", "end_by", "final_left")
"""The counts variables that say what moment of the game a state is at; a cell keeps
whether each is set (a market day held, a mass going on, the end triggered, final actions
left) and the phase (a turn's choice, another decision, a draw, over)."""

Cell = tuple[int, ...]
Rank = tuple[int, int, int, int]
"""How good a representative of its cell a state is, the lower the better: the target
distance; the time spent, when the target asks for no death (deaths bring the end, the
target's deadline, nearer); less what the seats hold (`HOLDINGS`: more to spend is more
that can still happen); the path's length."""

HOLDINGS: tuple[str, ...] = ("coins", "grain", "cubes", "goods")
"""The counts of what a seat holds and can spend."""

BURST_POLICIES: tuple[Policy, ...] = (greedy_policy, traveller, climber, chronicle_planner)
"""The human-like players a planned burst draws from (`policies`: none knows the query)."""


@dataclass(frozen=True, slots=True)
class ArchiveBudget:
    """The archive steer's budgets, all counts."""

    steps: int = 20_000
    """Engine steps per seeded run (bursts included)."""
    burst: int = 40
    """Engine steps played from a chosen cell."""
    patience: int = 300
    """Bursts in a row that bring no state nearer the target before it is blocked."""
    asks: int = 20
    """z3 asks per run."""
    rlimit: int = 5_000_000
    """z3 resource limit per ask."""
    greedy: float = 0.5
    """The share of bursts that take, at each step, the option whose successor is nearest
    the target (ties at random) instead of a uniformly random one."""
    planned: float = 0.25
    """The share of bursts whose decisions a human-like policy takes (`BURST_POLICIES`,
    one drawn per burst): they build the economy (goods, coins, wagons) that uniform
    random play seldom does and that many situations need."""
    closeness: float = 2.0
    """How strongly near cells are preferred (a unit of target distance divides a cell's
    weight by e ** (1 / closeness))."""

    def __post_init__(self) -> None:
        for name in ("steps", "burst", "patience", "asks", "rlimit"):
            value = getattr(self, name)
            if type(value) is not int or value < 1:
                raise ParameterError(f"budget.{name}", f"a whole number, at least 1, not {value!r}")
        shares = {"greedy": self.greedy, "planned": self.planned, "closeness": self.closeness}
        for name, value in shares.items():
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ParameterError(f"budget.{name}", f"a number, not {value!r}")
        if not 0 <= self.greedy <= 1:
            raise ParameterError("budget.greedy", f"a share between 0 and 1, not {self.greedy!r}")
        if not 0 <= self.planned <= 1 - self.greedy:
            raise ParameterError("budget.planned", f"a share between 0 and 1 - greedy, not {self.planned!r}")
        if not self.closeness > 0:
            raise ParameterError("budget.closeness", f"a number above 0, not {self.closeness!r}")


@dataclass(slots=True)
class ArchiveStats:
    """What the steer did: z3 asks, targets given and blocked, cells, bursts, steps."""

    asks: int = 0
    targets: int = 0
    blocked: int = 0
    cells: int = 0
    bursts: int = 0
    steps: int = 0
    first_target: str = ""

    def add(self, other: ArchiveStats) -> None:
        """Add another run's counts (the first target is kept)."""
        self.asks += other.asks
        self.targets += other.targets
        self.blocked += other.blocked
        self.cells += other.cells
        self.bursts += other.bursts
        self.steps += other.steps
        self.first_target = self.first_target or other.first_target


@dataclass(slots=True)
class _Entry:
    """A stored state: the path that reached it, its counts, its rank, times chosen."""

    history: History
    v: Mapping[str, int]
    rank: Rank
    chosen: int = 0

    @property
    def distance(self) -> int:
        """The target distance of the stored state."""
        return self.rank[0]


def relabelled(target: Target, sigma: Mapping[int, int]) -> Target:
    """`target` with its seats renamed by `sigma` (seat -> seat): the same goal for other
    seats, so that a blocked target is blocked for every seat."""
    moves: dict[str, int] = {}
    for name, want in target.moves.items():
        field_, _, seat = name.rpartition("_")
        if field_ in PLAYER_FIELDS and seat.isdigit():
            moves[f"{field_}_{sigma[int(seat)]}"] = want
        elif name in SEAT_VALUED and want >= 0:
            moves[name] = sigma[want]
        else:
            moves[name] = want
    return Target(moves, target.lifetime)


@dataclass(slots=True)
class _Archive:
    """One run's archive under its current target."""

    target: Target | None
    players: int
    entries: dict[Cell, _Entry] = field(default_factory=dict)
    seats: list[dict[int, int]] = field(init=False)

    def __post_init__(self) -> None:
        self.seats = relabellings(self.players)

    def place(self, v: Mapping[str, int], length: int) -> tuple[Cell, Rank]:
        """The cell of the counts `v` (reached in `length` actions) and its rank there."""
        moment = tuple(int(v[n] >= 0) if n != "phase" else v[n] for n in MOMENT)
        seats = range(self.players)
        held = -sum(v[f"{f}_{s}"] for f in HOLDINGS for s in seats)
        target = self.target
        if target is None or not target.moves:
            return moment, (0, 0, held, length)
        d, moved = nearest_relabelling(target, v, self.seats)
        values = tuple(
            int(moved[n] == want) if n in CATEGORICAL else moved[n]
            for n, want in sorted(target.moves.items())
        )
        spent = 0
        if not any(n.startswith("dead_") for n in target.moves):
            # deaths the target does not ask for bring the end (its deadline) nearer
            spent = sum(target.lifetime * v[f"dead_{s}"] + v[f"life_{s}"] for s in seats)
        return (d, *moment, *values), (d, spent, held, length)

    def offer(self, history: History, v: Mapping[str, int]) -> None:
        """Store the path's last state (counts `v`) if its cell is new, or in place of the
        stored one when it ranks better (`Rank`)."""
        cell, rank = self.place(v, history.step_count)
        known = self.entries.get(cell)
        if known is None:
            self.entries[cell] = _Entry(history.fork(), v, rank)
        elif rank < known.rank:
            known.history, known.v, known.rank = history.fork(), v, rank

    def nearest(self, state: GameState, moves: list[Action], rng: random.Random) -> tuple[Action, GameState]:
        """The option whose successor is nearest the target, ties drawn at random."""
        scored = []
        for a in moves:
            after = apply(state, a)
            d = self.place(counts(after), 0)[1][0]
            scored.append((d, rng.random(), a, after))
        best = min(scored, key=lambda x: (x[0], x[1]))
        return best[2], best[3]

    def best(self) -> int:
        """The least target distance stored."""
        return min(e.distance for e in self.entries.values())

    def choose(self, rng: random.Random, closeness: float) -> _Entry:
        """A stored state to play on from: near and seldom chosen first (seeded draw)."""
        entries = list(self.entries.values())
        low = self.best()
        weights = [math.exp(-(e.distance - low) / closeness) / math.sqrt(1 + e.chosen) for e in entries]
        return rng.choices(entries, weights)[0]

    def recut(self, target: Target | None) -> None:
        """The same stored states cut into cells by a new target (the best of each kept)."""
        old = list(self.entries.values())
        self.target, self.entries = target, {}
        for e in old:
            cell, rank = self.place(e.v, e.history.step_count)
            known = self.entries.get(cell)
            if known is None or rank < known.rank:
                self.entries[cell] = _Entry(e.history, e.v, rank)


def archive_attempt(
    edition: str,
    players: int,
    seed: int,
    abstract_goal: AbstractGoal,
    goal: ConcretePredicate,
    *,
    budget: ArchiveBudget | None = None,
    variant: Variant | None = None,
    stats: ArchiveStats | None = None,
) -> History | None:
    """One seeded run of the archive search from the set-up of `seed`: the first path
    meeting `goal`, or None once the run's steps are spent."""
    chosen = budget or ArchiveBudget()
    counted = stats if stats is not None else ArchiveStats()
    rng = random.Random(seed)
    root = History([new_game(edition, players, seed, variant or Variant())])
    state = root.last
    targeter = Targeter(players, Constants.of(state.rules.data, players), abstract_goal, chosen.rlimit)
    blocked: list[Target] = []

    def ask(now: Mapping[str, int]) -> Target | None:
        if counted.asks >= chosen.asks:
            return None
        counted.asks += 1
        target = targeter.ask(now, blocked)
        if target is not None:
            counted.targets += 1
            counted.first_target = counted.first_target or target.describe()
        return target

    start = counts(state)
    archive = _Archive(ask(start), players)
    archive.offer(root, start)
    best, idle, spent = archive.best(), 0, 0
    while spent < chosen.steps:
        entry = archive.choose(rng, chosen.closeness)
        entry.chosen += 1
        counted.bursts += 1
        history = entry.history.fork()
        kind = rng.random()
        greedy = archive.target is not None and kind < chosen.greedy
        policy = BURST_POLICIES[rng.randrange(len(BURST_POLICIES))] if 1 - kind <= chosen.planned else None
        for _ in range(min(chosen.burst, chosen.steps - spent)):
            state = history.last
            if state.is_terminal:
                break
            moves = options(state)
            if greedy and len(moves) > 1:
                action, _ = archive.nearest(state, moves, rng)
            elif policy is not None and not state.is_chance and len(moves) > 1:
                action = policy(state, moves, rng)
            else:
                action = moves[rng.randrange(len(moves))]
            spent += 1
            if history.play(action, goal):  # judged after every sub-step
                counted.steps += spent
                counted.cells += len(archive.entries)
                return history
            archive.offer(history, counts(history.last))
        near = archive.best()
        if near < best:
            best, idle = near, 0
            continue
        idle += 1
        if idle >= chosen.patience and best > 0 and archive.target is not None and counted.asks < chosen.asks:
            # CEGAR: the engine does not follow this target: block it (for every seat) and
            # ask z3 again from the initial abstraction, as at the start (a stored state may
            # be past an event that cannot be undone, e.g. the end triggered at the wrong
            # moment, and would give a target that cannot be met); the archive is cut anew
            # by the next target. A target already met (best 0: what is left is an event
            # the counts do not see) is kept, and so is this one when z3 has no other
            idle = 0
            mirrored = [relabelled(archive.target, sigma) for sigma in archive.seats]
            blocked.extend(mirrored)
            following = ask(start)
            if following is None or not following.moves:
                del blocked[-len(mirrored) :]
                continue
            counted.blocked += 1
            archive.recut(following)
            best = archive.best()
    counted.steps += spent
    counted.cells += len(archive.entries)
    return None


def archive_search(
    edition: str,
    players: int,
    abstract_goal: AbstractGoal,
    goal: ConcretePredicate,
    runs: int,
    *,
    budget: ArchiveBudget | None = None,
    first_seed: int = 0,
    variant: Variant | None = None,
) -> tuple[Witness | None, int, ArchiveStats]:
    """Archive runs on seeds first_seed, first_seed + 1, ... until one meets `goal`: the
    witness (or None), the runs made and what the steer did."""
    rules = variant or Variant()
    total = ArchiveStats()
    for tried, seed in enumerate(range(first_seed, first_seed + runs), start=1):
        stats = ArchiveStats()
        history = archive_attempt(
            edition, players, seed, abstract_goal, goal, budget=budget, variant=rules, stats=stats
        )
        total.add(stats)
        if history is not None:
            log = GameLog(edition, players, seed, tuple(format_action(a) for a in history.decisions), rules)
            return Witness(log, tried, history), tried, total
    return None, runs, total

