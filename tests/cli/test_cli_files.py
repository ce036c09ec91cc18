"""File names and folders through the command (issue 42): long non-ASCII names, symbolic
link loops as inputs and outputs, a deleted working folder. Each was exit 70 or a message
naming nothing before."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from village_rules.cli.main import main
from village_rules.drivers.play import play_logged


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


@pytest.fixture
def log_file(tmp_path: Path) -> Path:
    path = tmp_path / "game.json"
    path.write_text(play_logged("big-box-2023", 2, seed=3)[1].to_json(), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "argv",
    [
        ("view", "LOOP"),
        ("show", "LOOP"),
        ("replay", "LOOP"),
        ("view", "LOG", "--out", "LOOP"),
        ("show", "LOG", "--svg", "LOOP"),
        ("report", "LOG", "--report", "LOOP"),
    ],
)
def test_a_symlink_loop_as_input_or_output_is_bad_input(
    argv: tuple[str, ...], capsys: pytest.CaptureFixture[str], tmp_path: Path, log_file: Path
) -> None:
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    args = [str(loop) if a == "LOOP" else str(log_file) if a == "LOG" else a for a in argv]
    code, _, err = run(capsys, *args)
    assert code in (0, 2), err  # was 70: RuntimeError("Symlink loop") from Path.resolve
    if code == 2:
        assert str(loop) in err and ("loop of symbolic links" in err or "symbolic link" in err)
    else:  # a file output replaces the link itself (docs/input-guarantees.md, Writing files)
        assert loop.is_file() and not loop.is_symlink()


def test_a_long_non_ascii_log_name_is_written(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    target = tmp_path / ("村" * 83 + ".json")  # 254 bytes: the file system accepts it
    code, _, err = run(capsys, "play", "--players", "2", "--log", str(target))
    assert code == 0, err
    assert target.is_file() and [p.name for p in tmp_path.iterdir()] == [target.name]


def test_a_deleted_working_folder_is_named(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    code, _, err = run(capsys, "play", "--players", "2", "--log", "game.json")
    assert code == 2
    # was "cannot read or write a file: there is no such file or folder"
    assert "working folder" in err and str(gone) in err
    assert os.path.isdir(tmp_path)
