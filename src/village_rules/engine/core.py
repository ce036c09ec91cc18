"""The decision model: `legal_actions`, `chance_outcomes` and a pure `apply`.

A state's `pending` says what the game waits for. `apply` checks the action against it,
performs it through the module of its part of the rules, and then *settles*: it carries out
everything that follows without a choice (deaths with one candidate, the end of a turn, the
mass, the next round…) until the next real decision or chance event. A decision with a
single legal action is taken automatically, so every pending decision offers a choice.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Protocol

from village_rules.actions import (
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
    FreeAction,
    Harvest,
    Mill,
    Pass,
    Pay,
    PickCube,
    PickGood,
    Privilege,
    Produce,
    Serve,
    Skip,
    TakeCube,
    Train,
    Travel,
    Well,
    check_action,
    format_action,
)
from village_rules.chance import proportional
from village_rules.components import INFLUENCE, ActionSpace, Cube, Good
from village_rules.edition import Cost
from village_rules.engine import (
    carla,
    church,
    council_chamber,
    crafts,
    family,
    harvest,
    market_day,
    mass,
    seeding,
    travel,
    turn,
)
from village_rules.engine.common import take_cube, take_good
from village_rules.engine.context import Ctx
from village_rules.engine.end_of_game import end_of_turn
from village_rules.engine.payment import coin_splits, describe_shortfall, pay, payment_options
from village_rules.engine.time_and_death import death_candidates, kill, resolve_deaths
from village_rules.errors import IllegalActionError
from village_rules.evolve import replace
from village_rules.pending import (
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
from village_rules.state import GameState, Turn


class SpaceRules(Protocol):
    """What each action-space module (harvest, family, crafts, …) provides to the core."""

    def candidates(self, state: GameState, seat: int) -> list[Action]: ...

    def precondition(self, state: GameState, seat: int, action: Action) -> str | None: ...


# Which module performs the first decision of each action space.
_SPACE_ACTIONS: dict[ActionSpace, SpaceRules] = {
    ActionSpace.GRAIN_HARVEST: harvest,
    ActionSpace.FAMILY: family,
    ActionSpace.CRAFTS: crafts,
    ActionSpace.TRAVEL: travel,
    ActionSpace.COUNCIL_CHAMBER: council_chamber,
    ActionSpace.CHURCH: church,
}

# The rule an action belongs to, for errors and traces.
_RULE_OF: dict[type, str] = {
    TakeCube: "TURN-01",
    Well: "WELL-01",
    FreeAction: "END-03",
    Harvest: "HARV-01",
    Birth: "FAM-01",
    CallHome: "FAM-02",
    Train: "CRAFT-01",
    Produce: "CRAFT-02",
    Buy: "CRAFT-03",
    Mill: "CRAFT-04",
    Travel: "TRV-01",
    CouncilPlace: "CNC-01",
    CouncilAdvance: "CNC-02",
    Privilege: "CNC-04",
    ChurchEnter: "CHU-01",
    Pay: "COIN-01",
    Die: "DEATH-02",
    Serve: "MKT-02",
    Pass: "MKT-04",
    BuyFromBag: "MASS-02",
    ChurchStep: "MASS-04",
    PickGood: "CNC-07",
    PickCube: "CNC-06",
    Skip: "TURN-02",
    CarlaCube: "SOLO-12",
}


# --- queries ------------------------------------------------------------------------------


def legal_actions(state: GameState) -> list[Action]:
    """The decisions open to the seat to act; empty at chance nodes and at the end.

    Computed once per state (generated directly for the pending step, see `_generate`) and
    kept in the state's `legal_cache`; every call returns a fresh list."""
    return list(_legal(state))


def legal_actions_oracle(state: GameState) -> list[Action]:
    """The legal actions by the original generate-and-filter path: every candidate of the
    step put through the full explaining check `_illegal`. Slow; kept as the test oracle
    the fast path (`legal_actions`) is compared with (`invariants.legal_set_violations`)."""
    if state.is_chance or state.is_terminal:
        return []
    return [a for a in _candidates(state) if _illegal(state, a, explain=False) is None]


def _legal(state: GameState) -> tuple[Action, ...]:
    cached = state.legal_cache
    if cached is None:
        cached = () if state.is_chance or state.is_terminal else tuple(_generate(state))
        object.__setattr__(state, "legal_cache", cached)
    return cached


def _is_outcome(state: GameState, action: Action) -> bool:
    """A quick yes for an outcome of the pending chance event (a cube still in the green
    bag, a tile still in the pile); False means "ask `chance_outcomes`"."""
    match state.pending:
        case SeedDraw():
            return isinstance(action, DrawCube) and state.green_bag[action.cube] > 0
        case RefillDraw():
            return isinstance(action, DrawCustomer) and action.tile in state.customer_pile
    return False


def chance_outcomes(state: GameState) -> list[tuple[Action, Fraction]]:
    """The outcomes of the pending chance event with exact probabilities summing to 1."""
    match state.pending:
        case SeedDraw():
            return [(DrawCube(c), p) for c, p in proportional(list(state.green_bag.items))]
        case RefillDraw():
            return market_day.refill_outcomes(state)
        case MassDraw():
            return mass.draw_outcomes(state)
        case FateReveal():
            return carla.fate_outcomes(state)  # solo
    return []


def apply(state: GameState, action: Action, trace: list[str] | None = None) -> GameState:
    """The state after `action`; `state` is never changed. Raises `IllegalActionError`
    (with the rule and a reason) for an action that is not allowed now. With a `trace`
    list, the IDs of the rules applied are appended to it."""
    check_action(action)  # ActionTypeError for a wrong type or wrongly typed fields
    ctx = Ctx(trace)
    if state.is_terminal:
        raise IllegalActionError("END-06", format_action(action), "the game is over")
    if state.is_chance:
        if not _is_outcome(state, action):
            outcomes = [a for a, _ in chance_outcomes(state)]
            if action not in outcomes:
                allowed = ", ".join(format_action(a) for a in outcomes)
                raise IllegalActionError(
                    "CHANCE",
                    format_action(action),
                    f"not an outcome of the pending chance event (outcomes: {allowed})",
                )
    elif action not in _legal(state):
        # Not generated: `_illegal` explains the refusal (or, for an action the generator
        # does not list but the rules allow, accepts it exactly as before).
        problem = _illegal(state, action)
        if problem is not None:
            raise IllegalActionError(problem[0], format_action(action), problem[1])
    state, sub = _perform(state, action, ctx)
    return _settle(state, sub, ctx)


# --- which actions a step offers ----------------------------------------------------------


def _generate(state: GameState) -> list[Action]:
    """The legal actions of a decision, generated per pending step with the rule modules'
    own functions, in the order of `_candidates` (so seeded games do not change). Steps
    whose candidates are legal by construction skip the filter; the others run only the
    precondition and one affordability test per candidate (no error texts, no rule IDs)."""
    pending = state.pending
    match pending:
        case ChooseTurn(seat):
            # TakeCube: one per cube on the board; Well: turn.candidates keeps only the
            # colours that can pay (>= 1 real cube, AMB-01); FreeAction: only with an empty
            # board in the final actions. None of them has a further condition.
            return turn.candidates(state, seat)
        case ChooseCompensationCube() | ChooseSupplyCube():
            cubes = state.supply.cubes
            return [PickCube(c) for c in INFLUENCE if cubes[c]]
        case ChooseSupplyGood():
            goods = state.supply.goods
            return [PickGood(g) for g in Good if goods[g]]
        case ChoosePayment(seat, action):
            alternatives, coins_ok = _costs(state, seat, action)
            return list(_payment_options(state, seat, action, alternatives, coins_ok))
        case ChooseDying(seat):
            return [Die(loc) for loc in death_candidates(state, seat)]
        case ChoosePrivilege(seat, top):
            out: list[Action] = [
                Privilege(k)
                for k in range(1, top + 1)
                if council_chamber.privilege_precondition(state, seat, k, top) is None
            ]
            out.append(Skip())
            return out
        case ChooseCarlaCube(_, space):
            return [CarlaCube(c) for c in carla.choice_colours(state, space)]  # solo
    seat = state.current_player()
    check = _step_precondition(state)
    return [a for a in _candidates(state) if _allowed(state, seat, a, check)]


Precondition = Callable[[GameState, int, Action], "str | None"]


def _step_precondition(state: GameState) -> Precondition:
    """`_precondition` for the candidates of the pending step, with the step's dispatch
    done once: the candidates of an action step all belong to that space's module."""
    match state.pending:
        case ChooseAction(_, space):
            module = _SPACE_ACTIONS[space]
            return lambda st, seat, a: None if isinstance(a, Skip) else module.precondition(st, seat, a)
        case MarketChoice():
            return market_day.precondition
        case MassBuy():
            return lambda st, seat, a: None if isinstance(a, Skip) else mass.buy_precondition(st, seat, a)
        case MassAdvance():
            return lambda st, seat, a: None if isinstance(a, Skip) else mass.advance_precondition(st, seat, a)
    return _precondition


def _allowed(state: GameState, seat: int, action: Action, precondition: Precondition) -> bool:
    """`_illegal(...) is None` for a candidate of the pending step, without the texts."""
    if precondition(state, seat, action) is not None:
        return False
    alternatives, coins_ok = _costs(state, seat, action)
    if not alternatives:
        return True
    if isinstance(action, Well):
        return bool(_payment_options(state, seat, action, alternatives, coins_ok))
    # Is there one way to pay? (`payment_options` would list them all.)
    player = state.players[seat]
    return any(next(coin_splits(cost, player, coins_ok), None) is not None for cost in alternatives)


def _candidates(state: GameState) -> list[Action]:
    pending = state.pending
    match pending:
        case ChooseCompensationCube() | ChooseSupplyCube():
            return [PickCube(c) for c in INFLUENCE]
        case ChooseTurn(seat):
            return turn.candidates(state, seat)
        case ChooseAction(seat, space):
            return [*_SPACE_ACTIONS[space].candidates(state, seat), Skip()]
        case ChoosePrivilege(_, top):
            return [*(Privilege(k) for k in range(1, top + 1)), Skip()]
        case ChooseSupplyGood():
            return [PickGood(g) for g in Good]
        case ChoosePayment(seat, action):
            alternatives, coins_ok = _costs(state, seat, action)
            return list(_payment_options(state, seat, action, alternatives, coins_ok))
        case ChooseDying(seat):
            return [Die(loc) for loc in death_candidates(state, seat)]
        case MarketChoice(seat):
            return market_day.candidates(state, seat)
        case MassBuy(seat):
            return [*mass.buy_candidates(state, seat), Skip()]
        case MassAdvance(seat):
            return [*mass.advance_candidates(state, seat), Skip()]
        case ChooseCarlaCube():
            return [CarlaCube(c) for c in Cube]  # solo: filtered by the precondition
    return []


def _step_accepts(pending: Pending, action: Action) -> bool:
    """Whether `action` is the kind of decision this step asks for."""
    match pending:
        case ChooseCompensationCube() | ChooseSupplyCube():
            return isinstance(action, PickCube)
        case ChooseTurn():
            return isinstance(action, TakeCube | Well | FreeAction)
        case ChooseAction(_, space):
            return isinstance(action, Skip) or _module_of(action) is _SPACE_ACTIONS.get(space)
        case ChoosePrivilege():
            return isinstance(action, Privilege | Skip)
        case ChooseSupplyGood():
            return isinstance(action, PickGood)
        case ChoosePayment():
            return isinstance(action, Pay)
        case ChooseDying():
            return isinstance(action, Die)
        case MarketChoice():
            return isinstance(action, Serve | Pass)
        case MassBuy():
            return isinstance(action, BuyFromBag | Skip)
        case MassAdvance():
            return isinstance(action, ChurchStep | Skip)
        case ChooseCarlaCube():
            return isinstance(action, CarlaCube)
    return False


def _module_of(action: Action) -> SpaceRules | None:
    match action:
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
    return None


def _illegal(state: GameState, action: Action, explain: bool = True) -> tuple[str, str] | None:
    """(rule, reason) if `action` is not allowed now, else None. Without `explain` the
    reason of an unaffordable cost is not spelled out (legal_actions only needs a yes/no)."""
    pending = state.pending
    if not _step_accepts(pending, action):
        return "STEP", f"the game waits for: {_describe(pending)}"
    seat = state.current_player()
    reason = _precondition(state, seat, action)
    if reason is not None:
        return _rule_for(state, seat, action), reason
    if isinstance(pending, ChoosePayment):
        alternatives, coins_ok = _costs(state, seat, pending.action)
        if action not in _payment_options(state, seat, pending.action, alternatives, coins_ok):
            if not explain:
                return "COIN-01", ""
            return (
                "COIN-01",
                f"not a way to pay {format_action(pending.action)!r}: "
                f"{describe_shortfall(alternatives, state.players[seat])}",
            )
        return None
    alternatives, coins_ok = _costs(state, seat, action)
    if alternatives and not _payment_options(state, seat, action, alternatives, coins_ok):
        rule = _rule_for(state, seat, action)
        if not explain:
            return rule, ""
        reason = describe_shortfall(alternatives, state.players[seat])
        if isinstance(action, Well) and coins_ok:
            colour = action.colour.value
            reason += f" (coins may replace some, but at least one {colour} cube must be returned: AMB-01)"
        return rule, reason
    return None


def _rule_for(state: GameState, seat: int, action: Action) -> str:
    """The rule that decides whether `action` is allowed here (named in errors)."""
    match action:
        case Serve():
            return "MKT-02" if market_day.is_free_sale(state, seat) else "MKT-03"
        case Travel(origin):
            return "TRV-01" if origin == state.rules.data.village else "TRV-02"
        case Well() if state.cubes_on_board() == 0:
            return "WELL-02"
        case Privilege(4) if state.players[seat].coins < state.rules.data.privilege_coin_price:
            return "CNC-08"
        case PickCube() if isinstance(state.pending, ChooseCompensationCube):
            return "SET-10"
    return _RULE_OF.get(type(action), "TURN-01")


def _precondition(state: GameState, seat: int, action: Action) -> str | None:
    pending = state.pending
    match pending:
        case ChooseCompensationCube() | ChooseSupplyCube():
            assert isinstance(action, PickCube)
            if action.colour not in INFLUENCE:
                return "only influence cubes can be chosen"
            if state.supply.cubes[action.colour] == 0:
                return f"the supply has no {action.colour.value} cube left"
            return None
        case ChooseSupplyGood():
            assert isinstance(action, PickGood)
            if state.supply.goods[action.good] == 0:
                return f"the supply has no {action.good.value} left"
            return None
        case ChooseTurn():
            return turn.precondition(state, seat, action)
        case ChoosePrivilege(_, top):
            if isinstance(action, Privilege):
                return council_chamber.privilege_precondition(state, seat, action.stage, top)
            return None
        case ChooseDying():
            assert isinstance(action, Die)
            if action.location not in death_candidates(state, seat):
                return "death: the dying member must be one of your lowest-numbered visible members"
            return None
        case MarketChoice():
            return market_day.precondition(state, seat, action)
        case MassBuy():
            return None if isinstance(action, Skip) else mass.buy_precondition(state, seat, action)
        case MassAdvance():
            return None if isinstance(action, Skip) else mass.advance_precondition(state, seat, action)
        case ChooseCarlaCube():
            assert isinstance(action, CarlaCube)
            return carla.choice_problem(state, action.cube)
        case ChooseAction():
            module = _module_of(action)
            if module is None:
                return None
            return module.precondition(state, seat, action)
    return None


def _costs(state: GameState, seat: int, action: Action) -> tuple[list[Cost], bool]:
    """The cost alternatives of an action and whether coins may stand in for cubes."""
    match action:
        case Well():
            return [turn.well_cost(state, action)], turn.well_coins_allowed(state)
        case Train() | Produce() | Buy() | Mill():
            return crafts.costs(state, seat, action), True
        case Travel():
            return travel.costs(state, seat, action), True
        case CouncilPlace() | CouncilAdvance():
            return council_chamber.costs(state, seat, action), True
        case ChurchEnter():
            return church.costs(state, seat, action), True
        case Serve():
            return market_day.costs(state, seat, action), True
    return [], True


def _payment_options(
    state: GameState, seat: int, action: Action, alternatives: list[Cost], coins_ok: bool
) -> list[Pay]:
    options = payment_options(alternatives, state.players[seat], coins_ok)
    if isinstance(action, Well):
        options = [o for o in options if turn.well_payment_allowed(state, o.coins)]  # AMB-01
    return options


def _describe(pending: Pending) -> str:
    name = type(pending).__name__
    fields = ", ".join(
        f"{k}={format_action(v) if not isinstance(v, int | str) else v}"
        for k, v in ((f, getattr(pending, f)) for f in getattr(pending, "__slots__", ()))
    )
    return f"{name}({fields})"


# --- performing ---------------------------------------------------------------------------


def _perform(state: GameState, action: Action, ctx: Ctx) -> tuple[GameState, Pending | None]:
    pending = state.pending
    match pending:
        case SeedDraw():
            assert isinstance(action, DrawCube)
            ctx.fire("SEED-02")
            state = seeding.draw_onto_space(state, pending, action.cube)
            return state, state.pending
        case RefillDraw():
            assert isinstance(action, DrawCustomer)
            return market_day.place_refill(state, pending, action.tile, ctx), None
        case MassDraw():
            return mass.draw(state, pending, action, ctx)
        case FateReveal():
            return carla.reveal(state, pending, action, ctx), None  # solo
        case ChooseCarlaCube():
            assert isinstance(action, CarlaCube)
            return carla.take_chosen(state, action.cube, ctx)  # solo
        case ChooseCompensationCube(seat):
            assert isinstance(action, PickCube)
            ctx.fire("SET-10")
            state = seeding.begin_round(take_cube(state, seat, action.colour))
            return state, state.pending
        case ChooseTurn(seat):
            return _start_turn(state, seat, action, ctx)
        case ChooseAction(seat):
            if isinstance(action, Skip):
                ctx.fire("TURN-02")
                return state, None
            return _pay_or_ask(state, seat, action, ctx)
        case ChoosePayment(seat, paid_for):
            assert isinstance(action, Pay)
            return _pay_then_effect(state, seat, paid_for, action, ctx)
        case ChoosePrivilege(seat):
            if isinstance(action, Skip):
                return state, None
            assert isinstance(action, Privilege)
            return council_chamber.use_privilege(state, seat, action.stage, ctx)
        case ChooseSupplyCube(seat, remaining):
            assert isinstance(action, PickCube)
            state = take_cube(state, seat, action.colour)
            if remaining > 1 and any(state.supply.cubes[c] for c in INFLUENCE):
                return state, ChooseSupplyCube(seat, remaining - 1)
            return state, None
        case ChooseSupplyGood(seat, remaining):
            assert isinstance(action, PickGood)
            state = take_good(state, seat, action.good)
            if remaining > 1 and state.supply.goods.total() > 0:
                return state, ChooseSupplyGood(seat, remaining - 1)
            return state, None
        case ChooseDying(seat):
            assert isinstance(action, Die)
            ctx.fire("DEATH-02")
            return kill(state, seat, action.location, ctx), None
        case MarketChoice(seat):
            if isinstance(action, Pass):
                return market_day.effect(state, seat, action, ctx), None
            return _pay_or_ask(state, seat, action, ctx)
        case MassBuy(seat):
            if isinstance(action, Skip):
                return mass.next_buyer(state, seat, ctx)
            return mass.buy(state, seat, action, ctx)
        case MassAdvance(seat):
            if isinstance(action, Skip):
                return mass.next_advancer(state, seat, ctx)
            return mass.step_up(state, seat, action, ctx)
    raise AssertionError(f"no step handles {format_action(action)} at {_describe(pending)}")


def _start_turn(state: GameState, seat: int, action: Action, ctx: Ctx) -> tuple[GameState, Pending | None]:
    match action:
        case TakeCube(space, _):
            state = turn.take_cube(state, seat, action, ctx)
            if state.is_solo:
                state = carla.owe_take(state, space, action.cube, ctx)  # solo: her take follows
            return _begin_action(state, seat, space, ctx)
        case Well():
            ctx.fire("WELL-01")
            if state.is_solo:
                ctx.fire("SOLO-25")  # solo: Carla takes no cube after a well action
            state = replace(state, turn=Turn(seat))
            return _pay_or_ask(state, seat, action, ctx)
        case FreeAction(space):
            ctx.fire("END-03")
            state = replace(state, turn=Turn(seat))
            return _begin_action(state, seat, space, ctx)
    raise AssertionError(action)


def _begin_action(
    state: GameState, seat: int, space: ActionSpace, ctx: Ctx
) -> tuple[GameState, Pending | None]:
    """Phase 2 step 2: the action of the space; at the market a market day must be held."""
    if space is ActionSpace.MARKET:
        return market_day.start(state, seat, ctx), None
    return state, ChooseAction(seat, space)


def _pay_or_ask(state: GameState, seat: int, action: Action, ctx: Ctx) -> tuple[GameState, Pending | None]:
    alternatives, coins_ok = _costs(state, seat, action)
    if not alternatives:
        return _effect(state, seat, action, ctx)
    options = _payment_options(state, seat, action, alternatives, coins_ok)
    if len(options) == 1:
        return _pay_then_effect(state, seat, action, options[0], ctx)
    return state, ChoosePayment(seat, action)


def _pay_then_effect(
    state: GameState, seat: int, action: Action, payment: Pay, ctx: Ctx
) -> tuple[GameState, Pending | None]:
    alternatives, _ = _costs(state, seat, action)
    state = pay(state, seat, alternatives[payment.alternative], payment.coins, ctx)
    return _effect(state, seat, action, ctx)


def _effect(state: GameState, seat: int, action: Action, ctx: Ctx) -> tuple[GameState, Pending | None]:
    match action:
        case Well(space, _):
            return _begin_action(state, seat, space, ctx)
        case Harvest():
            return harvest.effect(state, seat, action, ctx), None
        case Birth() | CallHome():
            return family.effect(state, seat, action, ctx), None
        case Train() | Produce() | Buy() | Mill():
            return crafts.effect(state, seat, action, ctx), None
        case ChurchEnter():
            return church.effect(state, seat, action, ctx), None
        case Travel():
            return travel.effect(state, seat, action, ctx)
        case CouncilPlace() | CouncilAdvance() | Privilege():
            return council_chamber.effect(state, seat, action, ctx)
        case Serve():
            return market_day.effect(state, seat, action, ctx), None
    raise AssertionError(action)


# --- settling -----------------------------------------------------------------------------


def _settle(state: GameState, sub: Pending | None, ctx: Ctx) -> GameState:
    """Carry out everything that needs no choice, up to the next decision or chance event."""
    while True:
        if sub is not None:
            state = state.with_pending(sub)
            if state.is_chance or state.is_terminal:
                return state
            options = _legal(state)
            if len(options) > 1:
                return state
            if not options:
                if isinstance(sub, ChooseSupplyCube | ChooseSupplyGood):
                    sub = None  # AMB-03: the supply is out; nothing to take
                    continue
                raise AssertionError(f"no legal action at {_describe(sub)}")
            state, sub = _perform(state, options[0], ctx)
            continue
        state, sub = _next_step(state, ctx)


def _next_step(state: GameState, ctx: Ctx) -> tuple[GameState, Pending | None]:
    """What follows when no sub-decision of an action is open."""
    day = state.market_day
    if day is not None:
        if not day.closed:
            for seat in state.seats_from(day.current):
                if state.deaths_owed[seat]:
                    ctx.fire("DEATH-06")  # during a market day: at once
                    state, dying = resolve_deaths(state, seat, ctx)
                    if dying is not None:
                        return state, dying
            if not market_day.is_over(state):
                current = state.market_day
                assert current is not None
                if state.is_carla(current.current):
                    return carla.market_turn(state, ctx), None  # solo: Carla's chance is forced
                return state, MarketChoice(current.current)
            ctx.fire("MKT-05")
            state = market_day.close(state, ctx)
        refill = market_day.next_refill(state)
        if refill is not None:
            return state, refill
        return market_day.finish(state, ctx), None
    if state.turn is not None:
        seat = state.turn.seat
        state, dying = resolve_deaths(state, seat, ctx)
        if dying is not None:
            return state, dying
        if state.is_solo:
            owed = carla.next_step(state, ctx)  # solo: Carla's take, reaction and death
            if owed is not None:
                return owed
        return end_of_turn(replace(state, turn=None), seat, ctx)
    if state.mass is not None:
        return _end_of_mass(state, ctx)
    raise AssertionError("nothing to do next")


def _end_of_mass(state: GameState, ctx: Ctx) -> tuple[GameState, Pending | None]:
    assert state.mass is not None
    if state.mass.final:
        ctx.fire("SCORE-01")
        return replace(state, mass=None), GameOver()
    ctx.fire("ROUND-02")
    start = state.start_player if state.next_start_holder is None else state.next_start_holder
    state = replace(state, mass=None, round=state.round + 1, start_player=start, next_start_holder=None)
    if state.is_solo:
        state = carla.new_round(state, ctx)  # solo: her cubes but the last go back
    state = seeding.begin_round(state)
    return state, state.pending
