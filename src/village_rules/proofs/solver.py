"""Bounded model checking and k-induction over the z3 model (`model.py`).

`bmc` asks z3 for an abstract path of at most `bound` steps from the abstract initial state
to a state satisfying the query's abstract predicate. `k_induction` proves that no reachable
abstract state satisfies it: the base case is BMC up to k, the step case shows that k
consecutive steps that avoid the predicate (each satisfying the state clauses) cannot be
followed by one that meets it. Since the model over-approximates the engine (checked by the
refinement test), "unreachable" in the model means unreachable in the engine.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import z3

from village_rules.proofs.abstraction import AbstractState, field_names
from village_rules.proofs.model import (
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


def _timeout(solver: Any, seconds: float) -> None:
    solver.set("timeout", int(seconds * 1000))


def bmc(
    initial: AbstractState, k: Constants, goal: AbstractPredicate, bound: int, seconds: float = 5.0
) -> BmcResult:
    """The shortest abstract path (up to `bound` steps) from `initial` to `goal`."""
    solver = z3.Solver()
    _timeout(solver, seconds)
    path = [symbols(k.players, 0)]
    solver.add(equals(path[0], initial))
    for depth in range(bound + 1):
        if depth:
            path.append(symbols(k.players, depth))
            solver.add(transition(path[depth - 1], path[depth], k, Z3))
        solver.push()
        solver.add(goal(path[depth], k))
        if solver.check() == z3.sat:
            model = solver.model()
            trace = tuple(_read(model, v, k.players) for v in path)
            return BmcResult(depth, trace)
        solver.pop()
    return BmcResult(None, ())


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
    initial: AbstractState, k: Constants, bad: AbstractPredicate, max_k: int, seconds: float = 5.0
) -> InductionResult:
    """Prove `bad` unreachable at every depth, or report that k-induction up to `max_k` did not close.

    The base case must hold (`bmc` finds no path up to `max_k`) for a proof; the caller runs it."""
    for depth in range(1, max_k + 1):
        solver = z3.Solver()
        _timeout(solver, seconds)
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
