"""The report's guided-against-uniform comparison (issue 27): a coverage-guided and a
uniform campaign of `fuzz.guided`, the same budget in actions and the same seed, and
their rule IDs and rule-ID pairs against actions played.

A campaign finishes the game (or branch) in progress when its budget runs out, so the two
play slightly different totals; they are compared at the same number of actions, the
smaller total (`ModeComparison.at`), counting the features each had first seen by then
(`Coverage.first`). The curves are read the same way at every round's end, so a curve
and the table's figures cannot disagree.

`check` plays the two campaigns (`FuzzStep.guided_actions`); this module only turns their
coverage into figures, so it is tested on hand-made coverage too.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping
from dataclasses import dataclass

from village_rules.checks.invariants import Violation
from village_rules.errors import InternalError
from village_rules.fuzz.guided import MODES, Coverage

GUIDED_PER_GAME = 100
"""The comparison's budget per fuzzed game of `check`: 30,000 actions of each mode at the
default 300 games, the budget of `fuzz --guided` and of `benchmarks/bench_guided.py`
(so at seed 0 the report shows the benchmark's figures)."""

MAX_GUIDED_ACTIONS = 100_000_000
"""The largest budget `check --guided-actions` takes (hours of each mode)."""


@dataclass(frozen=True, slots=True)
class ModePoint:
    """After `actions` actions of a campaign: the distinct rule IDs and rule-ID pairs seen."""

    actions: int
    rules: int
    pairs: int


@dataclass(frozen=True, slots=True)
class ModeRun:
    """One campaign: its mode, the actions it played, its curve (a point per round) and
    its figures at the comparison's common number of actions."""

    mode: str
    actions: int
    curve: tuple[ModePoint, ...]
    at: ModePoint
    violations: tuple[Violation, ...] = ()
    failing_log: str | None = None


@dataclass(frozen=True, slots=True)
class ModeComparison:
    """A guided and a uniform campaign of one budget and seed, compared at `at` actions."""

    seed: int
    budget: int
    at: int
    runs: tuple[ModeRun, ...]

    def run(self, mode: str) -> ModeRun:
        """The campaign of `mode` ("guided" or "uniform")."""
        for r in self.runs:
            if r.mode == mode:
                return r
        raise InternalError("check.modes", f"no {mode!r} campaign in the comparison")

    @property
    def sentence(self) -> str:
        """The comparison in one line, as the report and `check` print it."""
        g, u = self.run("guided").at, self.run("uniform").at
        return (
            f"guided reached {g.pairs:,} rule-ID pairs, uniform {u.pairs:,}, in {self.at:,} actions "
            f"(rule IDs: guided {g.rules}, uniform {u.rules})"
        )


def _counter(cov: Coverage, kind: str) -> list[int]:
    """When each feature of `kind` was first seen (actions played by then), sorted."""
    return sorted(when for f, when in cov.first.items() if f[0] == kind)


def _point(rules: list[int], pairs: list[int], actions: int) -> ModePoint:
    return ModePoint(actions, bisect_right(rules, actions), bisect_right(pairs, actions))


def compare_modes(seed: int, budget: int, coverage: Mapping[str, Coverage]) -> ModeComparison:
    """The comparison of the campaigns `coverage` holds, one per mode of `fuzz.guided.MODES`,
    played with `budget` actions each from `seed`."""
    if set(coverage) != set(MODES):
        raise InternalError("check.modes", f"needs one campaign per mode {MODES}, not {sorted(coverage)}")
    at = min(cov.actions for cov in coverage.values())
    runs = []
    for mode in MODES:
        cov = coverage[mode]
        rules, pairs = _counter(cov, "rule"), _counter(cov, "pair")
        curve = tuple(_point(rules, pairs, actions) for actions, _, _ in cov.curve)
        runs.append(
            ModeRun(mode, cov.actions, curve, _point(rules, pairs, at), cov.violations, cov.failing_log)
        )
    return ModeComparison(seed, budget, at, tuple(runs))
