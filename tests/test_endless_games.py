"""A game that never ends is reported, with its log, within a bounded number of actions by
every tool that plays games to the end (issue 42). The engine is changed so that nobody
dies of time (no game then ends: the chronicle and graveyard never fill) and the bound,
`drivers.play.MAX_GAME_STEPS`, is lowered to 300: the tests assert the report and the log,
never the time. Before, `play` went on for a million actions and returned the unfinished
game as if it had ended, and the policy survey, the test strategies and the guided fuzzer's
fresh games had no bound at all."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import Phase, given, settings

from village_rules.cli.main import main
from village_rules.drivers import play as driver
from village_rules.drivers.play import EndlessGameError, GameLog, play_logged, random_policy, replay_log
from village_rules.engine import payment, turn
from village_rules.engine.context import Ctx
from village_rules.engine.setup import new_game
from village_rules.fuzz.games import GAME_LENGTH
from village_rules.fuzz.guided import GuidedPlan, run_segment
from village_rules.fuzz.runner import run_fuzz
from village_rules.model.evolve import replace
from village_rules.model.state import GameState
from village_rules.policies.survey import play_traced
from village_rules.proofs.link.refinement import check_game
from village_rules.testing.strategies import finished_games

BOUND = 300


def _no_death(state: GameState, seat: int, amount: int, ctx: Ctx) -> GameState:
    """TIME-01 without DEATH-01: the token moves round the track and nobody ever dies."""
    p = state.players[seat]
    length = state.rules.data.lifetime_track_length
    return state.with_player(seat, replace(p, lifetime=(p.lifetime + amount) % length))


@pytest.fixture
def endless(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(turn, "spend_time", _no_death)
    monkeypatch.setattr(payment, "spend_time", _no_death)
    monkeypatch.setattr(driver, "MAX_GAME_STEPS", BOUND)


def _is_the_endless_log(log: GameLog | None, edition: str, players: int, seed: int) -> None:
    assert log is not None
    assert (log.edition, log.players, log.seed, len(log.actions)) == (edition, players, seed, BOUND)
    replayed = replay_log(log)  # the log replays (on the changed engine) and has not ended
    assert replayed.actions == BOUND and not replayed.complete


@pytest.mark.usefixtures("endless")
def test_play_logged_reports_the_endless_game_with_its_log() -> None:
    with pytest.raises(EndlessGameError, match=f"did not end within {BOUND:,} actions") as raised:
        play_logged("original-2011", 2, seed=5)
    _is_the_endless_log(raised.value.log, "original-2011", 2, 5)


@pytest.mark.usefixtures("endless")
def test_the_play_command_exits_1_and_writes_the_log(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code = main(["play", "--edition", "big-box-2023", "--players", "2", "--seed", "4"])
    err = capsys.readouterr().err
    assert code == 1, err
    assert "did not end within 300 actions" in err and "endless-game-seed4.json" in err
    log = GameLog.from_json((tmp_path / "endless-game-seed4.json").read_text(encoding="utf-8"))
    _is_the_endless_log(log, "big-box-2023", 2, 4)


@pytest.mark.usefixtures("endless")
def test_the_fuzzer_reports_it_with_its_log(tmp_path: Path) -> None:
    summary = run_fuzz(3, 0, 1, "original-2011", 2, tmp_path)
    assert summary.failure is not None
    assert [v.invariant for v in summary.failure.violations] == [GAME_LENGTH]
    raw = json.loads(summary.failure.log_path.read_text(encoding="utf-8"))
    assert len(raw["actions"]) == BOUND


@pytest.mark.usefixtures("endless")
def test_a_guided_campaign_reports_a_fresh_game_that_never_ends() -> None:
    cov = run_segment(GuidedPlan("uniform", 0, 10 * BOUND, "original-2011", 2), 0)
    assert [v.invariant for v in cov.violations] == [GAME_LENGTH]
    assert cov.failing_log is not None and len(cov.failing_actions) == BOUND


@pytest.mark.usefixtures("endless")
def test_the_policy_survey_reports_it_with_its_log() -> None:
    with pytest.raises(EndlessGameError) as raised:
        play_traced("original-2011", 2, 7, [random_policy, random_policy])
    _is_the_endless_log(raised.value.log, "original-2011", 2, 7)


@pytest.mark.usefixtures("endless")
def test_the_refinement_check_reports_it_with_its_log() -> None:
    with pytest.raises(EndlessGameError) as raised:
        check_game("original-2011", 2, 3)
    _is_the_endless_log(raised.value.log, "original-2011", 2, 3)


@pytest.mark.usefixtures("endless")
def test_the_test_strategies_report_it_with_its_log() -> None:
    @settings(max_examples=1, database=None, phases=[Phase.generate], deadline=None)
    @given(finished_games())
    def draw(run: object) -> None:
        raise AssertionError("a finished game was drawn from an engine where none ends")

    with pytest.raises(EndlessGameError) as raised:
        draw()
    assert raised.value.log is not None and len(raised.value.log.actions) == BOUND


def test_an_explicit_max_steps_is_still_a_prefix() -> None:
    final, actions = driver.play(new_game("original-2011", 2, 1), [random_policy] * 2, random.Random(1), 10)
    assert len(actions) == 10 and not final.is_terminal
