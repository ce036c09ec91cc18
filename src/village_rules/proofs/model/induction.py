"""Stage: model (z3 over the rule-content model).

k-induction over the rule-content model (`guarded.py`), and the queries it can decide.

A query here is a *rule predicate*: over one abstract state (`state=True`), or over one
step (s, a, t) of the model. `k_induction_content` proves it unreachable at every depth:
the base case is a bounded search of k model steps from the abstract initial state
(`content.content_abstract(new_game(...))`), the step case shows that k consecutive model
steps (every state meeting the state clauses, every step its kind's guarded command) that
avoid the predicate cannot be followed by one that meets it. Solver effort is bounded by
z3's deterministic resource limit (`rlimit`), never by a clock. The model over-approximates
the engine *as far as the link check (`link.py`) shows*: a proof is printed with the link
check of the same run.

`RULE_PREDICATES` holds the abstract predicates of the catalogue queries that need rule
content (not only conservation), keyed by the query names of the catalogue; `GUARDS`
names, for each, the clause its proof rests on (the tests drop it and see the proof fail).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import z3

from village_rules.data.edition import EditionData
from village_rules.engine.setup import new_game
from village_rules.model.state import GameState
from village_rules.proofs.model.content import (
    ACTION_FIELDS,
    K_PASS,
    K_SERVE,
    content_abstract,
    content_names,
)
from village_rules.proofs.model.guarded import (
    TURN_TIME_CLAUSE,
    ContentConstants,
    Vars,
    is_free_sale,
    is_sale,
    state_clauses,
    step_relation,
)
from village_rules.proofs.model.model import Z3, Ops
from village_rules.rules.variant import Variant

STEP_LABEL = "the guarded commands of the step's kind"
"""The name of the step relation in a proof's unsat core (beside the state clauses' names)."""
RLIMIT = 20_000_000
"""z3's resource limit per solver call: deterministic (the same on every machine and load)."""


@dataclass(frozen=True, slots=True)
class RulePredicate:
    """A query's abstract predicate over the rule-content model."""

    title: str
    state: bool
    """True: `holds(v, None, None, k, o)` reads one state; False: a step (s, a, t)."""
    holds: Callable[[Vars, Vars, Vars, ContentConstants, Ops], Any]

    def as_state_predicate(self) -> Callable[[Vars, Any], Any]:
        """For a state predicate: the catalogue's form `(v, constants) -> z3 formula`."""
        if not self.state:
            raise ValueError(f"{self.title!r} is a step predicate, not a state predicate")
        return lambda v, k: self.holds(v, v, v, k, Z3)


def _someone_dies(s: Vars, t: Vars, k: ContentConstants, o: Ops) -> Any:
    return o.any(*(t[f"dead_{p}"] > s[f"dead_{p}"] for p in range(k.players)))


def _actor_passed(s: Vars, k: ContentConstants, o: Ops) -> Any:
    return o.any(*(o.all(s["actor"] == p, s[f"passed_{p}"] == 1) for p in range(k.players)))


def _actor_spends_no_time(s: Vars, t: Vars, k: ContentConstants, o: Ops) -> Any:
    return o.any(*(o.all(s["actor"] == p, t[f"life_{p}"] == s[f"life_{p}"]) for p in range(k.players)))


RULE_PREDICATES: dict[str, RulePredicate] = {
    "death-during-mass": RulePredicate(
        "a member dies during a mass (the mass goes on before and after the step)",
        False,
        lambda s, a, t, k, o: o.all(s["mass"] >= 1, t["mass"] >= 1, _someone_dies(s, t, k, o)),
    ),
    "market-day-during-mass": RulePredicate(
        "a market day is held during a mass",
        True,
        lambda v, a, t, k, o: o.all(v["md"] == 1, v["mass"] >= 1),
    ),
    "free-sale-not-first": RulePredicate(
        "a sale that costs no time but is not the market-day player's first",
        False,
        lambda s, a, t, k, o: o.all(
            is_sale(s, a, t, o), o.not_(is_free_sale(s, k, o)), _actor_spends_no_time(s, t, k, o)
        ),
    ),
    "act-after-pass": RulePredicate(
        "a player serves or passes in a market day after passing in it",
        False,
        lambda s, a, t, k, o: o.all(o.any(a["kind"] == K_SERVE, a["kind"] == K_PASS), _actor_passed(s, k, o)),
    ),
    "two-deaths-one-turn": RulePredicate(
        "two members of one seat die in one turn (the turn's deaths, a path variable)",
        True,
        lambda v, a, t, k, o: o.any(*(v[f"turn_dead_{p}"] >= 2 for p in range(k.players))),
    ),
}

GUARDS: dict[str, str] = {
    "death-during-mass": "MASS: nobody spends time or dies while the mass goes on",
    "market-day-during-mass": "MASS-01: a mass is held between turns",
    "free-sale-not-first": "MKT-03: every other sale costs 1 time",
    "act-after-pass": "MKT-04: a player asked at the market has not passed",
    "two-deaths-one-turn": TURN_TIME_CLAUSE,
}
"""The clause each proof of `RULE_PREDICATES` rests on (dropping it breaks the proof)."""


@dataclass(frozen=True, slots=True)
class ContentProof:
    """The result of k-induction over the rule-content model."""

    proved: bool
    k: int
    """The depth at which the step case closed (or the last tried)."""
    reason: str
    """Why not proved: "base case" (a model path reaches the predicate), "step case" (the
    induction does not close up to k), "resource limit" (z3's rlimit ran out); "" if proved."""
    invariant: tuple[str, ...] = ()
    """The clauses z3 needed (its unsat core)."""


def _symbols(players: int, i: int) -> dict[str, Any]:
    return {n: z3.Int(f"{n}@{i}") for n in content_names(players)}


def _action(i: int) -> dict[str, Any]:
    return {n: z3.Int(f"a.{n}@{i}") for n in ACTION_FIELDS}


def _bad_at(
    pred: RulePredicate, path: list[dict[str, Any]], acts: list[dict[str, Any]], i: int, k: ContentConstants
) -> Any:
    """The predicate at position i: state i, or step i-1 -> i."""
    if pred.state:
        return pred.holds(path[i], path[i], path[i], k, Z3)
    return pred.holds(path[i - 1], acts[i - 1], path[i], k, Z3)


def _solver(rlimit: int = RLIMIT) -> Any:
    solver = z3.Solver()
    solver.set("rlimit", rlimit)
    return solver


def k_induction_content(
    edition: str | EditionData,
    players: int,
    pred: RulePredicate,
    *,
    max_k: int = 2,
    drop: frozenset[str] = frozenset(),
    rlimit: int = RLIMIT,
    start: GameState | None = None,
) -> ContentProof:
    """Prove `pred` unreachable in the rule-content model of an edition (a name, or a data
    file's `EditionData`: the explorer's reduced configurations) and player count (default
    readings), by k-induction up to `max_k`, each z3 call under `rlimit`, from `start` (a
    set-up; default the edition's game of seed 0); `drop` leaves clauses out (the tests use
    it to show a proof needs its clause)."""
    begin = start if start is not None else new_game(edition, players, 0, Variant())
    initial = content_abstract(begin)
    k = ContentConstants.of(begin.rules, players)
    first = 0 if pred.state else 1
    clauses = state_clauses(drop)
    for depth in range(1, max_k + 1):
        # base case: no model path of at most `depth` steps from the initial state meets it
        base = _solver(rlimit)
        path = [_symbols(players, i) for i in range(depth + 1)]
        acts = [_action(i) for i in range(depth)]
        base.add(*(path[0][n] == initial[n] for n in initial))
        for i in range(depth):
            base.add(step_relation(path[i], acts[i], path[i + 1], k, Z3, drop=drop))
        base.add(z3.Or(*(_bad_at(pred, path, acts, i, k) for i in range(first, depth + 1))))
        verdict = base.check()
        if verdict == z3.sat:
            return ContentProof(False, depth, "base case")
        if verdict == z3.unknown:
            return ContentProof(False, depth, "resource limit")
        # step case: `depth` states meeting the state clauses, linked by model steps,
        # the predicate false before the last position and true there
        step = _solver(rlimit)
        labels: dict[str, str] = {}
        for i in range(depth + 1):
            for name, c in clauses:
                label = f"c{len(labels)}"
                labels[label] = name
                step.assert_and_track(c(path[i], k, Z3), label)
        for i in range(depth):
            label = f"c{len(labels)}"
            labels[label] = STEP_LABEL
            step.assert_and_track(step_relation(path[i], acts[i], path[i + 1], k, Z3, drop=drop), label)
        for i in range(first, depth):
            step.add(z3.Not(_bad_at(pred, path, acts, i, k)))
        step.add(_bad_at(pred, path, acts, depth, k))
        verdict = step.check()
        if verdict == z3.unsat:
            used = sorted({labels[str(c)] for c in step.unsat_core()})
            return ContentProof(True, depth, "", tuple(used))
        if verdict == z3.unknown:
            return ContentProof(False, depth, "resource limit")
    return ContentProof(False, max_k, "step case")


def satisfiable(players: int, edition: str, pred: RulePredicate, drop: frozenset[str] = frozenset()) -> bool:
    """Whether the predicate can hold at all on states meeting the state clauses but `drop`
    (with any step): a proof that needs a dropped clause is then not vacuous."""
    k = ContentConstants.of(new_game(edition, players, 0, Variant()).rules, players)
    s, t, a = _symbols(players, 0), _symbols(players, 1), _action(0)
    solver = _solver()
    for _, c in state_clauses(drop):
        solver.add(c(s, k, Z3), c(t, k, Z3))
    solver.add(pred.holds(s, s, s, k, Z3) if pred.state else pred.holds(s, a, t, k, Z3))
    return bool(solver.check() == z3.sat)
