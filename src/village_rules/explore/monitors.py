"""Monitors that make a `PATH` query exact under exhaustion.

A `PATH` query reads further back than one step (the turn so far, the mass so far, the last
four draws). Its monitor keeps exactly what the query reads of the path, as a small value
updated on every edge, like a history variable of TLA+; the explorer then visits the
product of the state graph and the monitor (`explore(..., monitor=...)`), where the query
becomes a question about one step again, decided on every edge of the product.

Each monitor restates its query's concrete predicate (`proofs/catalogue/catalogue.py`) for the
value it keeps; `tests/explore/test_monitors.py` checks on random games that the two agree
at every step.

A monitor is updated on every *sub-step* of an edge (`engine.events`: the decision, then
each decision the engine took itself), as the concrete predicates judge them
(`proofs.search.history`): `fold` runs it over an edge's sub-steps, and the query holds on the
edge if it holds after one of them. A forced turn choice thus begins a turn of its own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from village_rules.data.components import Cube
from village_rules.engine.events import SubStep
from village_rules.model.actions import Action, BuyFromBag, DrawMonk, Pass, Pay, Serve
from village_rules.model.carla_board import CARLA
from village_rules.model.pending import ChoosePayment, ChooseTurn
from village_rules.model.state import GameState
from village_rules.proofs.search.history import dead, same_market_day

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


def _waived(before: GameState, after: GameState) -> bool:
    """The pass between these states was the first-chance pass AMB-06 b does not count."""
    a, b = before.market_day, after.market_day
    return a is not None and b is not None and b.first_pass_waived and not a.first_pass_waived


def _passers_update(value: Value, before: GameState, action: Action, after: GameState) -> Value:
    # (the seats that passed, with a pass that counted, in the market day `after` is in;
    # whether this step is a decision of one of the seats that passed in `before`'s day)
    mask = value[0] if value else 0
    day = before.market_day
    acts = day is not None and not day.closed and not before.is_chance and not before.is_terminal
    hit = acts and bool(mask >> before.current_player() & 1)
    if day is not None and isinstance(action, Pass) and not _waived(before, after):
        mask |= 1 << before.current_player()
    return (mask if same_market_day(before, after) else 0, int(hit))


def _hit(value: Value, before: GameState, action: Action, after: GameState) -> bool:
    return value is not None and value[1] == 1


def _sold(state: GameState) -> int:
    return sum(len(p.customers) for p in state.players)


def _purse(state: GameState, seat: int) -> tuple[int, int, int]:
    p = state.players[seat]
    return p.lifetime, p.cubes[Cube.GREEN], p.coins


def _free_later_sale(start: int, sold: int, seat: int, purse: tuple[int, ...], after: GameState) -> bool:
    if start < 0 or sold == start:  # no market day, or the day's first sale
        return False
    life, green, coins = _purse(after, seat)
    return life == purse[0] and green >= purse[1] and coins >= purse[2]


def _sales_update(value: Value, before: GameState, action: Action, after: GameState) -> Value:
    # (the sales made before the market day `after` is in, or -1 outside one; whether this
    # step completes a free sale that is not the day's first; a sale awaiting its payment:
    # the sales before its day, the sales before it, its seller and the seller's purse)
    if value is None:
        start = _sold(before) if before.market_day is not None else -1
    else:
        start = value[0] if before.market_day is not None else -1
    hit = False
    waiting: tuple[int, ...] = ()
    if isinstance(action, Serve):
        seat = before.current_player()
        if isinstance(after.pending, ChoosePayment) and after.pending.action == action:
            waiting = (start, _sold(before), seat, *_purse(before, seat))
        else:
            hit = _free_later_sale(start, _sold(before), seat, _purse(before, seat), after)
    elif isinstance(action, Pay) and value is not None and len(value) > 2:
        day_start, sold, seat, *purse = value[2:]
        hit = _free_later_sale(day_start, sold, seat, tuple(purse), after)
    if same_market_day(before, after):
        following = start
    else:
        following = _sold(after) if after.market_day is not None else -1
    return (following, int(hit), *waiting)


def _carla_update(value: Value, before: GameState, action: Action, after: GameState) -> Value:
    # (Carla's customers when the market day `after` is in began, or -1 outside one; whether
    # she has served two since `before`'s day began)
    if not before.is_solo:
        return (-1, 0)
    start = value[0] if value is not None else len(before.players[CARLA].customers)
    start = start if before.market_day is not None else -1
    hit = start >= 0 and len(after.players[CARLA].customers) - start >= 2
    if same_market_day(before, after):
        following = start
    else:
        following = len(after.players[CARLA].customers) if after.market_day is not None else -1
    return (following, int(hit))


MONITORS: dict[str, Monitor] = {
    m.query: m
    for m in (
        Monitor("two-deaths-one-turn", None, _turn_update, _two_deaths),
        Monitor("two-deaths-owed", None, _turn_update, _two_deaths),
        Monitor("mass-four-monks", (0,), _monks_update, _four_monks),
        Monitor("mass-one-buyer", (-1, 0), _buyers_update, _one_buyer),
        Monitor("act-after-pass", None, _passers_update, _hit),
        Monitor("free-sale-not-first", None, _sales_update, _hit),
        Monitor("free-sale-amb-06-b", None, _sales_update, _hit),
        Monitor("carla-two-customers", None, _carla_update, _hit),
    )
}
"""The monitors by query name. A query with a reading of its own (two-deaths-owed under
AMB-23 b, free-sale-amb-06-b under AMB-06 b) is explored under that reading. The `PATH`
queries without one are about cycles: the lasso, decided by the graph's shape (no cycle, no
lasso), and the score pump, decided on the graph without prestige (`pump`)."""


def fold(monitor: Monitor, value: Value, steps: tuple[SubStep, ...]) -> tuple[Value, bool]:
    """`monitor` run over one edge's sub-steps from `value`: its value after the last and
    whether its query held after some sub-step."""
    held = False
    for sub in steps:
        value = monitor.update(value, sub.before, sub.action, sub.after)
        held = held or monitor.holds(value, sub.before, sub.action, sub.after)
    return value, held
