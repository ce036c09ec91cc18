"""The report's coverage curves: per policy, the distinct rule IDs and rule-ID pairs its
games have fired against the actions they played (games in run order), the figures the
report's coverage plot draws and its table prints.

Pairs are consecutive rule IDs of a game's trace, as `fuzz.guided` counts them, so the
curves of `check`'s mix and of a guided run measure the same thing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from village_rules.check.steps import GameStats


@dataclass(frozen=True, slots=True)
class CurvePoint:
    """After a policy's first `games` games: its actions, distinct rule IDs and pairs."""

    games: int
    actions: int
    rules: int
    pairs: int


def coverage_curves(games: Sequence[GameStats]) -> dict[str, tuple[CurvePoint, ...]]:
    """Per policy (in the order first played), the cumulative coverage after each game."""
    seen: dict[str, tuple[set[str], set[tuple[str, str]], list[CurvePoint]]] = {}
    for g in games:
        rules, pairs, points = seen.setdefault(g.policy, (set(), set(), []))
        rules |= g.rules
        pairs |= g.pairs
        before = points[-1] if points else CurvePoint(0, 0, 0, 0)
        points.append(CurvePoint(before.games + 1, before.actions + g.actions, len(rules), len(pairs)))
    return {policy: tuple(points) for policy, (_, _, points) in seen.items()}
