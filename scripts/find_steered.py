"""Search fuzz games for one that fires a rule: prints the first hit as a `Steered` entry
for `village_rules.fuzz.steered.STEERED`.

    python scripts/find_steered.py SOLO-23 --seed 0 --players 1 --games 4000
    python scripts/find_steered.py DEATH-08 --seed 2 --reading AMB-08=b --reading AMB-23=b --games 400

Every game is played with every invariant checked (`fuzz.games.play_game`); the budget is
in games, so a search repeats exactly.
"""

from __future__ import annotations

import argparse
import sys

from village_rules.fuzz.games import plan_game, play_game


def main() -> int:
    """Play game 0, 1, ... of the run until one fires the rule; 1 if none of them does."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("rule")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--players", type=int)
    p.add_argument("--reading", action="append", default=[], metavar="AMB-NN=x")
    p.add_argument("--games", type=int, default=1000)
    args = p.parse_args()
    readings = tuple((amb, letter) for amb, _, letter in (r.partition("=") for r in args.reading)) or None
    for i in range(args.games):
        result = play_game(plan_game(args.seed, i, None, args.players, readings))
        if result.failed:
            print(f"game {i} breaks an invariant: {result.violations[0]}", file=sys.stderr)
            return 2
        if args.rule in dict(result.rule_counts):
            print(f"Steered({args.rule!r}, {args.seed}, {i}, players={args.players}, readings={readings})")
            return 0
    print(f"none of games 0-{args.games - 1} fires {args.rule}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
