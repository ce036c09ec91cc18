"""Shared objects for the immutable values the engine builds most often.

Actions, pending steps and the turn marker are frozen values, so one object per value can
be handed out again and again: building a frozen dataclass costs one Python-level
`object.__setattr__` per field, and a playout built ~7 of these per `apply` (a seeding
draw's five `DrawCube` outcomes, a `Skip` per action step, a `ChooseTurn`, `Turn` and
`ChooseAction` per turn, the crafts, council, family, travel and mass-draw actions of
the generators…). Each function here returns the object `Cls(*args)` would
build, equal to it in every way, kept per argument values (a few hundred in all).
"""

from __future__ import annotations

from functools import cache

from village_rules.data.components import Cube
from village_rules.data.tally import Tally
from village_rules.model.actions import (
    Buy,
    CallHome,
    CouncilAdvance,
    CouncilPlace,
    DrawCube,
    DrawCustomer,
    DrawMember,
    Pass,
    Privilege,
    Produce,
    Skip,
    Train,
    Travel,
)
from village_rules.model.pending import ChooseAction, ChooseTurn, MarketChoice, SeedDraw
from village_rules.model.state import GameState, Turn

SKIP = Skip()
PASS = Pass()

draw_cube = cache(DrawCube)
draw_customer = cache(DrawCustomer)
choose_turn = cache(ChooseTurn)
choose_action = cache(ChooseAction)
market_choice = cache(MarketChoice)
seed_draw = cache(SeedDraw)
turn = cache(Turn)

# the rule modules' generators (crafts, council chamber, family, travel, mass)
train = cache(Train)
produce = cache(Produce)
buy = cache(Buy)
council_place = cache(CouncilPlace)
council_advance = cache(CouncilAdvance)
privilege = cache(Privilege)
call_home = cache(CallHome)
travel = cache(Travel)
draw_member = cache(DrawMember)


def last_cube_in_final_action(state: GameState, spaces: tuple[Tally[Cube], ...]) -> bool:
    """AMB-45 (END-03 / END-11): a cube taken in a final action (the end already
    triggered, `final_turns` settled) left `spaces` empty: the turn is marked, and under
    AMB-45 b its end holds the round mass. Never set outside the final actions, so every
    other state keeps its form."""
    return state.final_turns is not None and all(t.total() == 0 for t in spaces)
