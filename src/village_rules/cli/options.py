"""Option types for the command line: every number is checked when the options are parsed, so
a bad one exits 2 with argparse's usage message before any work starts.

Each limit is named in docs/input-guarantees.md.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass

from village_rules.data.jsonio import MAX_INT_DIGITS, MAX_SEED
from village_rules.errors import VillageError

MAX_PLAYERS = 99
"""No edition seats more than 5; a larger --players is refused at parse time."""


def whole(least: int, most: int) -> Callable[[str], int]:
    """An argparse type: a whole number from `least` to `most`."""

    def parse(text: str) -> int:
        digits = text.strip().lstrip("+-")
        if not digits.isascii() or not digits.isdigit():
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number")
        if len(digits) > MAX_INT_DIGITS:
            raise argparse.ArgumentTypeError(
                f"must be from {least:,} to {most:,}, not a {len(digits)}-digit number"
            )
        value = int(text)
        if not least <= value <= most:
            raise argparse.ArgumentTypeError(f"must be from {least:,} to {most:,}, not {value:,}")
        return value

    parse.__name__ = "whole number"
    return parse


def seed(text: str) -> int:
    """An argparse type: a seed, 0 or more, of at most `MAX_INT_DIGITS` digits (so the log of
    the game can be read back)."""
    digits = text.strip().lstrip("+-")
    if digits.isascii() and digits.isdigit() and len(digits) > MAX_INT_DIGITS:
        raise argparse.ArgumentTypeError(f"a seed has at most {MAX_INT_DIGITS} digits, not {len(digits)}")
    if text.strip().startswith("-") and digits.isascii() and digits.isdigit():
        raise argparse.ArgumentTypeError(
            f"must be 0 or more, not {text.strip()}"
            " (a negative seed would replay the game of its absolute value)"
        )
    return whole(0, MAX_SEED - 1)(text)


class IdleOptionError(VillageError):
    """An option given where it does nothing: it only means something beside another option
    that is absent. The message names both (exit 2, before any work)."""


@dataclass(frozen=True)
class _Needs:
    option: str
    """The option's flag, `--segments`."""
    dest: str
    default: object
    """The option's default: a value other than it means the option was given."""
    why: str
    """What it is for, "is for a coverage-guided run"."""
    other: str
    """The option it needs, `--guided`."""
    holds: Callable[[argparse.Namespace], bool]
    prog: str


def needs(
    parser: argparse.ArgumentParser,
    option: str,
    other: str,
    why: str,
    holds: Callable[[argparse.Namespace], bool],
) -> None:
    """Declare on `parser` that `option` means something only when `holds(args)` (`other`
    given): `refuse_idle_options` then refuses it otherwise. The one mechanism for options
    that do nothing alone; before, each was accepted silently (`fuzz --segments 4` without
    `--guided` played the plain run)."""
    dest = option.lstrip("-").replace("-", "_")
    rules = parser.get_default("idle_option_rules") or ()
    rule = _Needs(option, dest, parser.get_default(dest), why, other, holds, parser.prog)
    parser.set_defaults(idle_option_rules=(*rules, rule))


def refuse_idle_options(args: argparse.Namespace) -> None:
    """`IdleOptionError` for the first option given (not at its default) whose companion is
    absent, naming both; called once, after the options are parsed, for every command."""
    for rule in getattr(args, "idle_option_rules", ()):
        if getattr(args, rule.dest) != rule.default and not rule.holds(args):
            raise IdleOptionError(
                f"{rule.prog} {rule.option}: {rule.why}; it does nothing without {rule.other}:"
                f" give {rule.other}, or drop {rule.option}"
            )
