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
from village_rules.cli.shrink_witnesses import MAX_SHRINK_STEPS, shrink_folder
from village_rules.data.files import check_writable, staged_folder, write_text
from village_rules.data.loader import EDITIONS
from village_rules.drivers.engine_choice import ENGINES, choose, native_built
from village_rules.drivers.play import GameLog
from village_rules.explore.configs import configuration
from village_rules.explore.crosscheck import content_link_on_edges
from village_rules.proofs.catalogue.catalogue import CATALOGUE, Query, by_name
from village_rules.proofs.catalogue.user_queries import UserQueries, load_queries
from village_rules.proofs.errors import ProveArgumentError
from village_rules.proofs.gate.gate import GATE_HUNT_STEPS, EdgeCheck, Gate, open_gate
from village_rules.proofs.model.solver import MAX_RLIMIT, RLIMIT
from village_rules.proofs.search.search import SHORTEN_GAMES, Steer
from village_rules.proofs.search.shrink import MAX_STEPS
from village_rules.proofs.table.run import MAX_BOUND, MAX_GAMES, Result, prove, stored_witness, witness_stem
from village_rules.proofs.table.stored import WITNESSES
from village_rules.proofs.table.table import TABLE, Key, Row, differences, read_table, row_of, write_table

EDGE_CONFIGS: tuple[tuple[str, int], ...] = (("tiny", 2), ("births", 2), ("small", 2))
"""The shipped explorer configurations whose every edge the link checks before the first
proof is printed (`solo`: the model has no Carla; `large`: too big to explore in a run)."""

LINK_BREAK = "link-break.json"
"""The game the gate's hunt found breaking a clause, written to a `--out` folder."""


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
    p.add_argument(
        "queries",
        nargs="*",
        metavar="QUERY",
        help="query names or numbers (default: all of the catalogue, or of --queries FILE)",
    )
    p.add_argument(
        "--queries",
        dest="query_file",
        type=Path,
        metavar="FILE",
        help="also load the queries a Python module defines (module-level Query objects, "
        "docs/proofs.md); without QUERY names, prove only those",
    )
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
        "ship with the package: the clone's proofs/witnesses, installed as village_rules/proofs/witnesses)",
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
    p.add_argument(
        "--shrink",
        type=Path,
        metavar="DIR",
        help="shrink the stored witnesses of a `prove --out` folder in place (their notes and "
        "the table's lengths with them) instead of proving",
    )
    p.add_argument(
        "--shrink-steps",
        type=whole(0, MAX_SHRINK_STEPS),
        default=MAX_STEPS,
        help=f"the shrinker's budget per witness, in engine steps (default {MAX_STEPS}; 0: a witness "
        "the search finds is not shrunk)",
    )
    p.add_argument(
        "--engine",
        choices=ENGINES,
        default=None,
        help="the engine the shrinker judges its candidates on: native (the C++ core, for the "
        "queries it judges; each result replayed on the reference) or reference; default native "
        "where it is built. The same shrunk witnesses either way; the witness searches and the "
        "proofs run on the reference",
    )
    p.add_argument(
        "--shorten-games",
        type=whole(0, MAX_GAMES),
        default=SHORTEN_GAMES,
        metavar="N",
        help=f"once a row has a witness, seeded games played for a shorter one (default {SHORTEN_GAMES}; "
        "0: the first witness found is kept)",
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


def _chosen(args: argparse.Namespace, user: UserQueries | None) -> list[Query]:
    """The queries named on the command line (the catalogue's or the file's), or all of the
    file's with --queries, or the whole catalogue."""
    if not args.queries:
        return list(CATALOGUE) if user is None else list(user.queries)
    chosen = []
    for name in args.queries:
        mine = None if user is None else user.named(name)
        chosen.append(mine if mine is not None else by_name(name))
    return chosen


def run(args: argparse.Namespace) -> int:
    """The `prove` subcommand: decide the chosen queries and print one row each."""
    user = None if args.query_file is None else load_queries(args.query_file)
    engine, problem = choose(args.engine, native_built(), reference="--engine reference")
    if problem is not None:
        raise ProveArgumentError(f"prove --engine: {problem}")
    args.engine = engine  # resolved: the rows below read it
    if args.shrink is not None:
        if args.queries or args.out is not None or args.expect is not None or args.list or args.z3_steer:
            raise ProveArgumentError(
                "prove: --shrink DIR takes no QUERY names, --out, --expect, --list or --z3-steer"
            )
        if args.shrink_steps == 0:
            raise ProveArgumentError("prove: --shrink DIR needs a --shrink-steps budget of 1 or more")
        return shrink_folder(args.shrink, user, args.shrink_steps, args.quiet, engine)
    if args.list:
        for q in [*CATALOGUE, *(user.queries if user is not None else ())]:
            print(f"{q.number:>3}  {q.name:<24} {q.title}")
        return 0
    queries = _chosen(args, user)
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
    # a bad stored witness: refused before any work. Without --out a stored witness that still
    # replays to its query is the row's witness as it is (not searched, not shrunk again);
    # --out searches again from its seed and shrinks what it finds. On a row z3 proves
    # unreachable the stored witness is replayed either way (a witness refutes the proof).
    stored = {(q.name, e, n): stored_witness(hints, q, e, n) for q, e, n in todo}
    expected = None if args.expect is None else read_table(args.expect)  # likewise a bad table
    if args.out is None:
        results, gate = _prove_rows(args, todo, stored, None)
    else:
        check_writable(args.out, folder=True)
        old = args.out / TABLE  # read before any row is proved, named where it is (not in staging)
        earlier = read_table(old) if old.is_file() else {}
        known = [*CATALOGUE, *(user.queries if user is not None else ())]
        with staged_folder(args.out, keep=True) as staging:  # swapped in whole once every row is decided
            results, gate = _prove_rows(args, todo, stored, (staging, args.out))
            _write_results(staging, results, earlier, known)
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
    stored: dict[tuple[str, str, int], GameLog | None],
    out: tuple[Path, Path] | None,
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
            log = stored[(q.name, e, n)]
            result = prove(
                q,
                e,
                n,
                bound=args.bound,
                out=None if out is None else out[0],
                hint=None if log is None else log.seed,
                games=args.games,
                rlimit=args.rlimit,
                gate=gate,
                z3_steer=args.z3_steer,
                stored=log,
                shrink_steps=args.shrink_steps or None,
                shorten=args.shorten_games,
                engine=args.engine,
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
        print(
            f"gate: the hunt's game that broke the model is {out[1] / LINK_BREAK}; keep it in "
            "proofs/regressions/ once the model is fixed",
            flush=True,
        )
    return results, gate


def _explored_edges() -> list[EdgeCheck]:
    """The link on every edge of the small shipped explorer configurations (`EDGE_CONFIGS`)."""
    out = []
    for name, players in EDGE_CONFIGS:
        found = content_link_on_edges(configuration(name).data, players)
        out.append(EdgeCheck(name, players, found.states, found.edges, found.broken, found.where))
    return out


def _write_results(out: Path, results: list[Result], earlier: dict[Key, Row], known: list[Query]) -> None:
    """results.json and results.md in `out`: these rows replace the same query / edition /
    players rows of an earlier run (`earlier`, its results.json, read before the work), so
    regenerating some queries keeps the others; rows of queries not `known` (the
    catalogue's, and the --queries file's) are dropped."""
    table = dict(earlier)
    for r in results:
        row = row_of(r)
        table[row.key] = row
    write_table(out, table, known)
