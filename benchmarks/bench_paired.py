"""This checkout's engine against another source tree's, on the same fixed work, by CPU
time (not a test: figures vary by machine). On a shared machine, wall-clock rates swing
with the other processes' load; the CPU time of a fixed set of seeded games swings much
less, and running the two engines alternately cancels most of the rest.

    git archive <commit> src | tar -x -C /tmp/old      # the engine to compare with
    python benchmarks/bench_paired.py --against /tmp/old/src [--rounds 3] [--games 30]

Each round runs, in a fresh process per engine (PYTHONPATH selects the tree), seeded
4-player random playouts (both editions alternating): `--games` bare, and a third as many
with every invariant checked at every step, with and without the fast/oracle legal-set
comparison (through `incremental.IncrementalChecker`, as the fuzzer checks, in a tree that
has it; by the full checks in an older one). Prints seat decisions per CPU second and the
checked / bare ratios.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent / "src"

PLAYOUTS = r"""
import random, sys, time
from village_rules import apply, chance_outcomes, legal_actions, new_game
from village_rules.model.chance import sample
from village_rules.checks.invariants import has_move_violations, state_violations, transition_violations

try:  # the checker the fuzzer uses; a tree from before it has only the full checks
    from village_rules.checks.incremental import IncrementalChecker
except ImportError:
    IncrementalChecker = None

EDITIONS = ("big-box-2023", "original-2011")


def rate(games, check):
    decisions = 0
    checker = None if IncrementalChecker is None else IncrementalChecker(oracle=check != "no-oracle")
    start = time.process_time()
    for g in range(games):
        rng = random.Random(g)
        state = new_game(EDITIONS[g % 2], 4, g)
        while not state.is_terminal:
            if state.is_chance:
                action = sample(chance_outcomes(state), rng)
            else:
                legal = legal_actions(state)
                action = legal[rng.randrange(len(legal))]
                decisions += 1
            after = apply(state, action)
            if check != "none":
                after_legal = None if after.is_chance or after.is_terminal else legal_actions(after)
                if checker is not None:
                    found = checker.step(state, action, after, after_legal)
                elif check == "no-oracle":
                    found = state_violations(after) + has_move_violations(after, after_legal or [])
                else:
                    found = state_violations(after, after_legal)
                if checker is None:
                    found += transition_violations(state, action, after)
                if found:
                    raise SystemExit(f"violation: {found}")
            state = after
    return decisions / (time.process_time() - start)


games = int(sys.argv[1])
rate(2, "none")  # warm the caches
bare = rate(games, "none")
checked = rate(max(1, games // 3), "all")
no_oracle = rate(max(1, games // 3), "no-oracle")
print(f"{bare:.1f} {checked / bare:.4f} {no_oracle / bare:.4f}")
"""


def measure(src: Path, games: int) -> tuple[float, float, float]:
    env = {**os.environ, "PYTHONPATH": str(src)}
    out = subprocess.run(
        [sys.executable, "-c", PLAYOUTS, str(games)], env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    return float(out[0]), float(out[1]), float(out[2])


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--against", type=Path, required=True, help="the other tree's src directory")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--games", type=int, default=30)
    args = parser.parse_args()
    if not (args.against / "village_rules" / "__init__.py").is_file():
        parser.error(f"--against {args.against}: no village_rules package there")
    load = os.getloadavg()
    print(f"load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores")
    print(f"{args.games} seeded 4-player games bare, {max(1, args.games // 3)} checked, per round")
    print(f"{'round':>5} {'engine':>8} {'dec/CPU s':>10} {'checked/bare':>13} {'no-oracle/bare':>15}")
    figures: dict[str, list[tuple[float, float, float]]] = {"other": [], "this": []}
    for r in range(args.rounds):
        for name, src in (("other", args.against), ("this", HERE)):
            bare, checked, no_oracle = measure(src, args.games)
            figures[name].append((bare, checked, no_oracle))
            print(f"{r + 1:>5} {name:>8} {bare:>10.0f} {checked:>13.2f} {no_oracle:>15.2f}")
    for name, rows in figures.items():
        bare = statistics.median(b for b, _, _ in rows)
        checked = statistics.median(c for _, c, _ in rows)
        no_oracle = statistics.median(n for _, _, n in rows)
        print(
            f"median {name:>5}: {bare:.0f} seat decisions per CPU second;"
            f" checked/bare {checked:.2f} with the oracle, {no_oracle:.2f} without"
        )
    this = statistics.median(b for b, _, _ in figures["this"])
    other = statistics.median(b for b, _, _ in figures["other"])
    print(f"this / other (bare): {this / other:.2f}")
    load = os.getloadavg()
    print(f"load average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
