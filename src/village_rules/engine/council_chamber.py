"""Council chamber (2023 p. 9; 2011 "Council chamber"): place on stage 1, advance one stage,
or use a privilege of a stage one of your members has reached."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from village_rules.data.components import FARMYARD, Farmyard, OnCouncil
from village_rules.data.edition import Cost, EditionData
from village_rules.engine import shared
from village_rules.engine.common import find_member, gain_prestige, move_member, numbers_at
from village_rules.engine.context import Ctx
from village_rules.engine.guards import present
from village_rules.engine.payment import can_pay
from village_rules.errors import InternalError
from village_rules.model.actions import Action, CouncilAdvance, CouncilPlace, Privilege
from village_rules.model.evolve import replace
from village_rules.model.pending import ChoosePrivilege, ChooseSupplyCube, ChooseSupplyGood, Pending
from village_rules.model.state import GameState, PlayerState
from village_rules.rule_ids import RuleId


def highest_stage(state: GameState, seat: int) -> int:
    """The furthest council stage any of the seat's members has reached (0 = none)."""
    stages = [loc.stage for loc in state.players[seat].members if isinstance(loc, OnCouncil)]
    return max(stages, default=0)


def candidates(state: GameState, seat: int) -> list[Action]:
    """The council chamber actions open to `seat`: place a member, or advance one."""
    d = state.rules.data
    out: list[Action] = [CouncilPlace(n) for n in numbers_at(state, seat, FARMYARD)]
    for stage in range(1, d.council_stages):
        out += [CouncilAdvance(stage, n) for n in numbers_at(state, seat, OnCouncil(stage))]
    out += [Privilege(k) for k in range(1, highest_stage(state, seat) + 1)]
    return out


def legal(state: GameState, seat: int) -> list[Action]:
    """The council chamber's legal actions, generated directly (`core._generate`; the oracle
    `core.legal_actions_oracle` still filters `candidates`), in the order of `candidates`,
    before the AMB-03 b payout check (which `core._generate` applies, as for crafts). A
    placement or an advance from a stage is legal by construction for each member there,
    so whether one can be paid for is asked once per stage, not per member; a privilege
    needs its stage reached (by construction) and, for stage 4, the coin."""
    d = state.rules.data
    player = state.players[seat]
    numbers = d.family_numbers
    farm: set[int] = set()
    on_stage: dict[int, set[int]] = {}  # one pass over the members, not one per stage
    for i, loc in enumerate(player.members):
        if type(loc) is Farmyard:
            farm.add(numbers[i])
        elif type(loc) is OnCouncil:
            on_stage.setdefault(loc.stage, set()).add(numbers[i])
    out: list[Action] = []
    if farm and _payable(d.council_place, player):
        out += [shared.council_place(n) for n in sorted(farm)]
    for stage in range(1, d.council_stages):
        here = on_stage.get(stage)
        if here and _payable(_advance_costs(d, stage), player):
            out += [shared.council_advance(stage, n) for n in sorted(here)]
    top = max(on_stage, default=0)
    out += [
        shared.privilege(k) for k in range(1, top + 1) if privilege_precondition(state, seat, k, top) is None
    ]
    return out




def _payable(alternatives: Sequence[Cost], player: PlayerState) -> bool:
    """One of the cost alternatives can be paid (none: free), as `core._allowed` asks."""
    return not alternatives or any(can_pay(cost, player, True) for cost in alternatives)


def precondition(state: GameState, seat: int, action: Action) -> str | None:
    """Why `seat` may not take this council chamber action now, or None."""
    d = state.rules.data
    match action:
        case CouncilPlace(number):
            if find_member(state, seat, FARMYARD, number) is None:
                return f"council: you have no member numbered {number} on your farmyard"
        case CouncilAdvance(stage, number):
            if not 1 <= stage < d.council_stages:
                return f"council: a member advances from stage 1..{d.council_stages - 1}, not {stage}"
            if find_member(state, seat, OnCouncil(stage), number) is None:
                return f"council: you have no member numbered {number} on stage {stage}"
        case Privilege(k):
            return privilege_precondition(state, seat, k, highest_stage(state, seat))
    return None


def privilege_precondition(state: GameState, seat: int, stage: int, max_stage: int) -> str | None:
    """CNC-04: a privilege of the reached stage or an earlier one; stage 4 needs a coin."""
    d = state.rules.data
    if not 1 <= stage <= max_stage:
        return f"council: privilege {stage} needs a member on stage {stage} or beyond (reached: {max_stage})"
    if stage == 4 and state.players[seat].coins < d.privilege_coin_price:
        have = state.players[seat].coins
        return f"council: privilege 4 needs exactly {d.privilege_coin_price} coin; you have {have}"
    return None


def costs(state: GameState, seat: int, action: Action) -> list[Cost]:
    """The alternative costs of a council chamber action (CNC-01, CNC-02)."""
    d = state.rules.data
    match action:
        case CouncilPlace(_):
            return list(d.council_place)
        case CouncilAdvance(stage, _):
            return list(_advance_costs(d, stage))
        case Privilege(_):
            return []
    raise InternalError("council", f"not a council action: {action!r}")


@lru_cache(maxsize=256)
def _advance_costs(d: EditionData, stage: int) -> tuple[Cost, ...]:
    """CNC-02: each alternative of the advance plus the time of leaving `stage`."""
    time = Cost(time=d.council_advance_time[stage - 1])
    return tuple(alt.plus(time) for alt in d.council_advance)


def effect(state: GameState, seat: int, action: Action, ctx: Ctx) -> tuple[GameState, Pending | None]:
    """Perform a council chamber action; a privilege to choose may follow."""
    match action:
        case CouncilPlace(number):
            ctx.fire(RuleId.CNC_01, state)
            index = present(find_member(state, seat, FARMYARD, number), "council.effect", "the placed member")
            return move_member(state, seat, index, OnCouncil(1)), ChoosePrivilege(seat, 1)
        case CouncilAdvance(stage, number):
            ctx.fire(RuleId.CNC_02, state)
            index = present(
                find_member(state, seat, OnCouncil(stage), number), "council.effect", "the advancing member"
            )
            state = move_member(state, seat, index, OnCouncil(stage + 1))
            return state, ChoosePrivilege(seat, stage + 1)
        case Privilege(stage):
            ctx.fire(RuleId.CNC_03, state)
            return use_privilege(state, seat, stage, ctx)
    raise InternalError("council", f"not a council action: {action!r}")


def use_privilege(state: GameState, seat: int, stage: int, ctx: Ctx) -> tuple[GameState, Pending | None]:
    """CNC-05..08: next-start marker, 2 cubes of choice, 1 good of choice, 1 coin → 3 prestige."""
    d = state.rules.data
    match stage:
        case 1:
            ctx.fire(RuleId.CNC_05, state)
            if state.next_start_holder is None:
                state = replace(state, next_start_holder=seat)
            return state, None
        case 2:
            ctx.fire(RuleId.CNC_06, state)
            return state, ChooseSupplyCube(seat, d.privilege_cubes)
        case 3:
            ctx.fire(RuleId.CNC_07, state)
            return state, ChooseSupplyGood(seat, d.privilege_goods)
        case 4:
            ctx.fire(RuleId.CNC_08, state)
            p = state.players[seat]
            state = state.with_player(seat, replace(p, coins=p.coins - d.privilege_coin_price))
            state = replace(
                state, supply=replace(state.supply, coins=state.supply.coins + d.privilege_coin_price)
            )
            return gain_prestige(state, seat, d.privilege_prestige), None
    raise InternalError("council.use_privilege", f"no privilege of stage {stage}")
