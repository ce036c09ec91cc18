"""Refusals before the work, not after it (issue 42): a malformed table in `prove --out`'s
folder, and `explore solo --z3`. The work is replaced by a function that fails the test if
it is reached, so the tests show the order, not the time."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from village_rules.cli import explore as cli_explore
from village_rules.cli import prove as cli_prove
from village_rules.cli.main import main
from village_rules.proofs.table.table import to_json


def _work_started(*args: object, **kwargs: object) -> object:
    raise AssertionError("the work started before the refusal")


def test_prove_out_refuses_a_malformed_table_before_any_row(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "witnesses"
    out.mkdir()
    raw = json.loads(to_json([]))
    raw["rows"] = [{"query": "shared-win"}]
    (out / "results.json").write_text(json.dumps(raw), encoding="utf-8")
    monkeypatch.setattr(cli_prove, "open_gate", _work_started)  # the first thing the rows do
    argv = ["prove", "shared-win", "--edition", "original-2011", "--players", "2", "--out", str(out)]
    code = main(argv)
    err = capsys.readouterr().err
    # was: every row proved, then an error naming the staging folder, since removed
    assert code == 2, err
    assert f"{out / 'results.json'}: rows[0]" in err and ".partial" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["witnesses"]


def test_explore_solo_z3_is_refused_before_exploring(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cli_explore, "explore_parallel", _work_started)
    monkeypatch.setattr(cli_explore, "explore", _work_started)
    code = main(["explore", "solo", "--players", "1", "--z3", "--quiet"])
    err = capsys.readouterr().err
    assert code == 2, err  # was: the whole space explored, then exit 2
    assert "--z3" in err and "Carla" in err
