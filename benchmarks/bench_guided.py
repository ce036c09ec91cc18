"""Coverage-guided against uniform fuzzing for the same number of actions (issue 27); not a
test. One seeded run of each mode, every invariant checked at every action:

    python benchmarks/bench_guided.py [--actions 30000] [--seed 0]

Prints the distinct rule IDs, rule-ID pairs, end types and pending-step kinds each mode
reached, any violation, and the coverage curve (rule-ID pairs against actions played).
"""

from __future__ import annotations

import argparse

from village_rules.fuzz.guided import MODES, run_coverage


def main() -> None:
    """Print the figures."""
    fmt = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=fmt)
    parser.add_argument("--actions", type=int, default=30_000, help="actions per mode (default 30000)")
    parser.add_argument("--seed", type=int, default=0, help="the run's seed (default 0)")
    args = parser.parse_args()
    runs = {mode: run_coverage(mode, args.seed, args.actions) for mode in MODES}
    for mode, cov in runs.items():
        print(f"{mode:8} {cov.actions:,} actions: rule IDs {cov.kinds('rule')},"
              f" rule-ID pairs {cov.kinds('pair')}, end types {cov.kinds('end')},"
              f" pending-step kinds {cov.kinds('step')};"
              f" violations {len(cov.violations)}")
        step = max(1, len(cov.curve) // 8)
        points = ", ".join(f"{a:,}: {p}" for a, _, p in cov.curve[::step])
        print(f"{'':8} rule-ID pairs against actions: {points}")
    more = runs["guided"].kinds("pair") - runs["uniform"].kinds("pair")
    print(f"guided reached {more:+d} rule-ID pairs against uniform (target: more than 0:"
          f" {'met' if more > 0 else 'NOT met'})")


if __name__ == "__main__":
    main()
