"""Issue 28: truncation at `max_moves` means the same in both adapters (terminal and
truncated, paying `truncated_returns`), and a `max_moves` with no room for a decision is
refused clearly by both, so PettingZoo's own `api_test` passes at the shortest limit allowed."""

from __future__ import annotations

import random

import pytest

pyspiel = pytest.importorskip("pyspiel")
pytest.importorskip("pettingzoo")
np = pytest.importorskip("numpy")

from pettingzoo.test import api_test  # noqa: E402

import village_rules.adapters.openspiel  # noqa: E402, F401  (registers the games)
from village_rules.adapters.pettingzoo import VillageEnv, env, raw_env  # noqa: E402
from village_rules.adapters.truncation import moves_before_first_decision, truncated_returns  # noqa: E402
from village_rules.data.loader import builtin_edition  # noqa: E402
from village_rules.engine.core import apply, chance_outcomes  # noqa: E402
from village_rules.engine.scoring import ReturnsKind  # noqa: E402
from village_rules.engine.setup import deal_outcomes, game_from_deal  # noqa: E402
from village_rules.errors import ParameterError  # noqa: E402
from village_rules.model.actions import Action  # noqa: E402
from village_rules.model.chance import sample  # noqa: E402
from village_rules.rules.variant import Variant  # noqa: E402

GAMES = [("original-2011", n) for n in (2, 3, 4)] + [("big-box-2023", n) for n in (2, 3, 4, 5)]


def chance_moves_to_first_decision(edition: str, players: int, seed: int) -> int:
    data, rng = builtin_edition(edition), random.Random(seed)
    dealt: list[Action] = []
    while outcomes := deal_outcomes(data, players, dealt, Variant()):
        dealt.append(sample(outcomes, rng))
    state, moves = game_from_deal(data, players, dealt, Variant()), len(dealt)
    while state.is_chance:
        state, moves = apply(state, sample(chance_outcomes(state), rng)), moves + 1
    return moves


@pytest.mark.parametrize(("edition", "players"), GAMES)
def test_the_moves_before_the_first_decision_are_fixed(edition: str, players: int) -> None:
    before = moves_before_first_decision(builtin_edition(edition), players, Variant())
    assert before > 0
    assert {chance_moves_to_first_decision(edition, players, seed) for seed in range(25)} == {before}


@pytest.mark.parametrize(("edition", "players"), [("original-2011", 2), ("big-box-2023", 4)])
def test_both_adapters_refuse_a_limit_with_no_room_for_a_decision(edition: str, players: int) -> None:
    before = moves_before_first_decision(builtin_edition(edition), players, Variant())
    for short in (1, before):
        with pytest.raises(ParameterError, match=f"at least {before + 1}, not {short}"):
            raw_env(edition=edition, players=players, max_moves=short)
        with pytest.raises(ParameterError, match=f"at least {before + 1}, not {short}"):
            pyspiel.load_game("python_village", {"edition": edition, "players": players, "max_moves": short})
    raw_env(edition=edition, players=players, max_moves=before + 1)
    pyspiel.load_game("python_village", {"edition": edition, "players": players, "max_moves": before + 1})


def test_pettingzoos_api_test_passes_at_the_shortest_limit() -> None:
    before = moves_before_first_decision(builtin_edition("original-2011"), 2, Variant())
    api_test(env(edition="original-2011", players=2, max_moves=before + 1), num_cycles=20)


def _play_env(returns: ReturnsKind, max_moves: int, seed: int) -> tuple[dict[str, float], VillageEnv]:
    game = raw_env(edition="original-2011", players=3, returns=returns, max_moves=max_moves)
    game.reset(seed=seed)
    rng = np.random.default_rng(seed)
    totals = dict.fromkeys(game.possible_agents, 0.0)
    for agent in game.agent_iter():
        obs, reward, terminated, truncated, _ = game.last()
        totals[agent] += reward
        game.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return totals, game


@pytest.mark.parametrize("kind", ["win", "score"])
def test_a_truncated_game_pays_the_same_in_both_adapters(kind: ReturnsKind) -> None:
    totals, game = _play_env(kind, 80, 5)
    assert all(game.truncations.values()) and not any(game.terminations.values())
    assert list(totals.values()) == [float(r) for r in truncated_returns(game.game_state, kind)]

    name = "python_village" if kind == "win" else "python_village_score"
    spiel = pyspiel.load_game(name, {"edition": "original-2011", "players": 3, "max_moves": 80})
    state, rng = spiel.new_initial_state(), random.Random(5)
    while not state.is_terminal():
        if state.is_chance_node():
            ids, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(ids, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    assert state.truncated() and state.move_number() == 80
    assert state.returns() == [float(r) for r in truncated_returns(state.state, kind)]
    if kind == "win":
        assert state.returns() == pytest.approx([1 / 3] * 3) and list(totals.values()) == pytest.approx(
            [1 / 3] * 3
        )


def test_max_game_length_counts_the_decisions_a_truncated_game_can_hold() -> None:
    before = moves_before_first_decision(builtin_edition("original-2011"), 2, Variant())
    game = pyspiel.load_game("python_village", {"edition": "original-2011", "players": 2, "max_moves": 300})
    assert game.max_game_length() == 300 - before
    state, rng, decisions = game.new_initial_state(), random.Random(2), 0
    while not state.is_terminal():
        if state.is_chance_node():
            ids, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(ids, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
            decisions += 1
    assert state.truncated() and state.move_number() == 300 == game.max_move_number()  # exact
    assert decisions <= game.max_game_length()
