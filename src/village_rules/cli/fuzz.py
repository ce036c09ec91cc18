"""The `village-rules fuzz` subcommand: its options, its progress bar and its exit codes.

Exit 0 when every game passed, 1 on a violation (the failing log is written to `--out`),
2 on a bad option (a message naming it, never a traceback), 130 on Ctrl-C (after saying
how far the run got; no file then claims to be a finished result).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from village_rules.cli.options import MAX_PLAYERS, needs, seed, whole
from village_rules.cli.progress import add_quiet_flag, progress_bar
from village_rules.cli.readings import add_reading_flag, reading_choices
from village_rules.data.files import check_writable
from village_rules.data.loader import EDITIONS
from village_rules.errors import FuzzArgumentError, FuzzReportError
from village_rules.fuzz.engines import ENGINES, NATIVE
from village_rules.fuzz.games import RUN_POLICIES
from village_rules.fuzz.guided import Coverage, GuidedPlan, play_segments
from village_rules.fuzz.guided_report import (
    MAX_GUIDED_ACTIONS,
    MAX_SEGMENTS,
    GuidedRun,
    check_shard,
    guided_json,
    is_guided_report,
    merge_guided,
    read_guided,
    segment_indices,
)
from village_rules.fuzz.ray_backend import import_ray
from village_rules.fuzz.report import merge_shards, read_report, report_json
from village_rules.fuzz.runner import (
    BACKENDS,
    MAX_GAMES,
    MAX_WORKERS,
    FuzzInterrupted,
    Shard,
    plan_run,
    run_fuzz,
    write_atomically,
)

INTERRUPTED_EXIT = 130
"""128 + SIGINT, what a shell reports for a program stopped by Ctrl-C."""


def register(sub: argparse._SubParsersAction[Any]) -> None:
    """Add the `fuzz` subcommand to the `village-rules` parser."""
    p = sub.add_parser("fuzz", help="play many seeded random games checking every invariant")
    p.add_argument("--games", type=whole(1, MAX_GAMES), default=1000, help="games in the run (default 1000)")
    p.add_argument("--seed", type=seed, default=0, help="the run's seed, 0 or more (default 0)")
    p.add_argument(
        "--workers",
        type=whole(1, MAX_WORKERS),
        default=min(os.cpu_count() or 1, MAX_WORKERS),
        help="processes (or Ray tasks) playing at once (default: this machine's CPUs)",
    )
    p.add_argument("--edition", choices=EDITIONS, help="only this edition (default: both)")
    p.add_argument("--players", type=whole(1, MAX_PLAYERS), help="only this player count (default: all)")
    p.add_argument("--out", type=Path, default=Path("fuzz-failures"), help="where a failing log is written")
    add_quiet_flag(p)
    p.add_argument(
        "--shard",
        metavar="K/N",
        help="play only shard K of N (games i with i %% N == K-1), to split a run over N machines",
    )
    p.add_argument(
        "--backend",
        choices=BACKENDS,
        default="process",
        help="process: a process pool here (default); ray: Ray tasks (the distributed extra)",
    )
    p.add_argument(
        "--address",
        help="with --backend ray: the Ray cluster to use (default: a local Ray instance)",
    )
    p.add_argument(
        "--json",
        type=Path,
        metavar="PATH",
        help="write the run's report here when it finishes (removed at the start; never partial)",
    )
    p.add_argument(
        "--policy",
        choices=RUN_POLICIES,
        default="random",
        help="the policy every seat plays by; mix: the mix `check` plays (default random; docs/policies.md)",
    )
    p.add_argument(
        "--guided",
        action="store_true",
        help="coverage-guided: steer toward the least-seen rule IDs, pairs, ends, steps (docs/policies.md)",
    )
    p.add_argument(
        "--actions",
        type=whole(1, MAX_GUIDED_ACTIONS),
        default=30_000,
        help="with --guided: the actions to play (default 30000)",
    )
    p.add_argument(
        "--segments",
        type=whole(1, MAX_SEGMENTS),
        default=1,
        help="with --guided: independent campaigns sharing the actions, what --shard, --workers "
        "and Ray split (default 1)",
    )
    p.add_argument(
        "--engine",
        choices=ENGINES,
        help="native: the C++ core (the native extra), reference: the Python engine; the same games, "
        "digests and rule counts with either (default: native where it is built)",
    )
    add_reading_flag(p)
    for option in ("--actions", "--segments"):
        needs(p, option, "--guided", "is for a coverage-guided run", lambda a: bool(a.guided))
    p.set_defaults(func=fuzz_command)

    p = sub.add_parser("fuzz-merge", help="merge the --json reports of every shard of a fuzz run")
    p.add_argument(
        "reports", type=Path, nargs="+", metavar="REPORT", help="the --json report of each shard of the run"
    )
    p.set_defaults(func=merge_command)


def fuzz_command(args: argparse.Namespace) -> int:
    """Run the fuzzer as the options say; print the summary; return the exit code."""
    if args.guided:
        return guided_command(args)
    shard = Shard.parse(args.shard) if args.shard is not None else None
    readings = reading_choices(args) if args.reading else None
    options = {
        "shard": shard,
        "backend": args.backend,
        "address": args.address,
        "policy": args.policy,
        "engine": args.engine,
    }
    plan_run(  # refuse bad options before anything is written
        args.games, args.seed, args.workers, args.edition, args.players, **options, readings=readings
    )
    check_writable(args.out, folder=True)  # before any game is played
    if args.json is not None:
        check_writable(args.json)
        args.json.unlink(missing_ok=True)  # an old report must not pass for this run's
    with progress_bar(args.quiet, "games") as bar:
        try:
            summary = run_fuzz(
                args.games,
                args.seed,
                args.workers,
                args.edition,
                args.players,
                args.out,
                lambda done, total: bar.update(done, total, "fuzz"),
                shard=shard,
                backend=args.backend,
                address=args.address,
                readings=readings,
                policy=args.policy,
                engine=args.engine,
            )
        except FuzzInterrupted as stop:
            bar.finish()
            print(stop.summary.format())
            print(
                f"village-rules fuzz: interrupted after {stop.summary.games} of"
                f" {stop.summary.requested} games ({stop.summary.violations} violation(s) so far);"
                " outstanding games cancelled",
                file=sys.stderr,
            )
            return INTERRUPTED_EXIT
        except KeyboardInterrupt:  # before the run started or after it ended
            bar.finish()
            print("village-rules fuzz: interrupted", file=sys.stderr)
            return INTERRUPTED_EXIT
    if args.json is not None:
        write_atomically(args.json, report_json(summary))
    print(summary.format())
    if args.json is not None:
        print(f"report written to {args.json}")
    return 1 if summary.violations else 0


def guided_command(args: argparse.Namespace) -> int:
    """`fuzz --guided`: a coverage-guided run (or one shard of it), its segments on
    `--workers` processes or Ray tasks; its options checked before anything is played."""
    if args.engine == NATIVE:
        raise FuzzArgumentError(
            "--engine",
            "native: a coverage-guided run plays on the reference (its features read the reference's "
            "states and traces); leave --engine out or give reference",
        )
    shard = Shard.parse(args.shard) if args.shard is not None else None
    readings = reading_choices(args) if args.reading else None
    plan_run(  # the edition, player count, workers, backend, address and policy, checked
        1, args.seed, args.workers, args.edition, args.players,
        backend=args.backend, address=args.address, policy=args.policy, readings=readings,
    )
    plan = GuidedPlan(
        "guided", args.seed, args.actions, args.edition, args.players, args.segments, args.policy, readings
    )
    check_shard(plan, shard)
    check_writable(args.out, folder=True)
    if args.json is not None:
        check_writable(args.json)
        args.json.unlink(missing_ok=True)  # an old report must not pass for this run's
    if args.backend == "ray":
        import_ray()  # the extra's message before anything is played
    indices = list(segment_indices(plan, shard))
    run = GuidedRun(plan, shard, play_segments(plan, indices, args.workers, args.backend, args.address))
    cov = run.coverage()
    if args.json is not None:
        write_atomically(args.json, guided_json(run))
    where = f"seed {args.seed}, {plan.segments} segment(s)"
    if shard is not None:
        where += f", shard {shard}: segments {', '.join(map(str, indices))}"
    if args.policy != "random":
        where += f", policy {args.policy}"
    print_coverage(cov, where)
    if args.json is not None:
        print(f"report written to {args.json}")
    if cov.failing_log is None:
        return 0
    path = args.out / f"guided-seed{args.seed}.json"
    write_atomically(path, cov.failing_log + "\n")
    for v in cov.violations:
        print(f"  {v.invariant}: {v.actual}")
    print(f"failing game written to {path} (village-rules replay {path})")
    return 1


def print_coverage(cov: Coverage, where: str) -> None:
    """The figures of a guided run (or of its merged shards)."""
    print(
        f"guided: {cov.actions} actions ({where}): rule IDs {cov.kinds('rule')},"
        f" rule-ID pairs {cov.kinds('pair')}, end types {cov.kinds('end')},"
        f" pending-step kinds {cov.kinds('step')}"
    )
    print(f"violations:   {len(cov.violations)}")


def merge_command(args: argparse.Namespace) -> int:
    """Merge shard reports into the run's summary; exit 1 if the run has a violation."""
    paths: list[Path] = args.reports
    guided = [is_guided_report(p) for p in paths]
    if any(guided):
        if not all(guided):
            other = paths[guided.index(False)]
            raise FuzzReportError(str(other), "format", "is not a guided report, but the others are")
        runs = [read_guided(p) for p in paths]
        coverage = merge_guided(runs, [str(p) for p in paths])
        plan = runs[0].plan
        where = f"seed {plan.seed}, {plan.segments} segment(s), merged from {len(paths)} reports"
        print_coverage(coverage, where)
        return 1 if coverage.violations else 0
    merged = merge_shards([read_report(p) for p in paths], [str(p) for p in paths])
    print(merged.format())
    return 1 if merged.violations else 0
