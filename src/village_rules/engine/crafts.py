"""Crafts (2023 p. 7; 2011 "Crafts"): train and produce for time, produce with a trained
member for time, buy with cubes (grain at the stables), or the mill's coins."""

from __future__ import annotations

from village_rules.data.components import FARMYARD, AtCraft
from village_rules.data.edition import Cost
from village_rules.engine import shared
from village_rules.engine.common import find_member, move_member, numbers_at, take_coins, take_good
from village_rules.engine.context import Ctx
from village_rules.engine.guards import present
from village_rules.engine.payment import can_pay
from village_rules.errors import InternalError
from village_rules.model.actions import Action, Buy, Mill, Produce, Train
from village_rules.model.pending import Pending
from village_rules.model.state import GameState
from village_rules.rule_ids import RuleId


def candidates(state: GameState, seat: int) -> list[Action]:
    """The crafts actions open to `seat`: train, produce, buy or mill."""
    data = state.rules.data
    out: list[Action] = []
    farm_numbers = numbers_at(state, seat, FARMYARD)
    for craft in data.crafts:
        out += [Train(craft.building, n, g) for n in farm_numbers for g in craft.goods]
        if train_alone_allowed(state):
            out += [Train(craft.building, n, None) for n in farm_numbers]
        out += [Produce(craft.building, g) for g in craft.goods]
        out += [Buy(craft.building, g) for g in craft.goods]
    out.append(Mill())
    return out


def legal(state: GameState, seat: int) -> list[Action]:
    """The legal actions among `candidates`, in their order, generated directly: whether a
    training, a production or a purchase is allowed depends only on the building (and the
    member numbers on the farmyard are all trainable), so each is decided once per building.
    Training and producing cost only time, which can always be spent (the token moves,
    members die), so they need no payment test; a purchase and the mill do. Equal to
    filtering `candidates` by `precondition` and `costs` (the engine's oracle path,
    compared with this at every step the fuzzer checks). The action objects are shared
    (immutable values), built once per process."""
    data = state.rules.data
    player = state.players[seat]
    trained = {loc.building for loc in player.members if type(loc) is AtCraft}
    out: list[Action] = []
    farm_numbers = numbers_at(state, seat, FARMYARD)
    alone = train_alone_allowed(state)
    for craft in data.crafts:
        b = craft.building
        goods = craft.goods
        if farm_numbers:
            out += [shared.train(b, n, g) for n in farm_numbers for g in goods]
            if alone:
                out += [shared.train(b, n, None) for n in farm_numbers]
        if goods:
            if b in trained:
                out += [shared.produce(b, g) for g in goods]
            if can_pay(craft.purchase, player, True):
                out += [shared.buy(b, g) for g in goods]
    if can_pay(data.mill_cost, player, True):
        out.append(_MILL)
    return out


_MILL = Mill()


def train_alone_allowed(state: GameState) -> bool:
    """AMB-26 b (2023 p. 7 "You may then immediately produce"): training without producing."""
    return state.rules.reading("AMB-26") == "b"


def precondition(state: GameState, seat: int, action: Action) -> str | None:
    """Why `seat` may not take this crafts action now, or None."""
    data = state.rules.data
    match action:
        case Train(_, _, None) if not train_alone_allowed(state):
            return "crafts (AMB-26 a): training must be followed by producing a good for time"
        case Train(building, _, good) | Produce(building, good) | Buy(building, good) if (
            good is not None and good not in data.craft(building).goods
        ):
            makes = ", ".join(g.value for g in data.craft(building).goods)
            return f"crafts: the {building.value} makes {makes}, not {good.value}"
        case Train(building, number, _):
            if find_member(state, seat, FARMYARD, number) is None:
                return f"crafts: training needs a member numbered {number} on your farmyard"
        case Produce(building, _):
            if AtCraft(building) not in state.players[seat].members:
                return f"crafts: producing for time needs a trained member at the {building.value}"
    return None


def costs(state: GameState, seat: int, action: Action) -> list[Cost]:
    """CRAFT-01..04: training + production time, production time, purchase, mill."""
    data = state.rules.data
    match action:
        case Train(building, _, None):
            return [Cost(time=data.craft(building).training_time)]
        case Train(building, _, _):
            c = data.craft(building)
            return [Cost(time=c.training_time + c.production_time)]
        case Produce(building, _):
            return [Cost(time=data.craft(building).production_time)]
        case Buy(building, _):
            return [data.craft(building).purchase]
        case Mill():
            return [data.mill_cost]
    raise InternalError("crafts.costs", f"not a crafts action: {action!r}")


def effect(state: GameState, seat: int, action: Action, ctx: Ctx) -> tuple[GameState, Pending | None]:
    """Perform a crafts action (CRAFT-01..04)."""
    return _effect(state, seat, action, ctx), None


def _effect(state: GameState, seat: int, action: Action, ctx: Ctx) -> GameState:
    match action:
        case Train(building, number, good):
            ctx.fire(RuleId.CRAFT_01, state)
            index = present(
                find_member(state, seat, FARMYARD, number), "crafts.effect", "the member to train"
            )
            state = move_member(state, seat, index, AtCraft(building))
            if good is None:
                ctx.fire(RuleId.CRAFT_05, state)  # AMB-26 b: trained, nothing produced
                return state
            return take_good(state, seat, good)
        case Produce(_, good):
            ctx.fire(RuleId.CRAFT_02, state)
            return take_good(state, seat, good)
        case Buy(_, good):
            ctx.fire(RuleId.CRAFT_03, state)
            return take_good(state, seat, good)
        case Mill():
            ctx.fire(RuleId.CRAFT_04, state)
            return take_coins(state, seat, state.rules.data.mill_coins)
    raise InternalError("crafts.effect", f"not a crafts action: {action!r}")
