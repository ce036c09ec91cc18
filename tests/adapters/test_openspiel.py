"""The OpenSpiel game (village_rules.adapters.openspiel): OpenSpiel's own conformance test with the
engine's invariants as state checker, the setup as chance nodes, observations, truncation,
and an MCTS bot playing a full game. Needs the `openspiel` extra."""

from __future__ import annotations

import pickle
import random
from dataclasses import replace

import pytest
from support import ROOT

pyspiel = pytest.importorskip("pyspiel")
np = pytest.importorskip("numpy")

from open_spiel.python.observation import make_observation  # noqa: E402

import village_rules.adapters.openspiel as adapter  # noqa: E402
import village_rules.adapters.positions as positions  # noqa: E402
from village_rules import deal_outcomes, new_game, to_json  # noqa: E402
from village_rules.adapters.chance_codes import outcome_code  # noqa: E402
from village_rules.adapters.observation import tensor_size  # noqa: E402
from village_rules.adapters.openspiel import VillageState, check_state  # noqa: E402
from village_rules.checks.invariants import InvariantError  # noqa: E402
from village_rules.data.loader import builtin_edition  # noqa: E402
from village_rules.engine.core import apply as real_apply  # noqa: E402
from village_rules.engine.scoring import score_breakdown  # noqa: E402
from village_rules.errors import ParameterError  # noqa: E402
from village_rules.model.actions import Action, action_from_id  # noqa: E402
from village_rules.model.chance import sample  # noqa: E402
from village_rules.model.state import GameState  # noqa: E402


def final_total(state: GameState) -> int:
    """The player's (seat 0's) final total prestige."""
    return score_breakdown(state)[0].total

CONFIGS = [("original-2011", n) for n in (2, 3, 4)] + [("big-box-2023", n) for n in (2, 3, 4, 5)]


def _random_to_end(state: VillageState, rng: random.Random, limit: int = 10**6) -> VillageState:
    while not state.is_terminal() and limit:
        if state.is_chance_node():
            ids, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(ids, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
        limit -= 1
    return state


@pytest.mark.parametrize(("edition", "players"), CONFIGS)
def test_random_sim_test_with_the_invariants_as_state_checker(edition: str, players: int) -> None:
    """OpenSpiel's random_sim_test (legal actions sorted, chance outcomes sum to 1, returns
    in range, ...) with village_rules.checks.invariants.check on every state."""
    game = pyspiel.load_game(f"python_village(edition={edition},players={players})")
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False, state_checker_fn=check_state)


def test_random_sim_test_with_serialization_and_the_score_game() -> None:
    name = "python_village_score(edition=original-2011,players=2,starting_compensation=False)"
    game = pyspiel.load_game(name)
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False, state_checker_fn=check_state)


def test_the_state_checker_catches_a_broken_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    """An injected bug (a coin from nowhere after every move) fails random_sim_test. The bug
    is planted into the reference's `apply`, so the game is played on the reference."""

    def leaky_apply(state: GameState, action: Action) -> GameState:
        after = real_apply(state, action)
        return after.with_player(0, replace(after.players[0], coins=after.players[0].coins + 1))

    monkeypatch.setattr(positions, "apply", leaky_apply)
    game = pyspiel.load_game("python_village(edition=original-2011,players=2,engine=reference)")
    with pytest.raises((InvariantError, RuntimeError, pyspiel.SpielError)):
        pyspiel.random_sim_test(game, 1, False, False, state_checker_fn=check_state)


def test_load_game_parameters_and_game_info() -> None:
    game = pyspiel.load_game("python_village(edition=big-box-2023,players=3)")
    data = builtin_edition("big-box-2023")
    assert game.num_players() == 3
    assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert game.get_type().information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert (game.min_utility(), game.max_utility(), game.utility_sum()) == (0.0, 1.0, 1.0)
    assert game.observation_tensor_size() == tensor_size(data, 3)
    assert game.information_state_tensor_size() == tensor_size(data, 3)
    # chance outcomes are codes (chance_codes.py): the bound is the most outcomes of a node,
    # not the id range of the decisions
    assert game.max_chance_outcomes() == game.outcomes_per_node == 24 < game.num_distinct_actions()
    score = pyspiel.load_game("python_village_score", {"edition": "original-2011", "players": 4})
    assert score.get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM
    assert score.max_utility() > 100
    loaded = adapter.load("original-2011", 2, returns="score", starting_compensation=False)
    assert loaded.get_type().short_name == adapter.SCORE_GAME
    assert loaded.get_parameters()["starting_compensation"] is False
    for bad in ({"players": 6}, {"edition": "village-2030"}, {"max_moves": 0}):
        with pytest.raises(ParameterError):
            pyspiel.load_game("python_village", bad)
    with pytest.raises(ParameterError, match="SOLO-30"):  # solo has no winner: the score game only
        pyspiel.load_game("python_village", {"edition": "big-box-2023", "players": 1})
    with pytest.raises(ParameterError, match="2-4 players, not 1"):  # SOLO-01: 2011 has no solo mode
        pyspiel.load_game("python_village_score", {"edition": "original-2011", "players": 1})


def test_the_setup_is_chance_and_gives_new_games_setups() -> None:
    """SET-05 / SET-10: the first nodes deal the customers (and the random cube); taking
    the outcomes new_game(seed) samples gives exactly new_game(seed)'s state."""

    game = pyspiel.load_game("python_village(edition=big-box-2023,players=3)")
    data = builtin_edition("big-box-2023")
    state = game.new_initial_state()
    assert state.is_chance_node()
    assert len(state.chance_outcomes()) == len(data.customers)
    rng = random.Random(5)
    dealt: list[Action] = []
    while outcomes := deal_outcomes(data, 3, dealt):
        dealt.append(sample(outcomes, rng))

    for action in dealt:
        assert state.is_chance_node()
        state.apply_action(outcome_code(data, 3, action))  # a chance outcome is given by its code
    assert state.state is not None
    assert to_json(state.state) == to_json(new_game("big-box-2023", 3, seed=5))
    assert state.move_number() == len(dealt)


def test_observations_strings_and_clone() -> None:
    game = pyspiel.load_game("python_village(edition=original-2011,players=2)")
    state = game.new_initial_state()
    assert state.observation_string(0).startswith("setup deal:")
    rng = random.Random(1)
    for _ in range(60):
        if state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    assert len(state.observation_tensor(1)) == game.observation_tensor_size()
    # OpenSpiel's convention for perfect information: the history, as history_str() joins it
    assert state.information_state_string(0) == state.history_str()
    assert state.history_str() == ", ".join(str(a) for a in state.history())
    assert state.observation_string(0) == to_json(state.state)
    clone = state.clone()
    assert clone.history() == state.history() and str(clone) == str(state)
    move = clone.legal_actions()[0] if not clone.is_chance_node() else clone.chance_outcomes()[0][0]
    clone.apply_action(move)
    assert len(clone.history()) == len(state.history()) + 1
    assert state.action_to_string(move) == str(action_from_id(builtin_edition("original-2011"), move))


def test_a_game_at_the_length_limit_is_truncated_with_shared_returns() -> None:
    game = pyspiel.load_game("python_village(edition=original-2011,players=3,max_moves=40)")
    state = _random_to_end(game.new_initial_state(), random.Random(0))
    assert state.is_terminal() and state.truncated()
    assert state.move_number() == 40
    assert state.returns() == pytest.approx([1 / 3] * 3)
    score = pyspiel.load_game("python_village_score(edition=original-2011,players=3,max_moves=40)")
    ended = _random_to_end(score.new_initial_state(), random.Random(0))
    assert ended.truncated() and ended.returns() == [float(v) for v in ended.returns()]


def test_a_full_game_ends_by_the_rules_with_the_win_shared() -> None:
    game = pyspiel.load_game("python_village(edition=big-box-2023,players=2)")
    state = _random_to_end(game.new_initial_state(), random.Random(3))
    assert state.is_terminal() and not state.truncated()
    assert sum(state.returns()) == pytest.approx(1.0)
    assert state.move_number() < game.max_game_length()


def test_the_mcts_example_of_docs_rl_plays_a_full_game(capsys: pytest.CaptureFixture[str]) -> None:
    """docs/rl.md's MCTS example, run as written: OpenSpiel's MCTSBot (seat 0) and a
    uniform random bot (seat 1) play a whole 2-player game through `evaluate_bots`, and
    the win is shared out (returns sum to 1)."""
    text = (ROOT / "docs" / "rl.md").read_text(encoding="utf-8")
    block = next(b for b in text.split("```python\n")[1:] if "mcts.MCTSBot(" in b)
    code = block.split("```")[0]
    scope: dict[str, object] = {}
    exec(compile(code, "docs/rl.md", "exec"), scope)
    returns = scope["returns"]
    assert isinstance(returns, list) and len(returns) == 2
    assert sum(returns) == pytest.approx(1.0)
    assert capsys.readouterr().out.strip() == str(returns)


def test_the_ten_line_example_of_docs_rl_runs(capsys: pytest.CaptureFixture[str]) -> None:
    text = (ROOT / "docs" / "rl.md").read_text(encoding="utf-8")
    block = next(b for b in text.split("```python\n")[1:] if b.startswith("import numpy as np, pyspiel"))
    code = block.split("```")[0]
    assert len([line for line in code.splitlines() if line.strip()]) <= 12
    exec(compile(code, "docs/rl.md", "exec"), {})
    assert capsys.readouterr().out.strip()


def test_clone_shares_and_pickle_is_small_and_faithful() -> None:
    """Cloning shares the immutable engine state; a pickle holds the state's JSON (a few
    KB, not the edition data) and loads to the same node."""
    game = pyspiel.load_game("python_village(edition=big-box-2023,players=4)")
    state = _random_to_end(game.new_initial_state(), random.Random(2), limit=300)
    clone = state.clone()
    assert clone.node is state.node
    blob = pickle.dumps(state)
    assert len(blob) < 16_000
    loaded = pickle.loads(blob)
    assert loaded.history() == state.history()
    assert loaded.state == state.state
    assert loaded.legal_actions() == state.legal_actions()
    assert loaded.observation_tensor(1) == state.observation_tensor(1)


def test_an_observer_of_private_information_sees_nothing() -> None:
    """Perfect information: nothing is private, so a private-only observer is empty,
    while the public observer sees the whole state."""
    game = pyspiel.load_game("python_village(edition=original-2011,players=2)")
    state = _random_to_end(game.new_initial_state(), random.Random(4), limit=50)
    private = make_observation(
        game,
        pyspiel.IIGObservationType(
            public_info=False, perfect_recall=False, private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER
        ),
    )
    private.set_from(state, 0)
    assert private.string_from(state, 0) == ""
    assert private.tensor.size == 0
    public = make_observation(game, pyspiel.IIGObservationType(perfect_recall=False))
    public.set_from(state, 1)
    assert list(public.tensor) == state.observation_tensor(1)
    assert public.string_from(state, 1) == state.observation_string(1)


def test_solo_is_a_one_player_score_game_with_carla_in_the_environment() -> None:
    """SOLO-01: the score game plays 1 player against Carla. OpenSpiel's random_sim_test
    (with the invariants) passes on it; Carla never decides (every decision is player 0's),
    her fate tiles are OpenSpiel chance nodes (SOLO-14), and the return is the player's
    final total (SOLO-30)."""
    game = pyspiel.load_game(adapter.SCORE_GAME, {"edition": "big-box-2023", "players": 1})
    assert game.num_players() == 1 and game.get_type().min_num_players == 1
    assert game.observation_tensor_size() == tensor_size(builtin_edition("big-box-2023"), 1)
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False, state_checker_fn=check_state)
    state, rng, fates = game.new_initial_state(), random.Random(4), 0
    while not state.is_terminal():
        if state.is_chance_node():
            ids, probs = zip(*state.chance_outcomes(), strict=True)
            chosen = rng.choices(ids, probs)[0]
            fates += state.action_to_string(pyspiel.PlayerId.CHANCE, chosen).startswith("reveal-fate")
            state.apply_action(chosen)
        else:
            assert state.current_player() == 0
            state.apply_action(rng.choice(state.legal_actions()))
    assert fates > 0  # Carla's chance was drawn at OpenSpiel chance nodes
    final = state.state
    assert final is not None and final.is_solo and final.is_terminal
    assert state.returns() == [float(final_total(final))]
