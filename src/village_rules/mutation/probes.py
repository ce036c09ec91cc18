"""The semantic layers as a program run inside a mutated copy of the package:
`python -m village_rules.mutation.probes LAYER` with the copy first on `PYTHONPATH`.

It prints `SURVIVED` or `KILLED: <reason>` as its last line and exits 0; anything else (an
import that fails, a traceback) is a kill the runner reports as a crash. Each probe stops at
its count budget (`budgets`)."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from hypothesis import HealthCheck, Phase, settings
from hypothesis.stateful import run_state_machine_as_test

import village_rules
from village_rules.checks.invariants import Violation
from village_rules.conform.client import ProtocolEngine
from village_rules.conform.inputs import SEEDED, STATES
from village_rules.conform.protocol import ImplementationError
from village_rules.conform.run import Selection
from village_rules.conform.run import run as run_conform
from village_rules.explore.configs import configuration
from village_rules.explore.search import explore
from village_rules.fuzz.runner import run_fuzz
from village_rules.mutation import budgets as b
from village_rules.proofs.link.link import default_games, link_check
from village_rules.proofs.link.refinement import check_game
from village_rules.testing import VillageMachine


def _one_line(text: object, limit: int = 240) -> str:
    return " ".join(str(text).split())[:limit]


def _violation(v: Violation) -> str:
    return f"{v.invariant} {v.component}: expected {_one_line(v.expected, 80)}, got {_one_line(v.actual, 80)}"


def fuzz() -> str | None:
    """Invariants at every step of seeded random games (any edition and player count)."""
    with tempfile.TemporaryDirectory() as out:
        # on the reference: a mutant changes the Python engine, which the native core is not
        summary = run_fuzz(
            b.FUZZ_GAMES,
            b.FUZZ_SEED,
            1,
            None,
            None,
            Path(out),
            max_steps=b.FUZZ_MAX_STEPS,
            engine="reference",
        )
    failure = summary.failure
    if failure is None:
        return None
    g, v = failure.game, failure.violations[0]
    where = f"fuzz game {g.index} ({g.edition}, {g.players}p) action {failure.actions}"
    return f"{where}: {_violation(v)}"


def machine() -> str | None:
    """The Hypothesis machine, derandomized, no shrinking (the verdict is all we need)."""
    budget = settings(
        max_examples=b.MACHINE_EXAMPLES,
        stateful_step_count=b.MACHINE_STEPS,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        phases=[Phase.explicit, Phase.reuse, Phase.generate],
    )
    try:
        run_state_machine_as_test(VillageMachine, settings=budget)
    except Exception as exc:  # any failure of the machine is its kill
        return f"machine {type(exc).__name__}: {_one_line(exc)}"
    return None


def refinement() -> str | None:
    """Every step of seeded games against the z3 model's transition relation."""
    for edition, players, seed in b.REFINEMENT_GAMES:
        mismatches = check_game(edition, players, seed, max_steps=b.REFINEMENT_MAX_STEPS)
        if mismatches:
            m = mismatches[0]
            clauses = _one_line(", ".join(m.clauses), 160)
            return f"refinement {edition} {players}p seed {seed} step {m.step} {m.action}: {clauses}"
    return None


def link() -> str | None:
    """Every step of the link's seeded games against the rule-content model's guarded
    commands (what `prove`'s gate checks before it prints an "unreachable")."""
    result = link_check(default_games(b.LINK_GAMES_PER_ROW), max_steps=b.LINK_MAX_STEPS)
    return None if result.broken is None else _one_line(f"link: {result.broken}")


def exploration() -> str | None:
    """Every state of the reduced configurations: invariants, deadlocks, and some end."""
    for name, players, most in b.EXPLORE_CONFIGS:
        try:
            result = explore(configuration(name).data, players, max_states=most)
        except Exception as exc:  # the state limit or any crash is a kill
            return f"explore {name}: {type(exc).__name__}: {_one_line(exc)}"
        if result.violation_count:
            _, v = result.violations[0]
            return f"explore {name}: {result.violation_count} violations, first {_violation(v)}"
        if result.deadlocks:
            return f"explore {name}: {result.deadlocks} deadlocks"
        if not result.terminal:
            return f"explore {name}: no terminal state (no game ends)"
    return None


def conformance() -> str | None:
    """The mutated copy (`VILLAGE_MUTANT_ROOT`) served over the JSON-lines protocol by
    `python -m village_rules.conform.serve`, compared by `conform` with this process's
    unmutated reference on seeded games, then on the first states of reduced configurations
    (no shrinking: the verdict is all we need)."""
    root = os.environ.get("VILLAGE_MUTANT_ROOT")
    if root is None:
        return "conform: no VILLAGE_MUTANT_ROOT to serve"
    env = dict(os.environ)
    env["PYTHONPATH"] = root
    try:
        engine = ProtocolEngine(
            [sys.executable, "-m", "village_rules.conform.serve"], step_limit=b.CONFORM_STEP_LIMIT, env=env
        )
    except ImplementationError as exc:
        return f"conform: the served copy failed at the handshake: {_one_line(exc)}"
    with engine:
        if str(Path(root).resolve()) not in engine.name:
            return f"conform: the served engine is not the mutated copy ({engine.name})"
        selection = Selection(
            kinds=(SEEDED,),
            games=b.CONFORM_GAMES,
            seed=b.CONFORM_SEED,
            max_steps=b.CONFORM_MAX_STEPS,
            shrink_replays=0,
        )
        result = run_conform(engine, selection)
        for config, most in b.CONFORM_STATES:
            if result.failure is not None:
                break
            result = run_conform(engine, Selection(kinds=(STATES,), configs=(config,), states=most))
    failure = result.failure
    if failure is None:
        return None
    return _one_line(
        f"conform {failure.name} ({failure.setup.describe()}) step {failure.step}: "
        f"{failure.difference.kind}: {failure.difference.detail}"
    )


PROBES: dict[str, Callable[[], str | None]] = {
    "fuzz": fuzz,
    "machine": machine,
    "refinement": refinement,
    "link": link,
    "explore": exploration,
    "conform": conformance,
}
REFERENCE_SIDE = frozenset({"conform"})
"""Probes run on the unmutated package (they reach the mutated copy themselves)."""


def main(argv: list[str]) -> int:
    """Run one probe and print its verdict; 2 for an unknown probe or a wrong package."""
    if len(argv) != 1 or argv[0] not in PROBES:
        print(f"probes: give one of {', '.join(PROBES)}", file=sys.stderr)
        return 2
    root = os.environ.get("VILLAGE_MUTANT_ROOT")
    # An empty copy (no __init__.py) imports as a namespace package, which has no file.
    file = getattr(village_rules, "__file__", None)
    here = str(Path(file).resolve()) if file else ""
    imported = bool(here) and here.startswith(str(Path(root).resolve())) if root else True
    if argv[0] in REFERENCE_SIDE and root is not None and imported:
        print(f"KILLED: the reference side imported the mutated copy (got {village_rules.__file__})")
        return 0
    if argv[0] not in REFERENCE_SIDE and not imported:
        print(f"KILLED: the mutated copy was not imported (got {file or 'a namespace package, no file'})")
        return 0
    reason = PROBES[argv[0]]()
    print("SURVIVED" if reason is None else f"KILLED: {reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
