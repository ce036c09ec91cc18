"""`village-rules explore --engine native` (issue 39 item 2, issue 40): the native loop from
the command line, with the Python explorer's words, its scope line and `--expect`; what the
loop does not do yet is refused before the work, naming the options."""

from __future__ import annotations

import pytest

from village_rules.cli.main import main


def test_the_native_engine_explores_tiny_and_matches_its_pins(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explore", "tiny", "--engine", "native", "--workers", "2", "--expect", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "breadth first, natively on 2 thread(s)" in out
    assert "scope       verdicts about tiny only, not the whole original-2011 game" in out
    assert "states      10,175 distinct" in out
    assert "shortest    chronicle in 8 actions, chronicle and graveyard in 8 actions" in out
    assert "every state invariant at 10,175 states, every transition invariant on 11,369 edges" in out
    assert "queries     not decided: the native loop has no query yet" in out
    assert "expect      matches the pinned figures" in out


def test_the_native_engine_counts_without_checks_when_asked(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explore", "solo", "--engine", "native", "--no-check", "--expect", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "checks      not checked (--no-check)" in out
    assert "expect      matches the pinned figures" in out


@pytest.mark.parametrize(
    ("extra", "named"),
    [
        (["--shape"], "--shape"),
        (["--z3", "--query", "1a"], "--z3, --query"),
        (["--checkpoint", "run.ckpt"], "--checkpoint"),
        (["--workers", "65"], "at most 64 threads (--workers), not 65"),
    ],
)
def test_what_the_native_loop_does_not_do_is_refused_before_the_work(
    extra: list[str], named: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["explore", "tiny", "--engine", "native", "--quiet", *extra]) == 2
    captured = capsys.readouterr()
    assert named in captured.err
    assert "explore --engine native" in captured.err
    assert captured.out == ""  # nothing explored
