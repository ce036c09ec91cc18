"""Delta debugging (Zeller's ddmin, complement form) over a game's choices.

A game is replayed from its set-up with a list of choice indices: at step k the k-th index
modulo the number of options picks the action (a chance outcome at a chance node). Leaving
choices out keeps every list a playable game, so ddmin can cut any of them; a test that
fails also says at which step, and the list is cut there as well. The number of replays
is a budget (a count)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

Test = Callable[[Sequence[int]], int | None]
"""Replays choices; the step of the first difference, or None when none is found."""


def ddmin(choices: Sequence[int], fails: Test, budget: int) -> tuple[list[int], int]:
    """A shorter list of choices that still fails (1-minimal when the budget allows), and
    the replays spent. `choices` must fail."""
    items = list(choices)
    spent = 0
    n = 2
    while len(items) >= 2 and spent < budget:
        chunk = -(-len(items) // n)
        reduced = False
        for start in range(0, len(items), chunk):
            if spent >= budget:
                break
            candidate = items[:start] + items[start + chunk :]
            spent += 1
            step = fails(candidate)
            if step is not None:
                items = candidate[:step]
                n = max(n - 1, 2)
                reduced = True
                break
        if not reduced:
            if n >= len(items):
                break
            n = min(len(items), 2 * n)
    if len(items) == 1 and spent < budget:
        spent += 1
        if fails([]) is not None:
            items = []
    return items, spent
