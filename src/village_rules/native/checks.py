"""The state invariants, natively (issue 40, item 2; cpp/checks.cpp), tied to the Python checker.

`native_state_violations(state)` runs the native checker on a reference state and answers
what `village_rules.checks.invariants.state_violations(state)` (without `legal`) answers: the
same violations, in the same order, with the same four strings. `violation_differences(state)`
names each place where the two differ (empty when they tie); tests/native/test_native_checks.py
ties them on every state of the small configurations and on broken states of every family.

Not native: `structure.has_move` and `structure.legal_set`, which check the legal actions a
caller hands in (`state_violations(state, legal)`), and the transition invariants.
"""

from __future__ import annotations

import json
from collections import Counter

from village_rules.checks.invariants import Violation, state_violations
from village_rules.drivers.serialization import state_to_dict
from village_rules.model.state import GameState
from village_rules.native import _core
from village_rules.native.engine import READINGS_USED, tables_for

PLANTS = ("skip conservation.coins",)
"""The planted bugs `plant` takes (tests): the native checker leaves that check out."""


def _native_game(state: GameState) -> _core.Game:
    """A native game holding the reference state `state` (as `NativeEngine.load_state`; the
    explorer's `native_game` too, which this layer may not import)."""
    raw = state_to_dict(state)
    rules_json = json.dumps(raw["rules"], sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    game = _core.Game(tables_for(state.rules.data))
    game.load(raw, rules_json, {amb: state.rules.reading(amb) for amb in READINGS_USED})
    return game


def native_state_violations(state: GameState, *, plant: str = "") -> list[Violation]:
    """Every violated state invariant of `state`, found by the native checker, in the order
    and words of `state_violations(state)`. `plant` is a test hook (`PLANTS`)."""
    return [Violation(*found) for found in _native_game(state).violations(plant)]


def violation_differences(state: GameState, *, plant: str = "") -> list[str]:
    """Each difference between the native checker's violations of `state` and the Python
    checker's (`state_violations(state)`), in words; empty when they tie. A violation found
    by one only is named with the side that found it; the same violations in another order
    are named as such."""
    native = native_state_violations(state, plant=plant)
    python = state_violations(state)
    if native == python:
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
