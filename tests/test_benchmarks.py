"""The benchmark scripts run (their figures are printed, never asserted: speed varies by
machine and load). The python-chess side needs the `bench` extra."""

from __future__ import annotations

import importlib
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest
from support import ROOT, TINY_STATES

BENCHMARKS = ROOT / "benchmarks"


def bench_output(script: str, *args: str, timeout: int = 300) -> str:
    """What `benchmarks/<script> args` prints, run in a child Python (a non-zero exit fails)."""
    return subprocess.run(
        [sys.executable, str(BENCHMARKS / script), *args],
        capture_output=True,
        text=True,
        check=True,
        timeout=timeout,
    ).stdout


def test_bench_vs_chess_prints_every_figure() -> None:
    pytest.importorskip("chess")
    out = bench_output("bench_vs_chess.py", "--rounds", "1", "--seconds", "0.2")
    for figure in (
        "median ratio village/chess:",
        "invariant-checked / bare:",
        "clone (copy.deepcopy)",
        "pickled state",
        "memory per held state (big-box-2023",
        "memory per held state (original-2011",
    ):
        assert figure in out, out


@pytest.mark.no_cover  # CPU-bound replays: not traced in the coverage run (tests/README.md, "Coverage")
def test_bench_explore_prints_the_explorer_beside_the_playouts() -> None:
    out = bench_output("bench_explore.py", "--config", "tiny", "--games", "2")
    assert "configuration tiny (original-2011, 2 player(s))" in out
    states = f"{TINY_STATES:,}"
    assert re.search(r"every invariant checked +" + states + r" states +[\d,]+ states/CPU s", out), out
    assert re.search(r"no invariants +" + states + " states", out), out
    assert "bytes/state (seen-set)" in out
    assert re.search(r"random playouts, original-2011 2p +[\d,]+ steps/s \(the anchor\)", out), out


def test_bench_explore_prints_the_native_loop_beside_the_python_explorer() -> None:
    pytest.importorskip("village_rules.native", reason="the native core is not built (optional extension)")
    out = bench_output("bench_explore.py", "--native", "--config", "tiny")
    states = f"{TINY_STATES:,}"
    for side in ("native, 1 thr", "native, 2 thr", "checked, 1 thr", "checked, 2 thr", "Python, 1 proc"):
        assert re.search(side + " +" + states + r" states .* states/wall s .* states/CPU s", out), out
    for threads in (1, 2):
        tied = f"native, {threads} thread(s): counts tied; "
        assert re.search(re.escape(tied) + r"[\d,.]+x the Python explorer per wall second", out), out
        checked = f"native, {threads} thread(s), every state and transition invariant checked: "
        assert f"{checked}{states} states" in out and "0 violations" in out, out
    assert "counts: {'roots': 2, 'states': 10175" in out, out


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


@pytest.mark.by_hand  # CI leaves it out (tests/README.md, "By hand")
@pytest.mark.slow
@pytest.mark.parametrize(
    ("options", "figures"),
    [
        (
            [],
            (
                "compiled with mypyc: checks/invariants.py, checks/incremental.py (the engine",
                "compiled checker:",
            ),
        ),
    ],
)
def test_bench_compiled_checker_compares_the_compiled_copy(
    options: list[str], figures: tuple[str, ...]
) -> None:
    """The script compiles a copy of the checker (with `--with-engine`, of the engine too)
    with mypyc (the dev extra's) and measures it against the interpreted package; each
    probe reports what it imported and the copy must play the very same games."""
    if shutil.which("cc") is None and shutil.which("gcc") is None:
        pytest.skip("no C compiler: mypyc cannot build the copy")
    script = str(BENCHMARKS / "bench_compiled_checker.py")
    out = subprocess.run(
        [sys.executable, script, "--rounds", "1", "--games", "2", *options],
        capture_output=True,
        text=True,
        check=True,
        timeout=900,
    ).stdout
    for figure in (
        *figures,
        "both played the same 2 seeded games in every round",
        "median invariant-checked / bare, interpreted checker:",
    ):
        assert figure in out, out


def _compiled_bench(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    return importlib.import_module("bench_compiled_checker")


Probe = Callable[[Path | None, int, int], tuple[bool, bool, str, float, float]]


def _with_probes(bench: ModuleType, probe: Probe, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`bench.main()` will run `--rounds 1 --with-engine` with no build and `probe` for
    the probes (its path None for the interpreted package)."""
    monkeypatch.setattr(bench, "compile_copy", lambda target, with_engine=False: tmp_path)
    monkeypatch.setattr(bench, "probe", probe)
    monkeypatch.setattr(sys, "argv", ["bench_compiled_checker.py", "--rounds", "1", "--with-engine"])


def test_the_compile_patches_apply_to_this_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every adaptation the compiled copy needs still finds its text in this tree's
    sources (an edit that moves one away fails here, not as a build that is silently
    unpatched), and the adapted modules are valid Python without a slotted dataclass."""
    bench = _compiled_bench(monkeypatch)
    package = tmp_path / "village_rules"
    shutil.copytree(bench.PACKAGE, package)
    bench._patch(package, bench.PATCHES + bench.ENGINE_PATCHES)
    for name, _, replacement, _ in bench.PATCHES + bench.ENGINE_PATCHES:
        patched = (package / name).read_text(encoding="utf-8")
        assert replacement in patched, name
        assert patched != (bench.PACKAGE / name).read_text(encoding="utf-8"), name
    modules = bench._sources(package, bench.COMPILED + bench.ENGINE)
    assert len(modules) > len(bench.COMPILED + bench.ENGINE)  # the engine/*.py pattern matched
    for path in modules:
        source = bench.SLOTS.sub("", path.read_text(encoding="utf-8"))
        assert re.search(r"@dataclass\([^)]*slots=True", source) is None, path
        compile(source, str(path), "exec")


def test_a_patch_whose_text_is_gone_is_refused_by_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bench = _compiled_bench(monkeypatch)
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "tally.py").write_text("class Tally:\n    pass\n", encoding="utf-8")
    with pytest.raises(SystemExit, match=r"tally\.py: .* not found: update this script"):
        bench._patch(tmp_path, bench.ENGINE_PATCHES[:1])


@pytest.mark.parametrize(
    ("reported", "message"),
    [
        ((False, False, "other"), "the compiled package played other games than the interpreted one"),
        ((False, True, "same"), "the compiled run imported another package than"),  # engine interpreted
        ((True, False, "same"), "the compiled run imported another package than"),  # checker interpreted
    ],
)
def test_a_compiled_copy_is_timed_only_when_it_is_what_it_claims(
    reported: tuple[bool, bool, str],
    message: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """With the build and the probes replaced: a compiled copy that plays other games, or
    whose probe imported an interpreted checker or engine, is refused instead of timed."""
    bench = _compiled_bench(monkeypatch)

    def probe(path: Path | None, games: int, players: int) -> tuple[bool, bool, str, float, float]:
        if path is None:
            return True, True, "same", 18.0, 30.0
        return (*reported, 15.0, 20.0)

    _with_probes(bench, probe, tmp_path, monkeypatch)
    with pytest.raises(SystemExit, match=message):
        bench.main()
    assert "median invariant-checked" not in capsys.readouterr().out


def test_a_probe_that_fails_is_reported_with_its_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A copy that cannot even be imported ends the run with the probe's own error text
    (a usage-level message), not a CalledProcessError traceback of this script."""
    bench = _compiled_bench(monkeypatch)
    (tmp_path / "village_rules").mkdir()
    (tmp_path / "village_rules" / "__init__.py").write_text("raise ImportError('broken copy')\n")
    with pytest.raises(SystemExit, match=r"(?s)the probe of .* failed \(exit 1\):.*broken copy"):
        bench.probe(tmp_path, 1, 2)


def test_a_compiled_copy_that_plays_the_same_games_is_timed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = _compiled_bench(monkeypatch)

    def probe(path: Path | None, games: int, players: int) -> tuple[bool, bool, str, float, float]:
        return (True, True, "d" * 64, 18.0, 30.0) if path is None else (False, False, "d" * 64, 15.0, 18.0)

    _with_probes(bench, probe, tmp_path, monkeypatch)
    assert bench.main() == 0
    out = capsys.readouterr().out
    assert "median invariant-checked / bare, interpreted checker: 0.60" in out, out
    assert "median invariant-checked / bare, compiled checker and engine: 0.83" in out, out


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


@pytest.mark.by_hand  # CI leaves it out (tests/README.md, "By hand")
@pytest.mark.slow
def test_bench_policies_prints_every_target() -> None:
    out = bench_output("bench_policies.py", "--games", "1", "--simulations", "20", timeout=600)
    for edition in ("big-box-2023", "original-2011"):
        for target in (
            "chronicle planner's games ending by a full chronicle",
            "traveller's mean travel score",
            "climber's mean council chamber + church score",
            "search (20 simulations/decision budget",
        ):
            assert f"TARGET {edition}: {target}" in out, out
    assert re.search(r"beat greedy in \d+ of 1", out), out


def test_bench_observation_prints_both_tensors_per_call_and_per_step() -> None:
    pytest.importorskip("numpy")
    out = bench_output("bench_observation.py", "1", "1")
    rows = [line for line in out.splitlines() if re.match(r"(original-2011|big-box-2023) +\d", line)]
    assert len(rows) == 4, out  # 2011 2p, 2023 3p and 5p, solo
    per_call = r"\| +[\d.]+ +[\d.]+ +[\d.]+x "  # list, numpy, speed-up
    per_step = r"\| +[\d.]+ +[\d.]+ +[\d.]+ +[\d.]+x "  # apply, +list, +numpy, speed-up
    for row in rows:
        assert re.search(per_call + per_step + r"\| +[\d,]+ +[\d,]+$", row), row  # then steps/s


def test_bench_adapters_prints_both_engines_on_the_same_games() -> None:
    """The adapters on the native core beside the reference (issue 39, item 2): each of the
    three comparisons prints both engines and a ratio, after checking the games are the same."""
    pytest.importorskip("pyspiel")
    pytest.importorskip("pettingzoo")
    pytest.importorskip("village_rules.native", exc_type=ImportError)
    out = bench_output("bench_adapters.py", "1", "1")
    assert len(re.findall(r"native / reference: [\d.]+x \(the same games\)", out)) == 3, out
    assert len(re.findall(r"(native|reference) *: \d+ moves in [\d.]+ s CPU = [\d,]+ moves/s", out)) == 6, out
