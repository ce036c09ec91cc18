"""Guided fuzzing in segments: shards, workers and reports give the run's own result, and
`--policy`, `--reading`, `--json` work with `--guided` (issue 27)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from village_rules.cli.main import main
from village_rules.fuzz.guided import GuidedPlan, merge_segments, play_segments, run_coverage
from village_rules.fuzz.guided_report import read_guided

ED = ["--edition", "original-2011", "--players", "2"]


def test_segments_on_workers_merge_to_the_run_played_in_one_go() -> None:
    whole = run_coverage("guided", 0, 1500, "original-2011", 2, segments=3)
    plan = GuidedPlan("guided", 0, 1500, "original-2011", 2, segments=3)
    parts = play_segments(plan, [2, 0, 1], workers=2)  # any order, two processes
    merged = merge_segments([parts[k] for k in range(3)])
    assert (merged.seen, merged.curve, merged.actions) == (whole.seen, whole.curve, whole.actions)
    assert whole.curve[-1] == (whole.actions, len(whole.seen), whole.kinds("pair"))
    # the curve goes on across segments: it never falls, and ends at the run's figures
    assert all(a[0] < b[0] and a[1] <= b[1] for a, b in zip(whole.curve, whole.curve[1:], strict=False))


def test_one_segment_is_the_run_of_before() -> None:
    one = run_coverage("guided", 1, 600, "original-2011", 2)
    also = run_coverage("guided", 1, 600, "original-2011", 2, segments=1)
    assert one.seen == also.seen and one.curve == also.curve
    more = run_coverage("guided", 1, 600, "original-2011", 2, segments=2)
    assert more.seen != one.seen  # other campaigns: the segment count is part of the run


def _figures(printed: str) -> str:
    match = re.search(r"guided: (\d+) actions \(.*?\): (.*)\nviolations: +(\d+)", printed)
    assert match is not None, printed
    return f"{match[1]} {match[2]} {match[3]}"


def test_shard_reports_merge_to_the_whole_runs_figures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["fuzz", "--guided", "--actions", "900", "--segments", "3", *ED, "--out", str(tmp_path)]
    assert main([*base, "--json", str(tmp_path / "whole.json")]) == 0
    whole = _figures(capsys.readouterr().out)
    for k in (1, 2):
        assert main([*base, "--shard", f"{k}/2", "--json", str(tmp_path / f"s{k}.json")]) == 0
    shard_one = capsys.readouterr().out
    assert "shard 1/2: segments 0, 2" in shard_one
    assert main(["fuzz-merge", str(tmp_path / "s1.json"), str(tmp_path / "s2.json")]) == 0
    assert _figures(capsys.readouterr().out) == whole
    merged = read_guided(tmp_path / "whole.json").coverage()
    assert merged.curve == run_coverage("guided", 0, 900, "original-2011", 2, segments=3).curve
    # a shard's report alone, or twice, is not the run
    assert main(["fuzz-merge", str(tmp_path / "s1.json")]) == 2
    assert "miss segment(s) [1]" in capsys.readouterr().err
    assert main(["fuzz-merge", str(tmp_path / "s1.json"), str(tmp_path / "s1.json")]) == 2
    assert "in two of the reports" in capsys.readouterr().err


def test_a_shard_needs_a_segment(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["fuzz", "--guided", "--actions", "300", "--shard", "1/2", "--out", str(tmp_path)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "--segments 2 or more" in err and "Traceback" not in err


def test_a_broken_or_mixed_report_is_refused_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "g.json"
    argv = ["fuzz", "--guided", "--actions", "200", *ED, "--json", str(report), "--out", str(tmp_path)]
    assert main(argv) == 0
    raw = json.loads(report.read_text())
    raw["played"][0]["segment"] = 5
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(raw))
    capsys.readouterr()
    assert main(["fuzz-merge", str(broken)]) == 2
    assert "played[0].segment" in capsys.readouterr().err
    plain = tmp_path / "plain.json"
    assert main(["fuzz", "--games", "1", "--workers", "1", "--json", str(plain), "--out", str(tmp_path)]) == 0
    capsys.readouterr()
    assert main(["fuzz-merge", str(report), str(plain)]) == 2
    assert "is not a guided report" in capsys.readouterr().err


@pytest.mark.no_cover  # CPU-bound replays: not traced in the coverage run (tests/README.md, "Coverage")
def test_guided_play_by_a_policy_and_under_a_fixed_reading(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # MKT-10 fires only under AMB-06 b: fixed to a, never; fixed to b, it fires
    under_a = run_coverage("uniform", 0, 800, "big-box-2023", 2, readings=(("AMB-06", "a"),))
    under_b = run_coverage("uniform", 0, 800, "big-box-2023", 2, readings=(("AMB-06", "b"),))
    assert ("rule", "MKT-10") not in under_a.seen and ("rule", "MKT-10") in under_b.seen
    report = tmp_path / "greedy.json"
    argv = ["fuzz", "--guided", "--actions", "100", *ED, "--policy", "greedy", "--reading", "AMB-06=b"]
    assert main([*argv, "--json", str(report), "--out", str(tmp_path)]) == 0
    assert "policy greedy" in capsys.readouterr().out
    greedy = read_guided(report)
    assert greedy.plan.policy == "greedy" and greedy.plan.readings == (("AMB-06", "b"),)
    by_random = run_coverage("guided", 0, 100, "original-2011", 2, readings=(("AMB-06", "b"),))
    assert greedy.coverage().seen != by_random.seen  # the seats played otherwise
