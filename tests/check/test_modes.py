"""The report's guided-against-uniform comparison (issue 27): the fuzz step plays a
coverage-guided and a uniform campaign of one budget, the report plots both curves and
prints their figures, and those figures are the campaigns' own (an independent run of
each mode gives them)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import pytest

import village_rules.check.report as report_module
import village_rules.fuzz.guided as guided_module
from village_rules.check.coverage import coverage_curves
from village_rules.check.modes import ModePoint, compare_modes
from village_rules.check.report import plots_available, write_report
from village_rules.check.steps import CheckContext, CheckOutcome, FuzzResult, FuzzStep, default_steps
from village_rules.checks.incremental import IncrementalChecker
from village_rules.checks.invariants import Violation
from village_rules.fuzz.guided import Coverage, run_coverage
from village_rules.model.actions import Action
from village_rules.model.state import GameState

SEED = 5
BUDGET = 700


def _at(cov: Coverage, kind: str, actions: int) -> int:
    return sum(1 for f, when in cov.first.items() if f[0] == kind and when <= actions)


@pytest.fixture(scope="module")
def compared(tmp_path_factory: pytest.TempPathFactory) -> FuzzResult:
    out = tmp_path_factory.mktemp("modes")
    return FuzzStep(games=1, steered=(), guided_actions=BUDGET).run(CheckContext(out, seed=SEED))


@pytest.fixture(scope="module")
def report(compared: FuzzResult, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    """The report of the compared step, written once: its page and its folder."""
    folder = tmp_path_factory.mktemp("report")
    return write_report(folder, CheckOutcome((compared,), 1.0)).read_text(), folder


def test_the_comparison_counts_what_each_campaign_had_first_seen_by_the_common_actions() -> None:
    def cov(actions: int, first: dict[tuple[str, ...], int], curve: list[int]) -> Coverage:
        c = Coverage(actions=actions, first=first)
        c.curve = [(a, 0, 0) for a in curve]
        return c

    uniform = cov(120, {("rule", "A"): 3, ("pair", "A", "B"): 50, ("rule", "B"): 110}, [60, 120])
    first = {("rule", "A"): 1, ("pair", "A", "B"): 20, ("pair", "B", "A"): 99, ("end", "x"): 2}
    guided = cov(100, first, [100])
    m = compare_modes(1, 90, {"uniform": uniform, "guided": guided})
    assert m.at == 100  # the smaller total
    assert m.run("uniform").at == ModePoint(100, 1, 1)  # rule B came at 110: after the common actions
    assert m.run("guided").at == ModePoint(100, 1, 2)  # an end type is neither a rule nor a pair
    assert m.run("uniform").curve == (ModePoint(60, 1, 1), ModePoint(120, 2, 1))
    assert m.sentence.startswith("guided reached 2 rule-ID pairs, uniform 1, in 100 actions")


def test_the_fuzz_step_plays_both_campaigns_and_its_figures_are_theirs(compared: FuzzResult) -> None:
    m = compared.modes
    assert m is not None and compared.passed
    played = {mode: run_coverage(mode, SEED, BUDGET) for mode in ("uniform", "guided")}
    assert m.at == min(c.actions for c in played.values()) >= BUDGET
    for mode, cov in played.items():
        run = m.run(mode)
        assert run.actions == cov.actions
        assert run.at == ModePoint(m.at, _at(cov, "rule", m.at), _at(cov, "pair", m.at))
        assert run.curve[-1] == ModePoint(cov.actions, cov.kinds("rule"), cov.kinds("pair"))
        assert len(run.curve) == len(cov.curve)
    assert m.sentence in " ".join(compared.details)


def test_the_report_shows_the_guided_curve_and_its_figures(
    compared: FuzzResult, report: tuple[str, Path]
) -> None:
    m = compared.modes
    assert m is not None
    page, folder = report
    g, u = m.run("guided"), m.run("uniform")
    said = re.search(r"guided reached ([\d,]+) rule-ID pairs, uniform ([\d,]+), in ([\d,]+) actions", page)
    assert said is not None
    assert [int(x.replace(",", "")) for x in said.groups()] == [g.at.pairs, u.at.pairs, m.at]
    for run in (g, u):
        row = f"<tr><td>{run.mode}</td><td class=num>{run.actions:,}</td>"
        assert row + f"<td class=num>{run.at.rules}</td><td class=num>{run.at.pairs}</td>" in page
    assert '<a href="#step-0-coverage">coverage against actions</a>' in page
    assert '<h4 id="step-0-coverage">' in page
    if plots_available():
        plot = (folder / "0-fuzz-coverage.svg").read_text()
        assert f"guided fuzzing ({g.actions:,} actions)" in plot
        assert f"uniform fuzzing ({u.actions:,} actions)" in plot
        assert page.index('<h4 id="step-0-coverage">') < page.index('src="0-fuzz-coverage.svg"')


def test_the_plot_draws_the_campaigns_curves(
    compared: FuzzResult, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("matplotlib")
    from matplotlib.axes import Axes  # noqa: PLC0415 - optional extra

    from village_rules.check import plots as report_plots  # noqa: PLC0415 - optional extra

    drawn: list[tuple[str, list[int], list[int]]] = []
    original = Axes.plot

    def recording(self: Axes, xs: list[int], ys: list[int], *args: object, **kwargs: object) -> object:
        if kwargs.get("drawstyle") == "steps-post":  # the campaigns' lines
            drawn.append((str(kwargs.get("label")), list(xs), list(ys)))
        return original(self, xs, ys, *args, **kwargs)  # type: ignore[arg-type,unused-ignore]

    monkeypatch.setattr(Axes, "plot", recording)
    assert compared.modes is not None
    report_plots._coverage_plot(tmp_path, "x", coverage_curves(compared.games), compared.modes)
    expected = []
    for run in compared.modes.runs:
        xs = [p.actions for p in run.curve]
        expected += [(xs, [p.rules for p in run.curve]), (xs, [p.pairs for p in run.curve])]
    assert sorted((xs, ys) for _, xs, ys in drawn) == sorted(expected)


def test_without_a_budget_no_campaign_is_played_and_the_report_has_no_comparison(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(report_module, "plots_available", lambda: False)  # the tables say it all
    result = FuzzStep(games=1, steered=()).run(CheckContext(tmp_path / "out"))
    assert result.modes is None
    page = write_report(tmp_path / "report", CheckOutcome((result,), 1.0)).read_text()
    assert "guided reached" not in page
    assert "coverage against actions" in page  # the policies' curves are still there


def test_check_compares_the_modes_by_default_in_proportion_to_its_games() -> None:
    fuzz = default_steps(3)[0]
    assert isinstance(fuzz, FuzzStep) and fuzz.guided_actions == 300
    off = default_steps(3, 0)[0]
    assert isinstance(off, FuzzStep) and off.guided_actions == 0


def test_a_violation_in_a_campaign_fails_the_step_with_its_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = {"n": 0}

    class Broken(IncrementalChecker):  # the campaigns' checker, finding a violation at step 40
        def step(
            self, before: GameState, action: Action, after: GameState, legal: Sequence[Action] | None
        ) -> list[Violation]:
            calls["n"] += 1
            found = super().step(before, action, after, legal)
            if calls["n"] == 40:
                found.append(Violation("conservation.cubes", "injected", "0", "1"))
            return found

    monkeypatch.setattr(guided_module, "IncrementalChecker", Broken)
    result = FuzzStep(games=1, steered=(), guided_actions=200).run(CheckContext(tmp_path, seed=SEED))
    assert not result.passed
    failing = [f for f in result.findings if f.verdict == "FAIL"]
    assert [f.title for f in failing] == [f"uniform fuzzing (seed {SEED})"]
    assert "conservation.cubes" in failing[0].detail
    assert failing[0].log is not None and '"village-rules-log"' in (tmp_path / failing[0].log).read_text()
    assert "(1 violation(s))" in " ".join(result.details)
