"""What the rule-content link check costs (not a test: figures vary by machine and load).

    python benchmarks/bench_link.py [--games 1]

Runs `proofs.link.link.link_check` on `default_games(--games)` (every edition and player count,
the four policies in turn) and prints the steps checked, the CPU time and µs per step; then
the four rule-content k-induction proofs at one row and their CPU time. The link check's
budget is in games and steps, so the verdict is the same on every machine; only these
timings vary.
"""

from __future__ import annotations

import argparse
import time

from village_rules.proofs.link.link import default_games, link_check
from village_rules.proofs.model.induction import RULE_PREDICATES, k_induction_content


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1, help="games per edition and player count")
    args = parser.parse_args()
    start = time.process_time()
    result = link_check(default_games(args.games))
    spent = time.process_time() - start
    print(result)
    per_step = 1e6 * spent / max(result.steps, 1)
    print(f"link check: {result.steps} steps in {spent:.1f} s CPU, {per_step:.0f} µs/step")
    for name, pred in RULE_PREDICATES.items():
        start = time.process_time()
        proof = k_induction_content("big-box-2023", 4, pred)
        print(f"{name}: proved={proof.proved} k={proof.k} in {time.process_time() - start:.2f} s CPU")


if __name__ == "__main__":
    main()
