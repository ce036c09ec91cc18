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
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from village_rules.checks.incremental import IncrementalChecker
from village_rules.checks.invariants import Violation
from village_rules.data.loader import builtin_edition
from village_rules.drivers.play import GameLog, game_bound
from village_rules.engine.core import apply, chance_outcomes, legal_actions
from village_rules.engine.end_of_game import ended_by
from village_rules.engine.setup import new_game
from village_rules.errors import FuzzArgumentError
from village_rules.fuzz.games import RUN_POLICIES, FuzzGame, no_end, plan_game
from village_rules.model.actions import Action, format_action
from village_rules.model.chance import sample
from village_rules.model.state import GameState
from village_rules.policies import policy_named

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
    first: dict[Feature, int] = field(default_factory=dict)
    """When each feature was first seen: the actions played by then (for merging segments)."""

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


SEGMENT_GAMES = 1_000_000
"""Game indices per segment: segment k's fresh games are games k * SEGMENT_GAMES + 0, 1, ...
of the run's seed (segment 0's are the run's games 0, 1, ..., as before segments)."""


@dataclass(frozen=True, slots=True)
class GuidedPlan:
    """What a guided (or uniform) run plays: its options, checked, and its segments.

    A run is `segments` independent campaigns, each with its own corpus and RNG, that split
    the `actions` budget (the first takes the remainder). Segments are fixed by (run,
    segment index) alone, so they can be played in any order, on any number of workers or
    machines (`--shard` deals them round-robin), and merged in index order into the same
    result as one run (`merge_segments`). With one segment a run is the single campaign
    of the first version of this mode."""

    mode: str
    seed: int
    actions: int
    edition: str | None = None
    players: int | None = None
    segments: int = 1
    policy: str = "random"
    readings: tuple[tuple[str, str], ...] | None = None
    fresh_every: int = 3
    branch: int = 150

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise FuzzArgumentError("--mode", f"must be one of {', '.join(MODES)}, not {self.mode!r}")
        if self.actions < 1:
            raise FuzzArgumentError("--actions", f"must be 1 or more, not {self.actions}")
        if not 1 <= self.segments <= self.actions:
            raise FuzzArgumentError(
                "--segments", f"must be from 1 to the actions ({self.actions}), not {self.segments}"
            )
        if self.policy not in RUN_POLICIES:
            known = ", ".join(RUN_POLICIES)
            raise FuzzArgumentError("--policy", f"must be one of {known}, not {self.policy!r}")

    def budget(self, segment: int) -> int:
        """The actions segment `segment` plays (the first takes the remainder)."""
        share, extra = divmod(self.actions, self.segments)
        return share + (extra if segment == 0 else 0)


def run_coverage(
    mode: str,
    seed: int,
    actions: int,
    edition: str | None = None,
    players: int | None = None,
    *,
    fresh_every: int = 3,
    branch: int = 150,
    segments: int = 1,
    policy: str = "random",
    readings: tuple[tuple[str, str], ...] | None = None,
) -> Coverage:
    """Play `actions` actions (finishing the game in progress) in `mode`, "uniform" or
    "guided", as `segments` campaigns one after the other; returns the coverage, with the
    first violation if one was found (the segments after it are not played)."""
    plan = GuidedPlan(mode, seed, actions, edition, players, segments, policy, readings, fresh_every, branch)
    parts: list[Coverage] = []
    for k in range(plan.segments):
        parts.append(run_segment(plan, k))
        if parts[-1].violations:
            break
    return merge_segments(parts)


def run_segment(plan: GuidedPlan, segment: int) -> Coverage:
    """Play segment `segment` of a run: its own corpus, RNG and fresh games."""
    suffix = "" if segment == 0 else f" segment {segment}"
    rng = random.Random(f"village-rules guided {plan.mode} {plan.seed}{suffix}")
    budget = plan.budget(segment)
    cov = Coverage()
    corpus: list[_Prefix] = []
    game = 0
    rounds = 0
    while cov.actions < budget and not cov.violations:
        rounds += 1
        if plan.mode == "uniform" or not corpus or rounds % plan.fresh_every == 0:
            index = segment * SEGMENT_GAMES + game
            setup = plan_game(plan.seed, index, plan.edition, plan.players, plan.readings, plan.policy)
            game += 1
            start = new_game(builtin_edition(setup.edition), setup.players, setup.seed, setup.variant)
            prefix = _Prefix(start, (), setup, ("fresh",))
        else:
            least = min(cov.seen[p.feature] for p in corpus)
            choices = [p for p in corpus if cov.seen[p.feature] == least]
            prefix = choices[rng.randrange(len(choices))]
        guided = plan.mode == "guided" and prefix.feature != ("fresh",)
        keep = plan.mode == "guided"
        _extend(prefix, cov, corpus, rng, keep=keep, limit=plan.branch if guided else None)
        cov.curve.append((cov.actions, len(cov.seen), cov.kinds("pair")))
    return cov


def play_segments(
    plan: GuidedPlan,
    indices: Sequence[int],
    workers: int = 1,
    backend: str = "process",
    address: str | None = None,
) -> dict[int, Coverage]:
    """Segments `indices` of a run, each played whole (on `workers` processes, or as Ray
    tasks): their coverage by index. The same segments give the same coverage anywhere."""
    if backend == "ray":
        from village_rules.fuzz.ray_backend import ray_map  # noqa: PLC0415 - the optional extra

        done = ray_map(run_segment, [(plan, k) for k in indices], workers, address)
        return dict(zip(indices, done, strict=True))
    if workers == 1 or len(indices) == 1:
        return {k: run_segment(plan, k) for k in indices}
    with ProcessPoolExecutor(min(workers, len(indices))) as pool:
        return dict(zip(indices, pool.map(run_segment, [plan] * len(indices), indices), strict=True))


def merge_segments(parts: list[Coverage]) -> Coverage:
    """The coverage of a run from its segments' in index order: features and counts added,
    actions summed, the curve continued across segments (a feature counts from the first
    segment that saw it), and the first violation (the segments after it dropped)."""
    out = Coverage()
    union: set[Feature] = set()
    pairs = 0
    for part in parts:
        firsts = sorted(part.first.items(), key=lambda item: item[1])
        k = 0
        for actions, _, _ in part.curve:
            while k < len(firsts) and firsts[k][1] <= actions:
                feature = firsts[k][0]
                if feature not in union:
                    union.add(feature)
                    pairs += feature[0] == "pair"
                k += 1
            out.curve.append((out.actions + actions, len(union), pairs))
        for feature, when in part.first.items():
            out.first.setdefault(feature, out.actions + when)
        out.seen.update(part.seen)
        out.actions += part.actions
        if part.violations:
            out.violations = part.violations
            out.failing_actions = part.failing_actions
            out.failing_log = part.failing_log
            break
    return out


def _extend(
    prefix: _Prefix, cov: Coverage, corpus: list[_Prefix], rng: random.Random, *, keep: bool,
    limit: int | None,
) -> None:
    state = prefix.state
    done = list(prefix.actions)
    policy = policy_named(prefix.setup.policy)
    checker = IncrementalChecker()
    legal = None if state.is_chance or state.is_terminal else legal_actions(state)
    violations = checker.state(state, legal)
    trace: list[str] = []
    last_rule: str | None = None
    steps = 0
    bound = game_bound(None)
    while not violations and not state.is_terminal and (limit is None or steps < limit):
        if len(done) >= bound:  # a fresh game that never ends: a finding, not a hang
            violations = [no_end(bound)]
            break
        steps += 1
        if state.is_chance:
            action = sample(chance_outcomes(state), rng)
        else:
            if not legal:  # none computed, or none at a decision: the invariants report it
                break
            action = policy(state, legal, rng)
        trace.clear()
        after = apply(state, action, trace=trace)
        legal = None if after.is_chance or after.is_terminal else legal_actions(after)
        violations = checker.step(state, action, after, legal)
        done.append(action)
        cov.actions += 1
        fresh = None
        for f in _features(after, trace, last_rule):
            if f not in cov.seen:
                cov.first[f] = cov.actions
                if fresh is None:
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
