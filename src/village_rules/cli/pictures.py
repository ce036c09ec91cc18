"""The `show`, `check` and `report` commands: pictures of logged games, the verification
run of the README's first command, and the HTML report.

`register(subparsers)` adds the three commands to the `village-rules` parser.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from village_rules.check.modes import GUIDED_PER_GAME, MAX_GUIDED_ACTIONS
from village_rules.check.report import NO_PLOTS_NOTE, plots_available, write_report
from village_rules.check.steps import (
    DEFAULT_GAMES,
    CheckContext,
    CheckStep,
    FuzzStep,
    LogsStep,
    default_steps,
    default_workers,
    format_outcome,
    read_log_text,
    run_check,
)
from village_rules.cli.options import needs, seed, whole
from village_rules.cli.progress import add_quiet_flag, progress_bar
from village_rules.cli.terminal import SIGINT_EXIT
from village_rules.data.files import check_writable, refuse_inputs, staged_folder, write_text
from village_rules.data.jsonio import MAX_LOG_CHARS, JsonInputError, read_json
from village_rules.drivers.play import GameLog
from village_rules.drivers.serialization import STATE_FORMAT, from_json
from village_rules.engine.core import apply
from village_rules.errors import ShowError, StateFormatError, VillageError
from village_rules.fuzz.runner import MAX_GAMES, MAX_WORKERS
from village_rules.model.actions import Action, format_action, parse_action
from village_rules.model.render import action_words, render
from village_rules.model.state import GameState
from village_rules.pictures.svg import actor_of, state_svg


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `show` subcommand to the command line's subparsers."""
    p = sub.add_parser(
        "show",
        help="draw the state after K actions of a log, or a saved state (text, or SVG with --svg)",
    )
    p.add_argument(
        "log",
        type=Path,
        metavar="FILE",
        help="a game log written by `play --log` or the fuzzer, or a saved state "
        "(`setup --json`, `village_rules.to_json`)",
    )
    p.add_argument(
        "--at",
        type=whole(0, MAX_LOG_CHARS),
        help="after this many actions (default: the end of the log; not for a saved state)",
    )
    p.add_argument("--svg", type=Path, help="write the state as an SVG picture here")
    p.set_defaults(func=_show)

    p = sub.add_parser(
        "check",
        help="verify the engine: fuzzed games of both editions (a policy mix), every invariant; HTML report",
    )
    _run_options(p, "village-report")
    p.set_defaults(func=_check)

    p = sub.add_parser("report", help="an HTML report of a fuzz run, or of logged games given as LOG...")
    p.add_argument("logs", type=Path, nargs="*", metavar="LOG", help="game logs (default: a fuzz run)")
    _run_options(p, "village-report")
    fuzz_run = "a fuzz run (no LOG given)"
    needs(p, "--games", fuzz_run, "sets a fuzz run, not a report of logged games", lambda a: not a.logs)
    modes = "compares fuzzing modes in a fuzz run, not a report of logged games"
    needs(p, "--guided-actions", fuzz_run, modes, lambda a: not a.logs)
    p.set_defaults(func=_report)


def _run_options(p: argparse.ArgumentParser, default_out: str) -> None:
    p.add_argument(
        "--games",
        type=whole(1, MAX_GAMES),
        help=f"fuzzed games (default {DEFAULT_GAMES})",
    )
    p.add_argument(
        "--seed", type=seed, default=0, help="the seed of the fuzzed games, 0 or more (default: 0)"
    )
    p.add_argument(
        "--workers",
        type=whole(1, MAX_WORKERS),
        default=min(default_workers(), MAX_WORKERS),
        help="processes playing at once (default: this machine's CPUs, here %(default)s)",
    )
    p.add_argument(
        "--guided-actions",
        type=whole(0, MAX_GUIDED_ACTIONS),
        metavar="N",
        help="the report's coverage comparison: a coverage-guided and a uniform fuzzing campaign of N "
        f"actions each, every invariant checked (default: {GUIDED_PER_GAME} per fuzzed game, "
        f"{GUIDED_PER_GAME * DEFAULT_GAMES:,} at {DEFAULT_GAMES} games; 0: none)",
    )
    p.add_argument(
        "--report",
        type=Path,
        default=Path(default_out),
        help="the report directory, replaced whole at the end (default: %(default)s)",
    )
    add_quiet_flag(p)


def state_at(log: GameLog, at: int | None) -> tuple[GameState, Action | None, int | None]:
    """The state after the first `at` actions of a log (all of them for None), the action
    that led there and the seat that took it (None for chance or at 0). Raises
    `ShowError` for an `at` outside 0..len(actions) or an action that does not apply."""
    total = len(log.actions)
    k = total if at is None else at
    if not 0 <= k <= total:
        raise ShowError(f"--at {k}: the log has {total} actions, so K must be 0..{total}")
    state = log.initial_state()
    last: Action | None = None
    actor: int | None = None
    for i, text in enumerate(log.actions[:k], start=1):
        try:
            last = parse_action(text)
            actor, state = actor_of(state), apply(state, last)
        except Exception as exc:  # a fuzz failure log may end in an engine crash: report it
            what = str(exc) if isinstance(exc, VillageError) else f"{type(exc).__name__}: {exc}"
            raise ShowError(
                f"action {i} of {total} ({text!r}) cannot be applied: {what}; "
                f"--at {i - 1} draws the state before it"
            ) from None
    return state, last, actor


def last_action_line(log: GameLog, at: int | None, last: Action | None, actor: int | None) -> str:
    """Where in the log the state is and the action that led there, in the rulebook's
    words and in the log's notation: "after 12 of 230 actions; last, by seat 0: takes a
    pink cube from the crafts (`take crafts pink`)"."""
    k = len(log.actions) if at is None else at
    where = f"after {k} of {len(log.actions)} actions"
    if last is None:
        return f"{where}; the game as set up"
    said = f"{action_words(last)} (`{format_action(last)}`)"
    return f"{where}; last, by {'chance' if actor is None else f'seat {actor}'}: {said}"


def _show(args: argparse.Namespace) -> int:
    if args.svg is not None:
        refuse_inputs(args.svg, [args.log])
        check_writable(args.svg)
    text = read_log_text(args.log)
    if _is_saved_state(text):
        return _show_state(args, text)
    log = GameLog.from_json(text, source=str(args.log))
    state, last, actor = state_at(log, args.at)
    if args.svg is None:
        print(render(state))
        print(last_action_line(log, args.at, last, actor))
        return 0
    write_text(args.svg, state_svg(state, last, actor), inputs=[args.log])
    k = len(log.actions) if args.at is None else args.at
    print(f"state after {k} of {len(log.actions)} actions drawn to {args.svg}")
    return 0


def _is_saved_state(text: str) -> bool:
    """Whether `text` is a state written by `to_json` (its `format` says so); anything else,
    malformed JSON included, is read as a game log, whose reader says what is wrong."""
    try:
        raw = read_json(text, MAX_LOG_CHARS, "game log")
    except JsonInputError:
        return False
    return isinstance(raw, dict) and raw.get("format") == STATE_FORMAT


def _show_state(args: argparse.Namespace, text: str) -> int:
    """`show STATE`: draw a saved state (one position, so no `--at`)."""
    path: Path = args.log
    if args.at is not None:
        raise ShowError(
            f"{path}: --at {args.at}: this is a saved state, one position and no actions; drop --at"
        )
    try:
        state = from_json(text)
    except StateFormatError as exc:
        raise ShowError(f"{path}: a broken saved state: {exc}") from None
    if args.svg is None:
        print(render(state))
        print(f"the saved state in {path}")
        return 0
    write_text(args.svg, state_svg(state), inputs=[path])
    print(f"saved state drawn to {args.svg}")
    return 0


def _run(args: argparse.Namespace, steps: list[CheckStep], title: str, inputs: Sequence[Path] = ()) -> int:
    """Run the steps and write the report: assembled beside `--report` and swapped in whole,
    so the folder is the old report or the new one, never a mix (and never holds an input)."""
    report: Path = args.report
    refuse_inputs(report, inputs, inside=True)
    check_writable(report, folder=True)
    try:
        with progress_bar(args.quiet, "") as bar, staged_folder(report, inputs=inputs) as staging:
            context = CheckContext(
                staging,
                args.seed,
                args.workers,
                lambda step, done, total: bar.update(done, total, step),
                shown_dir=report,
            )
            outcome = run_check(steps, context)
            write_report(staging, outcome, title)
    except KeyboardInterrupt:
        print(
            "\nvillage-rules: interrupted; no report written (the old one, if any, is unchanged)",
            file=sys.stderr,
        )
        return SIGINT_EXIT
    index = report / "index.html"
    print(format_outcome(outcome, index, "" if plots_available() else NO_PLOTS_NOTE))
    return 0 if outcome.passed else 1


def _check(args: argparse.Namespace) -> int:
    print(
        f"village-rules check: {_games(args)} seeded games of both editions on the embedded data, by a\n"
        "mix of policies (mostly random), and the steered games; every invariant checked after\n"
        "every action; a coverage-guided and a uniform fuzzing campaign of equal budgets compared;\n"
        "the stored proof witnesses and divergence witnesses replayed on the engine; then the HTML\n"
        "report.",
        flush=True,
    )
    return _run(args, default_steps(_games(args), args.guided_actions), "village-rules check")


def _games(args: argparse.Namespace) -> int:
    """The fuzzed games asked for by `--games`, or the default."""
    return DEFAULT_GAMES if args.games is None else int(args.games)


def _report(args: argparse.Namespace) -> int:
    for path in args.logs:  # bad input is refused before anything is written (exit 2)
        GameLog.from_json(read_log_text(path), source=str(path))
    games = _games(args)
    guided = GUIDED_PER_GAME * games if args.guided_actions is None else args.guided_actions
    steps: list[CheckStep] = (
        [LogsStep(tuple(args.logs))] if args.logs else [FuzzStep(games=games, guided_actions=guided)]
    )
    return _run(args, steps, "village-rules report", tuple(args.logs))
