"""`apply` never changes the state it is given: `_settle` sets the pending step in place
only on states built during the same `apply`. Checked over seeded games of both editions
(and solo), and shown to catch a `_settle` that would also change the given state."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from village_rules.drivers.serialization import to_json
from village_rules.engine import core
from village_rules.engine.context import Ctx
from village_rules.engine.core import apply, chance_outcomes, legal_actions
from village_rules.engine.setup import new_game
from village_rules.model.chance import sample
from village_rules.model.pending import Pending
from village_rules.model.state import GameState


def _changed_inputs(edition: str, players: int, seed: int) -> int:
    """Play a seeded random game; count the steps whose given state changed under apply."""
    rng = random.Random(seed)
    state = new_game(edition, players, seed)
    changed = 0
    while not state.is_terminal:
        if state.is_chance:
            action = sample(chance_outcomes(state), rng)
        else:
            legal = legal_actions(state)
            action = legal[rng.randrange(len(legal))]
        pending, cache, text = state.pending, state.legal_cache, to_json(state)
        after = apply(state, action)
        if state.pending is not pending or state.legal_cache is not cache or to_json(state) != text:
            changed += 1
        state = after
    return changed


@pytest.mark.parametrize(
    ("edition", "players", "seed"),
    [("big-box-2023", 4, 1), ("big-box-2023", 1, 2), ("original-2011", 3, 3)],
)
def test_apply_leaves_the_given_state_as_it_was(edition: str, players: int, seed: int) -> None:
    assert _changed_inputs(edition, players, seed) == 0


def test_the_check_catches_a_settle_that_changes_the_given_state(monkeypatch: pytest.MonkeyPatch) -> None:
    real: Callable[..., GameState] = core._settle

    def careless(state: GameState, sub: Pending | None, ctx: Ctx, given: GameState) -> GameState:
        return real(state, sub, ctx, given=None)  # every state treated as built here

    monkeypatch.setattr(core, "_settle", careless)
    assert _changed_inputs("big-box-2023", 4, 1) > 0
