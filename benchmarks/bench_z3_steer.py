"""The z3 archive steer against unsteered games, per catalogue query with its hand-written
steer stripped (not a test: a table of counts, the same on every machine; the seconds vary
by machine and load and are printed for information only).

    python benchmarks/bench_z3_steer.py [--games 3] [--edition original-2011] [--players 2]
        [QUERY ...]

For each query: the archive search (`archive_steer.archive_search`, default
`ArchiveBudget`, what `prove --z3-steer` uses) on seeds 0.. up to `--games` runs; the same
search with z3's target taken away (cells are the game's moments alone, no burst goes
towards a target: what z3 adds); and unsteered random games (`search.attempt` with
`Steer()`) on seeds 0, 1, ... given the same number of engine steps as the archive's runs
together (a random game ends after a few hundred steps, so this is many more games than
runs). Each cell says found or not, and the engine steps spent to the first witness.

The earlier steers (`--steer target`, the macro-target playout, and `--steer bmc`, the BMC
steer) were removed with their modules; their tables stay in docs/proofs.md as history.

Prints one markdown row per query and a totals line. docs/proofs.md quotes runs of it.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace

from village_rules.proofs.catalogue.catalogue import CATALOGUE, Query, by_name
from village_rules.proofs.search.archive_steer import ArchiveBudget, ArchiveStats, archive_attempt
from village_rules.proofs.search.archive_target import Targeter
from village_rules.proofs.search.search import Steer, search_steps

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


def _archive(q: Query, edition: str, players: int, runs: int, with_z3: bool) -> tuple[str, bool, int]:
    """The archive search: "found (run r, N actions; S steps)" or "none in R runs (S steps)",
    whether found, and the engine steps spent."""
    real = Targeter.ask
    if not with_z3:
        Targeter.ask = lambda self, now, blocked=(): None  # type: ignore[method-assign]
    try:
        spent = 0
        for seed in range(runs):
            stats = ArchiveStats()
            h = archive_attempt(edition, players, seed, q.abstract, q.concrete, budget=ArchiveBudget(),
                                variant=q.variant, stats=stats)
            spent += stats.steps
            if h is not None:
                return f"found (run {seed + 1}, {len(h.actions)} actions; {spent} steps)", True, spent
        return f"none in {runs} runs ({spent} steps)", False, spent
    finally:
        Targeter.ask = real  # type: ignore[method-assign]


def _unsteered(q: Query, edition: str, players: int, steps: int) -> tuple[str, bool]:
    """Unsteered random games on seeds 0, 1, ... until `steps` engine steps are spent."""
    w, games, used = search_steps(edition, players, Steer(), q.concrete, steps, variant=q.variant)
    if w is None:
        return f"none in {games} games ({used} steps)", False
    return f"found (game {games}, {len(w.log.actions)} actions; {used} steps)", True


def archive_table(args: argparse.Namespace) -> None:
    """The archive steer's table: with z3, without z3, unsteered on the same steps."""
    print("| query | z3 archive | archive without z3 | unsteered, same steps |")
    print("| --- | --- | --- | --- |")
    found = [0, 0, 0]
    for name in args.queries:
        q = replace(by_name(name), steer=Steer())
        start = time.perf_counter()
        text, ok, spent = _archive(q, args.edition, args.players, args.games, with_z3=True)
        bare, bare_ok, bare_spent = _archive(q, args.edition, args.players, args.games, with_z3=False)
        plain, plain_ok = _unsteered(q, args.edition, args.players, max(spent, bare_spent))
        found = [found[0] + ok, found[1] + bare_ok, found[2] + plain_ok]
        print(f"| {q.number} {name} | {text} | {bare} | {plain} |",
              f"<!-- {time.perf_counter() - start:.1f}s -->", flush=True)
    n = len(args.queries)
    print(f"\nz3 archive found {found[0]} of {n}, without z3 {found[1]} of {n}, unsteered {found[2]} of {n}")


def main() -> None:
    """Print the table and the totals line."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("queries", nargs="*", default=list(DEFAULT_QUERIES))
    p.add_argument("--games", type=int, default=3, help="seeded archive runs per query (default 3)")
    p.add_argument("--edition", default="original-2011")
    p.add_argument("--players", type=int, default=2)
    args = p.parse_args()
    known = {q.name for q in CATALOGUE}
    for name in args.queries:
        if name not in known:
            raise SystemExit(f"unknown query {name!r}")
    if args.games < 1:
        raise SystemExit(f"--games must be at least 1, not {args.games}")
    archive_table(args)


if __name__ == "__main__":
    main()
