"""Issue 26, the command line: writes that cannot lose data, nothing raw on the terminal,
options checked when parsed, logs bound to their data, encodings that cannot crash."""

from __future__ import annotations

import json
import random
import sys
import xml.etree.ElementTree as ET
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from support import run_with_file_limit

from village_rules.cli import main as cli_main
from village_rules.cli.main import main
from village_rules.data.loader import load_edition
from village_rules.drivers.play import GameLog, play, play_logged, random_policy
from village_rules.engine.setup import new_game
from village_rules.errors import LogFormatError
from village_rules.model.actions import format_action

COMMAND = [sys.executable, "-c", "import sys; from village_rules.cli.main import main; sys.exit(main())"]
HOSTILE = "\x1b]0;pwned\x07\x1b[2J\u202e"
"""Retitle the window, clear the screen, reverse the text that follows."""


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def shipped(edition: str = "original-2011") -> dict[str, Any]:
    raw: dict[str, Any] = json.loads(
        resources.files("village_rules").joinpath(f"data/{edition}.json").read_text("utf-8")
    )
    return raw


def data_file(tmp_path: Path, file: str = "board.json", **changes: Any) -> Path:
    raw = shipped()
    raw.update(changes)
    path = tmp_path / file
    path.write_text(json.dumps(raw), encoding="utf-8")
    return path


def log_on(path: Path, steps: int = 40, seed: int = 4) -> GameLog:
    """A log of `steps` random actions on the data file `path` (3 players)."""
    data = load_edition(path)
    state = new_game(data, 3, seed)
    _, actions = play(state, [random_policy] * 3, random.Random(seed), max_steps=steps)
    texts = tuple(format_action(a) for a in actions)
    return GameLog(data.edition, 3, seed, texts, data_file=str(path), data_fingerprint=data.fingerprint)


def raw_escapes(text: str) -> bool:
    return any(c in text for c in "\x1b\x07\u202e")


# --- writes -----------------------------------------------------------------------------------


def test_play_log_on_a_full_disk_keeps_the_old_log(tmp_path: Path) -> None:
    old = tmp_path / "old.json"
    _, log = play_logged("big-box-2023", 3, 1)
    old.write_text(log.to_json(), encoding="utf-8")
    assert old.stat().st_size > 8192  # a whole game's log is larger than the cap
    before = old.read_bytes()
    argv = [*COMMAND, "play", "--seed", "2", "--log", str(old)]
    done = run_with_file_limit(argv, 8192)
    assert done.returncode == 2, done.stderr
    assert str(old) in done.stderr and "unchanged" in done.stderr and "Traceback" not in done.stderr
    assert old.read_bytes() == before and GameLog.from_json(before.decode()) == log
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.json"]


def test_show_refuses_to_draw_over_its_own_log(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    _, log = play_logged("big-box-2023", 2, 1)
    path = tmp_path / "game.json"
    path.write_text(log.to_json(), encoding="utf-8")
    code, out, err = run(capsys, "show", str(path), "--svg", str(tmp_path / "." / "game.json"))
    assert code == 2 and "is also an input" in err and out == ""
    assert GameLog.from_json(path.read_text(encoding="utf-8")) == log


def test_report_refuses_a_folder_that_holds_its_input(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    _, log = play_logged("big-box-2023", 2, 1)
    folder = tmp_path / "village-report"
    folder.mkdir()
    path = folder / "game.json"
    path.write_text(log.to_json(), encoding="utf-8")
    code, _, err = run(capsys, "report", str(path), "--report", str(folder), "--quiet")
    assert code == 2 and "holds an input" in err and path.exists()


def test_a_failed_report_rerun_replaces_the_old_pass(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    _, log = play_logged("big-box-2023", 2, 1)
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text(log.to_json(), encoding="utf-8")
    bad.write_text(
        GameLog(log.edition, log.players, log.seed, (*log.actions[:30], "mill")).to_json(), encoding="utf-8"
    )  # a log that reads but whose 31st action does not apply: a finding, not bad input
    report = tmp_path / "report"
    assert run(capsys, "report", str(good), "--report", str(report), "--quiet")[0] == 0
    assert "verdict pass" in (report / "index.html").read_text(encoding="utf-8")
    code, out, _ = run(capsys, "report", str(bad), "--report", str(report), "--quiet")
    assert code == 1 and "bad.json" in out
    page = (report / "index.html").read_text(encoding="utf-8")
    assert "verdict fail" in page and "bad.json" in page
    assert not (report / "logs" / "0-good.json").exists()  # nothing of the old report is mixed in


def test_fuzz_json_into_an_unwritable_path_fails_before_any_game(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    code, out, err = run(
        capsys, "fuzz", "--games", "50", "--workers", "1", "--quiet", "--json", str(blocker / "r.json")
    )
    assert code == 2 and "is not a folder" in err and out == ""  # no game was played (no summary)


def test_fuzz_json_does_not_follow_a_planted_symlink(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    victim = tmp_path / "unrelated.txt"
    victim.write_text("precious", encoding="utf-8")
    report = tmp_path / "report.json"
    for pid in range(1, 4096):  # every pid the old guessable name could use
        (tmp_path / f".{report.name}.{pid}.partial").symlink_to(victim)
    code, _, _ = run(
        capsys,
        "fuzz",
        "--games",
        "2",
        "--workers",
        "1",
        "--quiet",
        "--json",
        str(report),
        "--out",
        str(tmp_path / "f"),
    )
    assert code == 0 and victim.read_text(encoding="utf-8") == "precious"
    assert json.loads(report.read_text(encoding="utf-8"))["format"] == "village-rules-fuzz-report"


# --- nothing raw on the terminal, in SVG, HTML or plots ------------------------------------------


def test_names_from_a_data_file_reach_the_terminal_escaped(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = data_file(tmp_path, name=f"My board {HOSTILE}", edition=f"mine{HOSTILE}")
    code, out, err = run(capsys, "setup", "--data", str(path))
    assert code == 0 and not raw_escapes(out + err)
    assert "My board \\x1b]0;pwned\\x07\\x1b[2J\\u202e" in out


def test_the_escape_check_catches_raw_output(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Without the guard (the command's body called directly) the sequences do reach the terminal."""
    path = data_file(tmp_path, name=f"My board {HOSTILE}")
    assert cli_main._main(["setup", "--data", str(path)]) == 0
    assert raw_escapes(capsys.readouterr().out)


def test_a_file_name_in_an_error_is_escaped(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "replay", str(tmp_path / f"{HOSTILE}.json"))
    assert code == 2 and "\\x1b" in err and not raw_escapes(err)


def test_a_fuzz_report_backend_must_be_a_backend(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    report = tmp_path / "r.json"
    assert (
        run(
            capsys,
            "fuzz",
            "--games",
            "2",
            "--workers",
            "1",
            "--quiet",
            "--shard",
            "1/1",
            "--json",
            str(report),
        )[0]
        == 0
    )
    raw = json.loads(report.read_text(encoding="utf-8"))
    raw["backend"] = HOSTILE
    report.write_text(json.dumps(raw), encoding="utf-8")
    code, out, err = run(capsys, "fuzz-merge", str(report))
    assert code == 2 and "backend: must be one of process, ray" in err and not raw_escapes(out + err)


def test_control_characters_in_names_keep_the_svg_well_formed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = data_file(tmp_path, name=f"board \x01\x08{HOSTILE} <&>")
    log = tmp_path / "game.json"
    log.write_text(log_on(path).to_json(), encoding="utf-8")
    svg = tmp_path / "state.svg"
    assert run(capsys, "show", str(log), "--svg", str(svg))[0] == 0
    tree = ET.fromstring(svg.read_text(encoding="utf-8"))  # malformed XML raises here
    assert any("board \\x01\\x08" in (e.text or "") for e in tree.iter())


def test_report_links_survive_hash_and_question_mark_in_a_name(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    _, log = play_logged("big-box-2023", 2, 1)
    path = tmp_path / "a#b?c%d.json"
    path.write_text(log.to_json(), encoding="utf-8")
    report = tmp_path / "report"
    assert run(capsys, "report", str(path), "--report", str(report), "--quiet")[0] == 0
    page = (report / "index.html").read_text(encoding="utf-8")
    assert 'href="logs/0-a%23b%3Fc%25d.json"' in page and (report / "logs" / "0-a#b?c%d.json").is_file()


def test_a_dollar_edition_does_not_crash_the_plots(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    pytest.importorskip("matplotlib")
    path = data_file(tmp_path, edition="$x^$ \\frac{")
    log = tmp_path / "game.json"
    log.write_text(log_on(path).to_json(), encoding="utf-8")
    report = tmp_path / "report"
    code, out, err = run(capsys, "report", str(log), "--report", str(report), "--quiet")
    assert code == 0, out + err
    assert any(report.glob("*-length.svg"))


# --- options checked when parsed --------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["prove", "lasso", "--bound", "100000"], "--bound: must be from 1 to 20"),
        (["prove", "lasso", "--seconds", "1"], "--seconds: no longer taken: the witness search's budget"),
        (["prove", "lasso", "--games", "0"], "--games: must be from 1 to"),
        (["prove", "lasso", "--games", "nan"], "--games: 'nan' is not a whole number"),
        (["prove", "lasso", "--rlimit", "0"], "--rlimit: must be from 1 to"),
        (["diverge", "AMB-26", "--examples", "-3"], "--examples: must be from 1 to 100,000"),
        (["play", "--seed", "1" * 121], "--seed: a seed has at most 100 digits"),
        (["fuzz", "--games", "9" * 5000], "--games: must be from 1 to 10,000,000"),
        (["show", "x.json", "--at", "-1"], "--at: must be from 0"),
    ],
)
def test_options_are_refused_when_parsed(
    capsys: pytest.CaptureFixture[str], argv: list[str], says: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2 and says in err and out == "" and "Traceback" not in err


def test_diverge_refuses_an_unknown_reading_letter_with_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "diverge", "AMB-26", "--readings", "a,q", "--examples", "1")
    assert code == 2 and "has no reading 'q'" in err and out == ""


def test_a_seed_of_more_than_100_digits_is_refused_by_new_game() -> None:
    with pytest.raises(ValueError, match="at most 100 digits"):
        new_game("big-box-2023", 2, 10**100)
    new_game("big-box-2023", 2, 10**100 - 1)  # the largest seed a log can hold


# --- encodings --------------------------------------------------------------------------------


def test_a_lone_surrogate_in_a_data_file_is_a_data_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "board.json"
    raw = json.dumps(shipped()).replace('"name": "', '"name": "\\ud800', 1)
    path.write_text(raw, encoding="utf-8")
    code, _, err = run(capsys, "setup", "--data", str(path))
    assert code == 2 and "lone surrogate" in err and str(path) in err


@pytest.mark.parametrize("path", ["board\x00.json", "\x1b[2J.json"])
def test_a_log_with_a_control_character_in_its_data_file_path_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, path: str
) -> None:
    raw = json.loads(GameLog("big-box-2023", 2, 1, ()).to_json())
    raw["data_file"] = path
    log = tmp_path / "game.json"
    log.write_text(json.dumps(raw), encoding="utf-8")
    code, _, err = run(capsys, "replay", str(log))
    assert code == 2 and "without control characters" in err and not raw_escapes(err)


def test_load_edition_refuses_a_nul_in_the_path() -> None:
    with pytest.raises(ValueError, match="not a usable file path") as caught:
        load_edition("board\x00.json")
    assert type(caught.value).__name__ == "DataError"


# --- a log is bound to its data -------------------------------------------------------------


def test_replay_refuses_a_data_file_changed_since(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = data_file(tmp_path)
    log = tmp_path / "game.json"
    log.write_text(log_on(path).to_json(), encoding="utf-8")
    assert run(capsys, "replay", str(log))[0] == 0
    raw = json.loads(path.read_text(encoding="utf-8"))
    raw["customers"][0]["value"]["points"] += 3  # the board was edited after the game
    path.write_text(json.dumps(raw), encoding="utf-8")
    code, _, err = run(capsys, "replay", str(log))
    assert code == 2 and "data_fingerprint" in err and "the data changed since" in err and str(path) in err


def test_a_log_whose_edition_contradicts_its_data_file_is_refused(tmp_path: Path) -> None:
    path = data_file(tmp_path)
    log = log_on(path)
    forged = GameLog.from_json(
        log.to_json().replace('"edition": "original-2011"', '"edition": "big-box-2023"')
    )
    with pytest.raises(LogFormatError, match="'edition' is 'big-box-2023', but the data file"):
        forged.initial_state()


def test_a_log_on_a_data_file_without_a_fingerprint_is_refused(tmp_path: Path) -> None:
    path = data_file(tmp_path)
    raw = json.loads(log_on(path).to_json())
    del raw["data_fingerprint"]
    with pytest.raises(LogFormatError, match="'data_fingerprint' is missing"):
        GameLog.from_json(json.dumps(raw)).initial_state()


def test_an_old_log_on_the_shipped_data_still_replays(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    _, log = play_logged("big-box-2023", 2, 1)
    raw = json.loads(log.to_json())
    assert raw["data_fingerprint"] == load_edition_fingerprint("big-box-2023")
    del raw["data_fingerprint"]  # as written before the field existed
    path = tmp_path / "old.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    assert run(capsys, "replay", str(path))[0] == 0


def load_edition_fingerprint(edition: str) -> str:
    from village_rules.data.loader import builtin_edition  # noqa: PLC0415

    return builtin_edition(edition).fingerprint


def test_a_log_of_another_shipped_data_version_is_refused(tmp_path: Path) -> None:
    raw = json.loads(GameLog("big-box-2023", 2, 1, ()).to_json())
    raw["data_fingerprint"] = "0" * 64
    with pytest.raises(LogFormatError, match="the shipped data of big-box-2023 is now"):
        GameLog.from_json(json.dumps(raw)).initial_state()


# --- reads are bounded ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "exit_code"),
    [(["show", "/dev/zero"], 2), (["replay", "/dev/zero"], 2), (["report", "/dev/zero", "--quiet"], 2)],
)
def test_reading_an_endless_file_stops_at_the_limit(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str], exit_code: int
) -> None:
    """`show /dev/zero` ran out of memory: every read stops at its limit (a report refuses
    the file before writing anything)."""
    extra = ["--report", str(tmp_path / "r")] if argv[0] == "report" else []
    code, out, err = run(capsys, *argv, *extra)
    assert code == exit_code and "Traceback" not in err
    assert "/dev/zero" in out + err and "larger than the limit of 4,000,000 bytes" in out + err
