"""The market day (2023 p. 8; 2011 "Market").

Taking a cube from the market (or the market at the well) holds a market day; it is not
optional. The market-day player serves first and pays only the customer's demand; every
later sale, theirs included, also costs 1 green cube and 1 time. Passing is final for the
day. Deaths from time spent here are resolved at once (DEATH-06).
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

from village_rules.data.edition import Cost, EditionData
from village_rules.engine import shared
from village_rules.engine.context import Ctx
from village_rules.engine.guards import expect, present
from village_rules.engine.payment import can_pay, payment_options
from village_rules.engine.time_and_death import cap_owed
from village_rules.model.actions import Action, Pass, Serve
from village_rules.model.chance import uniform
from village_rules.model.evolve import replace
from village_rules.model.pending import Pending, RefillDraw
from village_rules.model.state import GameState, MarketDay
from village_rules.rule_ids import RuleId


def start(state: GameState, seat: int, ctx: Ctx) -> GameState:
    """MKT-01: the market day begins with its trigger player."""
    ctx.fire(RuleId.MKT_01, state, seat)
    owed = list(state.deaths_owed)
    held = owed[seat]
    owed[seat] = 0
    out = sitting_out(state, seat)
    if out:
        ctx.fire(RuleId.MKT_08, state)  # AMB-34 b: players who have had their final action sit out
    day = MarketDay(trigger=seat, current=seat, passed=out, trigger_sold=False, held_deaths=held)
    return replace(state, market_day=day, deaths_owed=tuple(owed))


def sitting_out(state: GameState, trigger: int) -> tuple[int, ...]:
    """AMB-34: (a) everybody takes part; (b) during the final actions only the trigger
    player and the players whose final action is still to come."""
    if state.rules.reading("AMB-34") != "b" or state.final_turns is None:
        return ()
    return tuple(s for s in range(state.num_players) if s != trigger and s not in state.final_turns)


def candidates(state: GameState, seat: int) -> list[Action]:
    """The market-day choices of `seat`: serve an available customer, or pass."""
    tiles = sorted(t for t in state.market_available if t is not None)
    return [*(Serve(t) for t in tiles), shared.PASS]


def legal(state: GameState, seat: int) -> list[Action]:
    """The market choice's legal actions, generated directly (`core._generate`; the oracle
    `core.legal_actions_oracle` still filters `candidates`), in the order of `candidates`:
    each available customer the seat can pay for (one sale cost per tile, the free-sale
    question asked once), then a pass unless AMB-06 c forbids it. Neither pays out of the
    supply (AMB-03 b has nothing to refuse here)."""
    player = state.players[seat]
    data = state.rules.data
    free = is_free_sale(state, seat)
    tiles = sorted(t for t in state.market_available if t is not None)
    out: list[Action] = [Serve(t) for t in tiles if can_pay(_sale_cost(data, t, free), player, True)]
    if not must_serve(state, seat):
        out.append(shared.PASS)
    return out


def precondition(state: GameState, seat: int, action: Action) -> str | None:
    """Why `seat` may not serve this customer or pass now, or None."""
    if isinstance(action, Serve) and action.tile not in state.market_available:
        return f"market: customer {action.tile} is not on an available (blue) space"
    if isinstance(action, Pass) and must_serve(state, seat):
        return "market (AMB-06 c): the market-day player must serve a customer at their first chance"
    return None


def must_serve(state: GameState, seat: int) -> bool:
    """AMB-06 c (MKT-09): at their first chance (they have neither sold nor passed) the
    market-day player may not pass while they can pay for an available customer. a (the
    default): "allowed to serve" is a permission, so they may pass and are out."""
    day = state.market_day
    if state.rules.reading("AMB-06") != "c" or day is None or seat != day.trigger or day.trigger_sold:
        return False
    player = state.players[seat]
    return any(
        payment_options(costs(state, seat, Serve(tile)), player)
        for tile in state.market_available
        if tile is not None
    )


def first_pass_waived(state: GameState, seat: int) -> bool:
    """AMB-06 b (MKT-10): a pass by the market-day player at their first chance (they have
    neither sold nor passed) does not count; they are asked again when their seat comes
    round. a (the default): every pass is final for the day."""
    day = state.market_day
    return (
        state.rules.reading("AMB-06") == "b"
        and day is not None
        and seat == day.trigger
        and not day.trigger_sold
        and not day.first_pass_waived
    )


def out_of_the_day(state: GameState) -> tuple[int, ...]:
    """The seats (sorted) that can take no further part in this market day, under either
    reading of AMB-06: those that passed, and under b also a market-day player whose
    first-chance pass was waived but who can pay for no available customer (nothing
    during a market day lets them pay later: customers only go, and their first sale stays
    free, so their next chance is a pass). The divergence search compares through this."""
    day = present(state.market_day, "market_day.out_of_the_day", "the market day in progress")
    out = set(day.passed)
    if day.first_pass_waived:
        player = state.players[day.trigger]
        tiles = [t for t in state.market_available if t is not None]
        if not any(payment_options(costs(state, day.trigger, Serve(t)), player) for t in tiles):
            out.add(day.trigger)
    return tuple(sorted(out))


def is_free_sale(state: GameState, seat: int) -> bool:
    """MKT-02: only the market-day player's first sale is free of the extra cost."""
    day = present(state.market_day, "market_day.is_free_sale", "the market day in progress")
    return seat == day.trigger and not day.trigger_sold


def costs(state: GameState, seat: int, action: Action) -> list[Cost]:
    """MKT-02 / MKT-03: the customer's goods and grain, plus 1 green and 1 time unless free;
    passing (MKT-04) costs nothing."""
    if isinstance(action, Pass):
        return []
    action = expect(action, Serve, "market_day.costs")
    return [_sale_cost(state.rules.data, action.tile, is_free_sale(state, seat))]


@lru_cache(maxsize=1024)
def _sale_cost(data: EditionData, tile: int, free: bool) -> Cost:
    """A customer's demand, plus the later-sale cost unless `free` (per edition and tile:
    the market offers the same few customers again and again)."""
    demand = data.customer(tile).demand()
    return demand if free else demand.plus(data.later_sale)


def effect(state: GameState, seat: int, action: Action, ctx: Ctx) -> tuple[GameState, Pending | None]:
    """MKT-02 / MKT-03: serve a customer; MKT-04: pass for the rest of the day."""
    return _effect(state, seat, action, ctx), None


def _effect(state: GameState, seat: int, action: Action, ctx: Ctx) -> GameState:
    day = present(state.market_day, "market_day._effect", "the market day in progress")
    if isinstance(action, Pass) and first_pass_waived(state, seat):
        ctx.fire(RuleId.MKT_10, state, seat)  # AMB-06 b: the first-chance pass does not count
        day = replace(day, first_pass_waived=True)
    elif isinstance(action, Pass):
        ctx.fire(RuleId.MKT_04, state, seat)
        day = replace(day, passed=tuple(sorted((*day.passed, seat))))
    else:
        action = expect(action, Serve, "market_day._effect")
        if is_free_sale(state, seat) and state.rules.reading("AMB-06") == "c":
            ctx.fire(RuleId.MKT_09, state, seat)  # AMB-06 c: the market-day player's first chance is a sale
        ctx.fire(RuleId.MKT_02 if is_free_sale(state, seat) else RuleId.MKT_03, state, seat)
        p = state.players[seat]
        state = state.with_player(seat, replace(p, customers=(*p.customers, action.tile)))
        state = replace(
            state,
            market_available=tuple(None if t == action.tile else t for t in state.market_available),
        )
        if seat == day.trigger:
            day = replace(day, trigger_sold=True)
    return replace(state, market_day=replace(day, current=_next_seat(state, day)))


def _next_seat(state: GameState, day: MarketDay) -> int:
    """The next seat clockwise that has not passed (the current one if it is the last)."""
    n = state.num_players
    for k in range(1, n + 1):
        seat = (day.current + k) % n
        if seat not in day.passed:
            return seat
    return day.current


def is_over(state: GameState) -> bool:
    """MKT-05: every available customer is served, or every player has passed."""
    day = present(state.market_day, "market_day.is_over", "the market day in progress")
    no_customers = all(t is None for t in state.market_available)
    return no_customers or len(day.passed) == state.num_players


def close(state: GameState, ctx: Ctx) -> GameState:
    """MKT-06: waiting customers move up in order onto the available spaces, the rest of
    the waiting line moves forward; the empty waiting spaces are refilled by chance.
    AMB-42 b (solo games only): the customers left on the available spaces move up first,
    so the waiting ones fill in behind them."""
    ctx.fire(RuleId.MKT_06, state)
    queue = [t for t in state.market_waiting if t is not None]
    available = list(state.market_available)
    if state.is_solo and state.rules.reading("AMB-42") == "b":  # solo only: those left move up first
        left = [t for t in available if t is not None]
        available = [*left, *([None] * (len(available) - len(left)))]
    for i, tile in enumerate(available):
        if tile is None and queue:
            available[i] = queue.pop(0)
    waiting: list[int | None] = [*queue, *([None] * (len(state.market_waiting) - len(queue)))]
    day = present(state.market_day, "market_day.close", "the market day in progress")
    return replace(
        state,
        market_available=tuple(available),
        market_waiting=tuple(waiting),
        market_day=replace(day, closed=True),
    )


def next_refill(state: GameState) -> RefillDraw | None:
    """The next empty waiting space to fill from the pile, if the pile has tiles."""
    if not state.customer_pile:
        return None
    for i, tile in enumerate(state.market_waiting):
        if tile is None:
            return RefillDraw(i)
    return None


def refill_outcomes(state: GameState) -> list[tuple[Action, Fraction]]:
    """MKT-07: every face-down tile is equally likely."""
    return [(shared.draw_customer(t), p) for t, p in uniform(state.customer_pile)]


def place_refill(state: GameState, pending: RefillDraw, tile: int, ctx: Ctx) -> GameState:
    """MKT-07: a drawn customer tile fills a waiting space of the market."""
    ctx.fire(RuleId.MKT_07, state)
    waiting = list(state.market_waiting)
    waiting[pending.position] = tile
    pile = tuple(t for t in state.customer_pile if t != tile)
    return replace(state, market_waiting=tuple(waiting), customer_pile=pile)


def finish(state: GameState, ctx: Ctx) -> GameState:
    """The market day is over; deaths held from before it are owed again (AMB-27), at
    most one under AMB-08 b."""
    day = present(state.market_day, "market_day.finish", "the market day in progress")
    owed = list(state.deaths_owed)
    if day.held_deaths:
        owed[day.trigger] = cap_owed(state, owed[day.trigger], day.held_deaths, ctx)
    return replace(state, market_day=None, deaths_owed=tuple(owed))
