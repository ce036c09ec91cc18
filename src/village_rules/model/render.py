"""A plain-text picture of a game state, for the command line and for logs."""

from __future__ import annotations

from typing import assert_never

from village_rules.data.components import ActionSpace, Category, format_location
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
    format_action,
)
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
        f"waiting for: {pending_words(state.pending)}",
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
            f"  cubes: {p.cubes}; goods: {p.goods}; customers served: {_listed(p.customers)}; "
            f"disc markers in: {_listed(p.markers)}",
            f"  members: {members}",
        ]
    carla = state.carla
    if carla is not None:
        fate = " ".join("?" if t is None else t.value for t in carla.fate)
        last = "-" if carla.last_cube is None else carla.last_cube.value
        lines.append(f"Carla's board: last cube {last} on space {carla.space}; fate tiles: {fate}")
    return "\n".join(lines)


def _listed(items: tuple[int, ...] | tuple[str, ...]) -> str:
    """Tiles or cities one after the other, in the order they came: "8, 3" or "none"."""
    return ", ".join(str(i) for i in items) if items else "none"


def _row(row: tuple[int | None, ...]) -> str:
    return " ".join("--" if t is None else f"{t:>2}" for t in row)


def pending_text(state: GameState) -> str:
    """The pending step in the engine's terms, e.g. `ChooseTurn(seat=0)`: for debugging
    (what a user reads says it in the rulebook's words, `pending_words`)."""
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


def _a(word: str) -> str:
    """`word` with its indefinite article: "a green", "an orange"."""
    return f"{'an' if word[:1] in 'aeiou' else 'a'} {word}"


def _member(number: int) -> str:
    return f"a family member numbered {number}"


def action_words(action: Action) -> str:
    """An action in the rulebook's words (2023 rulebook, the page of each action), e.g.
    "takes a green cube from the crafts" for `take crafts green`; `format_action` gives the
    log's notation."""
    match action:
        case TakeCube(space=space, cube=cube):  # p. 5
            return f"takes {_a(cube.value)} cube from the {space_words(space)}"
        case Well(space=space, colour=colour):  # p. 10
            return f"uses the well: returns {colour.value} cubes for the {space_words(space)} action"
        case FreeAction(space=space):  # p. 13
            return f"takes the final action, {space_words(space)}, with no cube left on the board"
        case Skip():
            return "does not take (any more of) this step"
        case PickCube(colour=colour):  # p. 3, p. 9, p. 10
            return f"takes {_a(colour.value)} cube from the supply"
        case PickGood(good=good):  # p. 9
            return f"takes {_a(good.value)} tile from the supply"
        case Harvest():  # p. 6
            return "harvests grain"
        case Birth():  # p. 6
            return "a family member is born onto the farmyard"
        case CallHome(location=where, number=n):  # p. 6
            return f"calls {_member(n)} home from {format_location(where)}"
        case Train(building=b, number=n, good=good):  # p. 7
            made = f" and produces {_a(good.value)}" if good is not None else " (training only)"
            return f"trains {_member(n)} at the {b.value}{made}"
        case Produce(building=b, good=good):  # p. 7
            return f"produces {_a(good.value)} at the {b.value}"
        case Buy(building=b, good=good):  # p. 7
            return f"buys {_a(good.value)} from the {b.value}"
        case Mill():  # p. 7
            return "uses the mill: time and grain for coins"
        case Travel(origin=a, destination=b, number=n):  # p. 10
            return f"travels with {_member(n)} from {a} to {b}"
        case CouncilPlace(number=n):  # p. 9
            return f"places {_member(n)} on stage 1 of the council chamber"
        case CouncilAdvance(stage=stage, number=n):  # p. 9
            return f"moves {_member(n)} up the council chamber from stage {stage} to {stage + 1}"
        case Privilege(stage=stage):  # p. 9
            return f"uses the privilege of council chamber stage {stage}"
        case ChurchEnter(number=n):  # p. 10
            return f"puts {_member(n)} into the black bag (church)"
        case Pay(alternative=k, coins=coins):  # p. 12: a coin for any one cube
            instead = f", coins for {coins}" if coins.total() else ""
            return f"pays with way {k + 1}{instead}"
        case Die(location=where):  # p. 12
            return f"the family member at {format_location(where)} dies"
        case Serve(tile=t):  # p. 8
            return f"serves customer tile #{t}"
        case Pass():  # p. 8
            return "passes for the rest of the market day"
        case BuyFromBag(number=n):  # p. 11
            return f"mass: buys {_member(n)} out of the black bag for 1 coin"
        case ChurchStep(stage=stage, number=n):  # p. 11
            return f"mass: moves {_member(n)} from church stage {stage} to {stage + 1}"
        case DrawCube(cube=cube):  # p. 4
            return f"{_a(cube.value)} cube is drawn from the green bag"
        case DrawCustomer(tile=t):  # p. 8
            return f"customer tile #{t} is turned up from the pile"
        case DrawMonk():  # p. 11
            return "a monk is drawn from the black bag"
        case DrawMember(seat=seat, number=n):  # p. 11
            return f"seat {seat}'s family member numbered {n} is drawn from the black bag"
        case CarlaCube(cube=cube):  # solo, p. 17
            return f"chooses {_a(cube.value)} cube for Carla"
        case RevealFate(tile=tile):  # solo, p. 17
            return f"Carla's fate tile is turned up: {tile.value}"
        case _:
            assert_never(action)
