"""The state and transition invariants, natively (issue 40, item 2; cpp/checks.cpp), tied to
the Python checker.

`native_state_violations(state)` runs the native checker on a reference state and answers
what `village_rules.checks.invariants.state_violations(state)` (without `legal`) answers: the
same violations, in the same order, with the same four strings. `violation_differences(state)`
names each place where the two differ (empty when they tie); tests/native/test_native_checks.py
ties them on every state of the small configurations and on broken states of every family.

`native_transition_violations(before, action, after)` runs the native transition checker on a
reference step and answers what `transition_violations(before, action, after)` answers;
`transition_differences` names where the two differ. tests/native/test_native_transitions.py
ties them on every edge of the small configurations and on broken transitions of every
invariant.

Not native: `structure.has_move` and `structure.legal_set`, which check the legal actions a
caller hands in (`state_violations(state, legal)`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from village_rules.checks.invariants import Violation, state_violations, transition_violations
from village_rules.model.actions import Action, action_id
from village_rules.model.state import GameState
from village_rules.native.engine import native_game

PLANTS = ("skip conservation.coins",)
"""The planted bugs `plant` takes (tests): the native checker leaves that check out."""
TRANSITION_PLANTS = ("skip transition.prestige",)
"""The planted bugs the transition checker's `plant` takes (tests)."""


def native_state_violations(state: GameState, *, plant: str = "") -> list[Violation]:
    """Every violated state invariant of `state`, found by the native checker, in the order
    and words of `state_violations(state)`. `plant` is a test hook (`PLANTS`)."""
    return [Violation(*found) for found in native_game(state).violations(plant)]


def violation_differences(state: GameState, *, plant: str = "") -> list[str]:
    """Each difference between the native checker's violations of `state` and the Python
    checker's (`state_violations(state)`), in words; empty when they tie. A violation found
    by one only is named with the side that found it; the same violations in another order
    are named as such."""
    return _differences(native_state_violations(state, plant=plant), state_violations(state))


def native_transition_violations(
    before: GameState, action: Action, after: GameState, *, plant: str = ""
) -> list[Violation]:
    """Every violated transition invariant of the step `before --action--> after` (reference
    states), found by the native checker, in the order and words of
    `transition_violations(before, action, after)`. The action is named by its id in
    `before`'s edition (`action_id`, as `NativeEngine` names actions). `plant` is a test hook
    (`TRANSITION_PLANTS`)."""
    first = native_game(before)
    # two games of one edition share its tables (tables_for is cached by the data), so that
    # their location ids agree; a step to another edition is transition.same_game at once
    second = native_game(after)
    found = first.transition_violations(action_id(before.rules.data, action), second, plant)
    return [Violation(*v) for v in found]


def transition_differences(
    before: GameState, action: Action, after: GameState, *, plant: str = ""
) -> list[str]:
    """Each difference between the native checker's violations of the step `before --action-->
    after` and the Python checker's (`transition_violations`), in words; empty when they tie
    (as `violation_differences`)."""
    return _differences(
        native_transition_violations(before, action, after, plant=plant),
        transition_violations(before, action, after),
    )


def _differences(native: Sequence[Violation], python: Sequence[Violation]) -> list[str]:
    """The differences between two lists of violations, in words (empty when equal)."""
    if list(native) == list(python):
        return []
    mine, theirs = Counter(native), Counter(python)
    out = [f"Python only: {v}" for v in python if v not in mine]
    out += [f"native only: {v}" for v in native if v not in theirs]
    out += [
        f"{v}: native {mine[v]} times, Python {theirs[v]} times"
        for v in dict.fromkeys(python)
        if v in mine and mine[v] != theirs[v]
    ]
    if not out:
        out.append(f"the same violations in another order: native {list(map(str, native))}")
    return out
