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
from village_rules.model.state import Turn

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
