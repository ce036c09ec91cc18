"""`village-rules explore --engine native` (issue 39 item 2, issue 40): the native loop from
the command line, with the Python explorer's words, its scope line and `--expect`; what the
loop does not do yet is refused before the work, naming the options; SIGTERM stops it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

from village_rules.cli.explore import _differs
from village_rules.cli.main import main
from village_rules.explore.pinned import pinned
from village_rules.rules.variant import Variant

T = TypeVar("T")


def test_the_native_engine_explores_tiny_and_matches_its_pins(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explore", "tiny", "--engine", "native", "--workers", "2", "--expect", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "breadth first, natively on 2 thread(s)" in out
    assert "scope       verdicts about tiny only, not the whole original-2011 game" in out
    assert "states      10,175 distinct" in out
    assert "shortest    chronicle in 8 actions, chronicle and graveyard in 8 actions" in out
    assert "every state invariant at 10,175 states, every transition invariant on 11,369 edges" in out
    assert "queries (natively after every sub-step, tied to the Python predicates; PATH queries on" in out
    assert "  free-final-action        reachable: shortest witness 5 actions" in out
    assert "  end-market-other         unreachable by exhaustion" in out
    assert "  two-deaths-one-turn      reachable: shortest witness 7 actions" in out
    # a query whose rules no edge fires is vacuous, in the Python explorer's words
    vacuous = "vacuous: it needs {}, which no edge of this configuration fires (its absence says nothing"
    assert f"  mass-one-buyer           {vacuous.format('MASS-02')}" in out
    assert f"  markers-out-new-city     {vacuous.format('TRV-01')}" in out
    assert f"  carla-two-customers      {vacuous.format('SOLO-10')}" in out
    lasso = "  lasso                    not decided natively: it reads more than one step and has no native"
    assert lasso in out
    assert "expect      matches the pinned figures" in out


def test_a_monitor_s_product_past_the_state_budget_leaves_its_query_undecided(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # tiny has 10,175 states; the product with the monitors of the default readings 10,709
    # (query 6a's adds the states): the run is reported whole, those queries undecided, and
    # --expect compares only the queries decided; query 5b's product, under AMB-23 b, fits
    argv = ["explore", "tiny", "--engine", "native", "--max-states", "10200", "--expect", "--quiet"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    past = "not decided: its monitor's product has more than 10,200 states"
    assert f"  mass-four-monks          {past}" in out
    assert f"  two-deaths-one-turn      {past}" in out
    assert "  two-deaths-owed          reachable: shortest witness 7 actions" in out
    assert "expect      matches the pinned figures" in out


def test_expect_compares_the_native_reachable_queries_with_the_pinned_ones(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # the native verdicts are compared with the pinned reachable queries, as a Python run's
    from village_rules.explore.native import explore_counts  # noqa: PLC0415 (the optional extension)

    pin = pinned("tiny", 2)
    assert pin.reachable is not None and "shared-win" in pin.reachable
    result = explore_counts("tiny")
    asked = frozenset({"shared-win", "end-market-other"})
    assert not _differs(pin, result, (asked, frozenset({"shared-win"})))
    assert _differs(pin, result, (asked, frozenset()))
    out = capsys.readouterr().out
    assert "  DIFFERS reachable queries: pinned ['shared-win'], now []" in out


def test_the_native_engine_counts_without_checks_when_asked(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explore", "solo", "--engine", "native", "--no-check", "--expect", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "checks      not checked (--no-check)" in out
    assert "expect      matches the pinned figures" in out


@pytest.mark.parametrize(
    ("extra", "named"),
    [
        (["--shape"], "--shape"),
        (["--z3", "--query", "1a"], "--z3"),
        (["--ray", "--checkpoint", "a.ckpt", "--max-memory", "500"], "--checkpoint, --max-memory not on Ray"),
        (["--ray", "--query", "1a"], "--query not on Ray"),
        (["--ray", "--witnesses", "w"], "--witnesses not on Ray"),
        (["--checkpoint", "a.ckpt", "--witnesses", "w"], "with --checkpoint or --resume judges no query"),
        (["--workers", "65"], "at most 64 threads (--workers), not 65"),
    ],
)
def test_what_the_native_loop_does_not_do_is_refused_before_the_work(
    extra: list[str],
    named: str,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["explore", "tiny", "--engine", "native", "--quiet", *extra]) == 2
    captured = capsys.readouterr()
    assert named in captured.err
    assert "explore --engine native" in captured.err
    assert captured.out == ""  # nothing explored
    assert list(tmp_path.iterdir()) == []  # no witnesses folder, no checkpoint


def test_the_native_witnesses_are_the_python_explorer_s_byte_for_byte(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # issue 40: every reachable verdict of a native run has a shortest witness that `replay`
    # shows. On one thread both loops expand in the same order, so they write the same files:
    # a STEP query's, a monitor's under the default readings and one under its own (AMB-23 b)
    names = ("free-final-action", "two-deaths-one-turn", "two-deaths-owed")
    asked = [x for q in names for x in ("--query", q)]
    for engine in ("reference", "native"):
        folder = str(tmp_path / engine)
        argv = ["explore", "tiny", "--engine", engine, "--no-check", "--quiet", "--witnesses", folder]
        assert main([*argv, *asked]) == 0
    capsys.readouterr()
    native = {p.name: p.read_bytes() for p in (tmp_path / "native").iterdir()}
    reference = {p.name: p.read_bytes() for p in (tmp_path / "reference").iterdir()}
    assert sorted(native) == [f"tiny-2p-{q}.json" for q in names]
    assert native == reference
    assert main(["replay", str(tmp_path / "native" / "tiny-2p-two-deaths-owed.json")]) == 0
    out = capsys.readouterr().out
    assert "explorer witness of query 5b (two-deaths-owed)" in out and "readings: AMB-23=b" in out
    assert "INCOMPLETE" not in out


def test_sigterm_stops_the_native_loop_between_batches() -> None:
    # the C++ loop asks between batches of states whether to stop (Python's signal handlers
    # run first): SIGTERM ends a 1.5 x 10^7-state run early, exit 143, no traceback
    command = [sys.executable, "-c", "import sys; from village_rules.cli.main import main; sys.exit(main())"]
    run = ["explore", "longer", "--engine", "native", "--max-states", "20000000", "--no-check"]
    proc = subprocess.Popen(
        [*command, *run], stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
    )
    try:
        time.sleep(4)  # loaded and exploring: the whole run takes 20 to 60 s
        assert proc.poll() is None, proc.communicate()
        proc.send_signal(signal.SIGTERM)
        out, err = (b.decode() for b in proc.communicate(timeout=60))
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 143, (out, err)
    assert "Traceback" not in err, err
    assert "stopped on request at depth" in err and "the native loop keeps no checkpoint" in err, err
    assert "states      " not in out  # no report of a part run


@pytest.mark.parametrize("engine", ["reference", "native"])
def test_a_step_query_with_readings_of_its_own_is_decided_under_them(
    engine: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # query 3 asks what AMB-46 b allows (under the default a nobody dies while the lowest
    # number is hidden): the main run, under the edition's readings, does not decide it; a run
    # under AMB-46 b does, on either engine, and --no-monitors leaves it undecided, said so
    import village_rules.cli.explore as cli  # noqa: PLC0415 (the module whose runs are spied on)
    import village_rules.explore.native as native  # noqa: PLC0415
    import village_rules.explore.parallel as parallel  # noqa: PLC0415

    runs: list[tuple[tuple[tuple[str, str], ...], bool]] = []

    def spy(real: Callable[..., T]) -> Callable[..., T]:
        def run(*args: object, **kwargs: object) -> T:
            variant = kwargs.get("variant")
            choices = variant.choices if isinstance(variant, Variant) else ()
            asked = kwargs.get("queries")
            judged = bool(asked) and (asked is True or any(q.name == "hidden-lowest-death" for q in asked))  # type: ignore[attr-defined]
            runs.append((choices, judged))
            return real(*args, **kwargs)

        return run

    if engine == "native":
        monkeypatch.setattr(native, "explore_counts", spy(native.explore_counts))
    else:
        monkeypatch.setattr(cli, "explore_parallel", spy(parallel.explore_parallel))
    argv = ["explore", "tiny", "--engine", engine, "--no-check", "--quiet", "--query", "hidden-lowest-death"]
    assert main(argv) == 0
    assert "  hidden-lowest-death      unreachable by exhaustion" in capsys.readouterr().out
    assert ((("AMB-46", "b"),), True) in runs
    assert main([*argv, "--no-monitors"]) == 0
    out = capsys.readouterr().out
    assert "hidden-lowest-death      not decided: its readings (AMB-46 b) need a run of their own" in out
