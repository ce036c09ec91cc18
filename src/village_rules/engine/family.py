"""Family (2023 p. 6; 2011 "Family"): a birth, or a member called home from the board."""

from __future__ import annotations

from functools import cache

from village_rules.data.components import (
    FARMYARD,
    UNBORN,
    AtCraft,
    Location,
    OnChurch,
    OnCouncil,
    Travelling,
    format_location,
    is_on_board,
)
from village_rules.data.edition import Cost
from village_rules.engine import shared
from village_rules.engine.common import find_member, move_member
from village_rules.engine.context import Ctx
from village_rules.engine.guards import expect, present
from village_rules.model.actions import Action, Birth, CallHome
from village_rules.model.pending import Pending
from village_rules.model.state import GameState
from village_rules.rule_ids import RuleId


def can_call_home(state: GameState, location: Location) -> bool:
    """FAM-02: any member on the board (AMB-24 a), or only an employed one at a craft
    building or on the council track (AMB-24 b)."""
    if state.rules.reading("AMB-24") == "b":
        return isinstance(location, AtCraft | OnCouncil)
    return is_on_board(location)


def candidates(state: GameState, seat: int) -> list[Action]:
    """The family actions open to `seat`: a birth, or calling a member home."""
    calls = {
        CallHome(loc, state.number_of(i))
        for i, loc in enumerate(state.players[seat].members)
        if can_call_home(state, loc)
    }
    ordered = sorted(calls, key=lambda a: (format_location(a.location), a.number))
    return [Birth(), *ordered]


def legal(state: GameState, seat: int) -> list[Action]:
    """The family step's legal actions, generated directly (`core._generate`; the oracle
    `core.legal_actions_oracle` still filters `candidates` through `precondition`), in the
    order of `candidates`. Every call home there is legal by construction (a member of the
    seat, by its own number, at a place `can_call_home` allows); a birth needs an unborn
    member. Neither costs anything nor pays out of the supply (AMB-03 b has nothing to
    refuse here)."""
    members = state.players[seat].members
    numbers = state.rules.data.family_numbers
    employed_only = state.rules.reading("AMB-24") == "b"
    allowed = _EMPLOYED if employed_only else _ON_BOARD
    calls = {(loc, numbers[i]) for i, loc in enumerate(members) if type(loc) in allowed}
    ordered = sorted(calls, key=lambda call: (_label(call[0]), call[1]))
    out: list[Action] = [shared.call_home(loc, n) for loc, n in ordered]
    if UNBORN in members:
        out.insert(0, _BIRTH)
    return out


_ON_BOARD = frozenset({AtCraft, OnCouncil, OnChurch, Travelling})
"""The location classes `is_on_board` accepts (AMB-24 a)."""
_EMPLOYED = frozenset({AtCraft, OnCouncil})
"""The location classes AMB-24 b lets a member be called home from."""
_BIRTH = Birth()
_label = cache(format_location)
"""`format_location`, kept per location value (the order of the calls home)."""


def precondition(state: GameState, seat: int, action: Action) -> str | None:
    """Why `seat` may not take this family action now, or None."""
    if isinstance(action, Birth):
        if UNBORN not in state.players[seat].members:
            return "family: no unborn member is left in your supply"
        return None
    action = expect(action, CallHome, "family.precondition")
    if not is_on_board(action.location):
        return "family: only a member on the game board can return to the farmyard"
    if not can_call_home(state, action.location):
        return "family (AMB-24 b): only a member at a craft building or on the council track can return"
    if find_member(state, seat, action.location, action.number) is None:
        return f"family: you have no member numbered {action.number} there"
    return None


def costs(state: GameState, seat: int, action: Action) -> list[Cost]:
    """FAM-01 / FAM-02: a birth and a call home cost nothing but the cube taken."""
    return []


def effect(state: GameState, seat: int, action: Action, ctx: Ctx) -> tuple[GameState, Pending | None]:
    """Perform a birth (FAM-01) or call a member home (FAM-02)."""
    if isinstance(action, Birth):
        ctx.fire(RuleId.FAM_01, state)  # always the lowest-numbered unborn member
        index = next(i for i, loc in enumerate(state.players[seat].members) if loc == UNBORN)
        return move_member(state, seat, index, FARMYARD), None
    call = expect(action, CallHome, "family.effect")
    ctx.fire(RuleId.FAM_02, state)
    called = present(
        find_member(state, seat, call.location, call.number), "family.effect", "the member called home"
    )
    return move_member(state, seat, called, FARMYARD), None
