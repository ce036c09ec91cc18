"""The report's plots, drawn with matplotlib as SVG files (the optional `report` extra).

Imported only when matplotlib is installed (`village_rules.check.report.plots_available`). The
files are deterministic: no date in the metadata, a fixed hash salt for element ids.
"""

from __future__ import annotations

import io
from collections import Counter, defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display: files only
import matplotlib.pyplot as plt
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from village_rules.check.coverage import CurvePoint, coverage_curves
from village_rules.check.modes import ModeComparison
from village_rules.check.steps import FuzzResult
from village_rules.data.files import write_text
from village_rules.data.text import for_plot

plt.rcParams["svg.hashsalt"] = "village-rules"
plt.rcParams["svg.fonttype"] = "none"


def write_plots(directory: Path, stem: str, result: FuzzResult) -> list[str]:
    """Write the plots of one step's games; returns their file names (relative)."""
    games = result.games
    names = []

    fig, ax = plt.subplots(figsize=(6, 3.6))
    by_edition: dict[str, list[int]] = defaultdict(list)
    for g in games:
        by_edition[g.edition].append(g.actions)
    editions = sorted(by_edition)
    ax.hist([by_edition[e] for e in editions], bins=20, label=[for_plot(e) for e in editions], stacked=True)
    ax.set_xlabel("actions per game (chance outcomes included)")
    ax.set_ylabel("games")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_title("game length")
    ax.legend()
    names.append(_save(fig, directory, f"{stem}-length.svg"))

    fig, ax = plt.subplots(figsize=(6, 3.6))
    counts = Counter((g.edition, g.ended_by) for g in games)
    labels = [for_plot(f"{e}\n{how}") for e, how in sorted(counts)]
    ax.bar(range(len(labels)), [counts[k] for k in sorted(counts)], color="#8b5a2b")
    ax.set_xticks(range(len(labels)), labels, fontsize=7)
    ax.set_ylabel("games")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_title("how the games ended")
    names.append(_save(fig, directory, f"{stem}-ended.svg"))

    fig, ax = plt.subplots(figsize=(6, 3.6))
    by_seat: dict[int, list[int]] = defaultdict(list)
    for g in games:
        for seat, score in enumerate(g.scores):
            by_seat[seat].append(score)
    seats = sorted(by_seat)
    if seats:
        ax.boxplot([by_seat[s] for s in seats], tick_labels=[f"seat {s}" for s in seats])
    ax.set_ylabel("final prestige")
    ax.set_title("score distribution per seat")
    names.append(_save(fig, directory, f"{stem}-scores.svg"))

    curves = coverage_curves(games)
    if any(p.rules for points in curves.values() for p in points) or result.modes is not None:
        names.append(_coverage_plot(directory, stem, curves, result.modes))  # traced games only

    if result.summary is not None:
        s = result.summary
        rule_counts = dict(s.rule_counts)
        known = sorted({*s.known_rule_ids, *rule_counts})
        fig, ax = plt.subplots(figsize=(12, 3.6))
        values = [rule_counts.get(r, 0) for r in known]
        ax.bar(
            range(len(known)),
            [max(v, 0.5) for v in values],
            color=["#c62828" if v == 0 else "#2ca02c" for v in values],
        )
        ax.set_yscale("log")
        ax.set_xticks(range(len(known)), [for_plot(r) for r in known], rotation=90, fontsize=7)
        ax.set_ylabel("times applied (log)")
        ax.set_title(f"rule-ID coverage: {len(rule_counts)} of {len(known)} fired (red: never)")
        names.append(_save(fig, directory, f"{stem}-rules.svg"))
    return names


def _coverage_plot(
    directory: Path, stem: str, curves: dict[str, tuple[CurvePoint, ...]], modes: ModeComparison | None
) -> str:
    """Rule IDs and rule-ID pairs fired against actions played: one line per policy of the
    step's games, and a bold step line per fuzzing mode of the comparison (if played),
    with the number of actions the modes are compared at dotted. The actions axis is
    logarithmic: the policies' and the campaigns' totals differ tenfold."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 3.6))
    for policy, points in curves.items():
        xs = [p.actions for p in points]
        label = for_plot(f"{policy} ({len(points)} games)")
        left.plot(xs, [p.rules for p in points], marker=".", label=label)
        right.plot(xs, [p.pairs for p in points], marker=".", label=for_plot(policy))
    if modes is not None:
        for run in modes.runs:
            xs = [p.actions for p in run.curve]
            label = for_plot(f"{run.mode} fuzzing ({run.actions:,} actions)")
            style = {"drawstyle": "steps-post", "linewidth": 2, "color": MODE_COLOURS[run.mode]}
            left.plot(xs, [p.rules for p in run.curve], label=label, **style)
            right.plot(xs, [p.pairs for p in run.curve], label=label, **style)
        for ax in (left, right):
            ax.axvline(modes.at, color="#555555", linestyle=":", linewidth=1)
    for ax, what in ((left, "distinct rule IDs"), (right, "distinct rule-ID pairs")):
        ax.set_xscale("log")
        ax.set_xlabel("actions played (log scale)")
        ax.set_ylabel(what)
        ax.set_title(f"{what} against actions")
    left.legend(fontsize=7)
    if modes is not None:
        right.legend(fontsize=7)
    return _save(fig, directory, f"{stem}-coverage.svg")


MODE_COLOURS = {"guided": "#6a1b9a", "uniform": "#424242"}
"""The comparison's lines, apart from the policies' default colours."""


def _save(fig: Figure, directory: Path, name: str) -> str:
    fig.tight_layout()
    picture = io.StringIO()
    fig.savefig(picture, format="svg", metadata={"Date": None})
    plt.close(fig)
    write_text(directory / name, picture.getvalue())
    return name
