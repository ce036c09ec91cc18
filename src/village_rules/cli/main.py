"""The `village-rules` command: set up, play, replay and fuzz games on the shipped data or
on your own data file."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from village_rules.cli import conform as cli_conform
from village_rules.cli import explore as cli_explore
from village_rules.cli import pictures as cli_pictures
from village_rules.cli import prove as cli_prove
from village_rules.cli import readings as cli_readings
from village_rules.cli import replay as cli_replay
from village_rules.cli import view as cli_view
from village_rules.cli.fuzz import register as register_fuzz
from village_rules.cli.messages import endless_game_sentence, os_error_sentence
from village_rules.cli.options import MAX_PLAYERS, refuse_idle_options, seed, whole
from village_rules.cli.policy_option import add_policy_flag, policies_for
from village_rules.cli.readings import add_reading_flag, reading_choices, refuse_solo_readings
from village_rules.cli.replay import scores_table
from village_rules.cli.terminal import (
    SIGINT_EXIT,
    SIGTERM_EXIT,
    STDOUT_CLOSED,
    closed_stdout,
    guarded,
    terminated,
)
from village_rules.data.files import check_writable, write_text
from village_rules.data.loader import EDITIONS, builtin_edition, load_edition
from village_rules.drivers.play import EndlessGameError, play_logged
from village_rules.drivers.serialization import to_json
from village_rules.engine.setup import new_game
from village_rules.errors import VillageError
from village_rules.model.render import render
from village_rules.rules.variant import Variant


def main(argv: Sequence[str] | None = None) -> int:
    """Run the `village-rules` command line; returns the exit code (errors are reported, not raised).

    Everything it prints is escaped for the terminal, and SIGTERM stops it like Ctrl-C
    (exit 143 instead of 130), see `village_rules.cli.terminal`. A closed standard output
    is refused (exit 2) before any work; a closed or broken standard error loses the
    messages, not the exit code."""
    if closed_stdout():
        with contextlib.suppress(OSError, ValueError):  # stderr may be broken too: the code says it
            print(f"village-rules: {STDOUT_CLOSED}", file=sys.stderr, flush=True)
        return 2
    try:
        with guarded():
            code = _main(argv)
    except KeyboardInterrupt:  # a signal in the instant after the command, before the guard ends
        code = SIGINT_EXIT
    return SIGTERM_EXIT if terminated() and code == SIGINT_EXIT else code


def _main(argv: Sequence[str] | None) -> int:
    try:
        parser = _parser()
        try:
            args = parser.parse_args(argv)
        except SystemExit as stop:  # a usage error (2) or --help (0): argparse has said why
            return stop.code if isinstance(stop.code, int) else 2
        refuse_idle_options(args)  # an option that does nothing without another: exit 2, named
        code: int = args.func(args)
        sys.stdout.flush()  # a full disk behind stdout is found here, as bad output (exit 2)
        return code
    except EndlessGameError as exc:  # a rules bug found by playing, with its log: a finding (1)
        print(f"village-rules: {endless_game_sentence(exc)}", file=sys.stderr)
        return 1
    except VillageError as exc:
        print(f"village-rules: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # Ctrl-C (or SIGTERM) in any command: stop, say so, no traceback
        print("village-rules: " + ("terminated" if terminated() else "interrupted"), file=sys.stderr)
        return SIGINT_EXIT
    except BrokenPipeError:  # output piped into `head` and the like: stop quietly
        # Python's documented recipe: point stdout at devnull so the exit flush cannot fail.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except OSError as exc:  # a missing or unreadable file: a sentence, not "[Errno 2] …"
        print(f"village-rules: {os_error_sentence(exc)}", file=sys.stderr)
        return 2
    except UnicodeDecodeError as exc:  # a file that is not UTF-8 (e.g. a --data file)
        print(f"village-rules: not a UTF-8 text file: {exc.reason} at byte {exc.start}", file=sys.stderr)
        return 2
    except RecursionError:  # JSON nested too deeply for the parser
        print("village-rules: a JSON file is nested too deeply to read", file=sys.stderr)
        return 2
    except Exception as exc:  # a bug, not bad input: still no traceback (docs/input-guarantees.md)
        print(
            f"village-rules: internal error, please report it: {type(exc).__name__}: {exc}", file=sys.stderr
        )
        return 70


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="village-rules", description=__doc__)
    sub = parser.add_subparsers(required=True, metavar="COMMAND")

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--edition", choices=EDITIONS, default="big-box-2023", help="the edition (default: %(default)s)"
        )
        p.add_argument(
            "--players",
            type=whole(1, MAX_PLAYERS),
            default=3,
            help="players, 1 (solo, against Carla) to the edition's most (default: %(default)s)",
        )
        p.add_argument(
            "--seed", type=seed, default=0, help="the setup seed, 0 or more, at most 100 digits (default: 0)"
        )
        p.add_argument("--data", type=Path, help="your own edition data file (docs/data-format.md)")
        p.add_argument(
            "--no-compensation", action="store_true", help="skip the 2023 starting compensation (AMB-11)"
        )
        p.add_argument(
            "--no-coins-at-well",
            action="store_true",
            help="same as --reading AMB-01=b (kept for old scripts)",
        )
        add_reading_flag(p)

    p = sub.add_parser("setup", help="set up a game and print it")
    common(p)
    p.add_argument("--json", action="store_true", help="print the state as JSON")
    p.set_defaults(func=_setup)

    p = sub.add_parser(
        "play", help="play a seeded game (random seats, or --policy); print its log and the scores"
    )
    common(p)
    add_policy_flag(p)
    p.add_argument("--log", type=Path, help="also write the replayable log (JSON) here")
    p.set_defaults(func=_play)

    cli_replay.register(sub)
    register_fuzz(sub)
    cli_pictures.register(sub)
    cli_prove.register(sub)
    cli_readings.register(sub)
    cli_explore.register(sub)
    cli_conform.register(sub)
    cli_view.register(sub)
    return parser


def _variant(args: argparse.Namespace) -> Variant:
    choices = reading_choices(args)
    refuse_solo_readings(choices, args.players, args.edition)  # a no-op flag is refused, not ignored
    return Variant(not args.no_compensation, choices)


def _setup(args: argparse.Namespace) -> int:
    data = load_edition(args.data) if args.data else builtin_edition(args.edition)
    state = new_game(data, args.players, args.seed, _variant(args))
    print(to_json(state) if args.json else render(state))
    return 0


def _play(args: argparse.Namespace) -> int:
    if args.data:
        print("village-rules: play uses the shipped data; replay a log for your own data", file=sys.stderr)
        return 2
    policies = policies_for(args.policy, args.players)  # refused before the game is played
    if args.log:
        check_writable(args.log)  # before the game is played
    final, log = play_logged(args.edition, args.players, args.seed, _variant(args), policies=policies)
    if args.policy != ("random",):
        seats = args.policy * args.players if len(args.policy) == 1 else args.policy
        print("policies: " + ", ".join(f"seat {k} {name}" for k, name in enumerate(seats)))
    for k, action in enumerate(log.actions, start=1):  # counted from 1, as replay, show --at and view
        print(f"{k:5} {action}")
    print()
    print(scores_table(final))
    if args.log:
        write_text(args.log, log.to_json())
        print(f"log written to {args.log}")
    return 0
