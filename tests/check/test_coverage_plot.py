"""The report's coverage curves: per policy, rule IDs and rule-ID pairs against actions;
the plot draws exactly the recorded figures, and the table prints their last point."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from village_rules.check.coverage import CurvePoint, coverage_curves
from village_rules.check.report import write_report
from village_rules.check.steps import CheckContext, CheckOutcome, FuzzResult, FuzzStep, GameStats


def _game(policy: str, actions: int, rules: set[str], pairs: set[tuple[str, str]]) -> GameStats:
    return GameStats(
        "g", "big-box-2023", 2, 0, actions, 5, "graveyard", (1, 2), (1,), policy,
        frozenset(rules), frozenset(pairs),
    )


def test_curves_count_distinct_rule_ids_and_pairs_per_policy_in_run_order() -> None:
    games = [
        _game("random", 100, {"A", "B"}, {("A", "B")}),
        _game("greedy", 50, {"A"}, set()),
        _game("random", 30, {"B", "C"}, {("A", "B"), ("B", "C")}),
    ]
    curves = coverage_curves(games)
    assert list(curves) == ["random", "greedy"]
    assert curves["random"] == (CurvePoint(1, 100, 2, 1), CurvePoint(2, 130, 3, 2))
    assert curves["greedy"] == (CurvePoint(1, 50, 1, 0),)


@pytest.fixture(scope="module")
def mixed_result(tmp_path_factory: pytest.TempPathFactory) -> FuzzResult:
    """Four traced games of the check step, two of them relabelled as another policy."""
    result = FuzzStep(games=4, steered=()).run(CheckContext(tmp_path_factory.mktemp("cov"), seed=1))
    games = tuple(replace(g, policy="climber") if k % 2 else g for k, g in enumerate(result.games))
    return replace(result, games=games)


def test_the_fuzz_step_traces_every_game(mixed_result: FuzzResult) -> None:
    assert all(g.rules and g.pairs for g in mixed_result.games)
    assert mixed_result.summary is not None
    fired = set(mixed_result.summary.rules_fired)
    assert set().union(*(g.rules for g in mixed_result.games)) == fired


def test_the_plot_draws_the_recorded_series(
    mixed_result: FuzzResult, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("matplotlib")
    from matplotlib.axes import Axes  # noqa: PLC0415 - optional extra

    drawn: list[tuple[str, list[int], list[int]]] = []
    original = Axes.plot

    def recording(self: Axes, xs: list[int], ys: list[int], *args: object, **kwargs: object) -> object:
        if kwargs.get("marker") == ".":  # the coverage lines (the boxplot draws lines too)
            drawn.append((str(kwargs.get("label")), list(xs), list(ys)))
        return original(self, xs, ys, *args, **kwargs)  # type: ignore[arg-type,unused-ignore]

    monkeypatch.setattr(Axes, "plot", recording)
    write_report(tmp_path, CheckOutcome((mixed_result,), 1.0))
    assert (tmp_path / "0-fuzz-coverage.svg").is_file()
    curves = coverage_curves(mixed_result.games)
    expected = []
    for points in curves.values():
        xs = [p.actions for p in points]
        expected += [(xs, [p.rules for p in points]), (xs, [p.pairs for p in points])]
    assert sorted((xs, ys) for _, xs, ys in drawn) == sorted(expected)
    assert len(curves) == 2


def test_the_report_tables_the_coverage_per_policy(mixed_result: FuzzResult, tmp_path: Path) -> None:
    page = write_report(tmp_path, CheckOutcome((mixed_result,), 1.0)).read_text()
    assert "<h4>by policy</h4>" in page
    for policy, points in coverage_curves(mixed_result.games).items():
        last = points[-1]
        assert f"<td>{policy}</td><td class=num>{last.games}</td>" in page
        assert f"<td class=num>{last.rules}</td><td class=num>{last.pairs}</td>" in page
