"""The catalogue's queries judged by the native core after every sub-step (issue 40, item 3).

Why: the native explorer must decide the catalogue's queries on every edge it walks, as the
Python explorer does (`explore.search.expand`), without building a Python state per edge.
So the core restates each `STEP` query's concrete predicate (cpp/predicates.cpp:
proofs/catalogue/catalogue.py and rule_queries.py) and each `PATH` query's monitor
(cpp/monitors.cpp: explore/monitors.py) over one sub-step (`engine.events.SubStep`: the
state it is taken at, its action, its rule events, the state after it), and judges them
after every sub-step of a step, a decision the engine took itself included, as the Python
explorer judges a pending query and folds a monitor (issue 41's event semantics).

`apply_judged(game, ident, values)` applies an action or outcome id as `apply` does and
returns one `Judged` per sub-step: the `STEP` queries that hold after it, every monitor's
value after it and the monitors whose query holds. A monitor's value is `explore.monitors`'
`Value` (None or a tuple of ints), handed in for the state the step is taken at (its start
value at a set-up). tests/native/test_native_predicates.py ties every verdict and value to the
Python predicates and monitors on every edge of the shipped configurations and along the
stored witnesses; a planted difference (`PREDICATE_PLANTS`) is named there by query,
configuration, edge and sub-step.

The query names are the catalogue's; this layer sits below the catalogue and the explorer,
so it names them and does not import them. Query 13's thresholds (the catalogue's
`HIGH_SCORE`) are handed over by the caller (`set_high_scores`) for the same reason: the
core refuses to judge query 13 without them rather than guess.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from village_rules.data.edition import EditionData
from village_rules.native import _core
from village_rules.native.engine import tables_for

Value = tuple[int, ...] | None
"""A monitor's value, as `explore.monitors.Value`."""

STEP_QUERIES: tuple[str, ...] = tuple(_core.STEP_QUERIES)
"""The `STEP` queries the core judges, in the catalogue's order."""

MONITORS: tuple[str, ...] = tuple(_core.MONITORS)
"""The `PATH` queries whose monitors the core runs, in `explore.monitors.MONITORS`' order."""

MONITOR_STARTS: dict[str, Value] = dict(zip(MONITORS, _core.MONITOR_STARTS, strict=True))
"""Each monitor's start value (its value at a set-up)."""

PREDICATE_PLANTS: tuple[str, ...] = tuple(_core.PREDICATE_PLANTS)
"""The planted bugs `Game.set_predicate_plant` takes (tests): query 2 never holds natively;
query 6a's monitor holds after three monks in a row."""


@dataclass(frozen=True, slots=True)
class Judged:
    """One sub-step of a step as the core judged it."""

    action: int
    """The sub-step's action id."""
    forced: bool
    """Whether the engine took the decision itself (a single legal action)."""
    held: frozenset[str]
    """The `STEP` queries whose predicate holds after this sub-step."""
    values: tuple[tuple[str, Value], ...]
    """Every monitor's value after this sub-step, in `MONITORS`' order."""
    monitored: frozenset[str]
    """The monitors whose query holds after this sub-step."""

    def value(self, monitor: str) -> Value:
        """The value of `monitor` after this sub-step."""
        return dict(self.values)[monitor]


def set_high_scores(data: EditionData, high_scores: Mapping[int, int]) -> None:
    """Hand query 13's lower side of a high score by player count (the catalogue's
    `HIGH_SCORE`) to the native tables of `data`, which every game of that data shares."""
    _core.set_high_scores(tables_for(data), dict(high_scores))


RawJudged = tuple[int, bool, int, tuple[Value, ...], int]
"""A sub-step as `Game.apply_judged` answers it: (action id, forced, the STEP queries that hold
as bits in `STEP_QUERIES`' order, every monitor's value in `MONITORS`' order, the monitors
whose query holds as bits). The ties compare these, and name a difference as `Judged`."""


def apply_judged(game: _core.Game, ident: int, values: Mapping[str, Value] | None = None) -> list[Judged]:
    """Apply `ident` to `game` (`apply`'s checks and errors) and judge every query after each
    of the step's sub-steps. `values` are the monitors' values at the state the step is taken
    at (a monitor left out: its start value)."""
    given = values or {}
    unknown = set(given) - set(MONITORS)
    if unknown:
        known = ", ".join(MONITORS)
        raise ValueError(f"apply_judged: no native monitor for {sorted(unknown)} (known: {known})")
    before = [given.get(m, MONITOR_STARTS[m]) for m in MONITORS]
    return [judged(raw) for raw in game.apply_judged(ident, before)]


def judged(raw: RawJudged) -> Judged:
    """A sub-step's raw judgement (`RawJudged`) with the queries and monitors named."""
    action, forced, held, after, monitored = raw
    values = tuple(zip(MONITORS, after, strict=True))
    return Judged(action, forced, _names(STEP_QUERIES, held), values, _names(MONITORS, monitored))


def _names(names: tuple[str, ...], bits: int) -> frozenset[str]:
    """The names whose bit is set."""
    return frozenset(name for k, name in enumerate(names) if bits >> k & 1)
