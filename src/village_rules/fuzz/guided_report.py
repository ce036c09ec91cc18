"""Guided-fuzz reports: the segments a guided (or uniform) run or shard played, as a JSON
file (`village-rules fuzz --guided --json`), and the merge of a run's shard reports into
the run's coverage (`village-rules fuzz-merge`), equal to the run played in one go.

A report holds each segment's raw coverage (every feature, its count and when it was
first seen; the segment's curve; its violation and failing log), so merging is
`guided.merge_segments` over the segments in index order. Reading checks every field and
refuses anything else with a `FuzzReportError` naming the file and the field.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from village_rules.checks.invariants import Violation
from village_rules.data.jsonio import JsonInputError, is_version, read_json, read_text_file
from village_rules.errors import FuzzArgumentError, FuzzReportError, VillageError
from village_rules.fuzz.guided import Coverage, Feature, GuidedPlan, merge_segments
from village_rules.fuzz.runner import Shard

GUIDED_FORMAT = "village-rules-guided-report"
GUIDED_FORMAT_VERSION = 1
MAX_GUIDED_BYTES = 256 * 1024 * 1024
MAX_GUIDED_ACTIONS = 100_000_000
"""The most actions a guided run plays (`fuzz --guided --actions`), and a report may claim."""
MAX_SEGMENTS = 100_000
"""The most segments a guided run has (`fuzz --guided --segments`), and a report may claim:
before, a 1 kB report claiming 10^9 segments built sets of every index until the memory
ran out."""


@dataclass(frozen=True, slots=True)
class GuidedRun:
    """A guided run or one shard of it: the plan, the shard, and the segments it played."""

    plan: GuidedPlan
    shard: Shard | None
    segments: dict[int, Coverage]

    def coverage(self) -> Coverage:
        """The segments merged in index order (the whole run's coverage for a whole run)."""
        return merge_segments([self.segments[k] for k in sorted(self.segments)])


def segment_indices(plan: GuidedPlan, shard: Shard | None) -> range:
    """The segments a shard plays (all of them without one; `check_shard` refuses a shard
    with none)."""
    return range(plan.segments) if shard is None else shard.indices(plan.segments)


def check_shard(plan: GuidedPlan, shard: Shard | None) -> None:
    """Refuse shards that outnumber the run's segments (some would have none), naming both
    options."""
    if shard is not None and shard.count > plan.segments:
        raise FuzzArgumentError(
            "--shard",
            f"a guided run of {plan.segments} segment(s) is not split into {shard.count} shards: "
            f"give --segments {shard.count} or more (segments are what shards deal out)",
        )


def guided_json(run: GuidedRun) -> str:
    """The report of a finished guided run or shard."""
    p = run.plan
    raw = {
        "format": GUIDED_FORMAT,
        "format_version": GUIDED_FORMAT_VERSION,
        "mode": p.mode,
        "seed": p.seed,
        "actions": p.actions,
        "edition": p.edition,
        "players": p.players,
        "segments": p.segments,
        "policy": p.policy,
        "readings": None if p.readings is None else [list(pair) for pair in p.readings],
        "shard": None if run.shard is None else str(run.shard),
        "played": [_segment(k, run.segments[k]) for k in sorted(run.segments)],
    }
    return json.dumps(raw, indent=1) + "\n"


def _segment(k: int, cov: Coverage) -> dict[str, object]:
    return {
        "segment": k,
        "actions": cov.actions,
        "features": [[cov.seen[f], cov.first[f], *f] for f in sorted(cov.seen)],
        "curve": [list(point) for point in cov.curve],
        "violations": [[v.invariant, v.component, v.expected, v.actual] for v in cov.violations],
        "failing_actions": list(cov.failing_actions),
        "failing_log": cov.failing_log,
    }


def is_guided_report(path: Path) -> bool:
    """True when the file starts as a guided report does (cheap: the format key only)."""
    try:
        with path.open(encoding="utf-8") as f:
            head = f.read(200)
    except (OSError, UnicodeDecodeError):
        return False
    return GUIDED_FORMAT in head


def read_guided(path: Path) -> GuidedRun:
    """A guided report file; FuzzReportError naming the file and field if it is not one."""
    name = str(path)
    try:
        text = read_text_file(path, MAX_GUIDED_BYTES, "guided fuzz report")
        raw = read_json(text, MAX_GUIDED_BYTES, "guided fuzz report")
    except JsonInputError as exc:
        raise FuzzReportError(name, "", exc.problem) from None
    except OSError as exc:
        raise FuzzReportError(name, "", f"cannot be read: {exc.strerror or exc}") from None
    if not isinstance(raw, dict) or raw.get("format") != GUIDED_FORMAT:
        raise FuzzReportError(name, "format", f"must be {GUIDED_FORMAT!r}")
    try:
        return _parse(raw, name)
    except FuzzReportError:  # a ValueError too: already names the file and the field
        raise
    except (KeyError, TypeError, ValueError) as exc:
        problem = f"is not a complete guided report ({type(exc).__name__}: {exc})"
        raise FuzzReportError(name, "", problem) from None


def _parse(raw: dict[str, object], name: str) -> GuidedRun:
    if not is_version(raw.get("format_version"), GUIDED_FORMAT_VERSION):
        raise FuzzReportError(name, "format_version", f"must be the integer {GUIDED_FORMAT_VERSION}")
    readings = raw["readings"]
    try:
        plan = GuidedPlan(
            mode=str(raw["mode"]),
            seed=_int(raw["seed"]),
            actions=_int(raw["actions"]),
            edition=None if raw["edition"] is None else str(raw["edition"]),
            players=None if raw["players"] is None else _int(raw["players"]),
            segments=_int(raw["segments"]),
            policy=str(raw["policy"]),
            readings=None if readings is None else tuple(_pair(x) for x in _list(readings)),
        )
        shard = None if raw["shard"] is None else Shard.parse(str(raw["shard"]))
    except VillageError as exc:
        raise FuzzReportError(name, "", f"holds a run no fuzz command plays: {exc}") from None
    for field, value, most in (
        ("segments", plan.segments, MAX_SEGMENTS),
        ("actions", plan.actions, MAX_GUIDED_ACTIONS),
    ):
        if not 1 <= value <= most:  # claimed sizes are checked before anything is built from them
            raise FuzzReportError(name, field, f"must be from 1 to {most:,}, not {value:,}")
    played = _list(raw["played"])
    expected = len(segment_indices(plan, shard))
    if len(played) != expected:
        raise FuzzReportError(name, "played", f"holds {len(played):,} segment(s), its shard has {expected:,}")
    segments: dict[int, Coverage] = {}
    for k, item in enumerate(played):
        if not isinstance(item, dict):
            raise FuzzReportError(name, f"played[{k}]", "must be an object")
        index = _int(item["segment"])
        if index not in segment_indices(plan, shard) or index in segments:
            problem = f"{index} is not a segment of this shard, once"
            raise FuzzReportError(name, f"played[{k}].segment", problem)
        segments[index] = _coverage(item)
    if set(segments) != set(segment_indices(plan, shard)):
        raise FuzzReportError(name, "played", "does not hold every segment of its shard")
    return GuidedRun(plan, shard, segments)


def _coverage(item: dict[str, object]) -> Coverage:
    cov = Coverage()
    cov.actions = _int(item["actions"])
    for entry in _list(item["features"]):
        count, when, *feature = _list(entry)
        f: Feature = tuple(str(x) for x in feature)
        cov.seen[f] = _int(count)
        cov.first[f] = _int(when)
    cov.curve = [(_int(a), _int(b), _int(c)) for a, b, c in (_list(p) for p in _list(item["curve"]))]
    cov.violations = tuple(Violation(*(str(x) for x in _list(v))) for v in _list(item["violations"]))
    cov.failing_actions = tuple(str(a) for a in _list(item["failing_actions"]))
    log = item["failing_log"]
    cov.failing_log = None if log is None else str(log)
    return cov


def _pair(value: object) -> tuple[str, str]:
    amb, letter = _list(value)
    return str(amb), str(letter)


def _int(value: object) -> int:
    if type(value) is not int:
        raise ValueError(f"{value!r} is not a whole number")
    return value


def _list(value: object) -> list[object]:
    if not isinstance(value, list):
        raise TypeError(f"{value!r} is not a list")
    return value


def merge_guided(runs: Sequence[GuidedRun], names: Sequence[str]) -> Coverage:
    """The coverage of a whole run from the reports of all its shards; FuzzReportError when
    they are not the shards of one run, each once."""
    first = runs[0]
    segments: dict[int, Coverage] = {}
    for run, name in zip(runs, names, strict=True):
        if run.plan != first.plan:
            problem = f"is a shard of another run than {names[0]} (mode, seed, actions, segments...)"
            raise FuzzReportError(name, "", problem)
        for k, cov in run.segments.items():
            if k in segments:
                raise FuzzReportError(name, "played", f"segment {k} is in two of the reports")
            segments[k] = cov
    missing = sorted(set(range(first.plan.segments)) - set(segments))
    if missing:
        problem = f"the reports miss segment(s) {missing}: give every shard's report"
        raise FuzzReportError(names[0], "", problem)
    return merge_segments([segments[k] for k in sorted(segments)])
