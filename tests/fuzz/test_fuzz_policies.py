"""`fuzz --policy`: runs whose seats play by a policy of `village_rules.policies`, sharded
and reported as random runs are; a random run's report reads as before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from village_rules.cli.main import main
from village_rules.errors import FuzzArgumentError, FuzzReportError
from village_rules.fuzz.report import merge_shards, parse_report, report_json
from village_rules.fuzz.runner import Shard, run_fuzz


def test_a_greedy_run_plays_other_games_than_random_and_says_so(tmp_path: Path) -> None:
    greedy = run_fuzz(2, 5, 1, "original-2011", 2, tmp_path, policy="greedy")
    plain = run_fuzz(2, 5, 1, "original-2011", 2, tmp_path)
    assert greedy.violations == 0 and greedy.games == 2
    assert greedy.game_digests != plain.game_digests
    assert "every seat by the greedy policy" in greedy.format()
    assert "policy" not in plain.format()
    assert "policy" not in json.loads(report_json(plain))
    back = parse_report(report_json(greedy))
    assert back.policy == "greedy" and back.game_digests == greedy.game_digests


@pytest.mark.no_cover  # CPU-bound replays: not traced in the coverage run (tests/README.md, "Coverage")
def test_shards_of_a_policy_run_merge_and_other_policies_do_not(tmp_path: Path) -> None:
    whole = run_fuzz(2, 5, 1, "original-2011", 2, tmp_path, policy="greedy")
    shards = [
        run_fuzz(2, 5, 1, "original-2011", 2, tmp_path, shard=Shard(k, 2), policy="greedy") for k in (1, 2)
    ]
    merged = merge_shards([parse_report(report_json(s)) for s in shards])
    assert merged.game_digests == whole.game_digests and merged.policy == "greedy"
    other = run_fuzz(2, 5, 1, "original-2011", 2, tmp_path, shard=Shard(2, 2))
    with pytest.raises(FuzzReportError, match="policy"):
        merge_shards([shards[0], other])


def test_an_unknown_policy_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(FuzzArgumentError, match=r"--policy.*greedy"):
        run_fuzz(1, 0, 1, None, None, tmp_path, policy="best")
    assert main(["fuzz", "--quiet", "--games", "1", "--policy", "best", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "--policy" in err and "Traceback" not in err
    report = json.loads(report_json(run_fuzz(1, 0, 1, "original-2011", 2, tmp_path)))
    report["policy"] = "best"
    with pytest.raises(FuzzReportError, match="policy"):
        parse_report(json.dumps(report))


def test_a_mixed_run_says_so_and_its_report_reads_back(tmp_path: Path) -> None:
    mixed = run_fuzz(2, 5, 1, "original-2011", 2, tmp_path, policy="mix")
    plain = run_fuzz(2, 5, 1, "original-2011", 2, tmp_path)
    assert mixed.game_digests == plain.game_digests  # games 0 and 1 of the mix are random ones
    assert "the policies of the check mix" in mixed.format()
    back = parse_report(report_json(mixed))
    assert back.policy == "mix" and back.game_digests == mixed.game_digests
