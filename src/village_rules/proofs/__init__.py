"""z3 proofs about the rules: is a rule edge case reachable (with a game the engine replays)
or unreachable (with an inductive argument over a model checked against the engine)?

One path through the package, six stages; each module's docstring opens with its stage:

1. **catalogue** (what is asked): `query` (a `Query`: an abstract predicate for z3, a
   concrete predicate over the real path, a hand-written steer, its rows and budget),
   `catalogue` (`CATALOGUE`, `by_name`), `rule_queries` (the market-day, mass and end
   queries), `user_queries` (a user's own queries from a file).
2. **search** (the reachable side: a witness the engine plays): `history` (the path by
   sub-steps, as concrete predicates read it), `search` (seeded games under the query's
   steer), `archive_steer` (`prove --z3-steer`: a Go-Explore search with no hand steer, its
   cells cut by z3's macro target) with `archive_target` (that target and its distance),
   `shrink` (a witness cut down to one a person can read).
3. **model** (the unreachable side: two abstractions of the engine, and z3 over each):
   the counts model, `abstraction` (alpha: a state as named counts) and `model` (clauses of
   one step over them), decided by `solver` (BMC and k-induction); the rule-content model,
   `content` (alpha_c: the counts plus the pending step, the market day, the turn's path
   variables, the scoring) and `guarded` (one guarded command per kind of action, every
   counts clause included), decided by `induction` (k-induction, `RULE_PREDICATES`).
4. **link** (the engine never leaves the model, checked on real steps): `refinement`
   (every engine step inside the counts model, on the fuzzer's games and the Hypothesis
   machines), `link` (every engine sub-step inside the rule-content model: `check_step`,
   `check_game`, `check_log`, `link_check`), `link_sample` (on `check`'s games),
   `link_search` (a hunt for breaking steps by rare branches), `link_regressions` (every
   game that ever broke a clause, replayed), `link_coverage` (the branches exercised).
5. **gate** (no "unreachable" printed unless the link held in the same run): `gate` (the
   link's games, hunt and regressions, and concrete(s) => abstract(alpha(s)) per query).
6. **table** (the verdicts): `run` (`prove`: one row's verdict and its artefacts; per row
   it runs the proofs, the gate for a proof found, then the search), `table` (the stored table
   `proofs/witnesses/results.json` at the repository top, and `prove --expect`), `stored`
   (re-checking what was stored). `errors` holds the package's errors.

Why two abstractions. The counts model is the common vocabulary: every query's abstract
predicate (`Query.abstract`), the gate's implication, the explorer's refinement check and
the archive's macro target are stated over its names, and z3's BMC and k-induction over it
decide every row but the solo ones (an abstract path up to the bound, for the search to
make real, or a proof of what conservation and monotonicity alone rule out). It proves
little beyond that. The rule-content model decides what needs the rules' content
(`induction.RULE_PREDICATES`: no death and no market day during a mass, only the market-day
player's first sale free, a pass final for the day, no two deaths of a seat in one turn):
it *extends* the counts model rather than standing beside it, since its state holds every
counts variable and its step relation every counts clause (`guarded.state_clauses`,
`guarded.counts_step_clauses`). Each has its link to the engine: the counts model
`refinement` (`check_game`, `RefinementMachine`; `explore --refinement`), the rule-content
model `link` (and `refinement.ContentRefinementMachine`); and since the content relation
contains the counts clauses, the gate's link checks both on every sub-step of its games
before any proof is printed. Merging them (proving the counts rows over the content model
too) is not done: it is not measured, and the counts names would stay the queries'
vocabulary either way.

See docs/proofs.md.
"""

from __future__ import annotations

from village_rules.proofs.abstraction import AbstractState, abstract
from village_rules.proofs.catalogue import CATALOGUE, Query, by_name
from village_rules.proofs.run import REACHABLE, UNKNOWN, UNREACHABLE, Result, prove

__all__ = [
    "CATALOGUE",
    "REACHABLE",
    "UNKNOWN",
    "UNREACHABLE",
    "AbstractState",
    "Query",
    "Result",
    "abstract",
    "by_name",
    "prove",
]
