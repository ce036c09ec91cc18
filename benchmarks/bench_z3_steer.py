"""The z3 steers against unsteered games, per catalogue query with its hand-written steer
stripped (not a test: a table of counts, the same on every machine; the seconds vary by
machine and load and are printed for information only).

    python benchmarks/bench_z3_steer.py [--games 5] [--edition original-2011] [--players 2]
        [--steer target|bmc] [QUERY ...]

For each query: the z3-steered search on seeds 0.. up to `--games` (`--steer target`, the
default and what `prove --z3-steer` uses: `target_steer.target_search` with the default
`TargetBudget`; `--steer bmc`: the older `plan.plan_search`), and the unsteered random
search (`search.search` with `Steer()`) on the same seeds. Prints one markdown row per
query (found or not: game, witness length; what the steer did) and a totals line.
docs/proofs.md quotes a run of it.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace

from village_rules.proofs.catalogue import CATALOGUE, by_name
from village_rules.proofs.plan import PlanBudget, plan_search
from village_rules.proofs.search import Steer, Witness, search
from village_rules.proofs.target_steer import TargetBudget, target_search

DEFAULT_QUERIES = (
    "free-final-action",
    "end-market-other",
    "end-market-trigger",
    "shared-win",
    "trigger-final-action",
    "coins-short-at-mill",
    "markers-out-new-city",
    "all-customers-served",
    "grain-short-at-harvest",
    "mass-four-monks",
    "hidden-lowest-death",
    "no-living-member-acts",
)


def _found(w: Witness | None, games: int) -> str:
    return f"found (game {games}, {len(w.log.actions)} actions)" if w else f"none in {games} games"


def main() -> None:
    """Print the table and the totals line."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("queries", nargs="*", default=list(DEFAULT_QUERIES))
    p.add_argument("--games", type=int, default=5)
    p.add_argument("--edition", default="original-2011")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--steer", choices=("target", "bmc"), default="target")
    args = p.parse_args()
    known = {q.name for q in CATALOGUE}
    if args.steer == "target":
        print("| query | z3-steered | z3 asks | targets | blocked | first target | unsteered |")
        print("| --- | --- | --- | --- | --- | --- | --- |")
    else:
        print("| query | z3-steered | plans | longest plan | steps followed | refinements | asks "
              "| unsteered |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    z3_found = plain_found = 0
    for name in args.queries:
        if name not in known:
            raise SystemExit(f"unknown query {name!r}")
        q = replace(by_name(name), steer=Steer())
        start = time.perf_counter()
        if args.steer == "target":
            w, g, ts = target_search(
                args.edition, args.players, q.abstract, q.concrete, args.games,
                budget=TargetBudget(), variant=q.variant,
            )
            did = f"{ts.asks} | {ts.targets} | {ts.blocked} | {ts.first_target or '(none)'}"
        else:
            w, g, st = plan_search(
                args.edition, args.players, q.abstract, q.concrete, args.games,
                budget=PlanBudget(), variant=q.variant,
            )
            did = f"{st.plans} | {st.longest_plan} | {st.followed} | {st.refinements} | {st.asks}"
        r, rg = search(args.edition, args.players, Steer(), q.concrete, args.games, variant=q.variant)
        z3_found += w is not None
        plain_found += r is not None
        row = f"| {q.number} {name} | {_found(w, g)} | {did} | {_found(r, rg)} |"
        print(row, f"<!-- {time.perf_counter() - start:.1f}s -->", flush=True)
    n = len(args.queries)
    print(f"\nz3-steered found {z3_found} of {n}, unsteered {plain_found} of {n}")


if __name__ == "__main__":
    main()
