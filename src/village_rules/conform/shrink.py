"""Delta debugging (Zeller's ddmin, complement form) over a game's decisions.

A game is replayed from its set-up (the same seed) with a list of action ids: each is
applied when it is offered at that step and skipped otherwise (chance outcomes included),
so leaving any of them out still gives a playable game and ddmin can cut any of them. A
test that fails also says how many ids it used up to the difference, and the list is cut
there as well. The number of replays is a budget (a count)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

Test = Callable[[Sequence[int]], int | None]
"""Replays a list of ids; how many of them it used up to the first difference, or None
when none is found."""


def ddmin(choices: Sequence[int], fails: Test, budget: int) -> tuple[list[int], int]:
    """A shorter list of ids that still fails (1-minimal when the budget allows), and
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
