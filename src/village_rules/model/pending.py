"""What a game is waiting for: one decision of one seat, a chance event, or nothing (over).

Each compound turn is a sequence of these small steps; the step in progress lives in the
state, so `legal_actions` and `chance_outcomes` need nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass

from village_rules.data.components import ActionSpace
from village_rules.data.typed_hash import typed_hash
from village_rules.model.actions import Action

# --- decisions of a seat ------------------------------------------------------------------


@typed_hash
@dataclass(frozen=True, slots=True)
class ChooseCompensationCube:
    """2023 setup step 14: the 4th player selects one influence cube from the supply."""

    seat: int


@typed_hash
@dataclass(frozen=True, slots=True)
class ChooseTurn:
    """Phase 2 step 1: take a cube from an action space, or use the well (p. 5, p. 10)."""

    seat: int


@typed_hash
@dataclass(frozen=True, slots=True)
class ChooseAction:
    """Phase 2 step 2: perform the action of `space` (one way of it) or not (p. 5)."""

    seat: int
    space: ActionSpace


@typed_hash
@dataclass(frozen=True, slots=True)
class ChoosePrivilege:
    """Council chamber: use one privilege of stage 1..`max_stage`, or none (p. 9)."""

    seat: int
    max_stage: int


@typed_hash
@dataclass(frozen=True, slots=True)
class ChooseSupplyCube:
    """Council privilege 2 or a travel reward: take `remaining` more cubes of choice."""

    seat: int
    remaining: int


@typed_hash
@dataclass(frozen=True, slots=True)
class ChooseSupplyGood:
    """Council privilege 3: take `remaining` more goods tiles of choice from the supply."""

    seat: int
    remaining: int


@typed_hash
@dataclass(frozen=True, slots=True)
class ChoosePayment:
    """`action` has several ways to pay (alternatives, coins for cubes): choose one."""

    seat: int
    action: Action


@typed_hash
@dataclass(frozen=True, slots=True)
class ChooseDying:
    """Several lowest-numbered visible members: the owner chooses who dies (p. 12)."""

    seat: int


@typed_hash
@dataclass(frozen=True, slots=True)
class MarketChoice:
    """Market day: serve one available customer or pass for the rest of the day (p. 8)."""

    seat: int


@typed_hash
@dataclass(frozen=True, slots=True)
class MassBuy:
    """Mass step 1: buy own members out of the black bag, 1 coin each (p. 11)."""

    seat: int


@typed_hash
@dataclass(frozen=True, slots=True)
class MassAdvance:
    """Mass step 2: move own church members up, paying grain per stage (p. 11)."""

    seat: int


@typed_hash
@dataclass(frozen=True, slots=True)
class ChooseCarlaCube:
    """Solo (SOLO-12, SOLO-13): no cube of the colour Carla looks for is on the board; the
    player chooses which cube she takes from `space` (2023 p. 17)."""

    seat: int
    space: ActionSpace


# --- chance -------------------------------------------------------------------------------


@typed_hash
@dataclass(frozen=True, slots=True)
class SeedDraw:
    """Phase 1: draw one cube from the green bag onto `space`; `remaining` includes it."""

    space: ActionSpace
    remaining: int


@typed_hash
@dataclass(frozen=True, slots=True)
class RefillDraw:
    """After a market day: turn a customer from the pile onto waiting `position` (0-based)."""

    position: int


@typed_hash
@dataclass(frozen=True, slots=True)
class MassDraw:
    """Mass step 1: draw one piece at random from the black bag; `remaining` includes it."""

    remaining: int


@typed_hash
@dataclass(frozen=True, slots=True)
class FateReveal:
    """Solo (SOLO-14): Carla's cube passed the face-down fate tile of `slot`; which tile of
    its set lies there is turned up (2023 p. 17)."""

    slot: int


@typed_hash
@dataclass(frozen=True, slots=True)
class GameOver:
    """Terminal: final scoring is done."""


Decision = (
    ChooseCompensationCube
    | ChooseTurn
    | ChooseAction
    | ChoosePrivilege
    | ChooseSupplyCube
    | ChooseSupplyGood
    | ChoosePayment
    | ChooseDying
    | MarketChoice
    | MassBuy
    | MassAdvance
    | ChooseCarlaCube
)
Chance = SeedDraw | RefillDraw | MassDraw | FateReveal
Pending = Decision | Chance | GameOver

CHANCE_TYPES = (SeedDraw, RefillDraw, MassDraw, FateReveal)
