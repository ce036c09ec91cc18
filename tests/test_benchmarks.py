"""The benchmark scripts run (their figures are printed, never asserted: speed varies by
machine and load). The python-chess side needs the `bench` extra."""

from __future__ import annotations

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
        [sys.executable, str(BENCHMARKS / "bench_checks.py"), "--games", "2"],
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
