"""The link's regression inputs (proofs/regressions/, issue 41): every game that ever broke
a clause is replayed by the link in every gate. The two evidence games of issue 41 (a lone
turn choice `apply` settles merged two of a seat's turns) broke the turn clause until
`apply` reported its sub-steps (`engine.events`): they were expected to break until then,
and a strict xfail noticed the day they passed (their `EXPECTED_BREAKS` entries are gone)."""

from __future__ import annotations

from pathlib import Path

import pytest

from village_rules.drivers.play import GameLog
from village_rules.proofs.link import regressions
from village_rules.proofs.link.link import BrokenStep, check_log
from village_rules.proofs.link.regressions import (
    EXPECTED_BREAKS,
    REGRESSIONS,
    check_regressions,
    keep,
    regression_logs,
)
from village_rules.proofs.model.guarded import TURN_TIME_CLAUSE

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


def test_a_known_break_is_tolerated_and_reported_and_an_unknown_one_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert check_regressions().passed  # every stored game steps inside the model today
    for name, log in regression_logs():
        keep(log, name.removesuffix(".json"), tmp_path)
    first = NAMES[0]
    planted = BrokenStep("big-box-2023", 2, 0, "log", 3, "harvest", (TURN_TIME_CLAUSE,))
    real = check_log

    def breaks_first(log: GameLog) -> tuple[int, BrokenStep | None]:
        n, step = real(log)
        return (n, planted) if log == regression_logs(tmp_path)[0][1] else (n, step)

    monkeypatch.setattr(regressions, "check_log", breaks_first)
    known = {first: (TURN_TIME_CLAUSE, "planted")}
    tolerated = check_regressions(tmp_path, expected=known)
    assert tolerated.passed and [n for n, _ in tolerated.expected] == [first]
    assert "break as expected until fixed" in str(tolerated)
    strict = check_regressions(tmp_path, expected={})
    assert not strict.passed and TURN_TIME_CLAUSE in str(strict) and first in str(strict)
    monkeypatch.setattr(regressions, "check_log", real, raising=False)
    fixed = check_regressions(tmp_path, expected=known)
    assert fixed.passed and fixed.fixed == (first,)
