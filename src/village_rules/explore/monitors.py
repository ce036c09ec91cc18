"""Monitors that make a `PATH` query exact under exhaustion.

A `PATH` query reads further back than one step (the turn so far, the mass so far, the last
four draws). Its monitor keeps exactly what the query reads of the path, as a small value
updated on every edge, like a history variable of TLA+; the explorer then visits the
product of the state graph and the monitor (`explore(..., monitor=...)`), where the query
becomes a question about one step again, decided on every edge of the product.

Each monitor restates its query's concrete predicate (`proofs/catalogue.py`) for the
value it keeps; `tests/explore/test_monitors.py` checks on random games that the two agree
at every step.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from village_rules.model.actions import Action, BuyFromBag, DrawMonk
from village_rules.model.pending import ChooseTurn
from village_rules.model.state import GameState
from village_rules.proofs.history import dead

Value = tuple[int, ...] | None


@dataclass(frozen=True, slots=True)
class Monitor:
    """What a `PATH` query reads of the path: a start value, an update on every edge
    (value, before, action, after) -> value, and the query on an edge with the updated value."""

    query: str
    start: Value
    update: Callable[[Value, GameState, Action, GameState], Value]
    holds: Callable[[Value, GameState, Action, GameState], bool]


def _deaths(state: GameState) -> tuple[int, ...]:
    return tuple(dead(state, s) for s in range(state.num_players))


def _turn_update(value: Value, before: GameState, action: Action, after: GameState) -> Value:
    # the deaths at the start of the turn: the last ChooseTurn state before the current one
    return _deaths(before) if isinstance(before.pending, ChooseTurn) else value


def _two_deaths(value: Value, before: GameState, action: Action, after: GameState) -> bool:
    return value is not None and any(d - v >= 2 for d, v in zip(_deaths(after), value, strict=True))


def _monks_update(value: Value, before: GameState, action: Action, after: GameState) -> Value:
    run = value[0] if value else 0
    return (min(run + 1, 4),) if isinstance(action, DrawMonk) else (0,)


def _four_monks(value: Value, before: GameState, action: Action, after: GameState) -> bool:
    return value is not None and value[0] >= 4


MIXED = -2
"""The buyer value once two seats have bought in the same mass."""


def _buyers_update(value: Value, before: GameState, action: Action, after: GameState) -> Value:
    # (the only buyer so far or MIXED, purchases so far) within the mass `before` is in
    if before.mass is None:
        return (-1, 0)
    seat, count = value if value else (-1, 0)
    if isinstance(action, BuyFromBag):
        me = before.current_player()
        seat = me if seat in (-1, me) else MIXED
        count = min(count + 1, before.rules.data.mass_pieces)
    return (seat, count)


def _one_buyer(value: Value, before: GameState, action: Action, after: GameState) -> bool:
    if not isinstance(action, BuyFromBag) or before.mass is None or value is None:
        return False
    if before.mass.bought + 1 < before.rules.data.mass_pieces:
        return False
    seat, count = value
    return seat == before.current_player() and count == before.rules.data.mass_pieces


MONITORS: dict[str, Monitor] = {
    m.query: m
    for m in (
        Monitor("two-deaths-one-turn", None, _turn_update, _two_deaths),
        Monitor("mass-four-monks", (0,), _monks_update, _four_monks),
        Monitor("mass-one-buyer", (-1, 0), _buyers_update, _one_buyer),
    )
}
"""The monitors by query name; the `PATH` queries without one (the lasso, the score pump)
are about cycles: the lasso is decided by the graph's shape (no cycle: no lasso)."""
