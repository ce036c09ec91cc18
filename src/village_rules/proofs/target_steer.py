"""The z3 target steer: engine games steered towards z3's macro target (issue 23).

`plan_target.Targeter` gives, from the counts abstraction of the current state, the
nearest abstract state where the query's abstract predicate holds (a macro step of any
length). This module follows it on the engine, with no hand-written steer:

- every option (a decision, or a chance outcome: a witness may take any outcome of
  non-zero probability) is scored by how near its successor comes to the target
  (`symmetric_distance`: `Target.distance` under the best relabelling of the seats, since
  a goal "some seat has ..." is met by whichever seat gets there first);
- ties (most actions move nothing the target names) go to the option a human-like player
  would take: the acting seat's `policies.evaluation.evaluate` of the successor (score
  plus holdings, time spent costs), less `SPENT_WEIGHT` per unit of time any seat has
  spent when the target needs no death (an unwanted death brings the end nearer), so
  games build the economy and last instead of dying out by the graveyard as uniform
  random games mostly do; chance ties go to the RNG;
- at a turn's choice the option is valued where the rest of the turn, played greedily the
  same way, ends (`lookahead` steps: the macro step is a turn);
- a share `randomness` of the decisions is random among the options that lose no progress;
- where the target is empty (the abstract goal already holds) or z3 gives none, play is
  uniform random, as unsteered games;
- CEGAR over targets: when the target is reached and the concrete predicate still does
  not hold, z3 is asked again from where the game is (at the next turn); when the
  distance has not improved for `patience` turns, the target is blocked and z3 asked for
  another (`Targeter.ask(now, blocked)`).

Budgets are counts (games, actions per game, asks per game, turns of patience, z3 rlimit
per ask); a new `Targeter` (z3 context) and RNG per game, so a game depends on its seed
alone. A witness is accepted on the concrete predicate only, as every other.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import permutations

from village_rules.drivers.play import GameLog
from village_rules.engine.core import apply
from village_rules.engine.setup import new_game
from village_rules.errors import ParameterError
from village_rules.model.actions import Action, format_action
from village_rules.model.pending import ChooseTurn
from village_rules.model.state import GameState
from village_rules.policies.evaluation import time_aware
from village_rules.proofs.abstraction import PHASE_TURN, PLAYER_FIELDS
from village_rules.proofs.history import History
from village_rules.proofs.model import Constants
from village_rules.proofs.plan_target import AbstractGoal, Target, Targeter, counts
from village_rules.proofs.search import ConcretePredicate, Witness, options
from village_rules.rules.variant import Variant

SPENT_WEIGHT = 0.5
"""The weight, in `time_aware` units, of one unit of time spent by any seat when the
target needs no death (`_Follower._spent`)."""

SEAT_VALUED: tuple[str, ...] = ("actor", "end_by", "market_trigger")
"""Global variables whose value is a seat (-1: none); relabelled with the seats."""


@dataclass(frozen=True, slots=True)
class TargetBudget:
    """The z3 target steer's budgets, all counts."""

    max_actions: int = 4000
    """Engine actions per game."""
    randomness: float = 0.1
    """The share of decisions taken uniformly at random."""
    patience: int = 6
    """Turns without a better distance before the target is blocked."""
    lookahead: int = 12
    """Engine steps of the rest of a turn played out at each turn's choice (0: none)."""
    asks: int = 60
    """z3 asks per game."""
    rlimit: int = 5_000_000
    """z3 resource limit per ask."""

    def __post_init__(self) -> None:
        least = {"max_actions": 1, "patience": 1, "asks": 1, "rlimit": 1, "lookahead": 0}
        for name, low in least.items():
            value = getattr(self, name)
            if type(value) is not int or value < low:
                raise ParameterError(f"budget.{name}", f"a whole number, at least {low}, not {value!r}")
        if not 0.0 <= self.randomness <= 1.0:
            raise ParameterError("budget", "randomness is a share between 0 and 1")


@dataclass(slots=True)
class TargetStats:
    """What the steer did: z3 asks, targets z3 gave, targets blocked, targets reached."""

    asks: int = 0
    targets: int = 0
    blocked: int = 0
    reached: int = 0
    first_target: str = ""

    def add(self, other: TargetStats) -> None:
        """Add another game's counts (the first target is kept)."""
        self.asks += other.asks
        self.targets += other.targets
        self.blocked += other.blocked
        self.reached += other.reached
        self.first_target = self.first_target or other.first_target


def relabellings(players: int) -> list[dict[int, int]]:
    """Every relabelling of the seats (seat -> seat), the identity first."""
    return [dict(enumerate(p)) for p in permutations(range(players))]


def symmetric_distance(target: Target, v: Mapping[str, int], seats: Sequence[Mapping[int, int]]) -> int:
    """`target.distance` of `v` with its seats relabelled, the least over `seats`: the
    progress towards the target for whichever seat is nearest to playing its part."""
    return nearest_relabelling(target, v, seats)[0]


def nearest_relabelling(
    target: Target, v: Mapping[str, int], seats: Sequence[Mapping[int, int]]
) -> tuple[int, Mapping[str, int]]:
    """The least `target.distance` of `v` over the relabellings `seats`, and `v` relabelled
    by the first that gives it (`v` itself when `seats` holds only the identity)."""
    best: tuple[int, Mapping[str, int]] | None = None
    for sigma in seats:
        moved: dict[str, int] = dict(v)
        for old, new in sigma.items():
            if old == new:
                continue
            for f in PLAYER_FIELDS:
                moved[f"{f}_{new}"] = v[f"{f}_{old}"]
        for g in SEAT_VALUED:
            if v[g] >= 0:
                moved[g] = sigma[v[g]]
        d = target.distance(moved)
        if best is None or d < best[0]:
            best = (d, moved)
    return best if best is not None else (0, v)


class _Follower:
    """One game's target, its progress and the CEGAR bookkeeping."""

    def __init__(
        self, state: GameState, goal: AbstractGoal, budget: TargetBudget, stats: TargetStats
    ) -> None:
        players = state.num_players
        self.targeter = Targeter(players, Constants.of(state.rules.data, players), goal, budget.rlimit)
        self.seats = relabellings(players)
        self.budget = budget
        self.stats = stats
        self.blocked: list[Target] = []
        self.target: Target | None = None
        self.best = 0
        self.stale = 0
        self.ask(counts(state))

    def ask(self, now: Mapping[str, int]) -> None:
        """z3's next target from `now` (None once the asks are spent or z3 finds none)."""
        self.target = None
        if self.stats.asks >= self.budget.asks:
            return
        self.stats.asks += 1
        self.target = self.targeter.ask(now, self.blocked)
        if self.target is not None:
            self.stats.targets += 1
            self.stats.first_target = self.stats.first_target or self.target.describe()
            self.best = self.distance(now)
            self.stale = 0

    def distance(self, v: Mapping[str, int]) -> int:
        """The progress measure to the current target (0 without one)."""
        return 0 if self.target is None else symmetric_distance(self.target, v, self.seats)

    def choose(self, state: GameState, options: Sequence[Action], rng: random.Random) -> Action:
        """The option whose successor is nearest the target (at a turn's choice: where the
        rest of the turn, played greedily, ends); ties: the human-like value."""
        if len(options) == 1:
            return options[0]
        if self.target is None or not self.target.moves:
            # no target, or the abstract goal already holds (an event the counts do not
            # see, e.g. a death at the right moment): uniform random play, as unsteered
            return options[rng.randrange(len(options))]
        explore = not state.is_chance and rng.random() < self.budget.randomness
        turn = isinstance(state.pending, ChooseTurn) and self.budget.lookahead > 0
        scored = []
        for i, a in enumerate(options):
            after = apply(state, a)
            if turn:
                after = self._rest_of_turn(after, state.current_player())
            d, human = self._value(after, state.current_player(), state.is_chance)
            scored.append((-d, human, rng.random(), i))
        if explore:
            here = self.distance(counts(state))
            keep = [x for x in scored if -x[0] <= here] or scored
            return options[keep[rng.randrange(len(keep))][3]]
        return options[max(scored)[3]]

    def _value(self, after: GameState, seat: int, chance: bool) -> tuple[int, float]:
        human = 0.0 if chance or seat < 0 else time_aware(after, seat)
        v = counts(after)
        return self.distance(v), human - SPENT_WEIGHT * self._spent(v)

    def _spent(self, v: Mapping[str, int]) -> int:
        """The time every seat has spent (a death counts a whole track) when the target
        needs no death, else 0: deaths it does not ask for bring the end (a deadline for
        the target) nearer, so among equally near options the one spending less is kept."""
        if self.target is None or any(n.startswith("dead_") for n in self.target.moves):
            return 0
        seats = range(len(self.seats[0]))
        return sum(self.target.lifetime * v[f"dead_{s}"] + v[f"life_{s}"] for s in seats)

    def _rest_of_turn(self, state: GameState, seat: int) -> GameState:
        """The seat's turn played on greedily (nearest successor, then the human-like
        value; chance outcomes nearest), up to the next turn or `lookahead` steps: the
        macro step a turn's choice leads to."""
        for _ in range(self.budget.lookahead):
            if state.is_terminal or isinstance(state.pending, ChooseTurn):
                break
            afters = [apply(state, a) for a in options(state)]
            values = [self._value(x, seat, state.is_chance) for x in afters]
            best = min(range(len(afters)), key=lambda i: (values[i][0], -values[i][1], i))
            state = afters[best]
        return state

    def after_turn(self, now: Mapping[str, int]) -> None:
        """At a new turn: re-ask when the target is reached, block it when stale."""
        if self.stats.asks >= self.budget.asks:
            return
        d = self.distance(now)
        if self.target is not None and self.target.moves and d == 0:
            self.stats.reached += 1
            self.ask(now)
        elif self.target is not None and d < self.best:
            self.best, self.stale = d, 0
        else:
            self.stale += 1
            if self.stale >= self.budget.patience:
                if self.target is not None:
                    self.blocked.append(self.target)
                    self.stats.blocked += 1
                self.ask(now)


def target_attempt(
    edition: str,
    players: int,
    seed: int,
    abstract_goal: AbstractGoal,
    goal: ConcretePredicate,
    *,
    budget: TargetBudget | None = None,
    variant: Variant | None = None,
    stats: TargetStats | None = None,
) -> History | None:
    """One seeded game steered towards z3's targets; the history up to the first state
    meeting `goal`, or None (the game ended or the actions ran out)."""
    chosen = budget or TargetBudget()
    counted = stats if stats is not None else TargetStats()
    rng = random.Random(seed)
    history = History([new_game(edition, players, seed, variant or Variant())])
    follower = _Follower(history.last, abstract_goal, chosen, counted)
    while history.step_count < chosen.max_actions:
        state = history.last
        if state.is_terminal:
            return None
        action = follower.choose(state, options(state), rng)
        if history.play(action, goal):  # judged after every sub-step
            return history
        now = counts(history.last)
        if now["phase"] == PHASE_TURN:  # every turn starts at a ChooseTurn
            follower.after_turn(now)
    return None


def target_search(
    edition: str,
    players: int,
    abstract_goal: AbstractGoal,
    goal: ConcretePredicate,
    games: int,
    *,
    budget: TargetBudget | None = None,
    first_seed: int = 0,
    variant: Variant | None = None,
) -> tuple[Witness | None, int, TargetStats]:
    """Games steered towards z3's targets on seeds first_seed, first_seed + 1, ... until
    one meets `goal`: the witness (or None), the games played and what the steer did."""
    rules = variant or Variant()
    total = TargetStats()
    for tried, seed in enumerate(range(first_seed, first_seed + games), start=1):
        stats = TargetStats()
        history = target_attempt(
            edition, players, seed, abstract_goal, goal, budget=budget, variant=rules, stats=stats
        )
        total.add(stats)
        if history is not None:
            log = GameLog(edition, players, seed, tuple(format_action(a) for a in history.decisions), rules)
            return Witness(log, tried, history), tried, total
    return None, games, total
