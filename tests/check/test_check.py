"""`village-rules check` as steps: the fuzz step, logged games, the report, and that each
check catches the fault it is for."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

import village_rules.check.report as report_module
import village_rules.check.steps as check_module
import village_rules.fuzz.games as fuzz_module
from village_rules.check.report import NO_PLOTS_NOTE, write_report
from village_rules.check.steps import (
    CheckContext,
    FuzzResult,
    FuzzStep,
    LogsStep,
    StepResult,
    format_outcome,
    run_check,
)
from village_rules.checks.incremental import IncrementalChecker
from village_rules.checks.invariants import Violation
from village_rules.data.components import Category
from village_rules.drivers.play import play_logged, replay
from village_rules.engine.core import apply as engine_apply
from village_rules.engine.end_of_game import ended_by
from village_rules.model.actions import Action, parse_action
from village_rules.model.state import GameState
from village_rules.rules.variant import Variant


@pytest.fixture(scope="module")
def fuzz_result(tmp_path_factory: pytest.TempPathFactory) -> tuple[FuzzResult, Path]:
    out = tmp_path_factory.mktemp("check")
    result = FuzzStep(games=6).run(CheckContext(out, seed=4, workers=1))
    return result, out


def test_the_fuzz_step_plays_checked_games_and_replays_them(fuzz_result: tuple[FuzzResult, Path]) -> None:
    result, out = fuzz_result
    assert result.passed
    assert result.summary is not None and result.summary.games == 6
    assert len(result.games) == 6
    assert {g.edition for g in result.games} == {"big-box-2023", "original-2011"}
    for g in result.games:
        assert g.ended_by in ENDINGS
        assert len(g.scores) == g.players
        assert g.actions > 100
    assert result.summary.steps == sum(g.actions for g in result.games)
    assert "every game identical" in " ".join(result.details)
    samples = [f for f in result.findings if f.title.startswith("sample game")]
    assert len(samples) == 2
    for f in samples:
        assert f.log is not None and f.picture is not None
        assert json.loads((out / f.log).read_text())["format"] == "village-rules-log"
        assert (out / f.picture).read_text().startswith("<svg")


@pytest.mark.no_cover  # CPU-bound replays: not traced in the coverage run (tests/README.md, "Coverage")
def test_a_game_that_does_not_replay_identically_fails_the_step(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The determinism cross-check is live: a different digest for one game fails it."""
    real = check_module._unchecked_game

    def drifting(seed: int, index: int, policy: str) -> tuple[check_module.GameStats, str, str]:
        stats, digest, log = real(seed, index, policy)
        return stats, digest if index != 1 else "0" * 64, log

    monkeypatch.setattr(check_module, "_unchecked_game", drifting)
    result = FuzzStep(games=3).run(CheckContext(tmp_path, seed=4, workers=1))
    assert not result.passed
    bad = [f for f in result.findings if f.verdict.startswith("FAIL")]
    assert [f.title for f in bad] == ["game 1"]
    assert "1 game(s) differ" in " ".join(result.details)


def test_an_invariant_violation_fails_the_step_with_log_and_picture(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = {"n": 0}

    class Broken(IncrementalChecker):  # the fuzzer's checker, finding a violation at step 50
        def step(
            self, before: GameState, action: Action, after: GameState, legal: Sequence[Action] | None
        ) -> list[Violation]:
            calls["n"] += 1
            found = super().step(before, action, after, legal)
            if calls["n"] == 50:
                found.append(Violation("conservation.cubes", "injected", "0", "1"))
            return found

    monkeypatch.setattr(fuzz_module, "IncrementalChecker", Broken)
    # the plant is in the reference's checker: the games are played there
    outcome = run_check([FuzzStep(games=2, engine="reference")], CheckContext(tmp_path, seed=0, workers=1))
    assert not outcome.passed
    result = outcome.results[0]
    failing = [f for f in result.findings if f.verdict == "FAIL"]
    assert len(failing) == 1
    f = failing[0]
    assert "conservation.cubes" in f.detail
    assert f.log is not None and (tmp_path / f.log).exists()
    assert f.picture is not None and "<svg" in (tmp_path / f.picture).read_text()
    text = format_outcome(outcome, None)
    assert text.splitlines()[0].startswith("[FAIL] fuzz")
    assert "result: FAIL" in text


def test_logged_games_are_replayed_with_every_invariant(tmp_path: Path) -> None:
    _, log = play_logged("original-2011", 3, seed=9)
    good = tmp_path / "good.json"
    good.write_text(log.to_json())
    raw = json.loads(log.to_json())
    raw["actions"] = [*raw["actions"][:40], "serve 99", *raw["actions"][41:]]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(raw))
    out = tmp_path / "report"
    result = LogsStep((good, bad)).run(CheckContext(out))
    assert not result.passed
    assert [f.verdict for f in result.findings] == ["passed", "FAIL"]
    assert all(f.picture and (out / f.picture).exists() for f in result.findings)
    assert len(result.games) == 1 and result.games[0].actions == len(log.actions)


ENDINGS = (
    "chronicle",
    "graveyard",
    "chronicle and graveyard",
    "chronicle category",
    "chronicle category and graveyard",
)


def test_ended_by_names_one_full_category_under_amb_12_b() -> None:
    """END-01 under AMB-12 b: one full chronicle category ends the game."""
    variant = Variant(readings={"AMB-12": "b"})
    for seed in range(40):
        final, _ = play_logged("big-box-2023", 2, seed, variant)
        if ended_by(final) == "chronicle category":
            assert final.chronicle_free_total() > 0
            assert any(final.chronicle_free(c) == 0 for c in Category)
            return
    raise AssertionError("no game of 40 ended by one full chronicle category")


def test_ended_by_names_what_filled_up() -> None:
    final, _ = play_logged("big-box-2023", 2, seed=3)
    how = ended_by(final)
    assert how in ("chronicle", "graveyard", "chronicle and graveyard")
    if "graveyard" in how:
        assert final.graveyard_free() <= 0
    if "chronicle" in how:
        assert final.chronicle_free_total() == 0


@dataclass(frozen=True)
class _Proofs:
    """A stand-in for a later step (the proof catalogue): steps need only `name` and `run`."""

    name: str = "proofs"

    def run(self, context: CheckContext) -> StepResult:
        return StepResult(self.name, False, "1 of 2 proofs refuted")


def test_steps_are_independent_and_all_must_pass(tmp_path: Path) -> None:
    outcome = run_check([_Proofs(), FuzzStep(games=1)], CheckContext(tmp_path))
    assert [r.name for r in outcome.results] == ["proofs", "fuzz"]
    assert outcome.results[1].passed
    assert not outcome.passed


def test_the_report_without_matplotlib_shows_tables_and_says_so(
    fuzz_result: tuple[FuzzResult, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result, _ = fuzz_result
    monkeypatch.setattr(report_module, "plots_available", lambda: False)
    outcome = check_module.CheckOutcome((result,), 1.0)
    index = write_report(tmp_path, outcome)
    page = index.read_text()
    assert NO_PLOTS_NOTE.split(":")[0] in page
    assert "<h4>game length</h4>" in page and "how the games ended" in page
    assert "final scores per seat" in page and "rule-ID coverage" in page
    assert "invariant checks run" in page
    assert not list(tmp_path.glob("*.svg"))
    assert 'class="verdict pass"' in page


def test_the_report_plots_with_matplotlib(fuzz_result: tuple[FuzzResult, Path], tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    result, _ = fuzz_result
    index = write_report(tmp_path, check_module.CheckOutcome((result,), 1.0))
    plots = sorted(p.name for p in tmp_path.glob("*.svg"))
    names = ("coverage", "ended", "length", "rules", "scores")
    assert plots == [f"0-fuzz-{name}.svg" for name in names]
    page = index.read_text()
    assert all(f'src="{p}"' in page for p in plots)
    first = (tmp_path / plots[0]).read_text()
    write_report(tmp_path, check_module.CheckOutcome((result,), 1.0))
    assert (tmp_path / plots[0]).read_text() == first  # deterministic files


def test_last_good_state_stops_before_an_engine_crash(monkeypatch: pytest.MonkeyPatch) -> None:
    _, log = play_logged("big-box-2023", 2, seed=1)
    real = engine_apply
    calls = {"n": 0}

    def crashing(state: GameState, action: Action) -> GameState:
        calls["n"] += 1
        if calls["n"] == 11:
            raise KeyError("injected")
        return real(state, action)

    monkeypatch.setattr(check_module, "apply", crashing)
    state, last, actor = check_module.last_good_state(log)
    monkeypatch.undo()
    assert state == replay(log.initial_state(), log.actions[:10])
    assert last == parse_action(log.actions[9])
    before = replay(log.initial_state(), log.actions[:9])
    assert actor == (None if before.is_chance else before.current_player())
