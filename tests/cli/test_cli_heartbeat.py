"""Issue 42: a long command whose stderr is not a terminal (a pipe, a CI log) was silent for
minutes, so a log could not tell a slow run from a hung one. It now writes a heartbeat, a
line at least every 30 s saying how far it got, unless `--quiet`. The clock and the period
are parameters: these tests count lines against a clock of their own, never seconds."""

from __future__ import annotations

import io
import re
import shutil
from pathlib import Path

import pytest

from village_rules.check.steps import CheckContext, DivergenceStep, ProofsStep, run_check
from village_rules.cli import progress
from village_rules.cli.main import main
from village_rules.cli.progress import HEARTBEAT_SECONDS, Heartbeat, progress_bar
from village_rules.proofs.table.stored import WITNESSES
from village_rules.readings.stored import WITNESSES as DIVERGENCE_WITNESSES


class Clock:
    """A clock the test moves."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_line_is_written_once_the_period_has_gone_and_says_how_far() -> None:
    clock, stream = Clock(), io.StringIO()
    beat = Heartbeat(stream, "games", period=30, clock=clock)
    for t, done in [(0, 1), (10, 2), (29, 3)]:
        clock.now = 1000.0 + t
        beat.update(done, 10, "fuzz")
    assert stream.getvalue() == ""  # not yet 30 s
    clock.now = 1030.0
    beat.update(4, 10, "fuzz", "seed 0")
    assert stream.getvalue() == "village-rules progress: fuzz: 4 of 10 games (seed 0), 30 s so far\n"
    clock.now = 1059.0
    beat.update(5, 10, "fuzz")
    assert stream.getvalue().count("\n") == 1
    clock.now = 1060.0
    beat.update(6, None, "explore")
    assert stream.getvalue().splitlines()[-1] == "village-rules progress: explore: 6 games, 60 s so far"


def test_the_timer_repeats_the_count_when_the_work_is_silent() -> None:
    """A hung command repeats its count: the timer's beats come whatever the work does."""

    class Ticks:
        """The timer's wait, answered at once: `n` periods go by, then stop."""

        def __init__(self, n: int) -> None:
            self.left = n

        def wait(self, timeout: float) -> bool:
            assert timeout == 30
            self.left -= 1
            return self.left < 0

    clock, stream = Clock(), io.StringIO()
    beat = Heartbeat(stream, "rows", period=30, clock=clock)
    beat._stop = Ticks(0)  # type: ignore[assignment]
    beat._run()
    assert stream.getvalue() == ""  # nothing to say before the first update
    beat.update(2, 7, "prove", "6a mass-four-monks")
    beat._stop = Ticks(3)  # type: ignore[assignment]
    beat._run()
    assert (
        stream.getvalue().splitlines()
        == ["village-rules progress: prove: 2 of 7 rows (6a mass-four-monks), 0 s so far"] * 3
    )


def test_a_terminal_gets_the_bar_and_quiet_gets_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    assert not progress_bar(True, "games").shown
    monkeypatch.setenv("TTY_INTERACTIVE", "0")  # rich's own switch: not a terminal
    with progress_bar(False, "games") as bar:
        assert bar.shown and bar._heartbeat is not None and bar._heartbeat.period == HEARTBEAT_SECONDS == 30
    assert bar._heartbeat is None  # stopped with the command


FUZZ = ["fuzz", "--games", "3", "--seed", "4", "--workers", "1"]


def test_a_piped_fuzz_run_says_how_far_it_got(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """stderr here is not a terminal; a period of 0 makes every update due (the timer thread,
    tested above, is left out so the lines are exactly the updates)."""
    monkeypatch.setattr(progress, "HEARTBEAT_SECONDS", 0.0)
    monkeypatch.setattr(Heartbeat, "start", lambda self: None)
    assert main([*FUZZ, "--out", str(tmp_path / "f")]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err and all(
        re.fullmatch(r"village-rules progress: fuzz: [0-3] of 3 games, \d+ s so far", line) for line in err
    )
    assert err[-1].startswith("village-rules progress: fuzz: 3 of 3 games")
    assert main([*FUZZ, "--out", str(tmp_path / "f"), "--quiet"]) == 0
    assert capsys.readouterr().err == ""


def test_stdout_is_flushed_before_each_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """In a log of both streams (`check > log 2>&1`, as CI keeps it) a heartbeat line must fall
    between the command's lines, not inside a block of buffered stdout."""
    events: list[str] = []

    class Recorder(io.StringIO):
        def __init__(self, name: str) -> None:
            super().__init__()
            self.name = name

        def write(self, text: str) -> int:
            events.append(f"{self.name} write")
            return super().write(text)

        def flush(self) -> None:
            events.append(f"{self.name} flush")

    monkeypatch.setattr("sys.stdout", Recorder("stdout"))
    clock = Clock()
    beat = Heartbeat(Recorder("stderr"), "games", period=30, clock=clock)
    clock.now += 30
    beat.update(1, 2, "fuzz")
    assert events[0] == "stdout flush" and events[1] == "stderr write"


def test_every_check_step_says_how_far_it_got(tmp_path: Path) -> None:
    """A `check` run once repeated "guided vs uniform: 2 of 2" for minutes while it replayed
    the stored proofs: the proofs and the divergence witnesses report their own progress."""
    proofs, readings = tmp_path / "proofs", tmp_path / "readings"
    proofs.mkdir()
    readings.mkdir()
    for name in (
        "6a-mass-four-monks-original-2011-2p.json",
        "5-two-deaths-one-turn-big-box-2023-3p.proof.json",
    ):
        shutil.copy(WITNESSES / name, proofs / name)
    for p in DIVERGENCE_WITNESSES.glob("AMB-36-big-box-2023-a-b*.json"):
        shutil.copy(p, readings / p.name)
    seen: list[tuple[str, int, int]] = []
    context = CheckContext(
        tmp_path / "out", progress=lambda what, done, total: seen.append((what, done, total))
    )
    outcome = run_check([ProofsStep(proofs), DivergenceStep(readings)], context)
    assert outcome.passed
    assert seen == [
        ("stored proof files", 1, 2),
        ("stored proof files", 2, 2),
        ("divergence witnesses", 0, 1),
    ]
