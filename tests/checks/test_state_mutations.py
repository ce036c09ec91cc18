"""Generated: a valid state with 1-3 changes (values nudged, fields deleted, whole parts
such as the pending step, the turn, the market day or the mass swapped in from another
moment of the same game) is either refused with `StateFormatError` or plays on for many
random steps with every invariant holding (the promise of `from_json`, issue 14)."""

from __future__ import annotations

import copy
import json
import random
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import get_at, json_paths

import village_rules.drivers.serialization as serialization
from village_rules import EDITIONS, StateFormatError, apply, builtin_edition, from_json, new_game, to_json
from village_rules.checks.invariants import state_violations, transition_violations
from village_rules.drivers.play import play, random_policy
from village_rules.engine.core import chance_outcomes, legal_actions
from village_rules.errors import InternalError
from village_rules.model.actions import Action
from village_rules.model.chance import sample
from village_rules.model.state import GameState
from village_rules.rules.variant import Variant

GAMES = [(e, n) for e in EDITIONS for n in builtin_edition(e).player_counts]
Raw = dict[str, Any]
PHASE = ("pending", "turn", "market_day", "mass", "deaths_owed", "final_turns", "end_triggered_by")
SWAPPABLE = (
    "pending",
    "turn",
    "market_day",
    "mass",
    "deaths_owed",
    "final_turns",
    "end_triggered_by",
    "market_available",
    "market_waiting",
    "customer_pile",
    "spaces",
    "green_bag",
    "round",
    "start_player",
    "next_start_holder",
    "monks_aside",
    "bag_monks",
)


@cache
def moments(edition: str, players: int) -> tuple[str, ...]:
    """Every state of one seeded random game (and a second with the other variant), as JSON."""
    out: list[str] = []
    for seed, variant in ((3, Variant()), (4, Variant(False, {"AMB-01": "b", "AMB-26": "a"}))):
        start = new_game(edition, players, seed, variant)
        seen: list[GameState] = [start]

        def record(before: GameState, action: Action, after: GameState, into: list[GameState] = seen) -> None:
            into.append(after)

        play(start, [random_policy] * players, random.Random(seed), on_step=record)
        out += [to_json(s) for s in seen]
    return tuple(out)


def _nudged(value: Any, draw: st.DrawFn) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + draw(st.sampled_from([-2, -1, 1, 2, 5]))
    if isinstance(value, list):
        shorter: bool = draw(st.booleans())
        if value and shorter:
            return value[:-1]
        return [*value, copy.deepcopy(value[0]) if value else 0]
    if isinstance(value, str):
        return draw(st.sampled_from(["red", "farmyard", "council:1", "church:2", "bag", "mill", "pass"]))
    return draw(st.sampled_from([None, 0, 1, {}, []]))


@st.composite
def mutated(draw: st.DrawFn) -> tuple[str, str]:
    game = draw(st.sampled_from(GAMES))
    states = moments(*game)
    raw: Raw = json.loads(states[draw(st.integers(0, len(states) - 1))])
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["swap", "swap", "transplant", "nudge", "nudge", "delete"]))
        if kind == "transplant":  # the phase of another moment, all but one of its fields
            donor = json.loads(states[draw(st.integers(0, len(states) - 1))])
            keep = draw(st.sampled_from(PHASE))
            for key in PHASE:
                if key != keep:
                    raw[key] = donor[key]
            continue
        if kind == "swap":
            key = draw(st.sampled_from(SWAPPABLE))
            donor = json.loads(states[draw(st.integers(0, len(states) - 1))])
            raw[key] = donor[key]
            continue
        paths = [p for p in json_paths(raw) if p and p[:2] != ("rules", "data")]
        path = draw(st.sampled_from(paths))
        parent = get_at(raw, path[:-1])
        if kind == "delete" and isinstance(parent, list):
            del parent[int(path[-1])]
        elif kind == "delete":
            parent[path[-1]] = None
        else:
            parent[path[-1]] = _nudged(parent[path[-1]], draw)
    return game[0], json.dumps(raw)


def play_checked(state: GameState, steps: int, seed: int) -> None:
    """Random steps from `state`; every state and transition invariant must hold."""
    rng = random.Random(seed)
    for _ in range(steps):
        if state.is_terminal:
            return
        if state.is_chance:
            action = sample(chance_outcomes(state), rng)
        else:
            legal = legal_actions(state)
            assert legal, "a decision with no legal action"
            action = legal[rng.randrange(len(legal))]
        after = apply(state, action)
        legal_after = None if after.is_chance or after.is_terminal else legal_actions(after)
        found = state_violations(after, legal_after) + transition_violations(state, action, after)
        assert not found, found
        state = after


def check_mutant(text: str, steps: int, seed: int) -> bool:
    """True if the mutant loaded (and then played on soundly), False if refused."""
    try:
        state = from_json(text)
    except StateFormatError as exc:
        assert exc.path.startswith("$")
        return False
    play_checked(state, steps, seed)
    return True


@pytest.mark.no_cover  # CPU-bound replays: not traced in the coverage run (tests/README.md, "Coverage")
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutant=mutated(), seed=st.integers(0, 2**32))
def test_a_mutated_state_is_refused_or_plays_on(mutant: tuple[str, str], seed: int) -> None:
    """Refused with StateFormatError, or sound for 150 random steps."""
    check_mutant(mutant[1], steps=150, seed=seed)


@pytest.mark.by_hand  # CI leaves it out (tests/README.md, "By hand")
@pytest.mark.slow
@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutant=mutated(), seed=st.integers(0, 2**32))
def test_many_mutated_states_are_refused_or_play_on(mutant: tuple[str, str], seed: int) -> None:
    """The long run of the test above."""
    check_mutant(mutant[1], steps=400, seed=seed)


def test_the_check_catches_a_loader_without_the_cross_field_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Injected bug: `from_json` without `state_checks.phase_problems`. A privilege pending
    with no turn in progress then loads, and playing on from it fails (the engine's
    InternalError), which is what `check_mutant` reports."""
    raw = json.loads(moments("big-box-2023", 3)[0])
    raw["pending"] = {"kind": "ChoosePrivilege", "seat": 0, "max_stage": 1}
    raw["players"][0]["members"][0] = "council:1"
    text = json.dumps(raw)
    assert check_mutant(text, steps=50, seed=0) is False  # refused with the checks
    monkeypatch.setattr(serialization, "phase_problems", lambda state: [])
    with pytest.raises(InternalError, match="no turn, market day or mass is in progress"):
        check_mutant(text, steps=50, seed=0)
