"""Stage: model (the rule-content abstraction).

The rule-content abstraction: a `GameState` and an `Action` reduced to what the rules talk about.

`content_abstract(state)` extends the counts of `abstraction.abstract` (whose names the
catalogue's predicates and `model.py`'s clauses use) with the pending step in detail, the
turn in progress, the market day (its holder, whether the free sale is used, who passed,
whether selling is closed, deaths held), the final actions left per seat, cubes per action
space, chronicle fill per category, members by kind of place (farmyard, board, black bag)
and whether a seat can pay some available customer's demand. `action_vars(action)` is the
abstract action: its kind and the parameters the guarded commands (`guarded.py`) read.

Four per-seat variables are not a function of one state but of the path (history, or
"ghost", variables): the time spent, the deaths and the quill passes since the current
turn was chosen, and the life-time position then (`CONTENT_TURN`). `content_abstract(state,
before)` computes them from the abstract state before the step; without `before` (a game's
first state) they are zero. Query 5 (two deaths of one seat in one turn) is stated over them.

Solo games (Carla) are refused here, so no clause ever has to talk about her.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache

from village_rules.data.components import (
    ActionSpace,
    Category,
    Cube,
    Farmyard,
    Good,
    InBlackBag,
    InChronicle,
    InGraveyard,
    OnChurch,
    OnCouncil,
    Removed,
    Unborn,
)
from village_rules.data.edition import EditionData
from village_rules.data.tally import Tally
from village_rules.engine import scoring
from village_rules.engine.payment import can_pay
from village_rules.errors import ParameterError
from village_rules.model.actions import (
    Action,
    Birth,
    Buy,
    BuyFromBag,
    CallHome,
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
    Serve,
    Skip,
    TakeCube,
    Train,
    Travel,
    Well,
)
from village_rules.model.pending import (
    ChooseAction,
    ChooseCompensationCube,
    ChooseDying,
    ChoosePayment,
    ChoosePrivilege,
    ChooseSupplyCube,
    ChooseSupplyGood,
    ChooseTurn,
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
from village_rules.proofs.model.abstraction import AbstractState, abstract, field_names

# --- the pending step, in detail ------------------------------------------------------------

P_TURN, P_ACTION, P_PAY, P_PICK, P_DYING, P_MARKET = 0, 1, 2, 3, 4, 5
P_MASS_BUY, P_MASS_ADVANCE, P_SEED, P_REFILL, P_MASS_DRAW, P_OVER, P_COMPENSATION = 6, 7, 8, 9, 10, 11, 12
P_LAST = P_COMPENSATION
MASS_PENDING = (P_MASS_BUY, P_MASS_ADVANCE, P_MASS_DRAW)

_PENDING_CODES: dict[type, int] = {
    ChooseTurn: P_TURN,
    ChooseAction: P_ACTION,
    ChoosePayment: P_PAY,
    ChoosePrivilege: P_PICK,
    ChooseSupplyCube: P_PICK,
    ChooseSupplyGood: P_PICK,
    ChooseDying: P_DYING,
    MarketChoice: P_MARKET,
    MassBuy: P_MASS_BUY,
    MassAdvance: P_MASS_ADVANCE,
    SeedDraw: P_SEED,
    RefillDraw: P_REFILL,
    MassDraw: P_MASS_DRAW,
    GameOver: P_OVER,
    ChooseCompensationCube: P_COMPENSATION,
}

# --- the kinds of action --------------------------------------------------------------------

K_TAKE, K_WELL, K_FREE, K_SKIP, K_PICK, K_ACTION, K_PAY, K_DIE = 0, 1, 2, 3, 4, 5, 6, 7
K_SERVE, K_PASS, K_BUY_FROM_BAG, K_CHURCH_STEP = 8, 9, 10, 11
K_DRAW_CUBE, K_DRAW_CUSTOMER, K_DRAW_MONK, K_DRAW_MEMBER = 12, 13, 14, 15
K_LAST = K_DRAW_MEMBER

KIND_NAMES: dict[int, str] = {
    K_TAKE: "take a cube",
    K_WELL: "the well",
    K_FREE: "a free final action",
    K_SKIP: "skip",
    K_PICK: "pick a cube or good",
    K_ACTION: "an action of a space",
    K_PAY: "pay",
    K_DIE: "choose who dies",
    K_SERVE: "serve a customer",
    K_PASS: "pass at the market",
    K_BUY_FROM_BAG: "buy out of the black bag",
    K_CHURCH_STEP: "move up in the church",
    K_DRAW_CUBE: "draw a cube (seeding)",
    K_DRAW_CUSTOMER: "draw a customer (refill)",
    K_DRAW_MONK: "draw a monk (mass)",
    K_DRAW_MEMBER: "draw a member (mass)",
}

_KINDS: dict[type, int] = {
    TakeCube: K_TAKE,
    Well: K_WELL,
    FreeAction: K_FREE,
    Skip: K_SKIP,
    PickCube: K_PICK,
    PickGood: K_PICK,
    Harvest: K_ACTION,
    Birth: K_ACTION,
    CallHome: K_ACTION,
    Train: K_ACTION,
    Produce: K_ACTION,
    Buy: K_ACTION,
    Mill: K_ACTION,
    Travel: K_ACTION,
    CouncilPlace: K_ACTION,
    CouncilAdvance: K_ACTION,
    Privilege: K_ACTION,
    ChurchEnter: K_ACTION,
    Pay: K_PAY,
    Die: K_DIE,
    Serve: K_SERVE,
    Pass: K_PASS,
    BuyFromBag: K_BUY_FROM_BAG,
    ChurchStep: K_CHURCH_STEP,
    DrawCube: K_DRAW_CUBE,
    DrawCustomer: K_DRAW_CUSTOMER,
    DrawMonk: K_DRAW_MONK,
    DrawMember: K_DRAW_MEMBER,
}

ACTION_FIELDS: tuple[str, ...] = ("kind", "plague", "market", "space", "act", "stage")
"""The abstract action: its kind (`K_*`), whether it is a plague cube (taken or drawn),
whether it is the market (a cube from it, the well or a free action there), the index
of its action space (`ActionSpace` order; -1 for none), which action of a space it is
(`A_*`, -1 for none) and the council stage it leaves or uses (-1 for none)."""

A_HARVEST, A_BIRTH, A_CALL_HOME, A_TRAIN, A_PRODUCE, A_BUY, A_MILL, A_TRAVEL = 0, 1, 2, 3, 4, 5, 6, 7
A_COUNCIL_PLACE, A_COUNCIL_ADVANCE, A_PRIVILEGE, A_CHURCH_ENTER = 8, 9, 10, 11
_ACTS: dict[type, int] = {
    Harvest: A_HARVEST,
    Birth: A_BIRTH,
    CallHome: A_CALL_HOME,
    Train: A_TRAIN,
    Produce: A_PRODUCE,
    Buy: A_BUY,
    Mill: A_MILL,
    Travel: A_TRAVEL,
    CouncilPlace: A_COUNCIL_PLACE,
    CouncilAdvance: A_COUNCIL_ADVANCE,
    Privilege: A_PRIVILEGE,
    ChurchEnter: A_CHURCH_ENTER,
}
ACT_NAMES: dict[int, str] = {code: cls.__name__ for cls, code in _ACTS.items()}

STAGES = 4
"""Stages of the council chamber and of the church track (both editions and every shipped
configuration; `content_abstract` refuses data with more)."""

SPACES: tuple[ActionSpace, ...] = tuple(ActionSpace)
CATEGORIES: tuple[Category, ...] = tuple(Category)

CONTENT_GLOBALS: tuple[str, ...] = (
    "pending",
    "turn_seat",
    "md",
    "md_sold",
    "md_closed",
    "md_held",
    "available",
    "pay_for",
    "pay_market",
    "pay_act",
    "pay_stage",
    *(f"space_{i}" for i in range(len(SPACES))),
    *(f"chron_{c.value}" for c in CATEGORIES),
)
"""`pending` a `P_*` code; `turn_seat` the seat whose turn is in progress (-1 none); `md` 1
during a market day, `md_sold` once its holder made the free sale, `md_closed` once selling
is over, `md_held` deaths the holder owed before it; `available` customers on the available
spaces; `pay_for` the kind of the action a `ChoosePayment` pays for (-1 none) and
`pay_market` whether that action is the market's, `pay_act` and `pay_stage` its `A_*` code
and council stage (-1 none); cubes per action space; chronicle members per category."""

CONTENT_PLAYER: tuple[str, ...] = (
    "passed",
    "final",
    "home",
    "placed",
    "green",
    "can_serve",
    "yield",
    "chron_own",
    "cust_points",
    "church_front",
    *(f"church{i}" for i in range(1, STAGES + 1)),
    *(f"council{i}" for i in range(1, STAGES + 1)),
)
"""Per seat: passed in this market day, still to take a final action, members on the
farmyard, members on the board, green cubes, can pay some available customer's demand;
the grain a harvest would give now (HARV-02, from the seat's goods), members in the
chronicle, the printed points of the customers served, the furthest church stage held
(0 none), members per church stage and per council stage."""

SCORE_FIELDS: tuple[str, ...] = (
    "sc_travel",
    "sc_council",
    "sc_church",
    "sc_chron",
    "sc_cust",
    "sc_coins",
)
"""Per seat, once the game is over: the final scoring's categories as the engine scores
them (`scoring.score_breakdown`: travel, council chamber, church, chronicle, customers,
coins); 0 before. The model states what each must be (`guarded.SCORE_STATE_CLAUSES`)."""


CONTENT_TURN: tuple[str, ...] = ("turn_time", "turn_dead", "turn_life0", "turn_passes")
"""Per seat, since the current turn was chosen (the last state whose pending step was a
`ChooseTurn`, as `history.turn_start` finds it; the game's start before the first turn):
time spent, members died, the life-time position then, and quill passes (the laps the token
went round: `turn_life0 + turn_time == life + length * turn_passes`)."""


@cache
def content_names(players: int) -> tuple[str, ...]:
    """Every variable of the rule-content state: `field_names(players)`, the content fields
    and the turn's path variables (`CONTENT_TURN`)."""
    return _state_names(players) + tuple(f"{f}_{s}" for s in range(players) for f in CONTENT_TURN)


@cache
def _state_names(players: int) -> tuple[str, ...]:
    """The variables that are a function of one state (all but `CONTENT_TURN`)."""
    return (
        field_names(players)
        + CONTENT_GLOBALS
        + tuple(f"{f}_{s}" for s in range(players) for f in CONTENT_PLAYER)
        + tuple(f"{f}_{s}" for s in range(players) for f in SCORE_FIELDS)
    )


def turn_values(
    before: Mapping[str, int] | None, now: Mapping[str, int], length: int, players: int
) -> list[int]:
    """The `CONTENT_TURN` values of a state (`now`: its one-state variables) reached by one
    step from the abstract state `before` (None: the game's first state). A step that
    leaves a `ChooseTurn` begins a turn: the counts restart from the state before it. The
    time a step spends is the token's move modulo the track's `length` (a step spends less
    than a lap: at most the dearest turn, `guarded.ContentConstants.turn_time`)."""
    out: list[int] = []
    for p in range(players):
        life, died = now[f"life_{p}"], now[f"dead_{p}"]
        if before is None:
            out += [0, 0, life, 0]
            continue
        begins = before["pending"] == P_TURN
        spent = 0 if begins else before[f"turn_time_{p}"]
        dead0 = 0 if begins else before[f"turn_dead_{p}"]
        life0 = before[f"life_{p}"] if begins else before[f"turn_life0_{p}"]
        spent += (life - before[f"life_{p}"]) % length
        out += [spent, dead0 + died - before[f"dead_{p}"], life0, (life0 + spent - life) // length]
    return out


def refuse_solo(state: GameState) -> None:
    """The rule-content model has no Carla: a solo game is refused with a clear error."""
    if state.is_solo:
        raise ParameterError(
            "players", "the rule-content model has no Carla (solo mode): use 2 or more players"
        )


def pending_code(pending: Pending) -> int:
    """The `P_*` code of a pending step (solo steps are refused)."""
    code = _PENDING_CODES.get(type(pending))
    if code is None:
        raise ParameterError("pending", f"the rule-content model has no step {type(pending).__name__} (solo)")
    return code


def kind_of(action: Action) -> int:
    """The `K_*` kind of an action (solo actions are refused)."""
    kind = _KINDS.get(type(action))
    if kind is None:
        raise ParameterError("action", f"the rule-content model has no action {type(action).__name__} (solo)")
    return kind


def action_vars(action: Action) -> dict[str, int]:
    """The abstract action (`ACTION_FIELDS`)."""
    space = getattr(action, "space", None)
    cube = getattr(action, "cube", None)
    return {
        "kind": kind_of(action),
        "plague": int(cube is Cube.PLAGUE),
        "market": int(space is ActionSpace.MARKET),
        "space": SPACES.index(space) if isinstance(space, ActionSpace) else -1,
        "act": _ACTS.get(type(action), -1),
        "stage": _stage_of(action),
    }


def _stage_of(action: Action) -> int:
    """The council stage an advance leaves or a privilege uses (-1 for other actions)."""
    stage = getattr(action, "stage", None)
    return stage if isinstance(action, CouncilAdvance | Privilege) and isinstance(stage, int) else -1


def harvest_yield(data: EditionData, goods: Tally[Good]) -> int:
    """HARV-02 as the model states it: 2 grain, 3 with a horse and a plow, 4 with an ox and a
    plow (the edition's values); only one combination counts."""
    if goods[Good.PLOW] and goods[Good.OX]:
        return data.harvest_ox_plow
    if goods[Good.PLOW] and goods[Good.HORSE]:
        return data.harvest_horse_plow
    return data.harvest_base


def content_vars(state: GameState, before: Mapping[str, int] | None = None) -> dict[str, int]:
    """alpha_c(state) as a plain dict (what the link check evaluates the clauses on); `before`
    is the abstract state one step earlier (for the turn's path variables)."""
    length = state.rules.data.lifetime_track_length
    return vars_of_head(content_head(state), before, length, state.num_players)


def vars_of_head(
    head: tuple[int, ...], before: Mapping[str, int] | None, length: int, players: int
) -> dict[str, int]:
    """`content_vars` of a state from its `content_head`, in `content_names` order: the
    one-state variables and the turn's path variables after `before` (so that a walk over
    many steps abstracts each state once)."""
    now = dict(zip(_state_names(players), head, strict=True))
    turn = turn_values(before, now, length, players)
    now.update(zip(_turn_names(players), turn, strict=True))
    return now


def _stage_index(stage: int) -> int:
    if not 1 <= stage <= STAGES:
        raise ParameterError("stage", f"the rule-content model has {STAGES} stages, not a stage {stage}")
    return stage - 1


def _scores(state: GameState) -> list[int]:
    """`SCORE_FIELDS` per seat: the engine's final scoring once the game is over, else 0."""
    if not isinstance(state.pending, GameOver):
        return [0] * (len(SCORE_FIELDS) * state.num_players)
    out: list[int] = []
    for b in scoring.score_breakdown(state):
        out += [b.travel, b.council_chamber, b.church, b.chronicle, b.customers, b.coins]
    return out


def content_abstract(state: GameState, before: Mapping[str, int] | None = None) -> AbstractState:
    """The rule-content abstraction alpha_c: GameState -> AbstractState over `content_names`;
    `before` (the abstract state one step earlier, None at a game's first state) gives the
    turn's path variables (`turn_values`)."""
    values = content_vars(state, before)
    return AbstractState.of_names(content_names(state.num_players), tuple(values.values()))


@cache
def _turn_names(players: int) -> tuple[str, ...]:
    return content_names(players)[len(_state_names(players)) :]


def content_head(state: GameState) -> tuple[int, ...]:
    """The one-state variables of alpha_c (`_state_names`: all but the turn's path
    variables), in order: what `content_abstract` reads from the state itself."""
    refuse_solo(state)
    base = abstract(state)
    data = state.rules.data
    day = state.market_day
    pending = state.pending
    pay_for = kind_of(pending.action) if isinstance(pending, ChoosePayment) else -1
    tiles = [t for t in state.market_available if t is not None]
    values: list[int] = [
        pending_code(pending),
        -1 if state.turn is None else state.turn.seat,
        int(day is not None),
        int(day is not None and day.trigger_sold),
        int(day is not None and day.closed),
        0 if day is None else day.held_deaths,
        len(tiles),
        pay_for,
        int(isinstance(pending, ChoosePayment) and action_vars(pending.action)["market"] == 1),
        _ACTS.get(type(pending.action), -1) if isinstance(pending, ChoosePayment) else -1,
        _stage_of(pending.action) if isinstance(pending, ChoosePayment) else -1,
        *(state.space(s).total() for s in SPACES),
    ]
    final = state.final_turns or ()
    chronicle = dict.fromkeys(CATEGORIES, 0)
    seats: list[int] = []
    for seat, p in enumerate(state.players):
        home = placed = own = 0
        church = [0] * STAGES
        council = [0] * STAGES
        for loc in p.members:
            if isinstance(loc, Farmyard):
                home += 1
            elif isinstance(loc, InChronicle):
                chronicle[loc.category] += 1
                own += 1
            elif not isinstance(loc, Unborn | InBlackBag | InGraveyard | Removed):
                placed += 1
                if isinstance(loc, OnChurch):
                    church[_stage_index(loc.stage)] += 1
                elif isinstance(loc, OnCouncil):
                    council[_stage_index(loc.stage)] += 1
        seats += [
            int(day is not None and seat in day.passed),
            int(seat in final),
            home,
            placed,
            p.cubes[Cube.GREEN],
            int(any(can_pay(data.customer(t).demand(), p, True) for t in tiles)),
            harvest_yield(data, p.goods),
            own,
            sum(data.customer(t).points for t in p.customers),
            max((i + 1 for i in range(STAGES) if church[i]), default=0),
            *church,
            *council,
        ]
    values += [chronicle[c] for c in CATEGORIES]
    values += seats
    values += _scores(state)
    return base.vector + tuple(values)
