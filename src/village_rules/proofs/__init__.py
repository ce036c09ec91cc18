"""z3 proofs about the rules: is a rule edge case reachable (with a game the engine replays)
or unreachable (with an inductive argument over a model checked against the engine)?

One path through the package, six stages, one subpackage each (its `__init__` says what
the stage does and what it hands to the next; each module's docstring opens with its stage):

    proofs/
      catalogue/  1. what is asked        query, catalogue, rule_queries, user_queries
      search/     2. the reachable side   history, search, archive_steer, archive_target, shrink
      model/      3. the unreachable side abstraction, model, solver; content, guarded, induction
      link/       4. engine inside model  refinement, link, sample, hunt, regressions, coverage
      gate/       5. proofs only if held  gate
      table/      6. the verdicts         run, table, stored
      errors.py   the package's errors (every stage)

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
   `check_game`, `check_log`, `link_check`), `sample` (on `check`'s games), `hunt` (a hunt
   for breaking steps by rare branches), `regressions` (every game that ever broke a clause,
   replayed), `coverage` (the branches exercised).
5. **gate** (no "unreachable" printed unless the link held in the same run): `gate` (the
   link's games, hunt and regressions, and concrete(s) => abstract(alpha(s)) per query).
6. **table** (the verdicts): `run` (`prove`: one row's verdict and its artefacts; per row
   it runs the proofs, the gate for a proof found, then the search), `table` (the stored table
   `proofs/witnesses/results.json` at the repository top, and `prove --expect`), `stored`
   (re-checking what was stored). `errors` holds the package's errors.

The stored results are not code: `village_rules.proofs.witnesses` and
`village_rules.proofs.regressions` are data packages whose folders are the repository's
top-level `proofs/witnesses/` and `proofs/regressions/` (setup.py); `table.stored` and
`link.regressions` read them.

Imports between the stages. The numbers are the order a row meets the stages; the imports
do not all follow it. The table imports every stage, the gate the link, the link the model
and the search's `History`; but a query is written in the search's vocabulary (`History`,
`Steer`) and the model's (`Constants`, `Vars`), so the catalogue imports those two, and the
search's archive steer imports the model for its macro target. The layers that hold, highest
first, are table > gate > link > catalogue > search > model, and pyproject.toml's
import-linter contract checks them (`lint-imports`). The stage packages' `__init__`s import
nothing (their docstrings are the map), so the imports between stages are the modules' own.

What this package exports is what docs/proofs.md tells a user to import, to run the
catalogue (`prove`, `CATALOGUE`, `by_name`, `Result` and its verdicts) and to write a query
of their own (`Query`, `any_seat`, `Steer`, `History`; examples/my_queries.py), and the
counts abstraction (`abstract`, `AbstractState`); everything else is imported from its
stage's module.

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

from village_rules.proofs.catalogue.catalogue import CATALOGUE, Query, any_seat, by_name
from village_rules.proofs.model.abstraction import AbstractState, abstract
from village_rules.proofs.search.history import History
from village_rules.proofs.search.search import Steer
from village_rules.proofs.table.run import REACHABLE, UNKNOWN, UNREACHABLE, Result, prove

__all__ = [
    "CATALOGUE",
    "REACHABLE",
    "UNKNOWN",
    "UNREACHABLE",
    "AbstractState",
    "History",
    "Query",
    "Result",
    "Steer",
    "abstract",
    "any_seat",
    "by_name",
    "prove",
]
