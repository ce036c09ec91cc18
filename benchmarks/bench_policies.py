"""The policies' figures (issue 27), from seeded 2-player games of each edition; not a test.

    python benchmarks/bench_policies.py [--games 10] [--simulations 600] [--seed 0]

Per policy in every seat: how games end, game length, mean scores per category, the rule
IDs fired; then the targets: under the chronicle planner at least 60% of games end by a
full chronicle (beside random play's share); the traveller's travel and the climber's
council chamber + church scores at least twice random's; the search policy (expectimax,
`--simulations` engine steps per decision) winning against random in >= 90% and against
greedy in >= 60% of games (seats alternating), with the simulations per decision used.
Every figure comes from games seeded by `--seed`, so a run repeats exactly.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from functools import partial

from village_rules.data.loader import EDITIONS
from village_rules.drivers.play import Policy
from village_rules.policies import SearchPolicy, policy_named
from village_rules.policies.survey import CATEGORIES, Survey, match, survey
from village_rules.rule_ids import RuleId

SURVEYED = ("random", "greedy", "chronicle", "traveller", "climber")


def _verdict(ok: bool) -> str:
    return "met" if ok else "NOT met"


def _print_survey(name: str, edition: str, s: Survey) -> None:
    ends = ", ".join(f"{end} {n}" for end, n in sorted(s.ends.items()))
    print(f"{name:9} {edition:13} games {s.games}  ends: {ends}")
    print(f"{'':23} mean length {s.actions / max(1, s.games):.0f} actions;"
          f" rule IDs fired {len(s.rules)} of {len(RuleId)}")
    for seat, points in sorted(s.per_seat.items()):
        cats = " ".join(f"{c}={points[c] / s.games:.1f}" for c in CATEGORIES)
        print(f"{'':23} seat {seat}: total {points['total'] / s.games:.1f} ({cats})")


def main() -> None:
    """Print every figure."""
    fmt = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=fmt)
    parser.add_argument("--games", type=int, default=10, help="games per policy and edition (default 10)")
    parser.add_argument("--simulations", type=int, default=600, help="search budget per decision")
    parser.add_argument("--seed", type=int, default=0, help="first game seed (default 0)")
    args = parser.parse_args()
    seeds = range(args.seed, args.seed + args.games)
    print(f"2-player games, seeds {seeds.start}..{seeds.stop - 1}, per policy and edition")
    for edition in EDITIONS:
        surveys = {name: survey(partial(policy_named, name), edition, 2, seeds) for name in SURVEYED}
        for name, s in surveys.items():
            _print_survey(name, edition, s)
        rnd, chron = surveys["random"], surveys["chronicle"]
        share = chron.share_ending("chronicle")
        print(f"TARGET {edition}: chronicle planner's games ending by a full chronicle"
              f" {share:.0%} (random {rnd.share_ending('chronicle'):.0%}; >= 60%: {_verdict(share >= 0.6)})")
        travel, rtravel = surveys["traveller"].mean("travel"), rnd.mean("travel")
        print(f"TARGET {edition}: traveller's mean travel score {travel:.1f} (random {rtravel:.1f};"
              f" >= 2x: {_verdict(travel >= 2 * rtravel)})")
        climb = surveys["climber"].mean("council_chamber", "church")
        rclimb = rnd.mean("council_chamber", "church")
        print(f"TARGET {edition}: climber's mean council chamber + church score {climb:.1f}"
              f" (random {rclimb:.1f}; >= 2x: {_verdict(climb >= 2 * rclimb)})")
        for opponent, floor in (("random", 0.9), ("greedy", 0.6)):
            make: Callable[[], Policy] = partial(SearchPolicy, simulations=args.simulations)
            result, made = match(make, partial(policy_named, opponent), edition, seeds)
            decisions = sum(p.decisions for p in made if isinstance(p, SearchPolicy))
            simulated = sum(p.simulated for p in made if isinstance(p, SearchPolicy))
            print(f"TARGET {edition}: search ({args.simulations} simulations/decision budget,"
                  f" {simulated / max(1, decisions):.0f} used on average) beat {opponent} in"
                  f" {result.wins} of {result.games} ({result.win_share:.0%}, {result.ties} shared);"
                  f" >= {floor:.0%}: {_verdict(result.win_share >= floor)}")


if __name__ == "__main__":
    main()
