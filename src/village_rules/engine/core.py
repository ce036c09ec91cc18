"""The decision model: `legal_actions`, `chance_outcomes` and a pure `apply`.

A state's `pending` says what the game waits for. `apply` checks the action against it,
performs it through the module of its part of the rules, and then *settles*: it carries out
everything that follows without a choice (deaths with one candidate, the end of a turn, the
mass, the next round…) until the next real decision or chance event. A decision with a
single legal action is taken automatically, so every pending decision offers a choice.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Protocol, assert_never

from village_rules.data.components import INFLUENCE, ActionSpace, Cube, Good
from village_rules.data.edition import Cost
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
    shared,
    supply,
    travel,
    turn,
)
from village_rules.engine.common import take_cube, take_good
from village_rules.engine.context import Ctx
from village_rules.engine.end_of_game import after_reseeding, end_of_turn, final_actions_after_round_mass
from village_rules.engine.events import RuleEvent, SubStep
from village_rules.engine.guards import expect, present
from village_rules.engine.payment import coin_splits, describe_shortfall, pay, payment_options
from village_rules.engine.spaces import SpaceRules, rules_of, space_rules
from village_rules.engine.time_and_death import death_candidates, kill, resolve_deaths
from village_rules.errors import IllegalActionError, InternalError, NotARule
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
    check_action,
    format_action,
)
from village_rules.model.chance import proportional
from village_rules.model.evolve import replace
from village_rules.model.pending import (
    CHANCE_TYPES,
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
from village_rules.rule_ids import RuleId

# How the core dispatches (every `match` below ends in `assert_never`, so a new pending
# step or action that is not handled is a mypy error):
# - per pending step: `_generate` (legal actions, fast), `_candidates` + `_step_accepts` +
#   `_precondition` (the explaining oracle path), `_perform`, and
#   `_is_outcome` / `chance_outcomes` for chance steps;
# - per action: `engine.spaces.rules_of` names the module that prices (`costs`) and
#   performs (`effect`) it; `_rule_of` names the rule a refusal cites.


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
    pending = state.pending
    match pending:
        case SeedDraw():
            return isinstance(action, DrawCube) and state.green_bag[action.cube] > 0
        case RefillDraw():
            return isinstance(action, DrawCustomer) and action.tile in state.customer_pile
        case MassDraw() | FateReveal():
            return False
        case (
            ChooseCarlaCube()
            | ChooseCompensationCube()
            | ChooseTurn()
            | ChooseAction()
            | ChoosePrivilege()
            | ChooseSupplyCube()
            | ChooseSupplyGood()
            | ChoosePayment()
            | ChooseDying()
            | MarketChoice()
            | MassBuy()
            | MassAdvance()
            | GameOver()
        ):
            return False
        case _:
            assert_never(pending)


def chance_outcomes(state: GameState) -> list[tuple[Action, Fraction]]:
    """The outcomes of the pending chance event with exact probabilities summing to 1.

    The outcomes of the last state asked about are kept (a playout asks about a chance
    state twice: the invariant check sums them, the policy samples them); every call
    returns a fresh list."""
    global _last_chance  # noqa: PLW0603 (a one-entry memo, see _last_chance)
    last = _last_chance
    if last is not None and last[0] is state:
        return list(last[1])
    outcomes = tuple(_chance_outcomes(state))
    _last_chance = (state, outcomes)
    return list(outcomes)


_last_chance: tuple[GameState, tuple[tuple[Action, Fraction], ...]] | None = None
"""(state, its chance outcomes) of the last `chance_outcomes` call. Keyed by identity and
holding the state, so it cannot answer for another state; one immutable pair, replaced as
a whole, so also safe between threads."""


def _chance_outcomes(state: GameState) -> list[tuple[Action, Fraction]]:
    pending = state.pending
    match pending:
        case SeedDraw():
            return [(shared.draw_cube(c), p) for c, p in proportional(state.green_bag.items)]
        case RefillDraw():
            return market_day.refill_outcomes(state)
        case MassDraw():
            return mass.draw_outcomes(state)
        case FateReveal():
            return carla.fate_outcomes(state)  # solo
        case (
            ChooseCarlaCube()
            | ChooseCompensationCube()
            | ChooseTurn()
            | ChooseAction()
            | ChoosePrivilege()
            | ChooseSupplyCube()
            | ChooseSupplyGood()
            | ChoosePayment()
            | ChooseDying()
            | MarketChoice()
            | MassBuy()
            | MassAdvance()
            | GameOver()
        ):
            return []
        case _:
            assert_never(pending)


def apply(state: GameState, action: Action, trace: list[str] | None = None) -> GameState:
    """The state after `action`; `state` is never changed. Raises `IllegalActionError`
    (with the rule and a reason) for an action that is not allowed now. With a `trace`
    list, the IDs of the rules applied are appended to it."""
    ctx = Ctx(trace)
    if not _offered(state, action):
        _check(state, action)
    after, sub = _perform(state, action, ctx)
    return _settle(after, sub, ctx, given=state)


def apply_steps(state: GameState, action: Action, trace: list[str] | None = None) -> tuple[SubStep, ...]:
    """`apply`'s step as its sub-steps (`engine.events`): the given action's, then one per
    decision with a single legal action that the engine took itself, each with the rule
    events fired in it and their moment. The last sub-step's `after` is `apply`'s result;
    the events, concatenated, are `apply`'s trace. Checks and raises as `apply` does."""
    ctx = Ctx(trace, [])
    if not _offered(state, action):
        _check(state, action)
    after, sub = _perform(state, action, ctx)
    recorder = _Recorder([], state, action)
    _settle(after, sub, ctx, given=state, steps=recorder)
    return tuple(recorder.done)


def _offered(state: GameState, action: Action) -> bool:
    """Whether `action` is one of the very action objects `legal_actions` (or, for a chance
    event, `chance_outcomes`) handed out for this state (the usual case in a playout):
    then it is legal and well-typed as it is."""
    cached = state.legal_cache
    if cached:
        for legal in cached:  # noqa: SIM110 - a plain loop, cheaper than any() at every step
            if legal is action:
                return True
        return False
    last = _last_chance
    if last is not None and last[0] is state:
        for outcome, _ in last[1]:
            if outcome is action:
                return True
    return False


def _check(state: GameState, action: Action) -> None:
    """Raise the library's error for an action that is not allowed now (or not an action)."""
    check_action(action)  # ActionTypeError for a wrong type or wrongly typed fields
    if state.is_terminal:
        raise IllegalActionError(RuleId.END_06, format_action(action), "the game is over")
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


# --- which actions a step offers ----------------------------------------------------------


def _generate(state: GameState) -> list[Action]:
    """The legal actions of a decision, generated per pending step with the rule modules'
    own functions, in the order of `_candidates` (so seeded games do not change). Every
    step has its own generator: candidates legal by construction are listed without a
    test, and a test is made once for what it depends on (a cost per building, stage or
    path, not per member); no error texts, no rule IDs. The filter of `_candidates` by
    `_illegal` is the oracle (`legal_actions_oracle`) only."""
    pending = state.pending
    match pending:  # the most frequent steps first: each case is a class test
        case ChooseTurn(seat):
            # TakeCube: one per cube on the board; Well: turn.candidates keeps only the
            # colours that can pay (>= 1 real cube, AMB-01); FreeAction: only with an empty
            # board in the final actions. None of them has a further condition.
            return turn.candidates(state, seat)
        case ChooseAction(seat, space):
            return _action_step(state, seat, space)
        case MarketChoice(seat):
            # one payment test per available customer (market_day.legal)
            return market_day.legal(state, seat)
        case MassAdvance(seat):
            # the grain tested once per stage, not per member (mass.advance_legal)
            return _with_skip(state, seat, mass.advance_legal(state, seat), payout_check=True)
        case MassBuy(seat):
            # the coin tested once, not per member in the bag (mass.buy_legal)
            return _with_skip(state, seat, mass.buy_legal(state, seat), payout_check=True)
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
                and supply.payout_shortfall(state, seat, Privilege(k)) is None  # AMB-03 b
            ]
            out.append(shared.SKIP)
            return out
        case ChooseCompensationCube() | ChooseSupplyCube():
            cubes = state.supply.cubes
            return [PickCube(c) for c in INFLUENCE if cubes[c]]
        case ChooseSupplyGood():
            goods = state.supply.goods
            return [PickGood(g) for g in Good if goods[g]]
        case ChooseCarlaCube(_, space):
            return [CarlaCube(c) for c in carla.choice_colours(state, space)]  # solo
        case SeedDraw() | RefillDraw() | MassDraw() | FateReveal() | GameOver():
            return []
        case _:
            assert_never(pending)


class _ActionStepRules(Protocol):
    """A rule module with a direct generator for its action step."""

    def legal(self, state: GameState, seat: int) -> list[Action]: ...


_ACTION_STEPS: dict[ActionSpace, tuple[_ActionStepRules, bool]] = {
    # ~30 candidates, whose conditions depend only on the building: decided once per
    # building and kind, not per candidate
    ActionSpace.CRAFTS: (crafts, True),
    # payable once per stage, not per member
    ActionSpace.COUNCIL_CHAMBER: (council_chamber, True),
    # each path's cost tested once per origin, not per member
    ActionSpace.TRAVEL: (travel, True),
    # one call home per member on the board, legal by construction; only the birth
    # depends on an unborn member; nothing is paid out, so no AMB-03 b check
    ActionSpace.FAMILY: (family, False),
    # one candidate, free: its precondition asked once
    ActionSpace.GRAIN_HARVEST: (harvest, True),
    # the entry cost tested once, not per farmyard member
    ActionSpace.CHURCH: (church, True),
}
"""Each action space's rule module (its `legal` is looked up at each call, so a test can
replace it), and whether the AMB-03 b payout check applies to it (as the oracle's
`_illegal` does). The market holds a market day instead (`market_day`)."""


def _action_step(state: GameState, seat: int, space: ActionSpace) -> list[Action]:
    """The legal actions of the step of `space`'s action, then the skip."""
    step = _ACTION_STEPS.get(space)
    if step is None:
        if space is ActionSpace.MARKET:
            # the market holds a market day, never a ChooseAction (state_checks refuses
            # one); a hand-built one offers only the skip, as the oracle does
            return [shared.SKIP]
        raise InternalError("core._generate", f"no legal-move generator for the {space.value} action")
    module, payout_check = step
    return _with_skip(state, seat, module.legal(state, seat), payout_check=payout_check)


def _with_skip(state: GameState, seat: int, offered: list[Action], *, payout_check: bool) -> list[Action]:
    """`offered`, less what the AMB-03 b full-payout check refuses (where it applies, as in
    the oracle), then the skip."""
    if payout_check and state.rules.reading("AMB-03") == "b":
        offered = [a for a in offered if supply.payout_shortfall(state, seat, a) is None]
    return [*offered, shared.SKIP]


def _candidates(state: GameState) -> list[Action]:
    """Every action the pending step might accept (the oracle filters them by `_illegal`)."""
    pending = state.pending
    match pending:
        case ChooseCompensationCube() | ChooseSupplyCube():
            return [PickCube(c) for c in INFLUENCE]
        case ChooseTurn(seat):
            return turn.candidates(state, seat)
        case ChooseAction(seat, space):
            module = space_rules(space)
            return [*(module.candidates(state, seat) if module is not None else []), Skip()]
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
        case SeedDraw() | RefillDraw() | MassDraw() | FateReveal() | GameOver():
            return []
        case _:
            assert_never(pending)


def _step_accepts(pending: Pending, action: Action) -> bool:
    """Whether `action` is the kind of decision this step asks for."""
    match pending:
        case ChooseCompensationCube() | ChooseSupplyCube():
            return isinstance(action, PickCube)
        case ChooseTurn():
            return isinstance(action, TakeCube | Well | FreeAction)
        case ChooseAction(_, space):
            if isinstance(action, Skip):
                return True
            module = rules_of(action)
            return module is not None and module is space_rules(space)
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
        case SeedDraw() | RefillDraw() | MassDraw() | FateReveal() | GameOver():
            return False
        case _:
            assert_never(pending)


def _illegal(
    state: GameState, action: Action, explain: bool = True
) -> tuple[RuleId | NotARule, str] | None:
    """(rule, reason) if `action` is not allowed now, else None. Without `explain` the
    reason of an unaffordable cost is not spelled out (legal_actions only needs a yes/no)."""
    pending = state.pending
    if not _step_accepts(pending, action):
        return "STEP", f"the game waits for: {_describe(pending)}"
    seat = state.current_player()
    reason = _precondition(state, seat, action)
    if reason is not None:
        return _rule_for(state, seat, action), reason
    if (short := supply.payout_shortfall(state, seat, action)) is not None:  # AMB-03 b
        return supply.RULE, short
    if isinstance(pending, ChoosePayment):
        alternatives, coins_ok = _costs(state, seat, pending.action)
        if action not in _payment_options(state, seat, pending.action, alternatives, coins_ok):
            if not explain:
                return RuleId.COIN_01, ""
            return (
                RuleId.COIN_01,
                f"not a way to pay {format_action(pending.action)!r}: "
                f"{describe_shortfall(alternatives, state.players[seat])}",
            )
        return None
    alternatives, coins_ok = _costs(state, seat, action)
    if not alternatives:
        return None
    if not explain:  # the oracle: only whether the coin splits give one way to pay
        return None if _any_payment(state, seat, action, alternatives, coins_ok) else (RuleId.COIN_01, "")
    if not _payment_options(state, seat, action, alternatives, coins_ok):
        rule = _rule_for(state, seat, action)
        reason = describe_shortfall(alternatives, state.players[seat])
        if isinstance(action, Well) and coins_ok:
            colour = action.colour.value
            reason += f" (coins may replace some, but at least one {colour} cube must be returned: AMB-01)"
        return rule, reason
    return None


def _rule_for(state: GameState, seat: int, action: Action) -> RuleId | NotARule:
    """The rule that decides whether `action` is allowed here (named in errors)."""
    match action:
        case Serve():
            return RuleId.MKT_02 if market_day.is_free_sale(state, seat) else RuleId.MKT_03
        case Travel(origin):
            return RuleId.TRV_01 if origin == state.rules.data.village else RuleId.TRV_02
        case Well() if state.board_is_empty():
            return RuleId.WELL_02
        case Privilege(4) if state.players[seat].coins < state.rules.data.privilege_coin_price:
            return RuleId.CNC_08
        case PickCube() if isinstance(state.pending, ChooseCompensationCube):
            return RuleId.SET_10
    return _rule_of(action)


def _rule_of(action: Action) -> RuleId | NotARule:
    """The rule an action belongs to, for errors and traces."""
    match action:
        case TakeCube():
            return RuleId.TURN_01
        case Well():
            return RuleId.WELL_01
        case FreeAction():
            return RuleId.END_03
        case Harvest():
            return RuleId.HARV_01
        case Birth():
            return RuleId.FAM_01
        case CallHome():
            return RuleId.FAM_02
        case Train():
            return RuleId.CRAFT_01
        case Produce():
            return RuleId.CRAFT_02
        case Buy():
            return RuleId.CRAFT_03
        case Mill():
            return RuleId.CRAFT_04
        case Travel():
            return RuleId.TRV_01
        case CouncilPlace():
            return RuleId.CNC_01
        case CouncilAdvance():
            return RuleId.CNC_02
        case Privilege():
            return RuleId.CNC_04
        case ChurchEnter():
            return RuleId.CHU_01
        case Pay():
            return RuleId.COIN_01
        case Die():
            return RuleId.DEATH_02
        case Serve():
            return RuleId.MKT_02
        case Pass():
            return RuleId.MKT_04
        case BuyFromBag():
            return RuleId.MASS_02
        case ChurchStep():
            return RuleId.MASS_04
        case PickGood():
            return RuleId.CNC_07
        case PickCube():
            return RuleId.CNC_06
        case Skip():
            return RuleId.TURN_02
        case CarlaCube():
            return RuleId.SOLO_12
        case DrawCube() | DrawCustomer() | DrawMonk() | DrawMember() | RevealFate():
            return "CHANCE"  # a chance outcome is never a seat's decision
        case _:
            assert_never(action)


def _precondition(state: GameState, seat: int, action: Action) -> str | None:
    """Why `action` (accepted by the step, `_step_accepts`) is not allowed now, apart from
    paying for it; None if it is."""
    pending = state.pending
    match pending:
        case ChooseCompensationCube() | ChooseSupplyCube():
            pick = expect(action, PickCube, "core._precondition")
            if pick.colour not in INFLUENCE:
                return "only influence cubes can be chosen"
            if state.supply.cubes[pick.colour] == 0:
                return f"the supply has no {pick.colour.value} cube left"
            return None
        case ChooseSupplyGood():
            good = expect(action, PickGood, "core._precondition").good
            if state.supply.goods[good] == 0:
                return f"the supply has no {good.value} left"
            return None
        case ChooseTurn():
            return turn.precondition(state, seat, action)
        case ChoosePrivilege(_, top):
            if isinstance(action, Privilege):
                return council_chamber.privilege_precondition(state, seat, action.stage, top)
            return None
        case ChooseDying():
            die = expect(action, Die, "core._precondition")
            if die.location not in death_candidates(state, seat):
                return "death: the dying member must be one of your lowest-numbered visible members"
            return None
        case MarketChoice():
            return market_day.precondition(state, seat, action)
        case MassBuy():
            return None if isinstance(action, Skip) else mass.buy_precondition(state, seat, action)
        case MassAdvance():
            return None if isinstance(action, Skip) else mass.advance_precondition(state, seat, action)
        case ChooseCarlaCube():
            return carla.choice_problem(state, expect(action, CarlaCube, "core._precondition").cube)
        case ChooseAction():
            module = rules_of(action)
            if module is None:
                return None
            return module.precondition(state, seat, action)
        case ChoosePayment():
            return None  # whether it is a way to pay is `_illegal`'s payment check
        case SeedDraw() | RefillDraw() | MassDraw() | FateReveal() | GameOver():
            return None  # chance and the end are refused before (`apply`)
        case _:
            assert_never(pending)


def _costs(state: GameState, seat: int, action: Action) -> tuple[list[Cost], bool]:
    """The cost alternatives of an action (its module's, `engine.spaces.rules_of`; none
    for an answer to a pending step) and whether coins may stand in for cubes."""
    module = rules_of(action)
    if module is None:
        return [], True
    coins_ok = turn.well_coins_allowed(state) if isinstance(action, Well) else True
    return module.costs(state, seat, action), coins_ok


def _payment_options(
    state: GameState, seat: int, action: Action, alternatives: list[Cost], coins_ok: bool
) -> list[Pay]:
    options = payment_options(alternatives, state.players[seat], coins_ok)
    if isinstance(action, Well):
        options = [o for o in options if turn.well_payment_allowed(state, o.coins)]  # AMB-01
    return options


def _any_payment(
    state: GameState, seat: int, action: Action, alternatives: list[Cost], coins_ok: bool
) -> bool:
    """`bool(_payment_options(...))`, stopping at the first way to pay (the oracle's
    question: the same coin splits, not the generator's `can_pay` count)."""
    player = state.players[seat]
    well = isinstance(action, Well)
    for cost in alternatives:
        for coins in coin_splits(cost, player, coins_ok):
            if not well or turn.well_payment_allowed(state, coins):  # AMB-01
                return True
    return False


def _describe(pending: Pending) -> str:
    name = type(pending).__name__
    fields = ", ".join(
        f"{k}={format_action(v) if not isinstance(v, int | str) else v}"
        for k, v in ((f, getattr(pending, f)) for f in getattr(pending, "__slots__", ()))
    )
    return f"{name}({fields})"


# --- performing ---------------------------------------------------------------------------


def _perform(state: GameState, action: Action, ctx: Ctx) -> tuple[GameState, Pending | None]:
    """Carry out `action` (already checked) at the pending step; one case per step."""
    pending = state.pending
    where = "core._perform"
    match pending:  # the most frequent steps first: each case is a class test
        case ChooseTurn(seat):
            if isinstance(action, Well):
                ctx.fire(RuleId.WELL_01, state, seat)
                if state.is_solo:
                    state = carla.after_well(state, ctx)  # solo: Carla takes no cube, no reaction
                state = replace(state, turn=shared.turn(seat))
            return _pay_or_ask(state, seat, action, ctx)
        case SeedDraw():
            ctx.fire(RuleId.SEED_02, state)
            state = seeding.draw_onto_space(state, pending, expect(action, DrawCube, where).cube)
            return state, state.pending
        case ChooseAction(seat):
            if isinstance(action, Skip):
                ctx.fire(RuleId.TURN_02, state, seat)
                return state, None
            return _pay_or_ask(state, seat, action, ctx)
        case MarketChoice(seat):
            return _pay_or_ask(state, seat, action, ctx)
        case ChoosePayment(seat, paid_for):
            return _pay_then_effect(state, seat, paid_for, expect(action, Pay, where), ctx)
        case MassAdvance(seat):
            if isinstance(action, Skip):
                return mass.next_advancer(state, seat, ctx)
            return mass.step_up(state, seat, action, ctx)
        case MassBuy(seat):
            if isinstance(action, Skip):
                return mass.next_buyer(state, seat, ctx)
            return mass.buy(state, seat, action, ctx)
        case MassDraw():
            return mass.draw(state, pending, action, ctx)
        case ChooseDying(seat):
            location = expect(action, Die, where).location
            ctx.fire(RuleId.DEATH_02, state, seat)
            return kill(state, seat, location, ctx), None
        case RefillDraw():
            return market_day.place_refill(
                state, pending, expect(action, DrawCustomer, where).tile, ctx
            ), None
        case ChoosePrivilege(seat):
            if isinstance(action, Skip):
                return state, None
            return council_chamber.use_privilege(state, seat, expect(action, Privilege, where).stage, ctx)
        case ChooseSupplyCube(seat, remaining):
            state = take_cube(state, seat, expect(action, PickCube, where).colour)
            if remaining > 1 and any(state.supply.cubes[c] for c in INFLUENCE):
                return state, ChooseSupplyCube(seat, remaining - 1)
            return state, None
        case ChooseSupplyGood(seat, remaining):
            state = take_good(state, seat, expect(action, PickGood, where).good)
            if remaining > 1 and state.supply.goods.total() > 0:
                return state, ChooseSupplyGood(seat, remaining - 1)
            return state, None
        case ChooseCompensationCube(seat):
            colour = expect(action, PickCube, where).colour
            ctx.fire(RuleId.SET_10, state)
            state = seeding.begin_round(take_cube(state, seat, colour))
            return state, state.pending
        case FateReveal():
            return carla.reveal(state, pending, action, ctx), None  # solo
        case ChooseCarlaCube():
            return carla.take_chosen(state, expect(action, CarlaCube, where).cube, ctx)  # solo
        case GameOver():
            raise InternalError(where, f"{format_action(action)} after the end of the game")
        case _:
            assert_never(pending)


def _pay_or_ask(state: GameState, seat: int, action: Action, ctx: Ctx) -> tuple[GameState, Pending | None]:
    """A free action takes effect at once; one way to pay is taken; several are asked for."""
    alternatives, coins_ok = _costs(state, seat, action)
    if not alternatives:
        return _effect(state, seat, action, ctx)
    options = _payment_options(state, seat, action, alternatives, coins_ok)
    if len(options) == 1:
        return _pay_then_effect(state, seat, action, options[0], ctx, alternatives=alternatives)
    return state, ChoosePayment(seat, action)


def _pay_then_effect(
    state: GameState,
    seat: int,
    action: Action,
    payment: Pay,
    ctx: Ctx,
    *,
    alternatives: list[Cost] | None = None,
) -> tuple[GameState, Pending | None]:
    """Pay `payment` (an alternative of `action`'s costs, given if known) and perform it."""
    if alternatives is None:
        alternatives, _ = _costs(state, seat, action)
    state = pay(state, seat, alternatives[payment.alternative], payment.coins, ctx)
    return _effect(state, seat, action, ctx)


def _effect(state: GameState, seat: int, action: Action, ctx: Ctx) -> tuple[GameState, Pending | None]:
    """The effect of a (paid) action, by its module (`engine.spaces.rules_of`)."""
    module: SpaceRules | None = rules_of(action)
    if module is None:
        raise InternalError(
            "core._effect", f"{format_action(action)} is not performed by a module"
        )
    return module.effect(state, seat, action, ctx)


# --- settling -----------------------------------------------------------------------------


@dataclass(slots=True)
class _Recorder:
    """The sub-steps `_settle` has recorded, and the one it has open: its before state,
    its action and the index of its first event in the context's events."""

    done: list[SubStep]
    before: GameState
    action: Action
    first: int = 0

    def close(self, after: GameState, events: list[RuleEvent]) -> None:
        """Record the open sub-step, ending at `after`."""
        self.done.append(
            SubStep(self.before, self.action, after, tuple(events[self.first :]), forced=bool(self.done))
        )


def _settle(
    state: GameState,
    sub: Pending | None,
    ctx: Ctx,
    given: GameState,
    steps: _Recorder | None = None,
) -> GameState:
    """Carry out everything that needs no choice, up to the next decision or chance event.

    `given` is the state `apply` was called with. Any other state met here was built during
    this `apply` (the rule modules are pure: a state they return is the one they were given
    or a new one) and has not been handed out, so its pending step is set in place (and its
    legal-actions cache cleared) instead of copying its 20 fields once more; `given` itself
    is never changed. With `steps` (`apply_steps`), each decision taken here closes the
    sub-step open so far and opens its own; a state recorded as a sub-step's `before` is
    handed out, so it is never changed in place either."""
    while True:
        if sub is not None:
            if state is given:
                state = state.with_pending(sub)
            else:
                object.__setattr__(state, "pending", sub)
                object.__setattr__(state, "legal_cache", None)
            if isinstance(sub, _NO_DECISION):  # state.is_chance or state.is_terminal
                if steps is not None:
                    steps.close(state, ctx.events or [])
                return state
            options = _legal(state)
            if len(options) > 1:
                if steps is not None:
                    steps.close(state, ctx.events or [])
                return state
            if not options:
                if isinstance(sub, ChooseSupplyCube | ChooseSupplyGood):
                    sub = None  # AMB-03: the supply is out; nothing to take
                    continue
                raise InternalError("core._settle", f"no legal action at {_describe(sub)}")
            if steps is not None:
                events = ctx.events or []
                steps.close(state, events)
                steps.before, steps.action, steps.first = state, options[0], len(events)
                given = state  # handed out as a sub-step's `before` (and `after`): kept
            state, sub = _perform(state, options[0], ctx)
            continue
        state, sub = _next_step(state, ctx)




_NO_DECISION = (*CHANCE_TYPES, GameOver)
"""The pending steps at which `_settle` stops without asking for the legal actions."""


def _next_step(state: GameState, ctx: Ctx) -> tuple[GameState, Pending | None]:
    """What follows when no sub-decision of an action is open."""
    day = state.market_day
    if day is not None:
        if not day.closed:
            for seat in state.seats_from(day.current):
                if state.deaths_owed[seat]:
                    ctx.fire(RuleId.DEATH_06, state, seat)  # during a market day: at once
                    state, dying = resolve_deaths(state, seat, ctx)
                    if dying is not None:
                        return state, dying
            if not market_day.is_over(state):
                current = present(state.market_day, "core._next_step", "the market day in progress")
                if state.is_carla(current.current):
                    return carla.market_turn(state, ctx), None  # solo: Carla's chance is forced
                return state, shared.market_choice(current.current)
            ctx.fire(RuleId.MKT_05, state)
            state = market_day.close(state, ctx)
        refill = market_day.next_refill(state)
        if refill is not None:
            return state, refill
        return market_day.finish(state, ctx), None
    if state.turn is not None:
        seat = state.turn.seat
        held = carla.held_action(state) if state.is_solo else None
        if held is not None:  # solo, AMB-36 b: Carla's steps, then the player's action
            return carla.next_step(state, ctx) or turn.begin_action(carla.release(state), seat, held, ctx)
        state, dying = resolve_deaths(state, seat, ctx)
        if dying is not None:
            return state, dying
        if state.is_solo:
            owed = carla.next_step(state, ctx)  # solo: Carla's take, reaction and death
            if owed is not None:
                return owed
        took_last_cube = state.turn is not None and state.turn.took_last_cube
        return end_of_turn(replace(state, turn=None), seat, ctx, took_last_cube)
    if state.mass is not None:
        return _end_of_mass(state, ctx)
    raise InternalError("core._next_step", "no turn, market day or mass is in progress")


def _end_of_mass(state: GameState, ctx: Ctx) -> tuple[GameState, Pending | None]:
    if present(state.mass, "core._end_of_mass", "the mass in progress").final:
        ctx.fire(RuleId.SCORE_01, state)
        return replace(state, mass=None), GameOver()
    if final_actions_after_round_mass(state):
        # AMB-33 c (END-09), AMB-45 b (END-11): the round mass held, no new round: the free
        # final actions follow, or with none left the last mass
        if not state.final_turns:
            ctx.fire(RuleId.END_06, state)
            return mass.start(replace(state, mass=None), final=True, ctx=ctx)
        seat, final = after_reseeding(state)
        return replace(state, mass=None, final_turns=final), shared.choose_turn(seat)
    ctx.fire(RuleId.ROUND_02, state)
    start = state.start_player if state.next_start_holder is None else state.next_start_holder
    state = replace(state, mass=None, round=state.round + 1, start_player=start, next_start_holder=None)
    if state.is_solo:
        state = carla.new_round(state, ctx)  # solo: her cubes but the last go back
    state = seeding.begin_round(state)
    return state, state.pending
