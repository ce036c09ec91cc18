"""Stage: gate.

The gate `prove` passes before it prints "unreachable" (issue 23).

A proof is about the model; it says something about the engine only as far as the model
over-approximates the engine. So, in the same run and before any verdict, `open_gate` plays
the link's fixed batch of seeded games (`link.default_games`: every edition and player
count, uniform and non-uniform policies; a budget in games and steps, never seconds) and
checks at every step

- the link: the step lies in the rule-content model (the guarded command of its kind), and
- for each query, concrete(s) => abstract(alpha(s)): where the query's concrete predicate
  holds, its abstract one (the counts predicate z3 proves things about, and the
  rule-content predicate of `induction.RULE_PREDICATES` where the query has one) holds too.

It also replays the link's regression inputs (`link.regressions`: every game that ever
broke a clause), hunts for steps outside the model by the branches they exercise
(`link.hunt.hunt`, with `hunt_steps`), takes the link on every edge of the explored
configurations (`edges`, run by the command line) and counts the branches every checked
step exercised (`link.coverage`). The rows' witness searches feed it too: a state a search
reached where a query's concrete predicate holds is checked (`Gate.observe`), and a witness
for a row z3 proved unreachable is a refutation (`Gate.refute`).

`Gate.refusal(query)` says why an "unreachable" for that query must not be printed: the
link broke (naming the clause and the step), its implication failed (naming the state), or
the query plays readings other than the defaults the link's games play. `Gate.passed` is
false on any failure, and `prove` then exits non-zero.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import z3

from village_rules.engine.setup import new_game
from village_rules.proofs.catalogue.query import Query
from village_rules.proofs.link.coverage import Coverage
from village_rules.proofs.link.hunt import HuntResult, hunt
from village_rules.proofs.link.link import COVERAGE_GAMES, LinkResult, check_game, default_games, path_vars
from village_rules.proofs.link.regressions import RegressionResult, check_regressions
from village_rules.proofs.model.content import action_vars, content_vars
from village_rules.proofs.model.guarded import ContentConstants
from village_rules.proofs.model.induction import RULE_PREDICATES, RulePredicate
from village_rules.proofs.model.model import PY
from village_rules.proofs.search.history import History
from village_rules.rules.variant import Variant

GATE_GAMES_PER_ROW = 1
"""The link's seeded games per edition and player count that `prove` plays (7 in all)."""
GATE_MAX_STEPS = 3000
"""The most steps of each of those games."""
GATE_HUNT_STEPS = 1000
"""The branch-guided hunt's steps per edition and player count (`link.hunt.hunt`)."""


@dataclass(frozen=True, slots=True)
class EdgeCheck:
    """The link on every edge of one explored configuration (run by the command line,
    which may import the explorer: `explore.crosscheck.content_link_on_edges`)."""

    config: str
    players: int
    states: int
    edges: int
    broken: tuple[str, ...] = ()
    where: str = ""

    def __str__(self) -> str:
        if not self.broken:
            return f"{self.config} ({self.edges} edges)"
        return f"{self.config} FAILED at {self.where}: clause {', '.join(map(repr, self.broken))} broken"


@dataclass
class Gate:
    """What the link's games, hunts, regression inputs and explored edges showed, and each
    query's implication (also fed by the rows' witness searches: `observe`)."""

    link: LinkResult
    failed: dict[str, str]
    """Query name -> the state where its concrete predicate held and its abstract one not."""
    held: dict[str, int]
    """Query name -> the states where its concrete predicate held (the link's games and the
    states the rows' searches reached: `observe`)."""
    checked: frozenset[str]
    """The queries whose implication was checked."""
    regressions: RegressionResult | None = None
    hunt: HuntResult | None = None
    """The hunts of every edition and player count, merged (None: not run)."""
    edges: tuple[EdgeCheck, ...] = ()
    coverage: Coverage = field(default_factory=Coverage)
    refuted: dict[str, str] = field(default_factory=dict)
    """Row -> a witness the engine produced for a row z3 proved unreachable (`refute`)."""
    hunt_steps: int = 0
    """The hunt's steps per edition and player count, run before the first proof passes."""
    explore: Callable[[], Sequence[EdgeCheck]] | None = None
    """The link on explored edges (the command line's), run before the first proof passes."""

    def complete(self) -> None:
        """Run the checks kept for the first proof (the hunt, the explored edges), once."""
        if self.hunt_steps > 0 and self.hunt is None and self.broken() is None:
            self.hunt = _hunt_all(self.hunt_steps, self.coverage)
        if self.explore is not None and self.broken() is None:
            explore, self.explore = self.explore, None
            self.edges = tuple(explore())

    def broken(self) -> str | None:
        """The first model failure: a broken step of the games, the hunt, a regression input
        or an explored edge; None when the engine stayed in the model everywhere."""
        if not self.link.passed:
            return str(self.link)
        if self.hunt is not None and self.hunt.broken is not None:
            return f"link hunt FAILED after {self.hunt.steps} steps: {self.hunt.broken}"
        if self.regressions is not None and not self.regressions.passed:
            return f"link regression inputs: {self.regressions}"
        bad = [e for e in self.edges if e.broken]
        if bad:
            return f"link on explored edges: {bad[0]}"
        return None

    @property
    def passed(self) -> bool:
        """True when the model held everywhere, every checked implication held and no
        proved row met a witness."""
        return self.broken() is None and not self.failed and not self.refuted

    def refusal(self, query: Query) -> str | None:
        """Why "unreachable" must not be printed for `query`; None when it may be."""
        broken = self.broken()
        if broken is not None:
            return broken
        if query.variant != Variant():
            return "the link's games play the default readings, and this query plays others"
        if query.name not in self.checked:
            return "its concrete => abstract implication was not checked in this run"
        if query.name in self.failed:
            return self.failed[query.name]
        self.complete()
        return self.broken()

    def observe(self, query: Query, h: History) -> None:
        """A state a row's search reached where the query's concrete predicate holds: count
        it and check the implication there (steered states, near the query)."""
        if query.name not in self.checked or query.name in self.failed or h.states[0].is_solo:
            return
        k = ContentConstants.of(h.states[0].rules, h.states[0].num_players)
        self.held[query.name] = self.held.get(query.name, 0) + 1
        at = f"step {h.step_count} of a steered search game"
        if query.name in RULE_PREDICATES:  # may read the turn's path variables: the whole path
            _check_implication(query, h, k, self.failed, at)
        elif not _counts_holds(query, content_vars(h.last), k):  # the counts: the last state alone
            self.failed[query.name] = f"concrete holds but the counts predicate does not at {at}"

    def refute(self, row: str, why: str) -> None:
        """A row z3 proved unreachable met a witness: a failure of the model, named."""
        self.refuted[row] = why

    def summary(self) -> str:
        """One line for `prove`'s output, before the rows."""
        budget = f"{GATE_GAMES_PER_ROW} game per row and {len(COVERAGE_GAMES)} for coverage"
        parts = [f"{self.link} (budget: {budget}, at most {GATE_MAX_STEPS} steps each)"]
        if self.hunt is not None:
            state = "in the model" if self.hunt.broken is None else f"FAILED: {self.hunt.broken}"
            parts.append(f"hunt: {self.hunt.steps} branch-guided steps {state}")
        elif self.hunt_steps:
            parts.append(f"hunt ({self.hunt_steps} steps per row of the link): before the first proof")
        if self.explore is not None:
            parts.append("the link on explored edges: before the first proof")
        if self.regressions is not None:
            parts.append(str(self.regressions))
        if self.edges:
            shown = ", ".join(map(str, self.edges))
            if any(e.broken for e in self.edges):
                parts.append(f"the link on explored edges FAILED: {shown}")
            else:
                parts.append(f"every edge of {shown} checked (solo: no Carla in the model)")
        parts.append(self.coverage.summary())
        if self.failed:
            parts.append(f"implication FAILED for {', '.join(sorted(self.failed))}")
        return "; ".join(parts)

    def closing(self) -> str:
        """One line for `prove`'s output, after the rows: the implication's matches (a check
        that matched no state says so), the proved rows a witness met, and the verdict."""
        none = sorted(q for q in self.checked if not self.held.get(q))
        some = sorted(f"{q} {self.held[q]}" for q in self.checked if self.held.get(q))
        matched = ", ".join(some) or "none"
        parts = [self.summary()]
        parts.append(f"implication checked on the states where the concrete predicate held: {matched}")
        if none:
            parts.append(f"matched no state (nothing tested) for {', '.join(none)}")
        if self.failed:
            parts.append("FAILED for " + "; ".join(f"{q}: {w}" for q, w in sorted(self.failed.items())))
        if self.refuted:
            refuted = "; ".join(f"{r}: {w}" for r, w in sorted(self.refuted.items()))
            parts.append(f"PROOF REFUTED by an engine witness: {refuted}")
        parts.append("gate passed" if self.passed else "gate FAILED")
        return "; ".join(parts)


def _counts_holds(q: Query, v: Mapping[str, int], k: ContentConstants) -> bool:
    """A query's counts predicate (written with z3 connectives) on one abstract state."""
    value = q.abstract(v, k.base)
    return value if isinstance(value, bool) else bool(z3.is_true(z3.simplify(value)))


def _rule_holds(pred: RulePredicate, h: History, k: ContentConstants) -> bool:
    """A rule-content predicate on the last step of the path (or its last state)."""
    t = path_vars(h)
    if pred.state:
        return bool(pred.holds(t, t, t, k, PY))
    s = path_vars(h, -2)
    return bool(pred.holds(s, action_vars(h.actions[-1]), t, k, PY))


def _check_implication(q: Query, h: History, k: ContentConstants, failed: dict[str, str], at: str) -> None:
    v = path_vars(h)
    rule = RULE_PREDICATES.get(q.name)
    if not _counts_holds(q, v, k):
        failed[q.name] = f"concrete holds but the counts predicate does not at {at}"
    elif rule is not None and len(h.states) > 1 and not _rule_holds(rule, h, k):
        failed[q.name] = f"concrete holds but the rule-content predicate does not at {at}"


def _watch(
    queries: Sequence[Query],
    k: ContentConstants,
    held: dict[str, int],
    failed: dict[str, str],
    where: Callable[[int], str],
) -> Callable[[History], None]:
    def on_state(h: History) -> None:
        for q in queries:
            if q.name in failed or not q.concrete(h):
                continue
            held[q.name] += 1
            _check_implication(q, h, k, failed, where(h.step_count))

    return on_state


def open_gate(
    queries: Sequence[Query],
    games_per_row: int = GATE_GAMES_PER_ROW,
    *,
    hunt_steps: int = 0,
    explore: Callable[[], Sequence[EdgeCheck]] | None = None,
) -> Gate:
    """Play the link's games once, checking the link and every query's implication, and
    replay the regression inputs. Kept for the first proof that would pass (`Gate.complete`,
    so a run that proves nothing does not pay for them): a hunt of `hunt_steps` steps per
    edition and player count, and `explore`, the link on the explored configurations'
    edges (the command line's: the explorer is a layer above this package). Stops at the
    first model failure."""
    checked = [q for q in queries if q.variant == Variant()]
    names = frozenset(q.name for q in checked)
    held = {q.name: 0 for q in checked}
    failed: dict[str, str] = {}
    coverage = Coverage()
    games = steps = 0
    for edition, players, seed, policy in default_games(games_per_row):
        k = ContentConstants.of(new_game(edition, players, seed, Variant()).rules, players)

        def where(step: int, e: str = edition, n: int = players, s: int = seed, p: str = policy) -> str:
            return f"{e}, {n} players, seed {s}, policy {p}, step {step}"

        on_state = _watch(checked, k, held, failed, where)
        n, broken = check_game(
            edition, players, seed, policy, max_steps=GATE_MAX_STEPS, on_state=on_state, coverage=coverage
        )
        games += 1
        steps += n
        if broken is not None:
            return Gate(LinkResult(games, steps, broken), failed, held, names, coverage=coverage)
    for edition, players, seed, policy, scenario in COVERAGE_GAMES:  # the rarer branches
        n, broken = check_game(
            edition, players, seed, policy, max_steps=GATE_MAX_STEPS, coverage=coverage, scenario=scenario
        )
        games += 1
        steps += n
        if broken is not None:
            return Gate(LinkResult(games, steps, broken), failed, held, names, coverage=coverage)
    link = LinkResult(games, steps, None)
    regressions = check_regressions()
    return Gate(
        link, failed, held, names, regressions, coverage=coverage, hunt_steps=hunt_steps, explore=explore
    )


def _hunt_all(steps: int, coverage: Coverage) -> HuntResult:
    """The hunt in every edition and player count (stops at the first broken step)."""
    merged = HuntResult(0, 0)
    for edition, counts in (("original-2011", (2, 3, 4)), ("big-box-2023", (2, 3, 4, 5))):
        for players in counts:
            found = hunt(edition, players, steps)
            merged.steps += found.steps
            merged.rounds += found.rounds
            coverage.merge(found.coverage)
            if found.broken is not None:
                merged.broken, merged.log = found.broken, found.log
                return merged
    return merged
