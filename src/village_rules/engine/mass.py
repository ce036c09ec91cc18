"""The mass (2023 p. 11; 2011 "End of a round"): 4 pieces from the black bag (bought with
coins in turn order, the rest drawn at random), moving members up the church for grain,
and 2 prestige for the church majority."""

from __future__ import annotations

from fractions import Fraction

from village_rules.data.components import BLACK_BAG, InBlackBag, OnChurch
from village_rules.engine import shared, solo_mass
from village_rules.engine.common import find_member, gain_prestige, move_member, numbers_at
from village_rules.engine.context import Ctx
from village_rules.engine.guards import expect, present
from village_rules.model.actions import Action, BuyFromBag, ChurchStep, DrawMember, DrawMonk
from village_rules.model.chance import proportional
from village_rules.model.evolve import replace
from village_rules.model.pending import MassAdvance, MassBuy, MassDraw, Pending
from village_rules.model.state import GameState, Mass
from village_rules.rule_ids import RuleId


def start(state: GameState, final: bool, ctx: Ctx) -> tuple[GameState, Pending]:
    """MASS-01: the mass begins; the start player may buy first."""
    ctx.fire(RuleId.MASS_01, state)
    return replace(state, mass=Mass(bought=0, final=final)), MassBuy(state.start_player)


# --- step 1: buy, then draw ---------------------------------------------------------------


def buy_candidates(state: GameState, seat: int) -> list[Action]:
    """The mass purchases open to `seat`: a member from the black bag, by number."""
    if state.is_carla(seat):
        return []  # solo: Carla never buys (SOLO-03); her chance is a forced skip
    return [BuyFromBag(n) for n in numbers_at(state, seat, BLACK_BAG)]


def buy_legal(state: GameState, seat: int) -> list[Action]:
    """The legal purchases among `buy_candidates`, in their order, generated directly
    (`core._generate`; the oracle `core.legal_actions_oracle` still filters the candidates
    by `buy_precondition`): each member in the bag is there by construction, and the coin
    (MASS-02) is the same for every member, so it is asked once, not per member."""
    numbers = numbers_at(state, seat, BLACK_BAG)
    if not numbers:
        return []  # no candidate, so nothing for the oracle to check either
    present(state.mass, "mass.buy_legal", "the mass in progress")
    if state.is_carla(seat) or state.players[seat].coins < state.rules.data.mass_coin_price:
        return []  # solo: Carla never buys (SOLO-03)
    return [BuyFromBag(n) for n in numbers]


def buy_precondition(state: GameState, seat: int, action: Action) -> str | None:
    """Why `seat` may not buy this member from the bag now, or None."""
    action = expect(action, BuyFromBag, "mass.buy_precondition")
    d = state.rules.data
    present(state.mass, "mass.buy_precondition", "the mass in progress")
    if state.is_carla(seat):
        return solo_mass.CARLA_DOES_NOT_PAY
    if find_member(state, seat, BLACK_BAG, action.number) is None:
        return f"mass: you have no member numbered {action.number} in the black bag"
    have = state.players[seat].coins
    if have < d.mass_coin_price:
        return f"mass: buying a member out of the bag costs {d.mass_coin_price} coin; you have {have}"
    return None


def buy(state: GameState, seat: int, action: Action, ctx: Ctx) -> tuple[GameState, Pending | None]:
    """MASS-02: pay 1 coin, the member goes to stage 1; after 4 bought, no more drawing."""
    action = expect(action, BuyFromBag, "mass.buy")
    ctx.fire(RuleId.MASS_02, state)
    d = state.rules.data
    mass = present(state.mass, "mass.buy", "the mass in progress")
    index = present(find_member(state, seat, BLACK_BAG, action.number), "mass.buy", "the member")
    p = state.players[seat]
    state = state.with_player(seat, replace(p, coins=p.coins - d.mass_coin_price))
    state = replace(
        state,
        supply=replace(state.supply, coins=state.supply.coins + d.mass_coin_price),
        mass=replace(mass, bought=mass.bought + 1),
    )
    state = move_member(state, seat, index, OnChurch(1))
    if mass.bought + 1 >= d.mass_pieces:
        return after_draws(state, ctx)
    if state.rules.reading("AMB-15") == "b":
        ctx.fire(RuleId.MASS_07, state)  # AMB-15 b: one member per purchase, then the next buyer
        return _next_still_buying(state, seat, ctx)
    return state, MassBuy(seat)


def next_buyer(state: GameState, seat: int, ctx: Ctx) -> tuple[GameState, Pending | None]:
    """The seat declines to buy (more). AMB-15 a: its one chance is over and the next seat
    in order from the start player buys. b (MASS-07): it has stopped buying for this mass,
    and the buying goes round among the seats that have not stopped."""
    if state.rules.reading("AMB-15") == "b":
        mass = present(state.mass, "mass.next_buyer", "the mass in progress")
        state = replace(state, mass=replace(mass, stopped=tuple(sorted((*mass.stopped, seat)))))
        return _next_still_buying(state, seat, ctx)
    following = (seat + 1) % state.num_players
    if following != state.start_player:
        return state, MassBuy(following)
    return start_draws(state, ctx)


def _next_still_buying(state: GameState, seat: int, ctx: Ctx) -> tuple[GameState, Pending | None]:
    """AMB-15 b: clockwise from the left of `seat` (itself last), the first seat that has
    not stopped buying; when every seat has stopped, the rest of the pieces are drawn."""
    mass = present(state.mass, "mass._next_still_buying", "the mass in progress")
    n = state.num_players
    for k in range(1, n + 1):
        following = (seat + k) % n
        if following not in mass.stopped:
            return state, MassBuy(following)
    return start_draws(state, ctx)


def stopped_buying(state: GameState) -> tuple[int, ...]:
    """The seats (sorted) that can buy nothing more at this mass, under either reading of
    AMB-15: b records those that declined in `Mass.stopped`; under a they are the seats
    whose one chance, in order from the start player, is over. Either way a seat without a
    coin or without a member in the bag is out too (nothing during the mass gives either
    back; the engine passes it by at its chance). Once the buying is over, all seats.
    The divergence search compares the readings' states through this, not the field."""
    mass = present(state.mass, "mass.stopped_buying", "the mass in progress")
    n = state.num_players
    pending = state.pending
    if not isinstance(pending, MassBuy):
        return tuple(range(n))
    if state.rules.reading("AMB-15") == "b":
        declined = set(mass.stopped)
    else:
        declined = {(state.start_player + k) % n for k in range((pending.seat - state.start_player) % n)}
    price = state.rules.data.mass_coin_price
    unable = {
        seat
        for seat in range(n)
        if state.players[seat].coins < price or not numbers_at(state, seat, BLACK_BAG)
    }
    return tuple(sorted(declined | unable))


def start_draws(state: GameState, ctx: Ctx) -> tuple[GameState, Pending | None]:
    """After the purchases: draw the remaining pieces from the black bag."""
    mass = present(state.mass, "mass.start_draws", "the mass in progress")
    remaining = state.rules.data.mass_pieces - mass.bought
    return next_draw(state, remaining, ctx)


def next_draw(state: GameState, remaining: int, ctx: Ctx) -> tuple[GameState, Pending | None]:
    """The next draw from the bag, or what follows once no draw is left."""
    if remaining > 0 and state.bag_monks + len(state.bag_members()) > 0:
        return state, MassDraw(remaining)
    return after_draws(state, ctx)


def draw_outcomes(state: GameState) -> list[tuple[Action, Fraction]]:
    """MASS-03: every piece in the bag is equally likely; members of one colour and number
    are interchangeable, so they are one outcome with their combined chance."""
    numbers = state.rules.data.family_numbers
    counts: dict[tuple[int, int], int] = {}  # (seat, number): plain tuples hash in C
    for seat, p in enumerate(state.players):
        for index, loc in enumerate(p.members):
            if type(loc) is InBlackBag:
                key = (seat, numbers[index])
                counts[key] = counts.get(key, 0) + 1
    pieces: list[tuple[Action, int]] = [(_DRAW_MONK, state.bag_monks)]
    pieces += [(shared.draw_member(seat, number), n) for (seat, number), n in counts.items()]
    return proportional(pieces)


_DRAW_MONK = DrawMonk()



def draw(state: GameState, pending: MassDraw, outcome: Action, ctx: Ctx) -> tuple[GameState, Pending | None]:
    """MASS-03: a drawn monk is set aside, a drawn member goes to the church."""
    ctx.fire(RuleId.MASS_03, state)
    if isinstance(outcome, DrawMonk):
        state = replace(state, bag_monks=state.bag_monks - 1, monks_aside=state.monks_aside + 1)
    else:
        outcome = expect(outcome, DrawMember, "mass.draw")
        index = present(
            find_member(state, outcome.seat, BLACK_BAG, outcome.number), "mass.draw", "the member"
        )
        stage = solo_mass.entry_stage(state, outcome.seat, ctx) if state.is_solo else 1
        if stage is not None:
            state = move_member(state, outcome.seat, index, OnChurch(stage))
    return next_draw(state, pending.remaining - 1, ctx)


def after_draws(state: GameState, ctx: Ctx) -> tuple[GameState, Pending | None]:
    """Drawn monks go back into the bag; then step 2 from the start player."""
    state = replace(state, bag_monks=state.bag_monks + state.monks_aside, monks_aside=0)
    return state, MassAdvance(state.start_player)


# --- step 2: move up ----------------------------------------------------------------------


def advance_candidates(state: GameState, seat: int) -> list[Action]:
    """The church steps open to `seat` at the mass: a member one stage up."""
    d = state.rules.data
    if state.is_carla(seat):
        return []  # solo: Carla pays no grain (SOLO-03); her chance is a forced skip
    return [
        ChurchStep(stage, n)
        for stage in range(1, d.church_stages)
        for n in numbers_at(state, seat, OnChurch(stage))
    ]


def advance_legal(state: GameState, seat: int) -> list[Action]:
    """The legal church steps among `advance_candidates`, in their order (stage, then
    number), generated directly (`core._generate`; the oracle still filters the candidates
    by `advance_precondition`): the seat's members are looked at once for all the stages,
    and the grain (MASS-04) is asked once per stage, not per member."""
    if state.is_carla(seat):
        return []  # solo: Carla pays no grain (SOLO-03)
    d = state.rules.data
    numbers = d.family_numbers
    on_stage: dict[int, set[int]] = {}
    for i, loc in enumerate(state.players[seat].members):
        if type(loc) is OnChurch and 1 <= loc.stage < d.church_stages:
            on_stage.setdefault(loc.stage, set()).add(numbers[i])
    grain = state.players[seat].grain
    return [
        ChurchStep(stage, n)
        for stage in sorted(on_stage)
        if grain >= d.church_step_grain[stage - 1]
        for n in sorted(on_stage[stage])
    ]


def advance_precondition(state: GameState, seat: int, action: Action) -> str | None:
    """Why `seat` may not move this church member up now, or None."""
    action = expect(action, ChurchStep, "mass.advance_precondition")
    d = state.rules.data
    if state.is_carla(seat):
        return solo_mass.CARLA_DOES_NOT_PAY
    if not 1 <= action.stage < d.church_stages:
        return f"mass: a member moves up from stage 1..{d.church_stages - 1}, not {action.stage}"
    if find_member(state, seat, OnChurch(action.stage), action.number) is None:
        return f"mass: you have no member numbered {action.number} on church stage {action.stage}"
    price = d.church_step_grain[action.stage - 1]
    have = state.players[seat].grain
    if have < price:
        return f"mass: moving up from stage {action.stage} costs {price} grain; you have {have}"
    return None


def step_up(state: GameState, seat: int, action: Action, ctx: Ctx) -> tuple[GameState, Pending | None]:
    """MASS-04: pay the grain shown between the stages; as many steps as you can pay."""
    action = expect(action, ChurchStep, "mass.step_up")
    ctx.fire(RuleId.MASS_04, state)
    price = state.rules.data.church_step_grain[action.stage - 1]
    index = present(
        find_member(state, seat, OnChurch(action.stage), action.number), "mass.step_up", "the member"
    )
    p = state.players[seat]
    state = state.with_player(seat, replace(p, grain=p.grain - price))
    state = replace(state, supply=replace(state.supply, grain=state.supply.grain + price))
    return move_member(state, seat, index, OnChurch(action.stage + 1)), MassAdvance(seat)


def next_advancer(state: GameState, seat: int, ctx: Ctx) -> tuple[GameState, Pending | None]:
    """The next seat to advance a church member, or the end of the mass."""
    following = (seat + 1) % state.num_players
    if following != state.start_player:
        return state, MassAdvance(following)
    return award_majority(state, ctx), None


def award_majority(state: GameState, ctx: Ctx) -> GameState:
    """MASS-05: 2 prestige to the most members on the church track; a tie goes to the
    furthest-forward member; still tied, each of them (AMB-16, AMB-28). AMB-16 b (MASS-06):
    the tied players' next members, in order, break the tie further."""
    ctx.fire(RuleId.MASS_05, state)
    next_members = state.rules.reading("AMB-16") == "b"
    counts: list[tuple[int, tuple[int, ...], int]] = []
    for seat, p in enumerate(state.players):
        stages = sorted((loc.stage for loc in p.members if isinstance(loc, OnChurch)), reverse=True)
        key = tuple(stages) if next_members else tuple(stages[:1])
        counts.append((len(stages), key, seat))
    most = max(c for c, _, _ in counts)
    if most == 0:
        return state
    tied = [(front, seat) for c, front, seat in counts if c == most]
    best = max(front for front, _ in tied)
    if next_members and sum(front[:1] == best[:1] for front, _ in tied) > 1:
        ctx.fire(RuleId.MASS_06, state)  # AMB-16 b: the furthest members tie; the next ones decide
    for front, seat in tied:
        if front == best and (not state.is_solo or solo_mass.gets_prestige(state, seat, ctx)):
            state = gain_prestige(state, seat, state.rules.data.majority_prestige)
    return state
