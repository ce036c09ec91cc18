"""A plain-text picture of a game state, for the command line and for logs."""

from __future__ import annotations

from typing import assert_never

from village_rules.data.components import ActionSpace, Category, format_location
from village_rules.model.actions import format_action
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
    Pending,
    RefillDraw,
    SeedDraw,
)
from village_rules.model.state import GameState


def render(state: GameState) -> str:
    """The state as text: the board, the supply and each farmyard."""
    d = state.rules.data
    n = state.num_players
    who = "1 player against Carla (solo; Carla is seat 1)" if state.is_solo else f"{n} players"
    lines = [
        f"{d.name} ({d.edition}), {who}, round {state.round}",
        f"start player: seat {state.start_player}; next starting player marker: "
        + (
            "on the council chamber" if state.next_start_holder is None else f"seat {state.next_start_holder}"
        ),
        f"waiting for: {pending_text(state)}",
        "",
        f"green bag: {state.green_bag}",
        "action spaces:",
    ]
    for space in ActionSpace:
        lines.append(f"  {space.value:16} {state.space(space)}")
    lines += [
        "market:",
        f"  available: {_row(state.market_available)}",
        f"  waiting:   {_row(state.market_waiting)}",
        f"  face-down pile: {len(state.customer_pile)} tiles",
        f"black bag: {state.bag_monks} monks, {len(state.bag_members())} family members",
        "chronicle: "
        + ", ".join(f"{c.value} {state.chronicle_count(c)}/{d.chronicle_open(c, n)}" for c in Category)
        + f"; graveyard {state.graveyard_count()}/{d.graveyard_open(n)}",
        f"supply: {state.supply.cubes}; {state.supply.coins} coins; {state.supply.grain} grain; "
        f"goods {state.supply.goods}",
        "",
    ]
    for seat, p in enumerate(state.players):
        members = ", ".join(f"{state.number_of(i)}@{format_location(loc)}" for i, loc in enumerate(p.members))
        lines += [
            f"seat {seat} ({p.colour}): prestige {p.prestige}, coins {p.coins}, grain {p.grain}, "
            f"life-time {p.lifetime}/{d.lifetime_track_length}",
            f"  cubes: {p.cubes}; goods: {p.goods}; customers: {list(p.customers)}; "
            f"markers: {list(p.markers)}",
            f"  members: {members}",
        ]
    carla = state.carla
    if carla is not None:
        fate = " ".join("?" if t is None else t.value for t in carla.fate)
        last = "-" if carla.last_cube is None else carla.last_cube.value
        lines.append(f"Carla's board: last cube {last} on space {carla.space}; fate tiles: {fate}")
    return "\n".join(lines)


def _row(row: tuple[int | None, ...]) -> str:
    return " ".join("--" if t is None else f"{t:>2}" for t in row)


def pending_text(state: GameState) -> str:
    """The pending step in one line, e.g. `ChooseTurn(seat=0)`."""
    p = state.pending
    parts = []
    for name in getattr(p, "__slots__", ()):
        value = getattr(p, name)
        parts.append(f"{name}={value if isinstance(value, int | str) else format_action(value)}")
    return f"{type(p).__name__}({', '.join(parts)})"


def space_words(space: ActionSpace) -> str:
    """An action space as the rulebook names it: "grain harvest", "council chamber"."""
    return space.value.replace("_", " ")


def _count(k: int, one: str, many: str) -> str:
    return f"{k} {one if k == 1 else many}"


def pending_words(pending: Pending) -> str:
    """The pending step in the rulebook's words (2023 rulebook, the page of each step), e.g.
    "seeding the church: 3 cubes to draw" for `SeedDraw(space=church, remaining=3)`."""
    match pending:
        case ChooseCompensationCube(seat=s):  # setup step 14, p. 3
            return f"seat {s} chooses an influence cube from the supply (set-up compensation)"
        case ChooseTurn(seat=s):  # p. 5, the well p. 10
            return f"seat {s}: take an influence cube from an action space, or use the well"
        case ChooseAction(seat=s, space=space):  # p. 5
            return f"seat {s}: carry out the {space_words(space)} action, or not"
        case ChoosePrivilege(seat=s, max_stage=m):  # p. 9
            stages = "stage 1" if m == 1 else f"stages 1 to {m}"
            return f"seat {s}: use one council chamber privilege ({stages}), or none"
        case ChooseSupplyCube(seat=s, remaining=k):  # p. 9, p. 10
            return f"seat {s}: take {_count(k, 'more influence cube', 'more influence cubes')} of choice"
        case ChooseSupplyGood(seat=s, remaining=k):  # p. 9
            return f"seat {s}: take {_count(k, 'more goods tile', 'more goods tiles')} of choice"
        case ChoosePayment(seat=s, action=a):  # the ways to pay of p. 5-10
            return f"seat {s}: choose how to pay for '{format_action(a)}'"
        case ChooseDying(seat=s):  # p. 12
            return f"seat {s}: choose which of the lowest-numbered family members dies"
        case MarketChoice(seat=s):  # p. 8
            return f"market day: seat {s} serves a customer or passes"
        case MassBuy(seat=s):  # p. 11
            return f"mass: seat {s} may buy family members out of the black bag, 1 coin each"
        case MassAdvance(seat=s):  # p. 11
            return f"mass: seat {s} may move church members up, paying grain"
        case ChooseCarlaCube(seat=s, space=space):  # solo, p. 17
            return f"seat {s} chooses which cube Carla takes from the {space_words(space)}"
        case SeedDraw(space=space, remaining=k):  # p. 4
            return f"seeding the {space_words(space)}: {_count(k, 'cube', 'cubes')} to draw"
        case RefillDraw(position=k):  # p. 8
            return f"refilling the market: a customer tile onto waiting space {k + 1}"
        case MassDraw(remaining=k):  # p. 11
            return f"mass: {_count(k, 'piece', 'pieces')} to draw from the black bag"
        case FateReveal(slot=k):  # solo, p. 17
            return f"Carla passed fate tile {k + 1}: turning it face up"
        case GameOver():  # p. 13-14
            return "game over: final scores"
        case _:
            assert_never(pending)
