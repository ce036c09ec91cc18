"""Option types for the command line: every number is checked when the options are parsed, so
a bad one exits 2 with argparse's usage message before any work starts.

Each limit is named in docs/input-guarantees.md.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from village_rules.data.jsonio import MAX_INT_DIGITS, MAX_SEED

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
