"""The static HTML verification report written by `village-rules check` and `report`.

One `index.html` (plus the plots, logs and pictures beside it) that a person reads at a
glance: the verdict of every step and a table of contents, then a section per step (its
games and its findings are parts the contents link to): for fuzzed or logged games the
game lengths, how the games ended (chronicle or graveyard), the score distributions per
seat, the rule-ID coverage and the invariant checks run, then every finding (failing
games, proof verdicts in query order, divergence witnesses) with links to its log and
picture.

Plots need matplotlib (`pip install "village-rules[report]"`): without it the report
shows the same figures as tables and says so; `plots_available()` tells which.
"""

from __future__ import annotations

import html
import statistics
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import quote

from village_rules.check.coverage import coverage_curves
from village_rules.check.modes import ModeComparison
from village_rules.check.steps import CheckOutcome, FuzzResult, GameStats, StepResult
from village_rules.checks.invariants import STATE_INVARIANTS, TRANSITION_INVARIANTS
from village_rules.data.files import write_text
from village_rules.data.text import for_xml
from village_rules.errors import InternalError

NO_PLOTS_NOTE = 'tables only: install "village-rules[report]" (matplotlib) for plots'

_CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 70em; color: #222; }
h1 { margin-bottom: 0.2em; } .verdict { font-size: 1.4em; font-weight: bold; }
.pass { color: #1a7f37; } .fail { color: #c62828; }
table { border-collapse: collapse; margin: 0.5em 0 1.2em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
th { background: #f3ecd8; } td.num { text-align: right; }
.plots img { max-width: 48%; border: 1px solid #ddd; margin: 0.3em; }
.plots img.wide { max-width: 98%; }
.picture img { max-width: 100%; border: 1px solid #ddd; }
.note { color: #666; font-style: italic; }
nav.toc { background: #faf7ee; border: 1px solid #e4dcc4; padding: 0.3em 1em; margin: 1em 0; }
nav.toc h2 { font-size: 1.1em; margin: 0.4em 0; } nav.toc ul { margin: 0.2em 0; }
section { margin-top: 1.5em; } a.top { font-size: 0.85em; }
.coverage { display: flex; flex-wrap: wrap; gap: 1em; align-items: flex-start; }
.coverage img { max-width: 62%; border: 1px solid #ddd; } .figure { font-weight: bold; }
"""


def plots_available() -> bool:
    """True when matplotlib can be imported (the `report` extra)."""
    try:
        import matplotlib  # noqa: F401, PLC0415 - optional extra
    except ImportError:
        return False
    return True


def write_report(directory: Path, outcome: CheckOutcome, title: str = "village-rules check") -> Path:
    """Write `index.html` (and plots, when matplotlib is there) into `directory`."""
    directory.mkdir(parents=True, exist_ok=True)
    plots = plots_available()
    verdict = "PASS" if outcome.passed else "FAIL"
    body = [
        f'<h1 id="top">{_e(title)}</h1>',
        f'<p class="verdict {verdict.lower()}">{verdict}</p>',
        f"<p>{len(outcome.results)} step(s) in {outcome.seconds:.0f} s.</p>",
    ]
    if not plots:
        body.append(f'<p class="note">{_e(NO_PLOTS_NOTE)}</p>')
    body.append("<table><tr><th>step</th><th>verdict</th><th>summary</th><th>time</th></tr>")
    for r in outcome.results:
        mark = "PASS" if r.passed else "FAIL"
        details = "".join(f"<br>{_e(d)}" for d in r.details)
        body.append(
            f'<tr><td>{_e(r.name)}</td><td class="{mark.lower()}">{mark}</td>'
            f'<td>{_e(r.headline)}{details}</td><td class="num">{r.seconds:.1f} s</td></tr>'
        )
    body.append("</table>")
    sections = [_step_section(directory, k, r, plots) for k, r in enumerate(outcome.results)]
    body.append(_contents(outcome.results))
    for section in sections:
        body += section
    page = (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{_e(title)}</title><style>{_CSS}</style></head><body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )
    index = directory / "index.html"
    write_text(index, page)
    return index


def _e(text: object) -> str:
    """Text for the page: characters HTML (as XML) forbids made visible, then escaped."""
    return html.escape(for_xml(str(text)))


def _href(relative: str) -> str:
    """A link to a file of the report: percent-encoded, so `#`, `?` or `%` in a log's name
    are part of the path, not a fragment or a query."""
    return html.escape(quote(for_xml(relative)))


def _anchor(k: int, part: str = "") -> str:
    """The id of step `k`'s section (or of its part "games" / "findings")."""
    return f"step-{k}" + (f"-{part}" if part else "")


def _parts(r: StepResult) -> list[tuple[str, str]]:
    """The sub-sections of a step's section: (anchor part, heading)."""
    parts = []
    if isinstance(r, FuzzResult) and r.games:
        parts.append(("games", "games"))
    if _has_coverage(r):
        parts.append(("coverage", "coverage against actions"))
    if r.findings:
        parts.append(("findings", f"findings ({len(r.findings)})"))
    return parts


def _contents(results: Sequence[StepResult]) -> str:
    """The table of contents: a link to every step's section and to its parts."""
    items = []
    for k, r in enumerate(results):
        mark = "pass" if r.passed else "fail"
        sub = "".join(
            f'<li><a href="#{_anchor(k, part)}">{_e(heading)}</a></li>' for part, heading in _parts(r)
        )
        items.append(
            f'<li><a href="#{_anchor(k)}">{_e(r.name)}</a> <span class="{mark}">{mark.upper()}</span>'
            + (f"<ul>{sub}</ul>" if sub else "")
            + "</li>"
        )
    return f'<nav class="toc"><h2>contents</h2><ul>{"".join(items)}</ul></nav>'


def _step_section(directory: Path, k: int, r: StepResult, plots: bool) -> list[str]:
    top = '<a class="top" href="#top">back to the top</a>'
    out = [f'<section id="{_anchor(k)}">', f"<h2>{_e(r.name)}</h2>"]
    if isinstance(r, FuzzResult) and r.games:
        out.append(f'<section id="{_anchor(k, "games")}">')
        out += _games_section(directory, k, r, plots)
        out.append("</section>")
    if r.findings:
        out.append(f'<section id="{_anchor(k, "findings")}">')
        out.append(
            f"<h3>findings ({len(r.findings)})</h3>"
            "<table><tr><th>what</th><th>verdict</th><th>detail</th><th>evidence</th></tr>"
        )
        for f in r.findings:
            links = []
            if f.log:
                links.append(f'<a href="{_href(f.log)}">log</a>')
            if f.picture:
                links.append(f'<a href="{_href(f.picture)}">picture</a>')
            if f.viewer:
                links.append(f'<a href="{_href(f.viewer)}">step through</a>')
            cls = "fail" if f.verdict.startswith("FAIL") else "pass"
            out.append(
                f'<tr><td>{_e(f.title)}</td><td class="{cls}">{_e(f.verdict)}</td><td>{_e(f.detail)}</td>'
                f"<td>{' '.join(links)}</td></tr>"
            )
        out.append("</table>")
        first = next((f for f in r.findings if f.picture), None)
        if first is not None and first.picture is not None:
            out.append(
                f'<div class="picture"><p>{_e(first.title)}: the last state</p>'
                f'<img src="{_href(first.picture)}" alt="{_e(first.title)}"></div>'
            )
        out.append("</section>")
    out += [top, "</section>"]
    return out


def _games_section(directory: Path, k: int, r: FuzzResult, plots: bool) -> list[str]:
    stem = f"{k}-{r.name}"
    games = r.games
    out = ["<h3>games</h3>"]
    if plots:
        from village_rules.check import plots as report_plots  # noqa: PLC0415 - optional extra

        names = report_plots.write_plots(directory, stem, r)
        coverage_plot = next((n for n in names if n.endswith("-coverage.svg")), None)
        out.append(
            '<div class="plots">'
            + "".join(
                f'<img src="{_href(n)}" alt="{_e(n)}"{" class=wide" if n.endswith("-rules.svg") else ""}>'
                for n in names
                if n != coverage_plot
            )
        )
        out.append("</div>")
    else:
        coverage_plot = None
    out += _length_table(games)
    out += _ended_table(games)
    out += _score_table(games)
    if _has_coverage(r):
        out += _coverage_section(k, r, coverage_plot)
    if r.summary is not None:
        out += _coverage_table(r)
    return out


def _length_table(games: Sequence[GameStats]) -> list[str]:
    rows = [
        "<table><tr><th>edition</th><th>players</th><th>games</th><th>actions: min</th>"
        "<th>median</th><th>max</th><th>rounds: median</th></tr>"
    ]
    groups: dict[tuple[str, int], list[GameStats]] = defaultdict(list)
    for g in games:
        groups[(g.edition, g.players)].append(g)
    for (edition, players), gs in sorted(groups.items()):
        lengths = [g.actions for g in gs]
        rows.append(
            f"<tr><td>{_e(edition)}</td><td class=num>{players}</td><td class=num>{len(gs)}</td>"
            f"<td class=num>{min(lengths)}</td><td class=num>{statistics.median(lengths):g}</td>"
            f"<td class=num>{max(lengths)}</td>"
            f"<td class=num>{statistics.median(g.rounds for g in gs):g}</td></tr>"
        )
    rows.append("</table>")
    return ["<h4>game length</h4>", *rows]


def _ended_table(games: Sequence[GameStats]) -> list[str]:
    counts = Counter((g.edition, g.ended_by) for g in games)
    rows = ["<h4>how the games ended</h4><table><tr><th>edition</th><th>ended by</th><th>games</th></tr>"]
    for (edition, how), k in sorted(counts.items()):
        rows.append(f"<tr><td>{_e(edition)}</td><td>{_e(how)}</td><td class=num>{k}</td></tr>")
    rows.append("</table>")
    return rows


def _score_table(games: Sequence[GameStats]) -> list[str]:
    by_seat: dict[int, list[int]] = defaultdict(list)
    wins: Counter[int] = Counter()
    for g in games:
        for seat, score in enumerate(g.scores):
            by_seat[seat].append(score)
        wins.update(g.winners)
    rows = [
        "<h4>final scores per seat</h4><table><tr><th>seat</th><th>games</th><th>min</th><th>median</th>"
        "<th>mean</th><th>max</th><th>wins</th></tr>"
    ]
    for seat, scores in sorted(by_seat.items()):
        rows.append(
            f"<tr><td class=num>{seat}</td><td class=num>{len(scores)}</td><td class=num>{min(scores)}</td>"
            f"<td class=num>{statistics.median(scores):g}</td>"
            f"<td class=num>{statistics.fmean(scores):.1f}</td>"
            f"<td class=num>{max(scores)}</td><td class=num>{wins[seat]}</td></tr>"
        )
    rows.append("</table>")
    return rows


def _has_coverage(r: StepResult) -> bool:
    """True when a step's games were traced (their rule IDs known) or it compared the
    fuzzing modes: its section then has a coverage part."""
    if not isinstance(r, FuzzResult) or not r.games:  # the part is drawn in the games' section
        return False
    return r.modes is not None or any(g.rules for g in r.games)


def _coverage_section(k: int, r: FuzzResult, plot: str | None) -> list[str]:
    """Coverage against actions played: the plot (per policy, and guided against uniform
    fuzzing when the step compared them) with the comparison's figures beside it, then the
    table by policy."""
    tables = _modes_table(r.modes) if r.modes is not None else []
    out = [f'<h4 id="{_anchor(k, "coverage")}">coverage against actions</h4>', '<div class="coverage">']
    if plot is not None:
        out.append(f'<img src="{_href(plot)}" alt="{_e(plot)}">')
    if tables:
        out.append("<div>" + "".join(tables) + "</div>")
    out.append("</div>")
    return out + _policy_table(r.games)


def _modes_table(m: ModeComparison) -> list[str]:
    """The guided and the uniform campaign's figures at the actions both played, and in all."""
    rows = [
        f'<p class="figure">{_e(m.sentence)}.</p>',
        f"<table><tr><th>fuzzing mode (seed {m.seed}, budget {m.budget:,})</th><th>actions played</th>"
        f"<th>rule IDs at {m.at:,}</th><th>rule-ID pairs at {m.at:,}</th><th>rule IDs, all</th>"
        "<th>rule-ID pairs, all</th><th>violations</th></tr>",
    ]
    for run in m.runs:
        last = run.curve[-1]
        cls = ' class="num fail"' if run.violations else " class=num"
        rows.append(
            f"<tr><td>{_e(run.mode)}</td><td class=num>{run.actions:,}</td>"
            f"<td class=num>{run.at.rules}</td><td class=num>{run.at.pairs}</td>"
            f"<td class=num>{last.rules}</td><td class=num>{last.pairs}</td>"
            f"<td{cls}>{len(run.violations)}</td></tr>"
        )
    rows.append("</table>")
    rows.append(
        '<p class="note">Both campaigns are <code>fuzz.guided</code> runs of the same seed and budget, '
        "every invariant checked after every action; each finishes the game or branch in progress, so "
        "they are compared at the smaller total. Pairs are consecutive rule IDs, as the policies' are.</p>"
    )
    return rows


def _policy_table(games: Sequence[GameStats]) -> list[str]:
    """Per policy: games, how they ended, mean length, and the rule coverage reached (the
    last point of its coverage curve)."""
    curves = coverage_curves(games)
    if not any(p.rules for points in curves.values() for p in points):  # untraced (logged) games
        return []
    rows = [
        "<h4>by policy</h4><table><tr><th>policy</th><th>games</th><th>ended by</th>"
        "<th>actions: mean</th><th>rule IDs fired</th><th>rule-ID pairs</th></tr>"
    ]
    for policy, points in curves.items():
        mine = [g for g in games if g.policy == policy]
        ends = Counter(g.ended_by for g in mine)
        ended = ", ".join(f"{how} {k}" for how, k in sorted(ends.items()))
        last = points[-1]
        rows.append(
            f"<tr><td>{_e(policy)}</td><td class=num>{last.games}</td><td>{_e(ended)}</td>"
            f"<td class=num>{last.actions / last.games:.0f}</td><td class=num>{last.rules}</td>"
            f"<td class=num>{last.pairs}</td></tr>"
        )
    rows.append("</table>")
    return rows


def _coverage_table(r: FuzzResult) -> list[str]:
    s = r.summary
    if s is None:
        raise InternalError("report._coverage_table", "the fuzz result has no summary")
    counts = dict(s.rule_counts)
    known = sorted({*s.known_rule_ids, *counts})
    states = s.steps + s.games
    rows = [
        "<h4>invariant checks run</h4>",
        f"<p>{states:,} states x {len(STATE_INVARIANTS)} state invariants and {s.steps:,} transitions x "
        f"{len(TRANSITION_INVARIANTS)} transition invariants: "
        f"{states * len(STATE_INVARIANTS) + s.steps * len(TRANSITION_INVARIANTS):,} checks, "
        f"{s.violations} violation(s).</p>",
        "<p>" + _e(", ".join((*STATE_INVARIANTS, *TRANSITION_INVARIANTS))) + "</p>",
        f"<h4>rule-ID coverage ({len(counts)} of {len(known)} fired)</h4>",
        "<table><tr><th>rule</th><th>times applied</th></tr>",
    ]
    for rule in known:
        k = counts.get(rule, 0)
        cls = ' class="fail"' if k == 0 else ""
        rows.append(f"<tr><td{cls}>{_e(rule)}</td><td class=num>{k:,}</td></tr>")
    rows.append("</table>")
    return rows
