"""The gate `prove` passes before it prints "unreachable" (issue 23).

A proof is about the model; it says something about the engine only as far as the model
over-approximates the engine. So, in the same run and before any verdict, `open_gate` plays
the link's fixed batch of seeded games (`link.default_games`: every edition and player
count, uniform and non-uniform policies; a budget in games and steps, never seconds) and
checks at every step

- the link: the step lies in the rule-content model (the guarded command of its kind), and
- for each query, concrete(s) => abstract(alpha(s)): where the query's concrete predicate
  holds, its abstract one (the counts predicate z3 proves things about, and the
  rule-content predicate of `induction.RULE_PREDICATES` where the query has one) holds too.

`Gate.refusal(query)` says why an "unreachable" for that query must not be printed: the
link broke (naming the clause and the step), its implication failed (naming the state), or
the query plays readings other than the defaults the link's games play.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import z3

from village_rules.engine.setup import new_game
from village_rules.proofs.content import action_vars
from village_rules.proofs.guarded import ContentConstants
from village_rules.proofs.history import History
from village_rules.proofs.induction import RULE_PREDICATES, RulePredicate
from village_rules.proofs.link import LinkResult, check_game, default_games, path_vars
from village_rules.proofs.model import PY
from village_rules.proofs.query import Query
from village_rules.rules.variant import Variant

GATE_GAMES_PER_ROW = 1
"""The link's seeded games per edition and player count that `prove` plays (7 in all)."""
GATE_MAX_STEPS = 3000
"""The most steps of each of those games."""


@dataclass(frozen=True)
class Gate:
    """What the link's games showed: the link check, and each query's implication."""

    link: LinkResult
    failed: Mapping[str, str]
    """Query name -> the state where its concrete predicate held and its abstract one not."""
    held: Mapping[str, int]
    """Query name -> the states of the link's games where its concrete predicate held."""
    checked: frozenset[str]
    """The queries whose implication was checked."""

    def refusal(self, query: Query) -> str | None:
        """Why "unreachable" must not be printed for `query`; None when it may be."""
        if not self.link.passed:
            return str(self.link)
        if query.variant != Variant():
            return "the link's games play each edition's default readings, not this query's"
        if query.name not in self.checked:
            return "its concrete => abstract implication was not checked in this run"
        return self.failed.get(query.name)

    def summary(self) -> str:
        """One line for `prove`'s output."""
        bad = f"; implication FAILED for {', '.join(sorted(self.failed))}" if self.failed else ""
        return f"{self.link} (budget: {GATE_GAMES_PER_ROW} game per row, at most {GATE_MAX_STEPS} steps){bad}"


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
            v = path_vars(h)
            rule = RULE_PREDICATES.get(q.name)
            at = where(h.step_count)
            if not _counts_holds(q, v, k):
                failed[q.name] = f"concrete holds but the counts predicate does not at {at}"
            elif rule is not None and len(h.states) > 1 and not _rule_holds(rule, h, k):
                failed[q.name] = f"concrete holds but the rule-content predicate does not at {at}"

    return on_state


def open_gate(queries: Sequence[Query], games_per_row: int = GATE_GAMES_PER_ROW) -> Gate:
    """Play the link's games once, checking the link and every query's implication."""
    checked = [q for q in queries if q.variant == Variant()]
    held = {q.name: 0 for q in checked}
    failed: dict[str, str] = {}
    games = steps = 0
    for edition, players, seed, policy in default_games(games_per_row):
        k = ContentConstants.of(new_game(edition, players, seed, Variant()).rules, players)

        def where(step: int, e: str = edition, n: int = players, s: int = seed, p: str = policy) -> str:
            return f"{e}, {n} players, seed {s}, policy {p}, step {step}"

        on_state = _watch(checked, k, held, failed, where)
        n, broken = check_game(edition, players, seed, policy, max_steps=GATE_MAX_STEPS, on_state=on_state)
        games += 1
        steps += n
        if broken is not None:
            return Gate(LinkResult(games, steps, broken), failed, held, frozenset(q.name for q in checked))
    return Gate(LinkResult(games, steps, None), failed, held, frozenset(q.name for q in checked))
