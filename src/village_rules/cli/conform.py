"""The `village-rules conform` subcommand: compare an implementation of the game with the
reference at every step (docs/conformance.md).

Exit 0 when nothing differs, 1 at a difference (or an implementation that crashed, hung or
answered garbage: a verdict naming the step), 2 for bad input (a message naming it).
"""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path
from typing import Any

from village_rules.cli.options import seed, whole
from village_rules.cli.progress import add_quiet_flag, progress_bar
from village_rules.conform.client import START_LIMIT, STEP_LIMIT, ProtocolEngine
from village_rules.conform.inputs import KINDS, MAX_STEPS
from village_rules.conform.loading import load_engine
from village_rules.conform.pack import PackWriter
from village_rules.conform.protocol import ConformError, Engine, ImplementationError
from village_rules.conform.run import Selection, coverage_text, failure_text, left_out_text, run
from village_rules.conform.runner import SHRINK_REPLAYS
from village_rules.conform.states import CONFIGS
from village_rules.data.files import check_writable, write_text
from village_rules.explore.configs import shipped_names

DEFAULT_LOG = Path("conform-failure.json")
MOST = 10**9


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value <= 3600:
        raise argparse.ArgumentTypeError(f"must be more than 0 and at most 3600 seconds, not {text}")
    return value


def _list(known: tuple[str, ...] | list[str], what: str) -> Any:
    def parse(text: str) -> tuple[str, ...]:
        items = tuple(x.strip() for x in text.split(",") if x.strip())
        unknown = [x for x in items if x not in known]
        if unknown or not items:
            raise argparse.ArgumentTypeError(
                f"unknown {what} {', '.join(unknown) or '(none given)'}; the {what}s are {', '.join(known)}"
            )
        return items

    return parse


def _counts(text: str) -> tuple[int, ...]:
    items = [x.strip() for x in text.split(",") if x.strip()]
    if not items or not all(x.isdigit() for x in items):
        raise argparse.ArgumentTypeError(f"expected player counts such as 2,3,4,5, not {text!r}")
    return tuple(sorted({int(x) for x in items}))


def register(sub: argparse._SubParsersAction[Any]) -> None:
    """Add the `conform` subcommand to the `village-rules` parser."""
    p = sub.add_parser(
        "conform", help="compare an implementation of the game with the reference, step by step"
    )
    how = p.add_mutually_exclusive_group()
    how.add_argument(
        "--engine", metavar="MODULE:ATTR", help="an engine object in this process (docs/conformance.md)"
    )
    how.add_argument(
        "--command", metavar="CMD", help="a program speaking the JSON-lines protocol on stdin/stdout"
    )
    p.add_argument(
        "--inputs",
        type=_list(KINDS, "input kind"),
        default=KINDS,
        help="comma-separated: " + ", ".join(KINDS),
    )
    p.add_argument("--games", type=whole(0, MOST), default=100, help="seeded games (default 100)")
    p.add_argument("--seed", type=seed, default=0, help="the seeded games' seed (default 0)")
    p.add_argument(
        "--max-steps",
        type=whole(1, MOST),
        default=MAX_STEPS,
        help=f"the most steps of a seeded game (default {MAX_STEPS})",
    )
    p.add_argument("--golden", type=whole(0, MOST), help="only the first N golden games (default: all)")
    p.add_argument(
        "--witnesses", type=whole(0, MOST), help="only the first N stored witnesses (default: all)"
    )
    p.add_argument(
        "--logs", type=Path, action="append", default=[], help="also these game logs (files or folders)"
    )
    p.add_argument(
        "--configs",
        type=_list(shipped_names(), "configuration"),
        default=CONFIGS,
        help=f"explorer configurations walked (default: {','.join(CONFIGS)})",
    )
    p.add_argument(
        "--states", type=whole(0, MOST), help="only the first N states of each configuration (default: all)"
    )
    p.add_argument(
        "--players",
        type=_counts,
        help="only games and configurations of these player counts, comma-separated (default: every "
        "count); what is left out is printed",
    )
    p.add_argument(
        "--shrink-replays",
        type=whole(0, MOST),
        default=SHRINK_REPLAYS,
        help=f"replays ddmin may spend (default {SHRINK_REPLAYS})",
    )
    p.add_argument(
        "--step-limit",
        type=_seconds,
        default=STEP_LIMIT,
        help=f"seconds a --command may take to answer one request, a hang guard (default {STEP_LIMIT:g})",
    )
    p.add_argument(
        "--log", type=Path, default=DEFAULT_LOG, help=f"where the failing game goes (default {DEFAULT_LOG})"
    )
    p.add_argument(
        "--write-pack",
        type=Path,
        metavar="FILE",
        help="write the reference's traces of the inputs (JSON lines)",
    )
    add_quiet_flag(p)
    p.set_defaults(func=_conform)


def _engine(args: argparse.Namespace) -> Engine | None:
    if args.engine:
        return load_engine(args.engine)
    if args.command:
        try:
            argv = shlex.split(args.command)
        except ValueError as exc:
            raise ConformError(f"--command {args.command!r}: {exc}") from None
        return ProtocolEngine(argv, step_limit=args.step_limit, start_limit=max(START_LIMIT, args.step_limit))
    return None


def _conform(args: argparse.Namespace) -> int:
    if not args.engine and not args.command and not args.write_pack:
        raise ConformError(
            "give the implementation to check (--engine MODULE:ATTR or --command CMD), or --write-pack FILE"
        )
    selection = Selection(
        kinds=args.inputs,
        games=args.games,
        seed=args.seed,
        max_steps=args.max_steps,
        golden=args.golden,
        witnesses=args.witnesses,
        extra_logs=tuple(args.logs),
        configs=args.configs,
        states=args.states,
        shrink_replays=args.shrink_replays,
        players=args.players,
    )
    selection.check()
    for path in (args.log, args.write_pack):
        if path is not None:
            check_writable(path)
    try:
        impl = _engine(args)
    except ImplementationError as exc:
        print(f"conform: {args.command}")
        print(f"FAILED at the handshake, before any game: {exc}")
        return 1
    pack = PackWriter() if args.write_pack else None
    try:
        with progress_bar(args.quiet, "") as bar:

            def progress(what: str, done: int, total: int) -> None:
                bar.update(done, total, what)

            result = run(impl, selection, pack=pack, progress=progress)
    finally:
        if isinstance(impl, ProtocolEngine):
            impl.__exit__()
    name = getattr(impl, "name", args.engine or "the reference alone")
    print(f"conform: {name}" if impl is not None else "conform: the reference alone (writing a pack)")
    print("covered:")
    for line in coverage_text(result.coverage):
        print(line)
    for line in left_out_text(selection, result):
        print(line)
    if pack is not None and result.failure is None:
        pack.write(args.write_pack)
        c = pack.counts
        print(
            f"pack written to {args.write_pack}: {c['games']} games, {c['steps']} steps, {c['states']} states"
        )
    if result.failure is None:
        if impl is not None:
            print("no difference")
        return 0
    for line in failure_text(result.failure):
        print(line)
    if result.log is not None:
        write_text(args.log, result.log.to_json())
        print(f"the failing game: {args.log} (village-rules replay {args.log})")
    else:
        print(result.log_note)
    return 1
