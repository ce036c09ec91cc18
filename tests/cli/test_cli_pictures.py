"""The `show`, `check` and `report` commands, run in-process on real logs and fuzz runs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from support import ROOT

from village_rules.check.modes import GUIDED_PER_GAME
from village_rules.check.steps import (
    DIVERGENCE_DIR,
    CheckOutcome,
    CheckStep,
    DivergenceStep,
    FuzzStep,
    ProofsStep,
    default_steps,
)
from village_rules.cli import pictures as cli_pictures
from village_rules.cli.main import main
from village_rules.cli.pictures import state_at
from village_rules.drivers.play import GameLog, play_logged, replay
from village_rules.drivers.serialization import to_json
from village_rules.engine.core import apply as engine_apply
from village_rules.engine.setup import new_game
from village_rules.errors import ShowError
from village_rules.model.actions import Action
from village_rules.model.render import render
from village_rules.model.state import GameState
from village_rules.pictures.svg import state_svg
from village_rules.proofs.table.stored import proof_files, witness_files

WITNESSES = ROOT / "proofs" / "witnesses"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def logged(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, GameLog]:
    _, log = play_logged("big-box-2023", 3, seed=11)
    path = tmp_path_factory.mktemp("logs") / "game.json"
    path.write_text(log.to_json())
    return path, log


def test_show_draws_the_state_after_k_actions(
    capsys: pytest.CaptureFixture[str], logged: tuple[Path, GameLog], tmp_path: Path
) -> None:
    path, log = logged
    out_svg = tmp_path / "at.svg"
    code, out, _ = run(capsys, "show", str(path), "--at", "25", "--svg", str(out_svg))
    assert code == 0
    assert f"state after 25 of {len(log.actions)} actions" in out
    svg = out_svg.read_text()
    assert svg.startswith("<svg") and f"last action: {log.actions[24]}" in svg
    state, last, actor = state_at(log, 25)
    before = replay(log.initial_state(), log.actions[:24])
    assert state == replay(log.initial_state(), log.actions[:25])
    assert last is not None and actor == (before.current_player() if not before.is_chance else None)


def test_show_defaults_to_the_end_and_prints_text_without_svg(
    capsys: pytest.CaptureFixture[str], logged: tuple[Path, GameLog], tmp_path: Path
) -> None:
    path, log = logged
    code, out, _ = run(capsys, "show", str(path))
    assert code == 0 and "waiting for: game over: final scores" in out and "GameOver(" not in out
    k = len(log.actions)
    assert out.rstrip().splitlines()[-1].startswith(f"after {k} of {k} actions; last, by ")
    code, _, _ = run(capsys, "show", str(path), "--svg", str(tmp_path / "end.svg"))
    assert code == 0 and "game over: final scores: " in (tmp_path / "end.svg").read_text()


def test_show_at_zero_is_the_set_up_game(logged: tuple[Path, GameLog]) -> None:
    _, log = logged
    state, last, actor = state_at(log, 0)
    assert state == log.initial_state() and last is None and actor is None


@pytest.mark.parametrize("k", [-1, 10**9])
def test_show_refuses_an_impossible_k_when_parsing(
    capsys: pytest.CaptureFixture[str], logged: tuple[Path, GameLog], k: int
) -> None:
    path, _ = logged
    code, out, err = run(capsys, "show", str(path), "--at", str(k))
    assert code == 2 and out == "" and "--at: must be from 0 to" in err and "Traceback" not in err


@pytest.mark.parametrize("beyond", [1, 1000])
def test_show_rejects_k_outside_the_log(
    capsys: pytest.CaptureFixture[str], logged: tuple[Path, GameLog], beyond: int
) -> None:
    path, log = logged
    k = len(log.actions) + beyond
    code, out, err = run(capsys, "show", str(path), "--at", str(k))
    assert code == 2 and out == ""
    assert f"the log has {len(log.actions)} actions" in err and "Traceback" not in err
    with pytest.raises(ShowError):
        state_at(log, k)


def test_show_names_an_action_that_does_not_apply(
    capsys: pytest.CaptureFixture[str], logged: tuple[Path, GameLog], tmp_path: Path
) -> None:
    path, _ = logged
    raw = json.loads(path.read_text())
    raw["actions"][3] = "serve 99"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(raw))
    code, _, err = run(capsys, "show", str(bad))
    assert code == 2 and "action 4 of" in err and "'serve 99'" in err and "--at 3" in err


def test_show_reports_an_engine_crash_without_a_traceback(
    capsys: pytest.CaptureFixture[str], logged: tuple[Path, GameLog], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fuzz failure log can end in an action that crashes the engine (a bug)."""
    path, _ = logged
    real = engine_apply
    calls = {"n": 0}

    def crashing(state: GameState, action: Action) -> GameState:
        calls["n"] += 1
        if calls["n"] == 7:
            raise KeyError("injected")
        return real(state, action)

    monkeypatch.setattr(cli_pictures, "apply", crashing)
    code, _, err = run(capsys, "show", str(path))
    assert code == 2 and "action 7 of" in err and "KeyError" in err and "Traceback" not in err


def test_show_a_missing_or_malformed_log(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "show", str(tmp_path / "none.json"))
    assert code == 2 and "none.json" in err
    (tmp_path / "x.json").write_text("{}")
    code, _, err = run(capsys, "show", str(tmp_path / "x.json"))
    assert code == 2 and "x.json" in err and "game log" in err


def test_show_draws_a_saved_state_as_text_and_svg(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # `view state.json` sends the user here ("draw it with `show`"), and docs/scenario.md
    # saves a scenario with `to_json` and draws it so
    state = new_game("big-box-2023", 2, 1)
    path = tmp_path / "state.json"
    path.write_text(to_json(state), encoding="utf-8")
    code, out, err = run(capsys, "show", str(path))
    assert (code, err) == (0, "") and out == render(state) + f"\nthe saved state in {path}\n"
    svg = tmp_path / "state.svg"
    code, out, _ = run(capsys, "show", str(path), "--svg", str(svg))
    assert code == 0 and f"saved state drawn to {svg}" in out
    assert svg.read_text(encoding="utf-8") == state_svg(state)


def test_show_refuses_at_for_a_saved_state_and_names_a_broken_one(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "state.json"
    path.write_text(to_json(new_game("original-2011", 2, 0)), encoding="utf-8")
    code, out, err = run(capsys, "show", str(path), "--at", "3")
    assert code == 2 and out == ""
    said = "this is a saved state, one position and no actions; drop --at"
    assert err == f"village-rules: {path}: --at 3: {said}\n"
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "village-rules-state"}', encoding="utf-8")
    code, _, err = run(capsys, "show", str(broken))
    assert code == 2 and err.startswith(f"village-rules: {broken}: a broken saved state: state JSON at $.")
    assert "Traceback" not in err


@pytest.mark.slow  # ~15 s: a whole `village-rules check` run (fuzz, proofs, readings, viewer pages)
def test_check_prints_a_summary_and_writes_the_report(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The proofs step on a copy of 3 stored witnesses and 2 proofs: every one of them is
    # rechecked by the README's main command in CI and by tests/check/test_check_stored.py;
    # all of them here cost about 60 s on a loaded machine for the same lines of output.
    stored = tmp_path / "stored"
    stored.mkdir()
    for path in witness_files(WITNESSES)[:3] + proof_files(WITNESSES)[:2]:
        shutil.copy(path, stored / path.name)

    # the readings step likewise on 3 of the 57 divergence witnesses (and their logs)
    diverging = tmp_path / "diverging"
    diverging.mkdir()
    chosen = sorted(p for p in DIVERGENCE_DIR.glob("*.json") if not p.name.endswith(".log.json"))[:3]
    for witness in chosen:  # each witness with the logs beside it (`<stem>.<reading>.log.json`)
        for path in DIVERGENCE_DIR.glob(f"{witness.stem}.*json"):
            shutil.copy(path, diverging / path.name)

    def fewer_proofs(games: int, guided_actions: int | None) -> list[CheckStep]:
        return [
            ProofsStep(stored)
            if isinstance(s, ProofsStep)
            else DivergenceStep(diverging)
            if isinstance(s, DivergenceStep)
            else s
            for s in default_steps(games, guided_actions)
        ]

    monkeypatch.setattr(cli_pictures, "default_steps", fewer_proofs)
    out_dir = tmp_path / "rep"
    code, out, _ = run(capsys, "check", "--games", "3", "--workers", "1", "--report", str(out_dir))
    assert code == 0
    assert "[PASS] fuzz: 3 seeded games" in out and "by policy: 3 random" in out
    assert "0 violation(s)" in out
    assert "guided against uniform fuzzing, 300 actions each" in out and "guided reached" in out
    assert f"report: {out_dir / 'index.html'}" in out
    # fuzz, then the stored proof witnesses (here 3 and 2 proofs) and the divergence witnesses
    proofs = out.split("[PASS] proofs: ")[1].splitlines()[0]
    assert proofs.startswith("3 reachable verdicts replayed on the engine, 2 unreachable"), proofs
    assert "0 failed" in proofs
    assert "[PASS] readings: 3 divergence witnesses" in out
    assert "replayed under both readings: 0 failed" in out
    assert out.rstrip().splitlines()[-1].startswith("result: PASS - 3 step(s), 0 failed")
    assert (out_dir / "index.html").exists()


def test_report_of_logged_games(
    capsys: pytest.CaptureFixture[str], logged: tuple[Path, GameLog], tmp_path: Path
) -> None:
    path, _ = logged
    out_dir = tmp_path / "rep"
    code, out, _ = run(capsys, "report", str(path), "--report", str(out_dir))
    assert code == 0 and "[PASS] logs: 1 logged game(s) replayed" in out
    page = (out_dir / "index.html").read_text()
    assert "logs/0-game.svg" in page and (out_dir / "logs" / "0-game.svg").exists()


@pytest.mark.parametrize(
    ("option", "value"),
    [("--games", "0"), ("--games", "-1"), ("--workers", "0"), ("--guided-actions", "-1")],
)
def test_check_rejects_bad_numbers(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, option: str, value: str
) -> None:
    code, _, err = run(capsys, "check", option, value, "--report", str(tmp_path))
    assert code == 2 and option in err and "Traceback" not in err


def test_check_and_report_give_the_guided_budget_to_the_fuzz_step(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    given: list[object] = []

    def recorded(steps: list[object], context: object) -> CheckOutcome:
        given.append(steps[0])
        return CheckOutcome((), 0.0)

    monkeypatch.setattr(cli_pictures, "run_check", recorded)
    for k, argv in enumerate(
        (
            ["check", "--games", "2"],
            ["check", "--games", "2", "--guided-actions", "77"],
            ["report", "--games", "4", "--guided-actions", "0"],
            ["report", "--games", "4"],
        )
    ):
        assert run(capsys, *argv, "--report", str(tmp_path / str(k)))[0] == 0
    budgets = [(step.games, step.guided_actions) for step in given if isinstance(step, FuzzStep)]
    assert budgets == [(2, 2 * GUIDED_PER_GAME), (2, 77), (4, 0), (4, 4 * GUIDED_PER_GAME)]


@pytest.mark.parametrize(("option", "value"), [("--guided-actions", "10"), ("--games", "5")])
def test_report_of_logs_refuses_a_fuzz_run_option(
    capsys: pytest.CaptureFixture[str], logged: tuple[Path, GameLog], tmp_path: Path, option: str, value: str
) -> None:
    """A report of logged games plays no fuzz run: its budgets are refused, not ignored."""
    path, _ = logged
    code, _, err = run(capsys, "report", str(path), option, value, "--report", str(tmp_path / "r"))
    assert code == 2 and option in err and "logged games" in err and "Traceback" not in err
    assert not (tmp_path / "r").exists()


def test_check_interrupted_says_so_without_a_traceback(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted(*_: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_pictures, "run_check", interrupted)
    code, _, err = run(capsys, "check", "--games", "1", "--report", str(tmp_path / "r"))
    assert code == 130 and "interrupted" in err and not (tmp_path / "r" / "index.html").exists()


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ('{"format": "village-rules-log"}', "format_version"),
        ("{", "not valid JSON"),
        (None, "cannot be read"),
        ('{"format": "village-rules-state"}', "not a game log"),
    ],
)
def test_report_refuses_a_bad_log_before_writing_anything(
    capsys: pytest.CaptureFixture[str],
    logged: tuple[Path, GameLog],
    tmp_path: Path,
    content: str | None,
    says: str,
) -> None:
    """Issue 42: `report GOOD BAD --report DIR` refused BAD only in the report, yet wrote
    DIR (index.html and GOOD's log): bad input is now refused, naming the file, and nothing
    is written; an old report in DIR is left as it was."""
    good, _ = logged
    bad = tmp_path / "broken.json"
    if content is not None:
        bad.write_text(content)
    out_dir = tmp_path / "r"
    code, out, err = run(capsys, "report", str(good), str(bad), "--report", str(out_dir), "--quiet")
    assert code == 2 and err.startswith("village-rules: ") and "broken.json" in err and says in err
    assert out == "" and "Traceback" not in err
    assert not out_dir.exists() and sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["broken.json"] if content is not None else []
    )
