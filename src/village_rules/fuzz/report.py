"""Fuzz reports: a finished run's summary as a JSON file (`village-rules fuzz --json`), and
the merge of the reports of a run's shards into the summary of the whole run
(`village-rules fuzz-merge`), so a run split over CI machines is judged as one run: its
games, its rule coverage, its first failure.

A report is written only for a finished run, atomically (see `fuzz.write_atomically`),
so a report file is always a complete one. Reading one checks every field and refuses
anything else with a `FuzzReportError` naming the file and the field.
"""

from __future__ import annotations

import itertools
import json
import math
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from village_rules.checks.invariants import Violation
from village_rules.data.jsonio import JsonInputError, is_version, read_json, read_text_file
from village_rules.data.loader import EDITIONS
from village_rules.drivers.artefacts import artefact_kind
from village_rules.errors import FuzzReportError, ReadingError, VillageError
from village_rules.fuzz.engines import ENGINES, REFERENCE
from village_rules.fuzz.games import RUN_POLICIES, plan_game
from village_rules.fuzz.runner import BACKENDS, MAX_GAMES, MAX_WORKERS, FuzzFailure, FuzzSummary, Shard
from village_rules.rules.register import normalise

REPORT_FORMAT = "village-rules-fuzz-report"
REPORT_FORMAT_VERSION = 1
MAX_REPORT_BYTES = 512 * 1024 * 1024
"""A report holds about 80 bytes per game: this is room for the largest run (10M games)."""

_KEYS = frozenset(
    {
        "format",
        "format_version",
        "seed",
        "run_games",
        "shard",
        "edition",
        "players",
        "readings",
        "workers",
        "backend",
        "seconds",
        "decisions",
        "chance_events",
        "rule_counts",
        "games",
        "failure",
    }
)
_FAILURE_KEYS = frozenset({"game", "violations", "log", "actions"})


def report_json(summary: FuzzSummary) -> str:
    """The report of a finished run (a shard's or a whole run's)."""
    if summary.interrupted:
        raise FuzzReportError("--json", "", "an interrupted run has no report: it did not finish")
    failure = summary.failure
    raw: dict[str, object] = {
        "format": REPORT_FORMAT,
        "format_version": REPORT_FORMAT_VERSION,
        "seed": summary.seed,
        "run_games": summary.run_games,
        "shard": None if summary.shard is None else str(summary.shard),
        "edition": summary.edition,
        "players": summary.players,
        "readings": None if summary.readings is None else [list(pair) for pair in summary.readings],
        # Only for a run by another policy than random, so random runs' reports read as before.
        **({} if summary.policy == "random" else {"policy": summary.policy}),
        "workers": summary.workers,
        "backend": summary.backend,
        "engine": summary.engine,
        "seconds": round(summary.seconds, 3),
        "decisions": summary.decisions,
        "chance_events": summary.chance_events,
        "rule_counts": dict(summary.rule_counts),
        "games": [[i, d] for i, d in summary.records],
        "failure": None
        if failure is None
        else {
            "game": failure.game.index,
            "violations": [[v.invariant, v.component, v.expected, v.actual] for v in failure.violations],
            "log": str(failure.log_path),
            "actions": failure.actions,
        },
    }
    return json.dumps(raw, indent=1) + "\n"


def read_report(path: Path) -> FuzzSummary:
    """The summary a report file holds; FuzzReportError naming the file and field if it is
    not a complete, consistent report."""
    name = str(path)
    try:
        text = read_text_file(path, MAX_REPORT_BYTES, "fuzz report")
    except JsonInputError as exc:
        raise FuzzReportError(name, "", exc.problem) from None
    except OSError as exc:
        raise FuzzReportError(name, "", f"cannot be read: {exc.strerror or exc}") from None
    return parse_report(text, name)


def parse_report(text: str, name: str = "fuzz report") -> FuzzSummary:
    """`read_report` of a text; `name` is used in error messages."""
    try:
        raw: object = read_json(text, MAX_REPORT_BYTES, "fuzz report")
    except JsonInputError as exc:
        raise FuzzReportError(name, "", exc.problem) from None
    kind = artefact_kind(raw, REPORT_FORMAT) if isinstance(raw, dict) else None
    if kind is not None:  # another village-rules file: say which, not its "unknown fields"
        raise FuzzReportError(name, "format", f"not a fuzz report: this is {kind}")
    # "policy" is written only for a run by another policy than random (`report_json`), and a
    # report from before the native engine has no "engine".
    optional = {k for k in ("policy", "engine") if isinstance(raw, dict) and k in raw}
    r = _Fields(name, raw, _KEYS | optional, "")
    if r.get("format") != REPORT_FORMAT:
        raise FuzzReportError(name, "format", f"must be {REPORT_FORMAT!r}")
    if not is_version(r.get("format_version"), REPORT_FORMAT_VERSION):
        raise FuzzReportError(name, "format_version", f"must be the integer {REPORT_FORMAT_VERSION}")
    seed = r.integer("seed", 0)
    run_games = r.integer("run_games", 1, MAX_GAMES)
    shard_text = r.get("shard")
    shard = None
    if shard_text is not None:
        if not isinstance(shard_text, str):
            raise FuzzReportError(name, "shard", "must be null or 'K/N'")
        shard = _shard(name, shard_text)
        if shard.count > run_games:
            raise FuzzReportError(
                name, "shard", f"a {run_games}-game run has at most {run_games} shards, not {shard.count}"
            )
    edition = r.get("edition")
    if edition is not None and (not isinstance(edition, str) or edition not in EDITIONS):
        raise FuzzReportError(name, "edition", f"must be null or one of {', '.join(EDITIONS)}")
    players = None if r.get("players") is None else r.integer("players", 1)
    readings = _readings(name, r.get("readings"))
    policy = r.raw.get("policy", "random")
    if not isinstance(policy, str) or policy not in RUN_POLICIES:
        raise FuzzReportError(name, "policy", f"must be one of {', '.join(RUN_POLICIES)}")
    backend = r.get("backend")
    if not isinstance(backend, str) or backend not in BACKENDS:
        raise FuzzReportError(name, "backend", f"must be one of {', '.join(BACKENDS)}")
    engine = r.raw.get("engine", REFERENCE)  # reports from before the native engine: the reference's
    if not isinstance(engine, str) or not engine or not set(engine.split("+")) <= set(ENGINES):
        allowed = f"must be one of {', '.join(ENGINES)} (merged shards: joined by '+')"
        raise FuzzReportError(name, "engine", allowed)
    seconds = r.get("seconds")
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or not 0 <= seconds < math.inf:
        raise FuzzReportError(name, "seconds", "must be a number of seconds, 0 or more")
    rule_counts = _rule_counts(name, r.get("rule_counts"))
    records = _records(name, r.get("games"))
    planned = range(run_games) if shard is None else shard.indices(run_games)
    failure = _failure(
        name, r.get("failure"), records, seed=seed, edition=edition, players=players, readings=readings,
        policy=policy,
    )
    expected = planned  # a range: never built as a list, whatever the report claims
    if failure is not None:
        expected = (
            planned[: planned.index(failure.game.index) + 1] if failure.game.index in planned else range(0)
        )
    if len(records) != len(expected) or any(i != e for (i, _), e in zip(records, expected, strict=True)):
        raise FuzzReportError(
            name,
            "games",
            "must list the games of "
            + (f"shard {shard}" if shard else "the run")
            + " in order, each once (up to the first failing one)",
        )
    return FuzzSummary(
        seed=seed,
        requested=len(planned),
        workers=r.integer("workers", 1, MAX_WORKERS),
        games=len(records),
        decisions=r.integer("decisions", 0),
        chance_events=r.integer("chance_events", 0),
        seconds=float(seconds),
        rule_counts=rule_counts,
        game_digests=tuple(d for _, d in records),
        failure=failure,
        game_indices=tuple(i for i, _ in records),
        shard=shard,
        run_games=run_games,
        backend=backend,
        edition=edition,
        players=players,
        readings=readings,
        policy=policy,
        engine=engine,
    )


def merge_shards(shards: Sequence[FuzzSummary], names: Sequence[str] | None = None) -> FuzzSummary:
    """The summary of a whole run from the summaries of all its shards (any order): every
    game once, the rule counts added up, the failing game with the lowest index as the
    run's failure. Refuses (FuzzReportError) summaries of different runs, a shard twice,
    a missing shard, or a report of a whole run. With a failure the merged run covers the
    games every shard played, so more than a one-machine run (which stops at the first)."""
    labels = list(names) if names is not None else [f"report {k + 1}" for k in range(len(shards))]
    if not shards:
        raise FuzzReportError("fuzz-merge", "", "no reports to merge")
    first = shards[0]
    for label, s in zip(labels, shards, strict=True):
        if s.shard is None:
            raise FuzzReportError(label, "shard", "is the report of a whole run, not of a shard")
        for key, mine, theirs in (
            ("seed", s.seed, first.seed),
            ("run_games", s.run_games, first.run_games),
            ("edition", s.edition, first.edition),
            ("players", s.players, first.players),
            ("readings", s.readings, first.readings),
            ("policy", s.policy, first.policy),
            ("shard", s.shard.count, first.shard.count if first.shard else None),
        ):
            if mine != theirs:
                problem = f"{mine!r} differs from {theirs!r} of {labels[0]}: not a shard of the same run"
                raise FuzzReportError(label, key, problem)
    count = shards[0].shard.count if shards[0].shard else 0
    seen: dict[int, str] = {}
    for label, s in zip(labels, shards, strict=True):
        if s.shard is None:
            raise FuzzReportError(label, "shard", "is null: not a shard of a run")
        if s.shard.index in seen:
            raise FuzzReportError(label, "shard", f"shard {s.shard} is also in {seen[s.shard.index]}")
        seen[s.shard.index] = label
    if len(seen) != count:  # count the missing shards; name only the first few
        absent = (k for k in range(1, count + 1) if k not in seen)
        missing = [f"{k}/{count}" for k in itertools.islice(absent, 5)]
        more = f" and {count - len(seen) - len(missing)} more" if count - len(seen) > len(missing) else ""
        raise FuzzReportError(
            "fuzz-merge",
            "shard",
            f"missing shard(s) {', '.join(missing)}{more} of the run",
        )
    records = sorted(r for s in shards for r in s.records)
    rules: Counter[str] = Counter()
    for s in shards:
        rules.update(dict(s.rule_counts))
    failures = [s.failure for s in shards if s.failure is not None]
    return FuzzSummary(
        seed=first.seed,
        requested=first.run_games,
        workers=sum(s.workers for s in shards),
        games=len(records),
        decisions=sum(s.decisions for s in shards),
        chance_events=sum(s.chance_events for s in shards),
        seconds=sum(s.seconds for s in shards),
        rule_counts=tuple(sorted(rules.items())),
        game_digests=tuple(d for _, d in records),
        failure=min(failures, key=lambda f: f.game.index) if failures else None,
        game_indices=tuple(i for i, _ in records),
        run_games=first.run_games,
        backend="+".join(sorted({s.backend for s in shards})),
        engine="+".join(sorted({e for s in shards for e in s.engine.split("+")})),
        edition=first.edition,
        players=first.players,
        policy=first.policy,
        readings=first.readings,
        merged_from=len(shards),
    )


# --- reading fields -----------------------------------------------------------------------


class _Fields:
    """A JSON object's fields, read with errors naming the file and key."""

    def __init__(self, file: str, raw: object, keys: frozenset[str], where: str) -> None:
        if not isinstance(raw, dict):
            raise FuzzReportError(file, where, "must be a JSON object")
        unknown = sorted(set(raw) - keys)
        if unknown:
            raise FuzzReportError(file, where, f"unknown field(s) {', '.join(map(repr, unknown))}")
        missing = sorted(keys - set(raw))
        if missing:
            raise FuzzReportError(file, where, f"missing field(s) {', '.join(map(repr, missing))}")
        self.file = file
        self.raw: dict[str, object] = raw
        self.where = where

    def get(self, key: str) -> object:
        return self.raw[key]

    def integer(self, key: str, least: int, most: int | None = None) -> int:
        value = self.raw[key]
        if type(value) is not int or value < least or (most is not None and value > most):
            bounds = f"{least} or more" if most is None else f"from {least} to {most:,}"
            raise FuzzReportError(self.file, self._key(key), f"must be a whole number, {bounds}")
        return value

    def _key(self, key: str) -> str:
        return f"{self.where}.{key}" if self.where else key


def _shard(file: str, text: str) -> Shard:
    try:
        return Shard.parse(text)
    except ValueError as exc:
        raise FuzzReportError(file, "shard", str(exc)) from None


def _rule_counts(file: str, raw: object) -> tuple[tuple[str, int], ...]:
    if not isinstance(raw, dict):
        raise FuzzReportError(file, "rule_counts", "must be an object of rule ID to count")
    for rule, n in raw.items():
        if type(n) is not int or n < 1:
            raise FuzzReportError(file, f"rule_counts.{rule}", "must be a whole number, 1 or more")
    return tuple(sorted(raw.items()))


def _records(file: str, raw: object) -> list[tuple[int, str]]:
    if not isinstance(raw, list):
        raise FuzzReportError(file, "games", "must be a list of [game index, digest]")
    out: list[tuple[int, str]] = []
    for k, item in enumerate(raw):
        if (
            not isinstance(item, list)
            or len(item) != 2
            or type(item[0]) is not int
            or not isinstance(item[1], str)
            or len(item[1]) != 64
            or any(c not in "0123456789abcdef" for c in item[1])
        ):
            raise FuzzReportError(file, f"games[{k}]", "must be [game index, SHA-256 hex digest]")
        out.append((item[0], item[1]))
    return out


def _readings(file: str, raw: object) -> tuple[tuple[str, str], ...] | None:
    """The run's fixed readings: null, or a list of [AMB ID, letter] pairs of the register."""
    if raw is None:
        return None
    if not isinstance(raw, list) or not all(
        isinstance(p, list) and len(p) == 2 and all(isinstance(x, str) for x in p) for p in raw
    ):
        raise FuzzReportError(file, "readings", "must be null or a list of [AMB ID, letter] pairs")
    try:
        return normalise(tuple((p[0], p[1]) for p in raw))
    except ReadingError as exc:
        raise FuzzReportError(file, "readings", str(exc)) from None


def _failure(
    file: str,
    raw: object,
    records: list[tuple[int, str]],
    *,
    seed: int,
    edition: str | None,
    players: int | None,
    readings: tuple[tuple[str, str], ...] | None,
    policy: str = "random",
) -> FuzzFailure | None:
    if raw is None:
        return None
    r = _Fields(file, raw, _FAILURE_KEYS, "failure")
    index = r.integer("game", 0)
    if not records or records[-1][0] != index:
        raise FuzzReportError(file, "failure.game", "must be the last game listed in 'games'")
    violations = r.get("violations")
    if not isinstance(violations, list) or not violations:
        raise FuzzReportError(file, "failure.violations", "must be a non-empty list")
    found: list[Violation] = []
    for k, v in enumerate(violations):
        if not isinstance(v, list) or len(v) != 4 or not all(isinstance(x, str) for x in v):
            raise FuzzReportError(
                file, f"failure.violations[{k}]", "must be [invariant, component, expected, actual]"
            )
        found.append(Violation(v[0], v[1], v[2], v[3]))
    log = r.get("log")
    if not isinstance(log, str) or not log:
        raise FuzzReportError(file, "failure.log", "must be the path of the failing game's log")
    try:
        game = plan_game(seed, index, edition, players, readings, policy)
    except (IndexError, ValueError, VillageError):  # a player count no edition has
        raise FuzzReportError(file, "players", f"no edition is for {players} players") from None
    return FuzzFailure(game, tuple(found), Path(log), r.integer("actions", 1))
