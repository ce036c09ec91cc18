"""Carla's part in the mass (2023 p. 18): only one of her members on each church stage.

The mass is otherwise the usual one: the player buys out of the bag first (Carla has no
coin, so she never buys), the rest of the 4 pieces are drawn at random, the player moves
members up for grain (Carla has none), and the majority is awarded; Carla's members count
for the majority, but she never receives prestige (p. 15)."""

from __future__ import annotations

from village_rules.data.components import OnChurch
from village_rules.engine.context import Ctx
from village_rules.model.carla_board import CARLA
from village_rules.model.state import GameState
from village_rules.rule_ids import RuleId

CARLA_DOES_NOT_PAY = "solo: Carla buys no member out of the bag and moves none up (she has no coin or grain)"
"""SOLO-03: why Carla's mass steps offer her nothing but to skip, whatever the data's prices."""


def entry_stage(state: GameState, seat: int, ctx: Ctx) -> int | None:
    """The church stage a member drawn from the bag goes to: stage 1 for the player;
    SOLO-27 for Carla the first stage, from left to right, with none of her members on it
    (None: every stage has one of hers, so the member stays in the bag; the shipped data
    cannot reach this, as Carla has no more church members than there are stages)."""
    if not state.is_carla(seat):
        return 1
    ctx.fire(RuleId.SOLO_27, state)
    taken = {loc.stage for loc in state.players[CARLA].members if isinstance(loc, OnChurch)}
    for stage in range(1, state.rules.data.church_stages + 1):
        if stage not in taken:
            return stage
    return None


def gets_prestige(state: GameState, seat: int, ctx: Ctx) -> bool:
    """SOLO-29: Carla's members count for the church majority, but she receives no
    prestige (SOLO-03): with the majority hers, the player gets no 2 prestige (p. 18)."""
    if state.is_carla(seat):
        ctx.fire(RuleId.SOLO_29, state)
        return False
    return True
