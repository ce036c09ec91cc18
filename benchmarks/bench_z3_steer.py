"""The z3 steer (`proofs.plan`, experimental) against unsteered games, per catalogue query
with its hand-written steer stripped (not a test: a table of counts, the same on every
machine; the seconds vary by machine and load and are printed for information only).

    python benchmarks/bench_z3_steer.py [--games 5] [--edition original-2011] [--players 2] [QUERY ...]

For each query: the z3-steered search (`plan.plan_search`, default `PlanBudget`) on seeds
0.. up to `--games`, and the unsteered random search (`search.search` with `Steer()`) on the
same seeds. Prints one markdown row per query: found or not (game, witness length), z3's
plans, the longest plan, plan steps the engine followed, refinements (CEGAR), asks, and the
unsteered search's result. docs/proofs.md quotes a run of it.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace

from village_rules.proofs.catalogue import CATALOGUE, by_name
from village_rules.proofs.plan import PlanBudget, plan_search
from village_rules.proofs.search import Steer, search

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


def main() -> None:
    """Print the table."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("queries", nargs="*", default=list(DEFAULT_QUERIES))
    p.add_argument("--games", type=int, default=5)
    p.add_argument("--edition", default="original-2011")
    p.add_argument("--players", type=int, default=2)
    args = p.parse_args()
    known = {q.name for q in CATALOGUE}
    print("| query | z3-steered | plans | longest plan | steps followed | refinements | asks | unsteered |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for name in args.queries:
        if name not in known:
            raise SystemExit(f"unknown query {name!r}")
        q = replace(by_name(name), steer=Steer())
        start = time.perf_counter()
        w, g, st = plan_search(
            args.edition, args.players, q.abstract, q.concrete, args.games,
            budget=PlanBudget(),
            variant=q.variant,
        )
        r, rg = search(args.edition, args.players, Steer(), q.concrete, args.games, variant=q.variant)
        zf = f"found (game {g}, {len(w.log.actions)} actions)" if w else f"none in {g} games"
        rf = f"found (game {rg}, {len(r.log.actions)} actions)" if r else f"none in {rg} games"
        row = f"| {q.number} {name} | {zf} | {st.plans} | {st.longest_plan} | {st.followed} "
        row += f"| {st.refinements} | {st.asks} | {rf} |"
        print(row, f"<!-- {time.perf_counter() - start:.1f}s -->", flush=True)


if __name__ == "__main__":
    main()
