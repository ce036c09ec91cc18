"""z3 proofs about the rules: is a rule edge case reachable (with a game the engine replays)
or unreachable (with an inductive argument over a model checked against the engine)?

- `abstraction.abstract(state)`: the abstraction function GameState -> AbstractState;
- `model`: the z3 transition relation over abstract states (clauses with names);
- `refinement`: the check that every engine step lies inside the model;
- `solver`: bounded model checking and k-induction;
- `search`: witness concretisation by a steered search on the real engine;
- `catalogue`: the queries (`CATALOGUE`, `by_name`), each an abstract and a concrete predicate;
- `run.prove(query, edition, players)`: the verdict; `village-rules prove` prints the table.

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
