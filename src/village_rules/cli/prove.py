"""`village-rules prove`: decide catalogue queries with z3 and the guided engine search,
one row per query, edition and player count (verdict, depth or bound, time, witness).

Budgets are counts (seeded games, z3's resource limit), so the table is the same on any
machine; `--expect` compares it with a stored one (CI: `witnesses/results.json`)."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from village_rules.cli.options import MAX_PLAYERS, whole
from village_rules.cli.progress import add_quiet_flag, progress_bar
from village_rules.data.files import check_writable, staged_folder, write_text
from village_rules.data.loader import EDITIONS
from village_rules.explore.configs import configuration
from village_rules.explore.crosscheck import content_link_on_edges
from village_rules.proofs.catalogue import CATALOGUE, Query, by_name
from village_rules.proofs.errors import ProveArgumentError
from village_rules.proofs.gate import GATE_HUNT_STEPS, EdgeCheck, Gate, open_gate
from village_rules.proofs.run import (
    MAX_BOUND,
    MAX_GAMES,
    Result,
    prove,
    stored_log,
    stored_seed,
    witness_stem,
)
from village_rules.proofs.search import Steer
from village_rules.proofs.solver import MAX_RLIMIT, RLIMIT
from village_rules.proofs.stored import WITNESSES
from village_rules.proofs.table import Key, Row, differences, read_table, row_of, to_json

EDGE_CONFIGS: tuple[tuple[str, int], ...] = (("tiny", 2), ("births", 2), ("small", 2))
"""The shipped explorer configurations whose every edge the link checks before the first
proof is printed (`solo`: the model has no Carla; `large`: too big to explore in a run)."""

LINK_BREAK = "link-break.json"
"""The game the gate's hunt found breaking a clause, written to a `--out` folder."""

TABLE = "results.json"
"""The stored verdict table's file name in a `--out` folder (and in the shipped witnesses)."""


def _no_seconds(text: str) -> float:
    """The old `--seconds` flag: refused with what to use instead."""
    raise argparse.ArgumentTypeError(
        "no longer taken: the witness search's budget is a number of seeded games (--games N), "
        "so that verdicts do not depend on the machine's speed or load"
    )

HEADER = (
    f"{'query':<24} {'edition':<14} {'p':>2}  {'verdict (depth or bound)':<32} {'time':>7}  witness / proof"
)


def register(subparsers: Any) -> None:
    """Add the `prove` subcommand to the command line's subparsers."""
    p = subparsers.add_parser(
        "prove", help="decide rule edge cases: reachable (with a witness), unreachable, unknown"
    )
    p.add_argument("queries", nargs="*", metavar="QUERY", help="query names or numbers (default: all)")
    p.add_argument("--list", action="store_true", help="list the catalogue and exit")
    p.add_argument("--edition", choices=EDITIONS, help="only this edition (default: both)")
    p.add_argument("--players", type=whole(1, MAX_PLAYERS), help="only this player count (default: all)")
    p.add_argument(
        "--bound",
        type=whole(1, MAX_BOUND),
        default=6,
        help=f"BMC and k-induction depth K, 1 to {MAX_BOUND} (default 6)",
    )
    p.add_argument(
        "--games",
        type=whole(1, MAX_GAMES),
        help=f"witness search budget per row: seeded games, 1 to {MAX_GAMES} (default: the query's own)",
    )
    p.add_argument(
        "--rlimit",
        type=whole(1, MAX_RLIMIT),
        default=RLIMIT,
        help=f"z3's resource limit per check, 1 to {MAX_RLIMIT} (default {RLIMIT})",
    )
    p.add_argument("--seconds", type=_no_seconds, help=argparse.SUPPRESS)
    p.add_argument(
        "--out", type=Path, help="write witnesses, notes and proofs here (and results.md, results.json)"
    )
    p.add_argument(
        "--expect",
        type=Path,
        help="compare the table with this stored one (a results.json) and fail naming each changed row",
    )
    hints = p.add_mutually_exclusive_group()
    hints.add_argument(
        "--hints",
        type=Path,
        help="start each search at the seed of the witness stored here (default: the witnesses that "
        "ship with the package, village_rules/proofs/witnesses)",
    )
    hints.add_argument(
        "--no-hints",
        action="store_true",
        help="search from the query's own first seed, ignoring stored witnesses",
    )
    p.add_argument(
        "--z3-steer",
        action="store_true",
        help="strip each query's hand-written steer and search its witness by the z3 archive steer "
        "instead (a Go-Explore search cut by z3's macro target; --games counts its seeded runs, "
        "default 3, docs/proofs.md); not with --out or --expect",
    )
    add_quiet_flag(p)
    p.set_defaults(func=run)


def rows(queries: list[Query], edition: str | None, players: int | None) -> list[tuple[Query, str, int]]:
    """The (query, edition, player count) rows to decide, filtered by --edition and --players."""
    out = []
    for q in queries:
        for e, counts in q.players.items():
            if edition is not None and e != edition:
                continue
            for n in counts:
                if players is None or n == players:
                    out.append((q, e, n))
    return out


def run(args: argparse.Namespace) -> int:
    """The `prove` subcommand: decide the chosen queries and print one row each."""
    if args.list:
        for q in CATALOGUE:
            print(f"{q.number:>3}  {q.name:<24} {q.title}")
        return 0
    queries = [by_name(n) for n in args.queries] if args.queries else list(CATALOGUE)
    if args.z3_steer:
        if args.out is not None or args.expect is not None:
            raise ProveArgumentError(
                "prove: --z3-steer strips the catalogue's steers, so its rows are "
                "not the stored table's: it takes neither --out nor --expect"
            )
        queries = [replace(q, steer=Steer()) for q in queries]
    todo = rows(queries, args.edition, args.players)
    if not todo:
        where = f"{args.edition or 'either edition'} with {args.players} players"
        raise ProveArgumentError(f"prove: no catalogue row for {where} (--players is out of range)")
    hints: Path | None = None if args.no_hints else (args.hints or WITNESSES)
    seeds = {(q.name, e, n): stored_seed(hints, q, e, n) for q, e, n in todo}  # a bad hint: before any work
    expected = None if args.expect is None else read_table(args.expect)  # likewise a bad table
    if args.out is None:
        results, gate = _prove_rows(args, todo, seeds, None, hints)
    else:
        check_writable(args.out, folder=True)
        old = args.out / TABLE  # read before any row is proved, named where it is (not in staging)
        earlier = read_table(old) if old.is_file() else {}
        with staged_folder(args.out, keep=True) as staging:  # swapped in whole once every row is decided
            results, gate = _prove_rows(args, todo, seeds, (staging, args.out), hints)
            _write_results(staging, results, earlier)
    failed = 0
    if not gate.passed:
        print(f"prove: the gate failed, its verdicts cannot stand: {gate.closing()}", file=sys.stderr)
        failed = 1
    if expected is None:
        return failed
    changed = differences(expected, [row_of(r) for r in results])
    if not changed:
        print(f"the table matches {args.expect} ({len(results)} rows)")
        return failed
    print(
        f"prove: {len(changed)} of {len(results)} rows differ from {args.expect} (old -> new):",
        file=sys.stderr,
    )
    for line in changed:
        print(f"  {line}", file=sys.stderr)
    return 1


def _prove_rows(
    args: argparse.Namespace,
    todo: list[tuple[Query, str, int]],
    seeds: dict[tuple[str, str, int], int | None],
    out: tuple[Path, Path] | None,
    hints: Path | None,
) -> tuple[list[Result], Gate]:
    """Decide every row and print it; with `out` (staging folder, final folder) the
    witnesses and proofs are written to the staging folder and shown at the final one.
    The gate (the link check on this engine and data, its regression inputs, and each
    query's implication; before the first proof, the link's hunt and every edge of the
    small explored configurations) is opened first, once: no row is printed "unreachable"
    unless it passed. Its closing line (after the rows) says what the rows' searches added:
    the implication's matches, and any proved row a witness met."""
    queries = list({q.name: q for q, _, _ in todo}.values())
    gate = open_gate(queries, hunt_steps=GATE_HUNT_STEPS, explore=_explored_edges)
    print(f"gate: {gate.summary()}", flush=True)
    print(HEADER, flush=True)
    results: list[Result] = []
    with progress_bar(args.quiet, "rows") as bar:
        for k, (q, e, n) in enumerate(todo):
            bar.update(k, len(todo), "prove", f"{q.number} {q.name}, {e}, {n} players")
            if out is not None:
                for old in out[0].glob(f"{witness_stem(q, e, n)}.*"):
                    old.unlink()
            result = prove(
                q,
                e,
                n,
                bound=args.bound,
                out=None if out is None else out[0],
                hint=seeds[(q.name, e, n)],
                games=args.games,
                rlimit=args.rlimit,
                gate=gate,
                z3_steer=args.z3_steer,
                hint_log=stored_log(hints, q, e, n),
            )
            if out is not None and result.witness is not None:
                result = replace(result, witness=out[1] / result.witness.name)
            results.append(result)
            with bar.above():
                print(result.row(), flush=True)
    total = sum(r.seconds for r in results)
    games = "the query's own" if args.games is None else str(args.games)
    print(
        f"{len(results)} rows in {total:.1f}s; budgets: {games} seeded games per row (each at most its "
        f"steer's actions), z3 rlimit {args.rlimit} per check, bound {args.bound}"
    )
    print(f"gate: {gate.closing()}", flush=True)
    if out is not None and gate.hunt is not None and gate.hunt.log is not None:
        # the game that broke a clause: to be kept as a regression input of the link
        write_text(out[0] / LINK_BREAK, gate.hunt.log.to_json() + "\n")
        print(f"gate: the hunt's game that broke the model is {out[1] / LINK_BREAK}; keep it in "
              "village_rules/proofs/regressions/ once the model is fixed", flush=True)
    return results, gate


def _explored_edges() -> list[EdgeCheck]:
    """The link on every edge of the small shipped explorer configurations (`EDGE_CONFIGS`)."""
    out = []
    for name, players in EDGE_CONFIGS:
        found = content_link_on_edges(configuration(name).data, players)
        out.append(EdgeCheck(name, players, found.states, found.edges, found.broken, found.where))
    return out


def _write_results(out: Path, results: list[Result], earlier: dict[Key, Row]) -> None:
    """results.json and results.md in `out`: these rows replace the same query / edition /
    players rows of an earlier run (`earlier`, its results.json, read before the work), so
    regenerating some queries keeps the others; rows of queries no longer in the catalogue
    are dropped."""
    path = out / TABLE
    table = dict(earlier)
    for r in results:
        row = row_of(r)
        table[row.key] = row
    order = {q.name: i for i, q in enumerate(CATALOGUE)}
    ranked = sorted((k for k in table if k[0] in order), key=lambda k: (order[k[0]], k[1], k[2]))
    write_text(path, to_json(table[k] for k in ranked))
    verdicts = ("reachable", "unreachable", "unknown")
    counts = {v: sum(1 for k in ranked if table[k].verdict == v) for v in verdicts}
    share = 100 * counts["unknown"] / len(ranked) if ranked else 0.0
    lines = [
        "# Results of `village-rules prove`",
        "",
        "Regenerate with `village-rules prove --out src/village_rules/proofs/witnesses`"
        " (see docs/proofs.md); CI checks the table with"
        " `village-rules prove --expect src/village_rules/proofs/witnesses/results.json`.",
        "",
        f"{len(ranked)} rows: {counts['reachable']} reachable, {counts['unreachable']} unreachable, "
        f"{counts['unknown']} unknown ({share:.1f} %). Budgets are counts, so the table is the same "
        "on every machine; an unknown row says why in its last column.",
        "",
        "| query | edition | players | verdict | depth or bound | witness / proof "
        "| budget, and why unknown |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for key in ranked:
        row = table[key]
        stem = witness_stem(by_name(row.query), row.edition, row.players)
        if row.verdict == "reachable":
            file = f"[{stem}.json]({stem}.json)"
        elif row.verdict == "unreachable":
            file = f"[proof]({stem}.proof.md)"
        else:
            file = "-"
        why = f"{row.budget}; {row.note}" if row.note else row.budget
        lines.append(
            f"| {row.query} | {row.edition} | {row.players} | {row.verdict} | {row.depth} | {file} | {why} |"
        )
    write_text(out / "results.md", "\n".join(lines) + "\n")
