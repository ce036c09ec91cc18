"""Stage: model (z3 over the counts model).

Bounded model checking and k-induction over the z3 model (`model.py`).

`bmc` asks z3 for an abstract path of at most `bound` steps from the abstract initial state
to a state satisfying the query's abstract predicate. `k_induction` proves that no reachable
abstract state satisfies it: the base case is BMC up to k, the step case shows that k
consecutive steps that avoid the predicate (each satisfying the state clauses) cannot be
followed by one that meets it. Since the model over-approximates the engine (checked by the
refinement test), "unreachable" in the model means unreachable in the engine.

z3's work is bounded by its *resource limit* (`rlimit`, a count of its internal steps), never
by a timeout: the same formula gets the same answer on any machine and under any load. A
check that runs out of it answers "unknown", which is neither a path nor a proof.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import z3

from village_rules.proofs.model.abstraction import AbstractState, field_names
from village_rules.proofs.model.model import (
    STATE_CLAUSES,
    STEP_CLAUSES,
    Z3,
    Constants,
    Vars,
    equals,
    symbols,
    transition,
)

AbstractPredicate = Callable[[Vars, Constants], Any]
"""A query's predicate over the abstract state, built with z3 terms (`model.Z3` connectives)."""


@dataclass(frozen=True, slots=True)
class BmcResult:
    """The result of bounded model checking: the shortest abstract path found, if any."""
    depth: int | None
    """The length of the shortest abstract path found, or None (none up to the bound)."""
    path: tuple[AbstractState, ...]
    complete: bool = True
    """False when z3 ran out of its resource limit at some depth: "no path" is then unknown."""


RLIMIT = 20_000_000
"""z3's resource limit per `check` call (its own count of steps, the same on every machine):
about 30 times what the catalogue's hardest check uses at bound 6 (0.7 million, measured on
the counts-only model), so running out of it means a formula grew much harder, never that the
machine was busy."""
MAX_RLIMIT = 10_000_000_000
"""The largest resource limit `prove` accepts (`--rlimit`)."""


def _limit(solver: Any, rlimit: int) -> None:
    solver.set("rlimit", rlimit)


def bmc(
    initial: AbstractState, k: Constants, goal: AbstractPredicate, bound: int, rlimit: int = RLIMIT
) -> BmcResult:
    """The shortest abstract path (up to `bound` steps) from `initial` to `goal`; `complete`
    is False when some depth ran out of the resource limit (then "no path" proves nothing)."""
    solver = z3.Solver()
    _limit(solver, rlimit)
    complete = True
    path = [symbols(k.players, 0)]
    solver.add(equals(path[0], initial))
    for depth in range(bound + 1):
        if depth:
            path.append(symbols(k.players, depth))
            solver.add(transition(path[depth - 1], path[depth], k, Z3))
        solver.push()
        solver.add(goal(path[depth], k))
        answer = solver.check()
        if answer == z3.sat:
            model = solver.model()
            trace = tuple(_read(model, v, k.players) for v in path)
            return BmcResult(depth, trace, complete)
        if answer != z3.unsat:
            complete = False
        solver.pop()
    return BmcResult(None, (), complete)


def _read(model: Any, v: Vars, players: int) -> AbstractState:
    values = tuple(model.eval(v[name], model_completion=True).as_long() for name in field_names(players))
    return AbstractState(players, values)


@dataclass(frozen=True, slots=True)
class InductionResult:
    """The result of k-induction: whether the property was proved, and at which depth."""
    proved: bool
    k: int
    """The induction depth at which the step case closed (or the last one tried)."""
    invariant: tuple[str, ...] = ()
    """The model clauses z3 needed for the step case (its unsat core), in human terms."""


def k_induction(
    initial: AbstractState, k: Constants, bad: AbstractPredicate, max_k: int, rlimit: int = RLIMIT
) -> InductionResult:
    """Prove `bad` unreachable at every depth, or report that k-induction up to `max_k` did not close.

    The base case must hold (`bmc` finds no path up to `max_k`) for a proof; the caller runs it."""
    for depth in range(1, max_k + 1):
        solver = z3.Solver()
        _limit(solver, rlimit)
        path = [symbols(k.players, i) for i in range(depth + 1)]
        labels: dict[str, str] = {}
        for i in range(depth + 1):
            for name, clause in STATE_CLAUSES.items():
                label = f"s{len(labels)}"
                labels[label] = name
                solver.assert_and_track(clause(path[i], k, Z3), label)
        for i in range(depth):
            for name, step in STEP_CLAUSES.items():
                label = f"t{len(labels)}"
                labels[label] = name
                solver.assert_and_track(step(path[i], path[i + 1], k, Z3), label)
            solver.add(z3.Not(bad(path[i], k)))
        solver.add(bad(path[depth], k))
        if solver.check() == z3.unsat:
            used = sorted({labels[str(c)] for c in solver.unsat_core()})
            return InductionResult(True, depth, tuple(used))
    return InductionResult(False, max_k)
