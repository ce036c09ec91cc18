"""The link's regression inputs (proofs/regressions/, issue 41): every game that ever broke
a clause is replayed by the link in every gate. The two evidence games of issue 41 (a lone
turn choice `apply` settles merges two of a seat's turns) break the turn clause until
`apply` reports its sub-steps (the `events` work): they are expected to break until then,
and a strict xfail notices the day they pass (then remove their `EXPECTED_BREAKS` entries)."""

from __future__ import annotations

from pathlib import Path

import pytest

from village_rules.drivers.play import GameLog
from village_rules.proofs.guarded import TURN_TIME_CLAUSE
from village_rules.proofs.link import check_log
from village_rules.proofs.link_regressions import (
    EXPECTED_BREAKS,
    REGRESSIONS,
    check_regressions,
    keep,
    regression_logs,
)

NAMES = [name for name, _ in regression_logs()]


def test_the_folder_holds_the_evidence_games() -> None:
    evidence = {f"two-deaths-one-turn-{e}-2p.json" for e in ("big-box-2023", "original-2011")}
    assert evidence <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_every_regression_input_steps_inside_the_model(name: str, request: pytest.FixtureRequest) -> None:
    if name in EXPECTED_BREAKS:
        request.applymarker(pytest.mark.xfail(reason=EXPECTED_BREAKS[name][1], strict=True))
    log = GameLog.from_json((REGRESSIONS / name).read_text(encoding="utf-8"))
    steps, broken = check_log(log)
    assert broken is None, str(broken)
    assert steps == len(log.actions)


def test_a_known_break_is_tolerated_and_reported_and_an_unknown_one_fails(tmp_path: Path) -> None:
    result = check_regressions()
    assert result.passed, str(result)
    assert {name for name, _ in result.expected} | set(result.fixed) == set(EXPECTED_BREAKS)
    for _, step in result.expected:
        assert step.clauses == (TURN_TIME_CLAUSE,)
    # the same games with nothing expected of them: the gate fails, naming the clause
    for name, log in regression_logs():
        keep(log, name.removesuffix(".json"), tmp_path)
    strict = check_regressions(tmp_path, expected={})
    if result.expected:
        assert not strict.passed and TURN_TIME_CLAUSE in str(strict)
