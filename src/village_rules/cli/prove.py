"""`village-rules prove`: decide catalogue queries with z3 and the guided engine search,
one row per query, edition and player count (verdict, depth or bound, time, witness)."""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path
from typing import Any

from village_rules.cli.options import MAX_PLAYERS, seconds, whole
from village_rules.cli.progress import add_quiet_flag, progress_bar
from village_rules.data.files import check_writable, staged_folder, write_text
from village_rules.data.jsonio import MAX_DATA_CHARS, JsonInputError, read_text_file
from village_rules.data.loader import EDITIONS
from village_rules.proofs.catalogue import CATALOGUE, Query, by_name
from village_rules.proofs.errors import ProveArgumentError
from village_rules.proofs.run import MAX_BOUND, MAX_SECONDS, Result, prove, stored_seed, witness_stem
from village_rules.proofs.stored import WITNESSES

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
        "--seconds",
        type=seconds(MAX_SECONDS),
        help=f"witness search budget per row, above 0 and at most {MAX_SECONDS:g} (default: the query's)",
    )
    p.add_argument("--out", type=Path, help="write witnesses, notes and proofs here (and results.md)")
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
    todo = rows(queries, args.edition, args.players)
    if not todo:
        where = f"{args.edition or 'either edition'} with {args.players} players"
        raise ProveArgumentError(f"prove: no catalogue row for {where} (--players is out of range)")
    hints: Path | None = None if args.no_hints else (args.hints or WITNESSES)
    seeds = {(q.name, e, n): stored_seed(hints, q, e, n) for q, e, n in todo}  # a bad hint: before any work
    if args.out is None:
        _prove_rows(args, todo, seeds, None)
        return 0
    check_writable(args.out, folder=True)
    with staged_folder(args.out, keep=True) as staging:  # swapped in whole once every row is decided
        results = _prove_rows(args, todo, seeds, (staging, args.out))
        _write_results(staging, results)
    return 0


def _prove_rows(
    args: argparse.Namespace,
    todo: list[tuple[Query, str, int]],
    seeds: dict[tuple[str, str, int], int | None],
    out: tuple[Path, Path] | None,
) -> list[Result]:
    """Decide every row and print it; with `out` (staging folder, final folder) the
    witnesses and proofs are written to the staging folder and shown at the final one."""
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
                first_seed=seeds[(q.name, e, n)],
                seconds=args.seconds,
            )
            if out is not None and result.witness is not None:
                result = replace(result, witness=out[1] / result.witness.name)
            results.append(result)
            with bar.above():
                print(result.row(), flush=True)
    total = sum(r.seconds for r in results)
    print(f"{len(results)} rows in {total:.1f}s")
    return results


def _write_results(out: Path, results: list[Result]) -> None:
    """results.md in `out`: these rows replace the same query / edition / players rows of an
    earlier run, so regenerating some queries keeps the others."""
    rows: dict[tuple[str, str, int], str] = {}
    path = out / "results.md"
    if path.is_file():
        try:
            text = read_text_file(path, MAX_DATA_CHARS, "prove results")
        except JsonInputError as exc:
            raise ProveArgumentError(f"{path}: {exc.problem}") from None
        for line in text.splitlines():
            cells = [c.strip() for c in line.strip("|").split("|")]
            if len(cells) == 7 and cells[2].isdigit():
                rows[(cells[0], cells[1], int(cells[2]))] = line
    for r in results:
        if r.verdict == "reachable" and r.witness is not None:
            file = f"[{r.witness.name}]({r.witness.name})"
        elif r.verdict == "unreachable":
            stem = witness_stem(by_name(r.query), r.edition, r.players)
            file = f"[proof]({stem}.proof.md)"
        else:
            file = "-"
        rows[(r.query, r.edition, r.players)] = (
            f"| {r.query} | {r.edition} | {r.players} | {r.verdict} | {r.depth} | {r.seconds:.2f}s | {file} |"
        )
    order = {q.name: i for i, q in enumerate(CATALOGUE)}
    ranked = sorted(rows, key=lambda key: (order.get(key[0], len(order)), key[1], key[2]))
    lines = [
        "# Results of `village-rules prove`",
        "",
        "Regenerate with `village-rules prove --out src/village_rules/proofs/witnesses`"
        " (see docs/proofs.md).",
        "",
        "| query | edition | players | verdict | depth or bound | time | witness / proof |",
        "| --- | --- | --- | --- | --- | --- | --- |",
        *(rows[key] for key in ranked),
    ]
    write_text(path, "\n".join(lines) + "\n")
