"""The PettingZoo AEC environment (village_rules.adapters.pettingzoo): PettingZoo's own api_test,
seed_test, render_test and performance_benchmark, and what they do not check. Needs the
`pettingzoo` extra."""

from __future__ import annotations

import functools

import pytest
from support import ROOT

pettingzoo = pytest.importorskip("pettingzoo")
np = pytest.importorskip("numpy")

from pettingzoo.test import api_test, performance_benchmark, render_test, seed_test  # noqa: E402

from village_rules import IllegalActionError, ParameterError, legal_action_ids, returns  # noqa: E402
from village_rules.adapters.pettingzoo import VillageEnv, env, raw_env  # noqa: E402

CONFIGS = [("original-2011", n) for n in (2, 3, 4)] + [("big-box-2023", n) for n in (2, 3, 4, 5)]


@pytest.mark.parametrize(("edition", "players"), CONFIGS)
def test_api_test_over_a_whole_game(edition: str, players: int) -> None:
    api_test(env(edition=edition, players=players), num_cycles=10_000, verbose_progress=False)


@pytest.mark.parametrize(("edition", "players"), [("original-2011", 3), ("big-box-2023", 5)])
def test_seed_test(edition: str, players: int) -> None:
    seed_test(functools.partial(env, edition=edition, players=players), num_cycles=300)


def test_render_test() -> None:
    render_test(functools.partial(env, edition="big-box-2023", players=2))


def test_performance_benchmark_runs(capsys: pytest.CaptureFixture[str]) -> None:
    performance_benchmark(env(edition="original-2011", players=2))
    out = capsys.readouterr().out
    assert "turns per second" in out and "Finished performance benchmark" in out


def _play(game: VillageEnv, seed: int) -> tuple[list[int], dict[str, float]]:
    game.reset(seed=seed)
    rng = np.random.default_rng(seed)
    chosen: list[int] = []
    totals = {a: 0.0 for a in game.possible_agents}
    for agent in game.agent_iter():
        obs, reward, terminated, truncated, _ = game.last()
        totals[agent] += reward
        if terminated or truncated:
            game.step(None)  # PettingZoo's dead step
            continue
        legal = np.flatnonzero(obs["action_mask"])
        action = int(rng.choice(legal))
        chosen.append(action)
        game.step(action)
    return chosen, totals


def test_a_seeded_game_is_reproducible_and_pays_the_win_at_the_end() -> None:
    """Same seed, same policy: same game; at the end the agents' rewards are the returns."""
    first = raw_env(edition="big-box-2023", players=3)
    actions, totals = _play(first, 9)
    again, totals_again = _play(raw_env(edition="big-box-2023", players=3), 9)
    assert actions == again and totals == totals_again
    assert first.game_state.is_terminal
    final = returns(first.game_state)
    assert totals == {f"player_{seat}": float(final[seat]) for seat in range(3)}
    other, _ = _play(raw_env(edition="big-box-2023", players=3), 10)
    assert other != actions


def test_the_mask_is_the_legal_ids_of_the_agent_to_act_only() -> None:
    game = raw_env(edition="original-2011", players=2)
    game.reset(seed=4)
    agent = game.agent_selection
    mask = game.observe(agent)["action_mask"]
    assert list(np.flatnonzero(mask)) == legal_action_ids(game.game_state)
    other = next(a for a in game.agents if a != agent)
    assert not game.observe(other)["action_mask"].any()
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(IllegalActionError, match="not a legal action"):
        game.step(illegal)


def test_score_returns_truncation_and_bad_parameters() -> None:
    scored = raw_env(edition="original-2011", players=2, returns="score")
    _, totals = _play(scored, 2)
    assert max(totals.values()) > 1
    short = raw_env(edition="original-2011", players=2, max_moves=60)
    _, shares = _play(short, 2)
    assert shares == {"player_0": 0.5, "player_1": 0.5}  # truncated: the win shared, as OpenSpiel
    assert not short.game_state.is_terminal and all(short.truncations.values())
    for bad in ({"players": 6}, {"edition": "x"}, {"returns": "points"}, {"render_mode": "rgb_array"}):
        with pytest.raises(ParameterError):
            raw_env(**bad)
    with pytest.raises(ParameterError, match="SOLO-30"):  # solo has no winner: returns='score' only
        raw_env(edition="big-box-2023", players=1)
    with pytest.raises(ParameterError, match="2-4 players, not 1"):  # SOLO-01: 2011 has no solo mode
        raw_env(edition="original-2011", players=1, returns="score")


def test_the_ten_line_example_of_docs_rl_runs(capsys: pytest.CaptureFixture[str]) -> None:
    text = (ROOT / "docs" / "rl.md").read_text(encoding="utf-8")
    blocks = text.split("```python\n")[1:]
    block = next(b for b in blocks if "pettingzoo import env" in b.split("\n", 2)[1])
    code = block.split("```")[0]
    assert len([line for line in code.splitlines() if line.strip()]) <= 12
    exec(compile(code, "docs/rl.md", "exec"), {})
    assert capsys.readouterr().out.strip()


@pytest.mark.parametrize("action", [0.5, 1.0, "0", True])
def test_step_refuses_an_action_that_is_not_a_whole_number(action: object) -> None:
    """step(0.5) and step('0') played action 0: now the library's ActionTypeError."""
    from village_rules import ActionTypeError  # noqa: PLC0415

    game = raw_env(edition="big-box-2023", players=2)
    game.reset(seed=1)
    before = game.game_state
    with pytest.raises(ActionTypeError, match="must be a whole number"):
        game.step(action)  # type: ignore[arg-type]
    assert game.game_state is before


def test_step_takes_numpy_integers() -> None:
    game = raw_env(edition="big-box-2023", players=2)
    game.reset(seed=1)
    before = game.game_state
    first = int(np.flatnonzero(game.observe(game.agent_selection)["action_mask"])[0])
    game.step(np.int64(first))
    assert game.game_state is not before


def test_step_before_reset_is_a_parameter_error() -> None:
    game = raw_env(edition="big-box-2023", players=2)
    with pytest.raises(ParameterError, match="call reset"):
        game.step(0)


def test_solo_passes_the_api_and_seed_tests_with_carla_inside_the_step() -> None:
    """SOLO-01: one agent against Carla. PettingZoo's api_test and seed_test pass; Carla's
    moves and her fate tiles (SOLO-14) happen inside `step`, drawn from the seeded RNG, so
    one seed and the same actions give the same game; the reward is the final total."""
    solo = functools.partial(env, edition="big-box-2023", players=1, returns="score")
    api_test(solo(), num_cycles=10_000, verbose_progress=False)
    seed_test(solo, num_cycles=200)
    game = raw_env(edition="big-box-2023", players=1, returns="score")
    assert game.possible_agents == ["player_0"]
    chosen, totals = _play(game, 5)
    final = game.game_state
    assert final.is_solo and final.is_terminal and final.carla is not None
    assert any(tile is not None for tile in final.carla.fate)  # Carla's chance was drawn inside
    assert totals == {"player_0": float(returns(final, "score")[0])}
    again = raw_env(edition="big-box-2023", players=1, returns="score")
    assert _play(again, 5)[0] == chosen and again.game_state == final
