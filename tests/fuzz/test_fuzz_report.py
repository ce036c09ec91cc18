"""Fuzz reports (`fuzz --json`) and merging the reports of a run's shards (`fuzz-merge`):
the merge of every shard is the one-machine run; anything else is refused, naming the file
and field."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from support import loses_a_coin_at_the_market

import village_rules.fuzz.report as report_module
from village_rules.cli.main import main
from village_rules.errors import FuzzReportError, VillageError
from village_rules.fuzz.report import merge_shards, parse_report, read_report, report_json
from village_rules.fuzz.runner import FuzzSummary, Shard, run_fuzz

SEED = 2024
GAMES = 7


@pytest.fixture(scope="module")
def whole(tmp_path_factory: pytest.TempPathFactory) -> FuzzSummary:
    return run_fuzz(GAMES, SEED, 1, None, None, tmp_path_factory.mktemp("whole"))


@pytest.fixture(scope="module")
def shards(tmp_path_factory: pytest.TempPathFactory) -> list[FuzzSummary]:
    out = tmp_path_factory.mktemp("shards")
    return [run_fuzz(GAMES, SEED, 1, None, None, out, shard=Shard(k, 3)) for k in (1, 2, 3)]


def same_games(a: FuzzSummary, b: FuzzSummary) -> bool:
    return (a.records, a.rule_counts, a.decisions, a.chance_events, a.failure) == (
        b.records,
        b.rule_counts,
        b.decisions,
        b.chance_events,
        b.failure,
    )


def as_dict(summary: FuzzSummary) -> dict[str, Any]:
    raw: dict[str, Any] = json.loads(report_json(summary))
    return raw


def test_a_report_reads_back_as_the_same_summary(whole: FuzzSummary, shards: list[FuzzSummary]) -> None:
    for summary in (whole, *shards):
        again = parse_report(report_json(summary))
        assert same_games(again, summary)
        assert (again.shard, again.run_games, again.seed, again.requested) == (
            summary.shard,
            summary.run_games,
            summary.seed,
            summary.requested,
        )


def test_the_merged_shards_are_the_one_machine_run(whole: FuzzSummary, shards: list[FuzzSummary]) -> None:
    reread = [parse_report(report_json(s)) for s in shards]
    merged = merge_shards(list(reversed(reread)))  # any order
    assert same_games(merged, whole)
    assert merged.games == merged.requested == GAMES and merged.merged_from == 3
    assert merged.rules_never_fired == whole.rules_never_fired
    assert "merged from 3 shards" in merged.format() and "(summed over the shards)" in merged.format()


def test_the_merge_check_catches_a_shard_that_lost_a_game(shards: list[FuzzSummary]) -> None:
    """Without the 'games' check a report that dropped a game would merge into a short run."""
    raw = as_dict(shards[0])
    raw["games"] = raw["games"][:-1]
    with pytest.raises(FuzzReportError, match="games: must list the games of shard 1/3"):
        parse_report(json.dumps(raw), "s1.json")


@pytest.mark.parametrize(
    ("which", "says"),
    [
        ("missing", "missing shard(s) 2/3 of the run"),
        ("twice", "shard 1/3 is also in"),
        ("other seed", "seed: 2025 differs from 2024"),
        ("whole run", "is the report of a whole run"),
        ("none", "no reports to merge"),
    ],
)
def test_the_merge_refuses_reports_that_are_not_one_runs_shards(
    which: str, says: str, whole: FuzzSummary, shards: list[FuzzSummary]
) -> None:
    chosen = {
        "missing": [shards[0], shards[2]],
        "twice": [shards[0], shards[0], shards[1], shards[2]],
        "other seed": [shards[0], replace(shards[1], seed=SEED + 1), shards[2]],
        "whole run": [whole, *shards],
        "none": [],
    }[which]
    with pytest.raises(FuzzReportError, match=re.escape(says)):
        merge_shards(chosen)


def test_a_merged_run_with_a_failure_reports_the_lowest_failing_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("village_rules.fuzz.games.apply", loses_a_coin_at_the_market)
    # the plant is in the reference engine: its games are played there
    one = run_fuzz(4, 3, 1, None, None, tmp_path, engine="reference")
    parts = [run_fuzz(4, 3, 1, None, None, tmp_path, shard=Shard(k, 2), engine="reference") for k in (1, 2)]
    parts = [parse_report(report_json(p)) for p in parts]
    merged = merge_shards(parts)
    assert one.failure is not None and merged.failure is not None
    assert merged.failure.game == one.failure.game
    assert merged.failure.violations == one.failure.violations
    assert merged.failure.log_path == one.failure.log_path
    assert "FAILED game" in merged.format()


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda r: r.pop("seed"), "missing field(s) 'seed'"),
        (lambda r: r.update(extra=1), "unknown field(s) 'extra'"),
        (lambda r: r.update(format="village-rules-nothing"), "format: must be"),
        (lambda r: r.update(format="village-rules-log"), "format: not a fuzz report: this is a game log"),
        (lambda r: r.update(format_version=True), "format_version: must be the integer 1"),
        (lambda r: r.update(seed=-1), "seed: must be a whole number, 0 or more"),
        (lambda r: r.update(shard="4/3"), "shard: --shard: shard 4/3 does not exist"),
        (lambda r: r.update(seconds="fast"), "seconds: must be a number"),
        (lambda r: r.update(rule_counts={"MKT-01": 0}), "rule_counts.MKT-01: must be a whole number"),
        (lambda r: r["games"][0].__setitem__(1, "not a digest"), "games[0]: must be [game index"),
        (lambda r: r.update(edition="chess"), "edition: must be null or one of"),
        (lambda r: r.update(failure={"game": 6}), "failure: missing field"),
    ],
)
def test_a_damaged_report_is_refused_naming_the_field(
    change: Any, says: str, shards: list[FuzzSummary]
) -> None:
    raw = as_dict(shards[0])
    change(raw)
    with pytest.raises(FuzzReportError, match=re.escape(says)) as caught:
        parse_report(json.dumps(raw), "s1.json")
    assert str(caught.value).startswith("s1.json: ") and isinstance(caught.value, VillageError)


def test_unreadable_report_files_are_refused(
    tmp_path: Path, shards: list[FuzzSummary], monkeypatch: pytest.MonkeyPatch
) -> None:
    text = report_json(shards[0])
    cases = {
        "dup.json": text.replace('"seed": 2024,', '"seed": 2024, "seed": 2024,').encode(),
        "latin1.json": b"\xff\xfe{}",
        "deep.json": b"[" * 100_000 + b"]" * 100_000,
        "digits.json": b'{"seed": ' + b"9" * 5000 + b"}",
        "list.json": b"[]",
    }
    says = {
        "dup.json": "duplicate key 'seed'",
        "latin1.json": "not UTF-8 text",
        "deep.json": "nested too deeply",
        "digits.json": "not valid JSON",
        "list.json": "must be a JSON object",
    }
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
        with pytest.raises(FuzzReportError, match=says[name]):
            read_report(tmp_path / name)
    with pytest.raises(FuzzReportError, match="cannot be read"):
        read_report(tmp_path / "absent.json")
    monkeypatch.setattr(report_module, "MAX_REPORT_BYTES", 100)
    (tmp_path / "big.json").write_text(text, encoding="utf-8")
    with pytest.raises(FuzzReportError, match="larger than the limit of 100 bytes"):
        read_report(tmp_path / "big.json")


def test_an_interrupted_run_has_no_report(whole: FuzzSummary) -> None:
    with pytest.raises(FuzzReportError, match="an interrupted run has no report"):
        report_json(replace(whole, interrupted=True))


def test_fuzz_json_and_fuzz_merge_on_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], whole: FuzzSummary
) -> None:
    reports = [tmp_path / f"shard{k}.json" for k in (1, 2, 3)]
    reports[0].write_text("an old report of another run", encoding="utf-8")
    for k, path in enumerate(reports, start=1):
        argv = ["fuzz", "--games", str(GAMES), "--seed", str(SEED), "--shard", f"{k}/3", "--workers", "1"]
        assert main([*argv, "--quiet", "--json", str(path), "--out", str(tmp_path / "out")]) == 0
        assert f"report written to {path}" in capsys.readouterr().out
    assert main(["fuzz-merge", *map(str, reports)]) == 0
    out, _ = capsys.readouterr()
    assert f"games:        {GAMES} of {GAMES} (seed {SEED}, merged from 3 shards" in out
    assert "violations:   0" in out
    assert main(["fuzz-merge", str(reports[0]), str(reports[2])]) == 2
    _, err = capsys.readouterr()
    assert "missing shard(s) 2/3" in err and "Traceback" not in err
    assert not list(tmp_path.glob(".*partial"))


# --- sizes a report claims are bounded before any work ------------------------------------------


@pytest.mark.parametrize(
    ("field", "value", "says"),
    [
        ("run_games", 10**18, "run_games: must be a whole number, from 1 to 10,000,000"),
        ("shard", "1/999999999", "shard: a 7-game run has at most 7 shards, not 999999999"),
        ("workers", 10**9, "workers: must be a whole number, from 1 to 256"),
        ("backend", "\x1b[2J", "backend: must be one of process, ray"),
    ],
)
def test_a_small_report_cannot_claim_a_huge_run(
    shards: list[FuzzSummary], field: str, value: object, says: str
) -> None:
    raw = as_dict(shards[0])
    raw[field] = value
    text = json.dumps(raw)
    assert len(text) < 2048  # about 1 kB of report: it must not size any work
    with pytest.raises(FuzzReportError, match=re.escape(says)):
        parse_report(text, "r.json")


def test_a_merge_missing_most_of_a_huge_shard_count_names_a_few(shards: list[FuzzSummary]) -> None:
    many = [replace(s, shard=Shard(k, 10_000_000), run_games=10_000_000) for k, s in enumerate(shards, 1)]
    says = r"missing shard\(s\) 4/10000000, .* and 9999992 more of the run"
    with pytest.raises(FuzzReportError, match=says):
        merge_shards(many)


def test_reading_a_report_stops_at_its_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """/dev/zero never ends: the reader stops at the limit instead of running out of memory."""
    monkeypatch.setattr(report_module, "MAX_REPORT_BYTES", 1 << 20)
    with pytest.raises(FuzzReportError, match="larger than the limit of 1,048,576 bytes"):
        read_report(Path("/dev/zero"))
