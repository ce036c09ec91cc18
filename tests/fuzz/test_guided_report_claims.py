"""A guided fuzz report cannot make its reader build what it claims (issue 42): a 1 kB
report claiming 10^9 segments is refused by the claim, before any set of indices is
built; a version is the integer 1, not 1.0 or true."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from village_rules.errors import FuzzReportError
from village_rules.fuzz import guided_report
from village_rules.fuzz.guided import GuidedPlan, play_segments
from village_rules.fuzz.guided_report import GuidedRun, guided_json, read_guided
from village_rules.proofs.errors import ProveArgumentError
from village_rules.proofs.table.table import read_table, to_json


@pytest.fixture(scope="module")
def report_text() -> str:
    plan = GuidedPlan("guided", 0, 60, "original-2011", 2, segments=1)
    return guided_json(GuidedRun(plan, None, play_segments(plan, [0], workers=1)))


def _write(tmp_path: Path, text: str, **changes: object) -> Path:
    raw = json.loads(text)
    raw.update(changes)
    path = tmp_path / "g.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    return path


def test_a_report_as_written_is_read(report_text: str, tmp_path: Path) -> None:
    assert read_guided(_write(tmp_path, report_text)).plan.segments == 1


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"segments": 10**9, "actions": 10**9}, "segments"),
        ({"actions": 10**18}, "actions"),
        ({"segments": 0}, "segments"),
    ],
)
def test_a_claimed_size_beyond_what_a_run_can_have_is_refused(
    changes: dict[str, object], field: str, report_text: str, tmp_path: Path
) -> None:
    with pytest.raises(FuzzReportError, match=f"{field}: must be from 1 to"):
        read_guided(_write(tmp_path, report_text, **changes))


def test_the_claim_check_is_what_stops_a_huge_segment_count(
    report_text: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the limit taken out, a report of 10^9 segments goes on to build a set of every
    index (here counted, not built): the bug the limit is for."""
    monkeypatch.setattr(guided_report, "MAX_SEGMENTS", 10**12)
    monkeypatch.setattr(guided_report, "MAX_GUIDED_ACTIONS", 10**12)
    built: list[int] = []

    def counting(plan: GuidedPlan, shard: object) -> range:
        built.append(plan.segments)
        return range(1)  # what the real one would have given is a range of 10^9

    monkeypatch.setattr(guided_report, "segment_indices", counting)
    read_guided(_write(tmp_path, report_text, segments=10**9, actions=10**9))  # accepted
    assert 10**9 in built


def test_the_played_list_must_hold_as_many_segments_as_the_shard(report_text: str, tmp_path: Path) -> None:
    with pytest.raises(FuzzReportError, match=r"played: holds 1 segment\(s\), its shard has 3"):
        read_guided(_write(tmp_path, report_text, segments=3))


@pytest.mark.parametrize("version", [1.0, True, "1", 2])
def test_the_format_version_is_the_integer_1(version: object, report_text: str, tmp_path: Path) -> None:
    with pytest.raises(FuzzReportError, match="format_version: must be the integer 1"):
        read_guided(_write(tmp_path, report_text, format_version=version))


# --- the same version check in every stored format's reader (data.jsonio.is_version) -------


@pytest.mark.parametrize("version", [1.0, True])
def test_a_prove_table_version_is_the_integer_1(version: object, tmp_path: Path) -> None:
    raw = json.loads(to_json([]))
    raw["version"] = version
    path = tmp_path / "results.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    with pytest.raises(ProveArgumentError, match="version: must be the integer 1"):
        read_table(path)  # 1.0 and true were read as 1
