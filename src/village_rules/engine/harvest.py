"""Grain harvest (2023 p. 6; 2011 "Grain harvest")."""

from __future__ import annotations

from village_rules.data.components import FARMYARD, Good
from village_rules.data.edition import Cost
from village_rules.engine.common import take_grain
from village_rules.engine.context import Ctx
from village_rules.model.actions import Action, Harvest
from village_rules.model.pending import Pending
from village_rules.model.state import GameState
from village_rules.rule_ids import RuleId


def candidates(state: GameState, seat: int) -> list[Action]:
    """The grain harvest action (always offered; the precondition decides)."""
    return [Harvest()]


def legal(state: GameState, seat: int) -> list[Action]:
    """The legal actions among `candidates`, generated directly (`core._generate`; the
    oracle `core.legal_actions_oracle` still filters `candidates`), before the AMB-03 b
    payout check, which `core._generate` applies as `core._allowed` does. The one
    candidate costs nothing, so only its precondition is asked (once)."""
    harvest = Harvest()
    return [harvest] if precondition(state, seat, harvest) is None else []


def precondition(state: GameState, seat: int, action: Action) -> str | None:
    """HARV-01: needs a member on the farmyard; AMB-02 b: and room for all the grain."""
    if FARMYARD not in state.players[seat].members:
        return "grain harvest needs a family member on your farmyard"
    if state.rules.reading("AMB-02") == "b":
        room = state.rules.data.grain_capacity - state.players[seat].grain
        if harvest_yield(state, seat) > room:
            return f"grain harvest (AMB-02 b): the farmyard has room for only {room} grain"
    return None


def harvest_yield(state: GameState, seat: int) -> int:
    """HARV-02: 2 grain; 3 with a horse and a plow; 4 with an ox and a plow. Only one
    combination counts and goods are not spent."""
    d = state.rules.data
    goods = state.players[seat].goods
    if goods[Good.PLOW] and goods[Good.OX]:
        return d.harvest_ox_plow
    if goods[Good.PLOW] and goods[Good.HORSE]:
        return d.harvest_horse_plow
    return d.harvest_base


def costs(state: GameState, seat: int, action: Action) -> list[Cost]:
    """HARV-01: the harvest costs nothing but the cube taken."""
    return []


def effect(state: GameState, seat: int, action: Action, ctx: Ctx) -> tuple[GameState, Pending | None]:
    """Harvest: the farmyard gains its yield of grain, up to the limit (HARV-01..03)."""
    ctx.fire(RuleId.HARV_01, state)
    ctx.fire(RuleId.HARV_02, state)
    amount = harvest_yield(state, seat)
    if state.players[seat].grain + amount > state.rules.data.grain_capacity:
        ctx.fire(RuleId.HARV_03, state)  # the farmyard holds at most 5 grain
    return take_grain(state, seat, amount), None
