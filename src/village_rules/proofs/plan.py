"""z3 steers the witness search (experimental): a plan by bounded model checking over the
rule-content model, followed on the real engine, refined where the engine cannot follow.
Superseded behind `prove --z3-steer` by `target_steer` (this one found no witness that
unsteered games miss; docs/proofs.md, "The BMC steer").

A query without a hand-written steer still has an abstract predicate. `Planner.ask` runs
BMC on the rule-content model (`guarded.step_relation`, evaluated as z3 terms) from the
abstraction of the current engine state (`content.content_vars`) to a state where that
predicate holds, at most `PlanBudget.depth` model steps ahead, and reads z3's model as a
`Plan`: per step the abstract action (kind, plague, market, space: `content.action_vars`),
the seat acting and the pending step, and the model's state after it. `macro_steps` groups
a plan into turns, market days and masses for printing.

`plan_attempt` plays one seeded game on the engine: at each decision (and chance outcome:
a witness may take any outcome of non-zero probability, as `search.py` does) it takes a
legal action whose abstract action is the plan's next one (with a slack: else one of the
same kind), preferring the one whose
abstract successor agrees with the plan's next state on the most variables (ties broken by
the seeded RNG). Where no legal action of the step's kind exists, that kind is blocked at
the current abstract state and z3 is asked again (counterexample-guided refinement, CEGAR);
where the engine's successor leaves the plan (the model over-approximates), the plan is
dropped and z3 asked again from where the engine is. With no plan (z3 finds none within
the depth, or the asks or refinements are spent), `PlanBudget.stride` seeded random steps
are played before asking again. The game stops when the query's concrete predicate holds
(a witness, replayable like every other) or after `PlanBudget.max_actions` actions.

Every budget is a count: model depth, z3's `rlimit` per ask, asks and refinements per
game, seeded games, actions per game. The same query, seeds and budget give the same
witness, or none, on any machine and load. A plan is only a heuristic: a witness is
accepted on the concrete predicate alone, so a loose model costs games, never soundness.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import z3

from village_rules.drivers.play import GameLog
from village_rules.engine.core import apply, chance_outcomes, legal_actions
from village_rules.engine.setup import new_game
from village_rules.model.actions import Action, format_action
from village_rules.model.state import GameState
from village_rules.proofs.content import (
    ACTION_FIELDS,
    K_LAST,
    KIND_NAMES,
    MASS_PENDING,
    P_LAST,
    P_MARKET,
    P_REFILL,
    P_SEED,
    P_TURN,
    SPACES,
    action_vars,
    content_names,
    content_vars,
)
from village_rules.proofs.errors import ProveArgumentError
from village_rules.proofs.guarded import ContentConstants, step_relation
from village_rules.proofs.history import History
from village_rules.proofs.model import Z3, Constants
from village_rules.proofs.search import Witness
from village_rules.rules.variant import Variant

AbstractGoal = Callable[[Mapping[str, Any], Constants], Any]
"""A query's abstract predicate (`Query.abstract`): over the counts model's names, which the
rule-content state contains."""
ConcreteGoal = Callable[[History], bool]

Signature = tuple[int, int, int, int]
"""An abstract action: (kind, plague, market, space), as `content.action_vars` gives it."""

FOLLOW_VARS: tuple[str, ...] = ("pending", "actor", "phase", "md", "mass", "turn_seat")
"""The abstract values the engine must share with the plan's next state to go on with the
plan: the pending step, who acts, the phase, the market day and the mass."""


@dataclass(frozen=True, slots=True)
class PlanBudget:
    """The z3 steer's budgets, every one a count."""

    depth: int = 6
    """Model steps z3 looks ahead per ask (the BMC bound)."""
    rlimit: int = 5_000_000
    """z3's deterministic resource limit per ask."""
    asks: int = 60
    """z3 asks per game (plans and re-plans together)."""
    refinements: int = 20
    """Blocked abstract actions per game (CEGAR steps)."""
    stride: int = 8
    """Seeded random steps played when there is no plan, before asking again."""
    max_actions: int = 4000
    """Actions per game."""

    def __post_init__(self) -> None:
        for name in ("depth", "rlimit", "asks", "max_actions"):
            value = getattr(self, name)
            if type(value) is not int or value < 1:
                raise ProveArgumentError(f"z3 steer: {name} must be a whole number >= 1, not {value!r}")
        for name in ("refinements", "stride"):
            value = getattr(self, name)
            if type(value) is not int or value < 0:
                raise ProveArgumentError(f"z3 steer: {name} must be a whole number >= 0, not {value!r}")


@dataclass(frozen=True, slots=True)
class PlanStep:
    """One model step of a plan: the abstract action, who acts, the pending step, and the
    model's abstract state after it."""

    signature: Signature
    actor: int
    pending: int
    after: Mapping[str, int]

    def describe(self) -> str:
        """The step in words, e.g. "seat 1: take a cube (space 3)"."""
        kind, plague, _market, space = self.signature
        who = "chance" if self.actor < 0 else f"seat {self.actor}"
        where = f" at {SPACES[space].value}" if 0 <= space < len(SPACES) else ""
        extra = " (plague)" if plague else ""
        return f"{who}: {KIND_NAMES.get(kind, str(kind))}{where}{extra}"


@dataclass(frozen=True, slots=True)
class Plan:
    """z3's abstract path to the query's abstract predicate, step by step."""

    steps: tuple[PlanStep, ...]


def macro_steps(plan: Plan) -> list[tuple[str, tuple[PlanStep, ...]]]:
    """The plan grouped into macro steps, each with its label: a turn (a new one at every
    `ChooseTurn`), a market day, a mass, or the automatic draws (seeding, refill)."""
    groups: list[tuple[str, list[PlanStep]]] = []
    for step in plan.steps:
        label = _macro_label(step)
        if groups and groups[-1][0] == label and step.pending != P_TURN:
            groups[-1][1].append(step)
        else:
            groups.append((label, [step]))
    return [(label, tuple(steps)) for label, steps in groups]


def _macro_label(step: PlanStep) -> str:
    if step.pending in MASS_PENDING or step.after.get("mass", 0) >= 1:
        return "mass"
    if step.pending == P_MARKET or step.after.get("md", 0) == 1:
        return "market day"
    if step.pending in (P_SEED, P_REFILL):
        return "draws"
    return "turn"


@dataclass
class PlanStats:
    """What one steered game (or a search of several) did: z3 asks, plans read, plan steps
    the engine followed, refinements (blocked abstract actions), random steps, the longest
    plan, and, for one refinement, the step blocked and the plan asked for after it."""

    asks: int = 0
    plans: int = 0
    followed: int = 0
    refinements: int = 0
    random_steps: int = 0
    longest_plan: int = 0
    blocked_examples: list[tuple[str, str]] = field(default_factory=list)

    def add(self, other: PlanStats) -> None:
        """Add another game's counts to these."""
        self.asks += other.asks
        self.plans += other.plans
        self.followed += other.followed
        self.refinements += other.refinements
        self.random_steps += other.random_steps
        self.longest_plan = max(self.longest_plan, other.longest_plan)
        self.blocked_examples += other.blocked_examples[: max(0, 3 - len(self.blocked_examples))]


class Planner:
    """BMC over the rule-content model of one edition and player count, incrementally: the
    `depth` model steps are built once; each ask pins the start state, the goal and the
    blocked abstract actions under a `push`, under its own `rlimit` (counted, not timed)."""

    def __init__(self, rules_state: GameState, goal: AbstractGoal, budget: PlanBudget) -> None:
        players = rules_state.num_players
        self.k = ContentConstants.of(rules_state.rules, players)
        self.budget = budget
        self.names = content_names(players)
        # its own z3 context: the terms, and so z3's models, do not depend on what else the
        # process built before (the same plans for the same query and seeds in any run)
        self.ctx = z3.Context()
        self.path = [
            {n: z3.Int(f"{n}@{i}", ctx=self.ctx) for n in self.names} for i in range(budget.depth + 1)
        ]
        self.acts = [
            {n: z3.Int(f"a.{n}@{i}", ctx=self.ctx) for n in ACTION_FIELDS} for i in range(budget.depth)
        ]
        self.solver = z3.Solver(ctx=self.ctx)
        for i in range(budget.depth):
            self.solver.add(step_relation(self.path[i], self.acts[i], self.path[i + 1], self.k, Z3))
            self.solver.add(*_domain(self.acts[i], self.path[i + 1], players))
        self.goals = [goal(self.path[i], self.k.base) for i in range(budget.depth + 1)]

    def ask(self, start: Mapping[str, int], blocked: Sequence[int] = ()) -> Plan | None:
        """z3's plan from the abstract state `start` to the goal within the depth, its first
        step of none of the `blocked` kinds (`content.K_*`: the engine had no legal action
        of them there); None when z3 finds none (or its resource limit runs out)."""
        s = self.solver
        s.push()
        try:
            s.add(*(self.path[0][n] == start[n] for n in self.names))
            s.add(z3.Or(*self.goals[1:]))
            s.add(*(self.acts[0]["kind"] != kind for kind in blocked))
            s.set("rlimit", _used(s) + self.budget.rlimit)
            if s.check() != z3.sat:
                return None
            m = s.model()
            steps: list[PlanStep] = []
            for i in range(self.budget.depth):
                sig = _signature({f: _value(m, self.acts[i][f]) for f in ACTION_FIELDS})
                after = {n: _value(m, self.path[i + 1][n]) for n in self.names}
                steps.append(
                    PlanStep(sig, _value(m, self.path[i]["actor"]), _value(m, self.path[i]["pending"]), after)
                )
                if z3.is_true(m.eval(self.goals[i + 1], model_completion=True)):
                    break
            return Plan(tuple(steps))
        finally:
            s.pop()


def _used(solver: Any) -> int:
    """The resource count z3 has spent so far on this solver (its `rlimit` is cumulative)."""
    stats = solver.statistics()
    return int(stats.get_key_value("rlimit count")) if "rlimit count" in stats else 0


def _value(model: Any, term: Any) -> int:
    return int(model.eval(term, model_completion=True).as_long())


def _domain(act: Mapping[str, Any], after: Mapping[str, Any], players: int) -> list[Any]:
    """The ranges the engine's abstract values take, for the planner only (the model leaves
    them open; outside them a plan is nonsense no engine action matches)."""
    return [
        act["kind"] >= 0,
        act["kind"] <= K_LAST,
        z3.Or(act["plague"] == 0, act["plague"] == 1),
        z3.Or(act["market"] == 0, act["market"] == 1),
        act["space"] >= -1,
        act["space"] < len(SPACES),
        after["pending"] >= 0,
        after["pending"] <= P_LAST,
        after["actor"] >= -1,
        after["actor"] < players,
        after["turn_seat"] >= -1,
        after["turn_seat"] < players,
        z3.Or(after["md"] == 0, after["md"] == 1),
        after["mass"] >= 0,
        after["mass"] <= 2,
        after["phase"] >= 0,
        after["phase"] <= 5,
    ]


def _signature(a: Mapping[str, int]) -> Signature:
    return (a["kind"], a["plague"], a["market"], a["space"])


def _agreement(after: Mapping[str, int], plan: Mapping[str, int]) -> int:
    return sum(1 for n, v in plan.items() if after.get(n) == v)


def _options(state: GameState) -> list[Action]:
    if state.is_chance:
        return [a for a, p in chance_outcomes(state) if p > 0]
    return legal_actions(state)


def plan_attempt(
    edition: str,
    players: int,
    seed: int,
    planner: Planner,
    goal: ConcreteGoal,
    *,
    variant: Variant | None = None,
    stats: PlanStats | None = None,
    start: History | None = None,
) -> History | None:
    """One seeded game steered by `planner`'s plans (see the module docstring); the history
    up to the first state meeting `goal`, or None. `stats` (when given) is filled in; `start`
    (a game's path so far, its last state's `content` recorded) goes on with that game
    instead of a new set-up."""
    budget = planner.budget
    counts = stats if stats is not None else PlanStats()
    rng = random.Random(seed)
    if start is None:
        history = History([new_game(edition, players, seed, variant or Variant())])
        now = content_vars(history.last)
    else:
        history = start.fork()
        now = start.content[-1]
    plan: list[PlanStep] = []
    blocked: dict[tuple[int, ...], list[int]] = {}
    wait = 0
    while history.step_count < budget.max_actions:
        state = history.last
        if state.is_terminal:
            return None
        options = _options(state)
        key = tuple(now[n] for n in planner.names)
        if not plan and wait == 0 and counts.asks < budget.asks:
            counts.asks += 1
            asked = planner.ask(now, blocked.get(key, ()))
            if asked is None:
                wait = budget.stride
            else:
                counts.plans += 1
                if counts.blocked_examples and counts.blocked_examples[-1][1] == "":
                    counts.blocked_examples[-1] = (counts.blocked_examples[-1][0], asked.steps[0].describe())
                counts.longest_plan = max(counts.longest_plan, len(asked.steps))
                plan = list(asked.steps)
        action: Action | None = None
        if plan:
            step = plan[0]
            sigs = [_signature(action_vars(a)) for a in options]
            matching = [a for a, g in zip(options, sigs, strict=True) if g == step.signature]
            # the slack: the action's kind alone (the model leaves a draw's space open, say)
            kind = step.signature[0]
            matching = matching or [a for a, g in zip(options, sigs, strict=True) if g[0] == kind]
            if not matching:
                plan = []
                if counts.refinements < budget.refinements:
                    counts.refinements += 1
                    blocked.setdefault(key, []).append(step.signature[0])
                    if len(counts.blocked_examples) < 3:
                        counts.blocked_examples.append((step.describe(), ""))
                    continue
                wait = budget.stride
            else:
                action = _closest(state, matching, step, now, rng)
        if action is None:
            counts.random_steps += 1
            wait = max(0, wait - 1)
            action = options[rng.randrange(len(options))]
        held = history.play(action, goal)  # judged after every sub-step
        after = history.last
        now = content_vars(after, now)
        if plan:
            step = plan.pop(0)
            counts.followed += 1
            if any(now[n] != step.after[n] for n in FOLLOW_VARS):
                plan = []
        if held:
            return history
    return None


def _closest(
    state: GameState, matching: Sequence[Action], step: PlanStep, now: Mapping[str, int], rng: random.Random
) -> Action:
    """Of the legal actions matching the plan's step, the one whose abstract successor
    agrees with the plan's next state on the most variables (ties: the seeded RNG)."""
    if len(matching) == 1:
        return matching[0]
    scored = [
        (_agreement(content_vars(apply(state, a), now), step.after), rng.random(), i)
        for i, a in enumerate(matching)
    ]
    return matching[max(scored)[2]]


def plan_search(
    edition: str,
    players: int,
    abstract_goal: AbstractGoal,
    goal: ConcreteGoal,
    games: int,
    *,
    budget: PlanBudget | None = None,
    first_seed: int = 0,
    variant: Variant | None = None,
) -> tuple[Witness | None, int, PlanStats]:
    """Games steered by z3's plans on seeds first_seed, first_seed + 1, ... until one meets
    `goal`: the witness (or None), the games played and what the steer did. Refuses solo
    and non-default readings (`ContentConstants.of`: a `ParameterError` naming them)."""
    rules = variant or Variant()
    chosen = budget or PlanBudget()
    total = PlanStats()
    for tried, seed in enumerate(range(first_seed, first_seed + games), start=1):
        # a new planner (and z3 context) per game: z3's answers depend on what its solver
        # learned before, so a game's plans depend on its seed alone, not on earlier games
        planner = Planner(new_game(edition, players, seed, rules), abstract_goal, chosen)
        stats = PlanStats()
        history = plan_attempt(edition, players, seed, planner, goal, variant=rules, stats=stats)
        total.add(stats)
        if history is not None:
            log = GameLog(edition, players, seed, tuple(format_action(a) for a in history.decisions), rules)
            return Witness(log, tried, history), tried, total
    return None, games, total
