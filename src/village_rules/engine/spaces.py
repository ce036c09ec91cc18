"""Which rule module offers, prices and performs each decision: the one dispatch table.

Every action that is chosen for its own effect (a turn choice, an action of a space, a
market-day choice) belongs to a module providing the four functions of `SpaceRules`; the
core asks that module for the candidates, the precondition, the costs and the effect. The
other actions (a cube or good picked, a payment, a death, a mass step, a chance outcome)
are answers to a pending step and are performed by the core's step dispatch.

Both tables are `match` blocks ending in `assert_never`, so an action or action space added
to its union or enum without a line here is a `mypy --strict` error, not an action taken
for free (tests/engine/test_dispatch_exhaustive.py shows the pattern failing on an unhandled one).
"""

from __future__ import annotations

from typing import Protocol, assert_never

from village_rules.data.components import ActionSpace
from village_rules.data.edition import Cost
from village_rules.engine import (
    church,
    council_chamber,
    crafts,
    family,
    harvest,
    market_day,
    travel,
    turn,
)
from village_rules.engine.context import Ctx
from village_rules.model.actions import (
    Action,
    Birth,
    Buy,
    BuyFromBag,
    CallHome,
    CarlaCube,
    ChurchEnter,
    ChurchStep,
    CouncilAdvance,
    CouncilPlace,
    Die,
    DrawCube,
    DrawCustomer,
    DrawMember,
    DrawMonk,
    FreeAction,
    Harvest,
    Mill,
    Pass,
    Pay,
    PickCube,
    PickGood,
    Privilege,
    Produce,
    RevealFate,
    Serve,
    Skip,
    TakeCube,
    Train,
    Travel,
    Well,
)
from village_rules.model.pending import Pending
from village_rules.model.state import GameState


class SpaceRules(Protocol):
    """What each rule module of a choice (turn, harvest, family, crafts, travel, council
    chamber, church, market day) provides to the core; the modules themselves satisfy it."""

    def candidates(self, state: GameState, seat: int) -> list[Action]:
        """Every action of this part the seat might take now (the legal ones among them)."""
        ...

    def precondition(self, state: GameState, seat: int, action: Action) -> str | None:
        """Why `action` is not allowed now, apart from paying for it; None if it is."""
        ...

    def costs(self, state: GameState, seat: int, action: Action) -> list[Cost]:
        """The cost alternatives of `action` (empty: it costs nothing)."""
        ...

    def effect(
        self, state: GameState, seat: int, action: Action, ctx: Ctx
    ) -> tuple[GameState, Pending | None]:
        """The state after `action` (paid for) and the sub-step it opens, if any."""
        ...


_RULES_BY_KIND: dict[type, SpaceRules | None] = {}


def rules_of(action: Action) -> SpaceRules | None:
    """The module that prices and performs `action`, or None for an answer to a pending
    step (performed by the core's step dispatch, never paid for). `_rules_of` decides by
    the action's class alone, so its answer is kept per class."""
    try:
        return _RULES_BY_KIND[type(action)]
    except KeyError:
        module = _RULES_BY_KIND[type(action)] = _rules_of(action)
        return module


def _rules_of(action: Action) -> SpaceRules | None:
    match action:
        case TakeCube() | Well() | FreeAction():
            return turn
        case Harvest():
            return harvest
        case Birth() | CallHome():
            return family
        case Train() | Produce() | Buy() | Mill():
            return crafts
        case Travel():
            return travel
        case CouncilPlace() | CouncilAdvance() | Privilege():
            return council_chamber
        case ChurchEnter():
            return church
        case Serve() | Pass():
            return market_day
        case Skip() | PickCube() | PickGood() | Pay() | Die() | BuyFromBag() | ChurchStep() | CarlaCube():
            return None
        case DrawCube() | DrawCustomer() | DrawMonk() | DrawMember() | RevealFate():
            return None
        case _:
            assert_never(action)


def space_rules(space: ActionSpace) -> SpaceRules | None:
    """The module of the action offered on `space` (phase 2 step 2); None for the market,
    whose cube holds a market day (`market_day.start`) instead of a `ChooseAction`.
    Looked up in a table built once from `_space_rules` (asked at every action step)."""
    return _RULES_BY_SPACE[space]


def _space_rules(space: ActionSpace) -> SpaceRules | None:
    match space:
        case ActionSpace.GRAIN_HARVEST:
            return harvest
        case ActionSpace.FAMILY:
            return family
        case ActionSpace.CRAFTS:
            return crafts
        case ActionSpace.TRAVEL:
            return travel
        case ActionSpace.COUNCIL_CHAMBER:
            return council_chamber
        case ActionSpace.CHURCH:
            return church
        case ActionSpace.MARKET:
            return None
        case _:
            assert_never(space)


_RULES_BY_SPACE: dict[ActionSpace, SpaceRules | None] = {space: _space_rules(space) for space in ActionSpace}
