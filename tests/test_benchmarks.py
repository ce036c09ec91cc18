"""The benchmark scripts run (their figures are printed, never asserted: speed varies by
machine and load). The python-chess side needs the `bench` extra."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def test_bench_vs_chess_prints_every_figure() -> None:
    pytest.importorskip("chess")
    out = subprocess.run(
        [sys.executable, str(BENCHMARKS / "bench_vs_chess.py"), "--rounds", "1", "--seconds", "0.2"],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    ).stdout
    for figure in (
        "median ratio village/chess:",
        "invariant-checked / bare:",
        "clone (copy.deepcopy)",
        "pickled state",
        "memory per held state (big-box-2023",
        "memory per held state (original-2011",
    ):
        assert figure in out, out


def test_bench_checks_prints_every_figure() -> None:
    out = subprocess.run(
        [
            sys.executable,
            str(BENCHMARKS / "bench_checks.py"),
            *("--games", "2", "--loop-games", "1", "--rounds", "1"),
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    ).stdout
    for figure in (
        "apply (replaying the step)",
        "cube_violations",
        "every check but the oracle",
        "the oracle",
        "in the playout loop",
        "+ spotting and the chance check",
        "+ IncrementalChecker, no oracle",
        "a ratio of 0.8 allows",
    ):
        assert figure in out, out


@pytest.mark.slow
def test_bench_compiled_checker_compares_both_checkers() -> None:
    """The script compiles a copy of the checker with mypyc (the dev extra's) and measures
    it against the interpreted one; each probe reports which checker it imported."""
    if shutil.which("cc") is None and shutil.which("gcc") is None:
        pytest.skip("no C compiler: mypyc cannot build the checker")
    out = subprocess.run(
        [sys.executable, str(BENCHMARKS / "bench_compiled_checker.py"), "--rounds", "1", "--games", "2"],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    ).stdout
    for figure in (
        "compiled with mypyc: invariants.py, incremental.py",
        "median invariant-checked / bare, interpreted checker:",
        "median invariant-checked / bare, compiled checker:",
    ):
        assert figure in out, out


def test_bench_paired_prints_every_figure() -> None:
    """Against this very tree: the script runs both sides and prints the comparison."""
    src = BENCHMARKS.parent / "src"
    out = subprocess.run(
        [
            sys.executable,
            str(BENCHMARKS / "bench_paired.py"),
            "--against",
            str(src),
            "--rounds",
            "1",
            "--games",
            "1",
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    ).stdout
    for figure in ("median other:", "median  this:", "this / other (bare):", "load average after:"):
        assert figure in out, out


@pytest.mark.parametrize(
    ("script", "args", "message"),
    [
        ("bench_checks.py", ["--rounds", "0"], "argument --rounds: must be 1 or more, not 0"),
        ("bench_checks.py", ["--loop-games", "x"], "argument --loop-games: 'x' is not a whole number"),
        ("bench_checks.py", ["--players", "7"], "argument --players: invalid choice: 7"),
        ("bench_compiled_checker.py", ["--games", "0"], "argument --games: must be 1 or more, not 0"),
    ],
)
def test_a_bad_count_is_a_usage_error_before_any_work(script: str, args: list[str], message: str) -> None:
    """A count the loop cannot use is refused by name (exit 2, argparse's usage line), not a
    traceback from the median of no rounds, and before anything is timed or compiled."""
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / script), *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 2, done
    assert message in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert done.stdout == "", done.stdout
