"""Stage: model (the counts abstraction).

The abstraction function: a `GameState` reduced to the counts the proofs reason about.

An abstract state is a flat, named vector of integers: how many cubes are on the board, in
the green bag and in the supply, the coins, grain and goods left in the supply, customers
in the pile and on the market, chronicle and graveyard occupancy, the market-day, mass and
end-phase flags, whose turn it is, and per player the life-time position, living, unborn,
dead and bagged members, markers, served customers, coins, grain, cubes, goods, prestige
and deaths owed. The z3 model (`model.py`) is written over exactly these names, and the
refinement check compares it with the engine through this function.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from typing import assert_never

from village_rules.data.components import InBlackBag, InChronicle, InGraveyard, Removed, Unborn
from village_rules.errors import InternalError
from village_rules.model.pending import (
    ChooseAction,
    ChooseCarlaCube,
    ChooseCompensationCube,
    ChooseDying,
    ChoosePayment,
    ChoosePrivilege,
    ChooseSupplyCube,
    ChooseSupplyGood,
    ChooseTurn,
    FateReveal,
    GameOver,
    MarketChoice,
    MassAdvance,
    MassBuy,
    MassDraw,
    RefillDraw,
    SeedDraw,
)
from village_rules.model.state import GameState

PHASE_TURN = 0
"""A seat chooses a cube or the well (ChooseTurn)."""
PHASE_DECISION = 1
"""Any other decision of a seat."""
PHASE_SEED = 2
PHASE_REFILL = 3
PHASE_MASS_DRAW = 4
PHASE_OVER = 5

GLOBAL_FIELDS: tuple[str, ...] = (
    "round",
    "phase",
    "actor",
    "board",
    "bag",
    "influence_supply",
    "plague_supply",
    "coins_supply",
    "grain_supply",
    "goods_supply",
    "pile",
    "market",
    "chronicle",
    "graveyard",
    "monks",
    "end_by",
    "final_left",
    "market_trigger",
    "mass",
)
"""Global counters. `end_by`, `final_left` and `market_trigger` are -1 when absent; `mass`
is 0 (none), 1 (the mass of a round) or 2 (the final mass)."""

PLAYER_FIELDS: tuple[str, ...] = (
    "life",
    "alive",
    "unborn",
    "dead",
    "in_bag",
    "markers",
    "served",
    "coins",
    "grain",
    "cubes",
    "goods",
    "prestige",
    "owed",
)
"""Per-player counters, named `<field>_<seat>` in an abstract state."""


def field_names(players: int) -> tuple[str, ...]:
    """Every variable of the abstract state of a game with `players` seats, in order."""
    return GLOBAL_FIELDS + tuple(f"{f}_{s}" for s in range(players) for f in PLAYER_FIELDS)


@dataclass(frozen=True, slots=True)
class AbstractState(Mapping[str, int]):
    """An immutable mapping from variable name to value (see `field_names`)."""

    players: int
    vector: tuple[int, ...]
    names: tuple[str, ...] | None = None
    """The variable names in order; None for `field_names(players)` (the counts only). The
    rule-content abstraction (`content.py`) names a longer vector."""

    @staticmethod
    def of_names(names: tuple[str, ...], vector: tuple[int, ...]) -> AbstractState:
        """An abstract state over other names than `field_names` (same players count rule:
        the names end in `_<seat>` for per-seat fields)."""
        if len(names) != len(vector):
            raise InternalError("AbstractState.of_names", f"{len(names)} names for {len(vector)} values")
        return AbstractState(_players_named(names), vector, names)

    def __getitem__(self, key: str) -> int:
        if self.names is None:
            return self.vector[_index(self.players)[key]]
        return self.vector[_named_index(self.names)[key]]

    def __iter__(self) -> Iterator[str]:
        return iter(field_names(self.players) if self.names is None else self.names)

    def __len__(self) -> int:
        return len(self.vector)

    def player(self, field: str, seat: int) -> int:
        """The value of a per-seat field, e.g. player('coins', 1)."""
        return self[f"{field}_{seat}"]


_INDEX_CACHE: dict[int, dict[str, int]] = {}


def _index(players: int) -> dict[str, int]:
    if players not in _INDEX_CACHE:
        _INDEX_CACHE[players] = {name: i for i, name in enumerate(field_names(players))}
    return _INDEX_CACHE[players]


_NAMED_CACHE: dict[tuple[str, ...], dict[str, int]] = {}


@cache
def _players_named(names: tuple[str, ...]) -> int:
    """The seats a list of variable names covers (one `life_<seat>` each), found once per list
    (the link check builds two abstract states a step over the same few lists)."""
    return 1 + max((int(n.rsplit("_", 1)[1]) for n in names if n.startswith("life_")), default=-1)


def _named_index(names: tuple[str, ...]) -> dict[str, int]:
    if names not in _NAMED_CACHE:
        _NAMED_CACHE[names] = {name: i for i, name in enumerate(names)}
    return _NAMED_CACHE[names]


def phase_of(state: GameState) -> int:
    """The abstract phase number of a state's pending step."""
    match state.pending:
        case GameOver():
            return PHASE_OVER
        case SeedDraw():
            return PHASE_SEED
        case RefillDraw():
            return PHASE_REFILL
        case MassDraw():
            return PHASE_MASS_DRAW
        case ChooseTurn():
            return PHASE_TURN
        case (
            ChooseCompensationCube()
            | ChooseAction()
            | ChoosePrivilege()
            | ChooseSupplyCube()
            | ChooseSupplyGood()
            | ChoosePayment()
            | ChooseDying()
            | MarketChoice()
            | MassBuy()
            | MassAdvance()
        ):
            return PHASE_DECISION
        case ChooseCarlaCube() | FateReveal():
            no_solo = "the abstract model has no solo mode (Carla)"
            raise InternalError("proofs.model.abstraction.phase_of", no_solo)
        case _:
            assert_never(state.pending)


def abstract(state: GameState) -> AbstractState:
    """The abstraction function alpha: GameState -> AbstractState."""
    influence = sum(n for c, n in state.supply.cubes.items if c.is_influence)
    mass = 0 if state.mass is None else (2 if state.mass.final else 1)
    values: list[int] = [
        state.round,
        phase_of(state),
        state.current_player() if state.current_player() >= 0 else -1,
        state.cubes_on_board(),
        state.green_bag.total(),
        influence,
        state.supply.cubes.total() - influence,
        state.supply.coins,
        state.supply.grain,
        state.supply.goods.total(),
        len(state.customer_pile),
        sum(1 for t in (*state.market_available, *state.market_waiting) if t is not None),
        sum(1 for p in state.players for loc in p.members if isinstance(loc, InChronicle)),
        state.graveyard_count(),
        state.bag_monks + state.monks_aside,
        -1 if state.end_triggered_by is None else state.end_triggered_by,
        -1 if state.final_turns is None else len(state.final_turns),
        -1 if state.market_day is None else state.market_day.trigger,
        mass,
    ]
    for seat, p in enumerate(state.players):
        alive = unborn = dead = in_bag = 0
        for loc in p.members:
            if isinstance(loc, Unborn):
                unborn += 1
            elif isinstance(loc, InChronicle | InGraveyard | Removed):
                dead += 1
            else:
                alive += 1
                in_bag += isinstance(loc, InBlackBag)
        values += [
            p.lifetime,
            alive,
            unborn,
            dead,
            in_bag,
            len(p.markers),
            len(p.customers),
            p.coins,
            p.grain,
            p.cubes.total(),
            p.goods.total(),
            p.prestige,
            state.deaths_owed[seat],
        ]
    return AbstractState(state.num_players, tuple(values))
