"""The Hypothesis machine fast-forwarding by a named policy (`fast_forward_policy`)."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from village_rules.model.actions import Action
from village_rules.model.state import GameState
from village_rules.policies import lookahead
from village_rules.testing.machine import VillageMachine


class GreedyForward(VillageMachine):
    """Fast-forwards by the greedy policy."""

    fast_forward_policy = "greedy"
    fast_forward_limit = 25


CALLS: list[int] = []


@settings(max_examples=3, deadline=None, database=None, phases=[Phase.generate],
          suppress_health_check=list(HealthCheck))
@given(st.data())
def _forward(data: st.DataObject) -> None:
    machine = GreedyForward()
    machine.set_up(data)
    for _ in range(8):
        if machine.state is not None and not machine.state.is_terminal:
            machine.fast_forward(data)
            machine.invariants_hold()


def test_the_machine_fast_forwards_by_the_named_policy(monkeypatch: pytest.MonkeyPatch) -> None:
    real = lookahead.best_action

    def counted(state: GameState, legal: Sequence[Action], evaluation: lookahead.Evaluation,
                rng: random.Random) -> Action:
        CALLS.append(1)
        return real(state, legal, evaluation, rng)

    monkeypatch.setattr("village_rules.policies.greedy.best_action", counted)
    _forward()
    assert CALLS
