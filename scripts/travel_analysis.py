"""Print the travel-map analyses (`village_rules.policies.travel_plans`) as Markdown, for a
shipped edition or a user's data file (docs/policies.md quotes the output):

    python scripts/travel_analysis.py --edition big-box-2023
    python scripts/travel_analysis.py --data my-board.json

The cheapest walk to each city, the cheapest tour to each step of the travel score, the
paths no rational traveller walks, unreachable cities, and travel points per unit of price
beside what the council chamber and the church pay per stage.
"""

from __future__ import annotations

import argparse
import sys

from village_rules.data.edition import Cost, EditionData
from village_rules.data.loader import EDITIONS, builtin_edition, load_edition
from village_rules.errors import VillageError
from village_rules.policies.travel_plans import (
    cheapest_routes,
    dominated_paths,
    score_steps,
    unreachable_cities,
)


def _cost(c: Cost) -> str:
    cubes = ", ".join(f"{n} {k.value}" for k, n in c.cubes.items) or "no cubes"
    wagons = sum(n for _, n in c.goods.items)
    return f"{c.time} time, {wagons} wagon(s), {cubes}"


def report(data: EditionData) -> str:
    """The analyses of one edition's map as Markdown."""
    names = {c.id: c.name for c in data.cities}
    out = [f"### {data.name} ({data.edition})", "", "| city | reward | cheapest walk | cost | price |",
           "| --- | --- | --- | --- | --- |"]
    rewards = {c.id: f"{c.amount} {c.reward.value}" for c in data.cities}
    for r in cheapest_routes(data):
        walk = " - ".join(names.get(n, n) for n in r.path)
        out.append(f"| {names[r.city]} | {rewards[r.city]} | {walk} | {_cost(r.cost)} | {r.price} |")
    out += ["", "| cities | travel points | cheapest tour | cost | price | points per price |",
            "| --- | --- | --- | --- | --- | --- |"]
    for s in score_steps(data):
        if s.tour is None:
            out.append(f"| {s.cities} | {s.points} | out of reach | | | |")
            continue
        ppp = s.points_per_price
        tour = ", ".join(names[c] for c in s.tour.cities)
        out.append(f"| {s.cities} | {s.points} | {tour} | {_cost(s.tour.cost)} | {s.tour.price} |"
                   f" {ppp:.2f} |" if ppp is not None else f"| {s.cities} | {s.points} | {tour} | | 0 | |")
    dominated = ", ".join(f"{names.get(a, a)} - {names.get(b, b)}" for a, b in dominated_paths(data))
    unreachable = ", ".join(names[c] for c in unreachable_cities(data))
    council = ", ".join(str(p) for p in data.score_council)
    church = ", ".join(str(p) for p in data.score_church)
    toured = {c for s in score_steps(data) if s.tour is not None for c in s.tour.cities}
    spare = ", ".join(names[c.id] for c in data.cities if c.id not in toured)
    out += ["", f"Paths no rational traveller walks: {dominated or 'none'}.",
            f"Cities in no cheapest tour of a score step: {spare or 'none'}.",
            f"Cities no walk reaches: {unreachable or 'none'}.",
            f"Other ways to score, per member at the end: council chamber stages {council};"
            f" church stages {church}.", ""]
    return "\n".join(out)


def main() -> int:
    """Print the analyses; exit 2 with a message on a bad data file."""
    fmt = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=fmt)
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--edition", choices=EDITIONS)
    where.add_argument("--data", help="a data file of your own (docs/data-format.md)")
    args = parser.parse_args()
    try:
        if args.data:
            editions = [load_edition(args.data)]
        else:
            editions = [builtin_edition(e) for e in ([args.edition] if args.edition else EDITIONS)]
    except VillageError as exc:
        print(f"travel_analysis: {exc}", file=sys.stderr)
        return 2
    for data in editions:
        print(report(data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
