"""Stage: catalogue (what a query is).

What a catalogue query is: an abstract predicate for the solver, a concrete predicate over
the real game path, a steer for the witness search, its rows and its search budget. Its own
module so that the catalogue's parts (`catalogue`, `rule_queries`) share it without a cycle."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import z3

from village_rules.proofs.model.model import Constants, Vars
from village_rules.proofs.search.history import History
from village_rules.proofs.search.search import Steer
from village_rules.rule_ids import RuleId
from village_rules.rules.variant import Variant

STEP = "step"
PATH = "path"

AbstractPredicate = Callable[[Vars, Constants], Any]
ConcretePredicate = Callable[[History], bool]

EDITIONS = ("original-2011", "big-box-2023")

CATALOGUE_SOURCE = "catalogue"
"""`Query.source` of the catalogue's own queries."""


@dataclass(frozen=True)
class Query:
    """One catalogue entry. `abstract` is the predicate for z3 (over the abstract state);
    `concrete` decides on the real game path; `steer` guides the witness search."""

    name: str
    number: str
    title: str
    abstract: AbstractPredicate
    concrete: ConcretePredicate
    steer: Steer = field(default_factory=Steer)
    players: dict[str, tuple[int, ...]] = field(
        default_factory=lambda: {"original-2011": (2, 3, 4), "big-box-2023": (2, 3, 4, 5)}
    )
    search_games: int = 40
    """The witness search's budget: seeded games (each at most `steer.max_actions` actions)."""
    explain: Callable[[History], str] | None = None
    """Extra lines for the witness note (what the witness shows beyond the predicate)."""
    horizon: str = STEP
    """How much of the path `concrete` reads: `STEP` (only the last step: the state before,
    the action, the state after), or `PATH` (further back: the turn, the mass, earlier round
    starts). The exhaustive explorer decides a `STEP` query on every edge of the state
    graph, so "never on any edge" is "unreachable"; a `PATH` query it can only witness."""
    variant: Variant = field(default_factory=Variant)
    """The readings its games are played by (default: each edition's own)."""
    unknown_because: str = ""
    """Why the search may find no witness (printed with an unknown verdict), if known."""
    needs: tuple[RuleId, ...] = ()
    """Rules every path meeting the query fires (a necessary condition, no more): where an
    exhaustive exploration fires one of them on no edge, "unreachable" says nothing about
    the situation and `explore` prints the query as vacuous (`explore.scope`)."""
    source: str = CATALOGUE_SOURCE
    """Where the query is defined: the catalogue, or the path of the user's module it was
    loaded from (`prove --queries FILE`, `user_queries.py`); its witnesses record it."""


def any_seat(k: Constants, f: Callable[[int], Any]) -> Any:
    """A z3 term: `f` holds for at least one seat."""
    return z3.Or(*(f(s) for s in range(k.players)))
