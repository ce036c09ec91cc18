"""The directly generated legal actions (the fast path) against the original
generate-and-filter oracle, the per-state cache, and that the oracle check catches a fast
path that drops or adds a move."""

from __future__ import annotations

import random

import pytest
from support import TESTS

from village_rules.checks.invariants import LEGAL_SET, InvariantError, replay_checked, state_violations
from village_rules.drivers.play import GameLog, random_policy
from village_rules.engine import core
from village_rules.engine.core import apply, chance_outcomes, legal_actions, legal_actions_oracle
from village_rules.engine.setup import new_game
from village_rules.model.actions import Action, Skip
from village_rules.model.chance import sample
from village_rules.model.state import GameState

GOLDEN = TESTS / "golden" / "engine-golden"


def _decision_states(edition: str, players: int, seed: int) -> list[GameState]:
    """Every decision state of a seeded random game."""
    rng = random.Random(seed)
    state = new_game(edition, players, seed)
    out = []
    while not state.is_terminal:
        if state.is_chance:
            action = sample(chance_outcomes(state), rng)
        else:
            out.append(state)
            action = random_policy(state, legal_actions(state), rng)
        state = apply(state, action)
    return out


@pytest.mark.parametrize(("edition", "players"), [("big-box-2023", 5), ("original-2011", 3)])
def test_fast_legal_actions_equal_the_oracle_at_every_decision(edition: str, players: int) -> None:
    states = _decision_states(edition, players, seed=11)
    assert len(states) > 300
    kinds = set()
    for state in states:
        assert legal_actions(state) == legal_actions_oracle(state)
        kinds.add(type(state.pending).__name__)
    assert {"ChooseTurn", "ChooseAction", "ChoosePayment", "MarketChoice"} <= kinds


def test_the_cache_is_equality_neutral_and_returns_fresh_lists() -> None:
    state = new_game("big-box-2023", 3, 4)
    while state.is_chance:
        state = apply(state, chance_outcomes(state)[0][0])
    fresh = GameState(**{f: getattr(state, f) for f in state.__dataclass_fields__ if f != "legal_cache"})
    assert state.legal_cache is not None  # filled while settling
    assert fresh.legal_cache is None
    assert fresh == state and hash(fresh) == hash(state)
    first = legal_actions(state)
    first.clear()
    assert legal_actions(state) == legal_actions(fresh) != []


def _log() -> GameLog:
    return GameLog.from_json((GOLDEN / "big-box-2023-3p-seed1.json").read_text())


def test_oracle_check_catches_a_fast_path_that_drops_a_move(monkeypatch: pytest.MonkeyPatch) -> None:
    real = core._generate

    def drops_last(state: GameState) -> list[Action]:
        moves = real(state)
        return moves[:-1] if len(moves) > 2 else moves

    monkeypatch.setattr(core, "_generate", drops_last)
    with pytest.raises(InvariantError) as caught:
        replay_checked(_log())
    assert LEGAL_SET in caught.value.invariants
    assert "missing" in str(caught.value)


def test_oracle_check_catches_a_fast_path_that_adds_a_move(monkeypatch: pytest.MonkeyPatch) -> None:
    real = core._generate

    def adds_skip(state: GameState) -> list[Action]:
        moves = real(state)
        return moves if Skip() in moves else [*moves, Skip()]

    monkeypatch.setattr(core, "_generate", adds_skip)
    with pytest.raises(InvariantError) as caught:
        replay_checked(_log())
    assert LEGAL_SET in caught.value.invariants
    assert "extra ['skip']" in str(caught.value)


def test_oracle_check_catches_a_reordered_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    real = core._generate
    monkeypatch.setattr(core, "_generate", lambda state: real(state)[::-1])
    found = []
    for state in _decision_states("original-2011", 2, 5)[:50]:
        found += [v for v in state_violations(state, legal_actions(state)) if v.invariant == LEGAL_SET]
    assert found and "another order" in str(found[0])
