"""The `view` command: a page for a witness, and a clear refusal (exit 2, no page) for a
file that is not a game log or witness."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from village_rules.cli.main import main
from village_rules.readings.stored import WITNESSES as DIVERGENCE_WITNESSES

WITNESS = DIVERGENCE_WITNESSES / "AMB-36-big-box-2023-a-b.json"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_view_writes_the_page_and_says_what_is_highlighted(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    page = tmp_path / "w.html"
    code, out, err = run(capsys, "view", str(WITNESS), "--out", str(page))
    assert code == 0 and err == ""
    assert out.startswith("divergence witness, 19 actions: page written to ")
    assert "step 19 highlighted: readings AMB-36 a/b part here" in out
    assert page.read_text().startswith("<!DOCTYPE html>")


def test_view_defaults_to_the_logs_name_in_the_current_folder(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, _ = run(capsys, "view", str(WITNESS))
    assert code == 0 and (tmp_path / "AMB-36-big-box-2023-a-b.html").is_file()


def test_view_refuses_a_fuzz_report_without_a_traceback(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    report = tmp_path / "fuzz.json"
    report.write_text(json.dumps({"format": "village-rules-fuzz-report", "games": 3}))
    code, out, err = run(capsys, "view", str(report), "--out", str(tmp_path / "x.html"))
    assert code == 2 and out == ""
    assert "this is a fuzz report" in err and "Traceback" not in err
    assert not (tmp_path / "x.html").exists()


def test_view_will_not_overwrite_its_input(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    log = tmp_path / "w.json"
    log.write_text(WITNESS.read_text())
    code, _, err = run(capsys, "view", str(log), "--out", str(log))
    assert code == 2 and "refusing to overwrite" in err
    assert log.read_text() == WITNESS.read_text()
