"""Church action (2023 p. 10; 2011 "Church"): a farmyard member into the black bag."""

from __future__ import annotations

from village_rules.data.components import BLACK_BAG, FARMYARD
from village_rules.data.edition import Cost
from village_rules.engine.common import find_member, move_member, numbers_at
from village_rules.engine.context import Ctx
from village_rules.engine.guards import expect, present
from village_rules.engine.payment import can_pay
from village_rules.model.actions import Action, ChurchEnter
from village_rules.model.pending import Pending
from village_rules.model.state import GameState
from village_rules.rule_ids import RuleId


def candidates(state: GameState, seat: int) -> list[Action]:
    """The church actions open to `seat`: one per member number on its farmyard."""
    return [ChurchEnter(n) for n in numbers_at(state, seat, FARMYARD)]


def legal(state: GameState, seat: int) -> list[Action]:
    """The legal actions among `candidates`, in their order, generated directly
    (`core._generate`; the oracle `core.legal_actions_oracle` still filters `candidates`),
    before the AMB-03 b payout check (`core._generate` applies it, as `core._allowed`
    does). Each farmyard member may enter by construction and the cost (CHU-01) does not
    depend on the member, so whether it can be paid is asked once, not per member."""
    numbers = numbers_at(state, seat, FARMYARD)
    if not numbers:
        return []
    alternatives = state.rules.data.church_enter
    player = state.players[seat]
    if alternatives and not any(can_pay(cost, player, True) for cost in alternatives):
        return []
    return [ChurchEnter(n) for n in numbers]


def precondition(state: GameState, seat: int, action: Action) -> str | None:
    """Why `seat` may not enter the church with this member now, or None."""
    action = expect(action, ChurchEnter, "church.precondition")
    if find_member(state, seat, FARMYARD, action.number) is None:
        return f"church: you have no member numbered {action.number} on your farmyard"
    return None


def costs(state: GameState, seat: int, action: Action) -> list[Cost]:
    """CHU-01: 1 brown cube or 3 time."""
    return list(state.rules.data.church_enter)


def effect(state: GameState, seat: int, action: Action, ctx: Ctx) -> tuple[GameState, Pending | None]:
    """CHU-01: a farmyard member goes into the black bag."""
    entering = expect(action, ChurchEnter, "church.effect")
    ctx.fire(RuleId.CHU_01, state)
    index = present(
        find_member(state, seat, FARMYARD, entering.number), "church.effect", "the entering member"
    )
    return move_member(state, seat, index, BLACK_BAG), None
