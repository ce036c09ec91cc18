"""`play --policy`: who plays each seat of a game played from the command line (issue 42).

The names are `fuzz --policy`'s (`village_rules.policies.POLICIES`): one name plays every
seat, as in `fuzz`; names separated by commas play the seats in order (`greedy,random`:
seat 0 greedy, seat 1 random). `fuzz`'s `mix` picks a policy per game of a run, so a single
game refuses it, naming the policies. An unknown name is refused when the options are
parsed (exit 2, the known names listed); a list whose length is not the player count is
refused before the game starts.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from village_rules.drivers.play import Policy
from village_rules.errors import ParameterError
from village_rules.fuzz.games import MIX
from village_rules.policies import POLICIES, policy_named


def seat_policies(text: str) -> tuple[str, ...]:
    """An argparse type: one policy name, or one per seat separated by commas."""
    names = tuple(name.strip() for name in text.split(","))
    known = ", ".join(POLICIES)
    for name in names:
        if name == MIX:
            raise argparse.ArgumentTypeError(
                f"{MIX!r} is a mix of policies over the games of a fuzz run, not a policy of one game; "
                f"give one of {known}, or one per seat separated by commas"
            )
        if name not in POLICIES:
            shown = repr(name) if name else "an empty name"
            raise argparse.ArgumentTypeError(f"no policy named {shown}; the policies are {known}")
    return names


def add_policy_flag(p: argparse.ArgumentParser) -> None:
    """The `--policy` option of `play`."""
    p.add_argument(
        "--policy",
        type=seat_policies,
        default=("random",),
        metavar="NAME[,NAME...]",
        help=f"who plays: one of {', '.join(POLICIES)} for every seat (as `fuzz --policy`), or one "
        "per seat in seat order, separated by commas (default: random; docs/policies.md)",
    )


def policies_for(names: Sequence[str], players: int) -> list[Policy]:
    """A policy per seat: one name for every seat, or exactly one per seat. A name given
    for several seats is one instance, as in `fuzz` (the search policy counts decisions)."""
    if len(names) not in {1, players}:
        raise ParameterError(
            "--policy",
            f"{len(names)} policies ({','.join(names)}) for {players} players: "
            "give one for every seat, or one per seat",
        )
    per_seat = list(names) * players if len(names) == 1 else list(names)
    made = {name: policy_named(name) for name in dict.fromkeys(per_seat)}
    return [made[name] for name in per_seat]
