"""Coverage-guided fuzzing: steer play toward what has been seen least, the way
coverage-guided fuzzers keep the inputs that reach new edges.

Coverage is a set of features: the rule IDs fired, pairs of consecutive rule IDs (within
an action's trace and across two actions), the ways games end, and the kinds of pending
step reached. A *corpus* keeps the game prefixes (their states: immutable, so a prefix is
one state) that reached a feature no earlier action had; each round extends the prefix
whose new feature is now the least seen (ties by the run's RNG) by `branch` random actions
(a branch off a rare state), and every `fresh_every`-th round plays a fresh game to its
end. The uniform mode plays fresh
random games only. Both check every invariant after every action (`IncrementalChecker`),
stop at the first violation, and take their budget in actions, so a run repeats exactly;
`curve` records the features seen against the actions played, for the report's plot.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

from village_rules.checks.incremental import IncrementalChecker
from village_rules.checks.invariants import Violation
from village_rules.data.loader import builtin_edition
from village_rules.drivers.play import GameLog
from village_rules.engine.core import apply, chance_outcomes, legal_actions
from village_rules.engine.end_of_game import ended_by
from village_rules.engine.setup import new_game
from village_rules.errors import FuzzArgumentError
from village_rules.fuzz.games import FuzzGame, plan_game
from village_rules.model.actions import Action, format_action
from village_rules.model.chance import sample
from village_rules.model.state import GameState

MODES: tuple[str, ...] = ("uniform", "guided")

Feature = tuple[str, ...]
"""("rule", id), ("pair", id, id), ("end", how), ("step", pending kind)."""


@dataclass
class Coverage:
    """What a run has seen, how often, and the curve of distinct features over actions."""

    seen: Counter[Feature] = field(default_factory=Counter)
    actions: int = 0
    curve: list[tuple[int, int, int]] = field(default_factory=list)
    """(actions played, distinct features, distinct rule-ID pairs), after each game."""
    violations: tuple[Violation, ...] = ()
    failing_actions: tuple[str, ...] = ()
    """The failing game's actions from its set-up (text notation), when a violation was found."""
    failing_log: str | None = None
    """The failing game as a `village-rules replay` log (JSON), when a violation was found."""

    def kinds(self, kind: str) -> int:
        """How many distinct features of one kind ("rule", "pair", "end", "step") were seen."""
        return sum(1 for f in self.seen if f[0] == kind)


@dataclass(frozen=True, slots=True)
class _Prefix:
    state: GameState
    actions: tuple[Action, ...]
    setup: FuzzGame
    """The planned game the prefix belongs to (edition, players, seed, variant)."""
    feature: Feature


def _features(state: GameState, trace: list[str], last_rule: str | None) -> list[Feature]:
    out: list[Feature] = [("step", type(state.pending).__name__)]
    previous = last_rule
    for rule in trace:
        out.append(("rule", rule))
        if previous is not None:
            out.append(("pair", previous, rule))
        previous = rule
    if state.is_terminal:
        out.append(("end", ended_by(state)))
    return out


def run_coverage(
    mode: str,
    seed: int,
    actions: int,
    edition: str | None = None,
    players: int | None = None,
    *,
    fresh_every: int = 3,
    branch: int = 150,
) -> Coverage:
    """Play `actions` actions (finishing the game in progress) in `mode`, "uniform" or
    "guided"; returns the coverage, with the first violation if one was found."""
    if mode not in MODES:
        raise FuzzArgumentError("--mode", f"must be one of {', '.join(MODES)}, not {mode!r}")
    if actions < 1:
        raise FuzzArgumentError("--actions", f"must be 1 or more, not {actions}")
    rng = random.Random(f"village-rules guided {mode} {seed}")
    cov = Coverage()
    corpus: list[_Prefix] = []
    game = 0
    rounds = 0
    while cov.actions < actions and not cov.violations:
        rounds += 1
        if mode == "uniform" or not corpus or rounds % fresh_every == 0:
            plan = plan_game(seed, game, edition, players)
            game += 1
            start = new_game(builtin_edition(plan.edition), plan.players, plan.seed, plan.variant)
            prefix = _Prefix(start, (), plan, ("fresh",))
        else:
            least = min(cov.seen[p.feature] for p in corpus)
            choices = [p for p in corpus if cov.seen[p.feature] == least]
            prefix = choices[rng.randrange(len(choices))]
        guided = mode == "guided" and prefix.feature != ("fresh",)
        _extend(prefix, cov, corpus, rng, keep=mode == "guided", limit=branch if guided else None)
        cov.curve.append((cov.actions, len(cov.seen), cov.kinds("pair")))
    return cov


def _extend(
    prefix: _Prefix, cov: Coverage, corpus: list[_Prefix], rng: random.Random, *, keep: bool,
    limit: int | None,
) -> None:
    state = prefix.state
    done = list(prefix.actions)
    checker = IncrementalChecker()
    legal = None if state.is_chance or state.is_terminal else legal_actions(state)
    violations = checker.state(state, legal)
    trace: list[str] = []
    last_rule: str | None = None
    steps = 0
    while not violations and not state.is_terminal and (limit is None or steps < limit):
        steps += 1
        if state.is_chance:
            action = sample(chance_outcomes(state), rng)
        else:
            if not legal:  # none computed, or none at a decision: the invariants report it
                break
            action = legal[rng.randrange(len(legal))]
        trace.clear()
        after = apply(state, action, trace=trace)
        legal = None if after.is_chance or after.is_terminal else legal_actions(after)
        violations = checker.step(state, action, after, legal)
        done.append(action)
        cov.actions += 1
        fresh = None
        for f in _features(after, trace, last_rule):
            if f not in cov.seen and fresh is None:
                fresh = f
            cov.seen[f] += 1
        if trace:
            last_rule = trace[-1]
        if keep and fresh is not None and not after.is_terminal:
            corpus.append(_Prefix(after, tuple(done), prefix.setup, fresh))
        state = after
    if violations:
        cov.violations = tuple(violations)
        cov.failing_actions = tuple(format_action(a) for a in done)
        g = prefix.setup
        cov.failing_log = GameLog(g.edition, g.players, g.seed, cov.failing_actions, g.variant).to_json()
