"""The policies' figures (issue 27), from seeded 2-player games of each edition; not a test.

    python benchmarks/bench_policies.py [--games 10] [--simulations 600] [--seed 0]
        [--only {surveys,search}] [--editions EDITION ...] [--evaluation LEAF]
        [--against {random,greedy} ...]

Per policy in every seat: how games end, game length, mean scores per category, the rule
IDs fired; then the targets: under the chronicle planner at least 60% of games end by a
full chronicle (beside random play's share); the traveller's travel and the climber's
council chamber + church scores at least twice random's; the search policy
(`policies/search.py`, `--simulations` engine steps per decision) winning against random
in >= 90% and against greedy in >= 60% of games, with its wins, ties and losses, its mean
margin, and the simulations (engine steps) per decision it used. In the matches the
search sits first on even seeds and second on odd ones, so an even `--games` seats it
first in exactly half. `--only search` prints the matches alone (about 4 minutes of one
core for `--games 20` over both editions), `--only surveys` the rest.
Every figure comes from games seeded by `--seed`, so a run repeats exactly.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

from village_rules.data.loader import EDITIONS
from village_rules.drivers.play import Policy
from village_rules.engine.scoring import score_breakdown, winners
from village_rules.policies import SearchPolicy, policy_named
from village_rules.policies.evaluation import evaluate, time_aware
from village_rules.policies.lookahead import Evaluation
from village_rules.policies.planners import chronicle_value, climber_value, traveller_value
from village_rules.policies.strategic import strategic_value
from village_rules.policies.survey import CATEGORIES, Survey, play_traced, survey
from village_rules.rule_ids import RuleId

SURVEYED = ("random", "greedy", "chronicle", "traveller", "climber")

LEAVES: dict[str, Evaluation] = {
    "strategic": strategic_value,
    "greedy": evaluate,
    "time-aware": time_aware,
    "chronicle": chronicle_value,
    "traveller": traveller_value,
    "climber": climber_value,
}
"""The search's leaf evaluations `--evaluation` can choose (the default is the policy's:
strategic); the others are the ones it was compared with (docs/policies.md)."""


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


def _print_surveys(edition: str, seeds: range) -> None:
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


@dataclass
class Record:
    """The search's games against one opponent: won, shared, lost, and its margins."""

    won: int = 0
    shared: int = 0
    lost: int = 0
    margins: list[int] = field(default_factory=list)

    @property
    def games(self) -> int:
        return self.won + self.shared + self.lost


def play_match(make: Callable[[], SearchPolicy], opponent: Callable[[], Policy], edition: str,
               seeds: range) -> tuple[Record, list[SearchPolicy]]:
    """One 2-player game per seed, the search first on even seeds and second on odd ones
    (as `survey.match` seats them), won/shared/lost by `winners` with the tie-breakers."""
    out = Record()
    made = []
    for seed in seeds:
        mine = make()
        made.append(mine)
        seat = seed % 2
        seats: list[Policy] = [mine, opponent()] if seat == 0 else [opponent(), mine]
        final = play_traced(edition, 2, seed, seats).final
        best = winners(final)
        if best == (seat,):
            out.won += 1
        elif seat in best:
            out.shared += 1
        else:
            out.lost += 1
        totals = [b.total for b in score_breakdown(final)]
        out.margins.append(totals[seat] - totals[1 - seat])
    return out, made


FLOORS = {"random": 0.9, "greedy": 0.6}
"""The issue's target share of wins against each opponent."""


def _print_matches(edition: str, seeds: range, simulations: int, leaf: str, against: list[str]) -> None:
    for opponent in against:
        floor = FLOORS[opponent]
        make = partial(SearchPolicy, simulations=simulations, evaluation=LEAVES[leaf])
        result, made = play_match(make, partial(policy_named, opponent), edition, seeds)
        decisions = sum(p.decisions for p in made)
        simulated = sum(p.simulated for p in made)
        share = result.won / result.games
        margin = sum(result.margins) / result.games
        print(f"TARGET {edition}: search ({simulations} simulations/decision budget, {leaf} leaves,"
              f" {simulated / max(1, decisions):.0f} used per decision over {decisions} decisions)"
              f" beat {opponent} in {result.won} of {result.games} ({share:.0%}: {result.won} won,"
              f" {result.shared} shared, {result.lost} lost; mean margin {margin:+.1f});"
              f" >= {floor:.0%}: {_verdict(share >= floor)}")


def main() -> None:
    """Print every figure."""
    fmt = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=fmt)
    parser.add_argument("--games", type=int, default=10, help="games per policy and edition (default 10)")
    parser.add_argument("--simulations", type=int, default=SearchPolicy().simulations,
                        help="search budget per decision, in engine steps (default: the policy's)")
    parser.add_argument("--seed", type=int, default=0, help="first game seed (default 0)")
    parser.add_argument("--evaluation", choices=LEAVES, default="strategic",
                        help="the search's leaf evaluation (default strategic, the policy's)")
    parser.add_argument("--against", nargs="+", choices=FLOORS, default=list(FLOORS),
                        help="the search's opponents (default: both)")
    parser.add_argument("--only", choices=("surveys", "search"), help="print only these figures")
    parser.add_argument("--editions", nargs="+", choices=EDITIONS, default=list(EDITIONS),
                        help="editions to play (default: both)")
    args = parser.parse_args()
    if args.games < 1 or args.simulations < 0:
        parser.error("--games must be at least 1 and --simulations at least 0")
    seeds = range(args.seed, args.seed + args.games)
    print(f"2-player games, seeds {seeds.start}..{seeds.stop - 1}, per policy and edition")
    for edition in args.editions:
        if args.only != "search":
            _print_surveys(edition, seeds)
        if args.only != "surveys":
            _print_matches(edition, seeds, args.simulations, args.evaluation, args.against)


if __name__ == "__main__":
    main()
