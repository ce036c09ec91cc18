"""Cross-field checks of a state read from JSON: does the pending step fit the turn, the
market day, the mass and the end phase, as the engine leaves them after every `apply`?

`from_json` promises that a state that loads can be played on. The invariant checkers
(`village_rules.checks.invariants`) test what holds in every state; these checks add what holds
between the bookkeeping fields, derived from how the engine moves from step to step
(engine/core.py `_settle` / `_next_step`, engine/seeding.py, engine/market_day.py,
engine/mass.py, engine/end_of_game.py). Each problem is `(JSON path, what is wrong)`.
`tests/checks/test_state_checks.py` shows every state reached by random play passes them.
"""

from __future__ import annotations

from dataclasses import replace
from typing import assert_never

from village_rules.data.components import ActionSpace, Compensation, OnCouncil
from village_rules.data.edition import RewardKind
from village_rules.data.solo_data import FateTile, SoloData
from village_rules.engine.carla import ended_by_the_players_action
from village_rules.engine.core import legal_actions
from village_rules.engine.guards import present
from village_rules.errors import VillageError
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
from village_rules.model.carla_board import CARLA, CarlaBoard
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
from village_rules.model.state import PLAYER_COLOURS, GameState

Problem = tuple[str, str]

_TURN_STEPS = (ChooseAction, ChoosePrivilege, ChooseSupplyCube, ChooseSupplyGood)
"""Sub-decisions of the acting seat's own action: no market day, no mass."""
_MASS_STEPS = (MassBuy, MassAdvance, MassDraw)
_BETWEEN_TURNS = (ChooseTurn, SeedDraw, ChooseCompensationCube, GameOver)


def phase_problems(state: GameState) -> list[Problem]:
    """Every cross-field problem found (empty for a state the engine can reach)."""
    out: list[Problem] = []
    out += _colour_problems(state)
    out += _turn_problems(state)
    out += _market_day_problems(state)
    out += _mass_problems(state)
    out += _death_problems(state)
    out += _end_problems(state)
    out += _seeding_problems(state)
    out += _step_problems(state)
    out += _solo_problems(state)
    return out


def _solo_problems(state: GameState) -> list[Problem]:
    """Solo (2023 pp. 17-18): Carla's steps happen only during the player's turn and
    only while owed: the player's choice of her cube only when no cube of the colour she
    looks for is on the board and the space offers two colours or more; a fate tile turned
    up only where her last cube went, while it is face down."""
    pending = state.pending
    carla = state.carla
    if carla is None:
        if isinstance(pending, ChooseCarlaCube | FateReveal):
            return [("$.pending", f"a {type(pending).__name__} happens only in a solo game")]
        return []
    # the loader refuses a "carla" key without solo data
    solo = present(state.rules.data.solo, "state_checks", "the edition's solo data")
    out: list[Problem] = []
    if isinstance(pending, ChooseCarlaCube):
        if carla.look_for is None or carla.look_from is None:
            out.append(("$.carla.look_for", "the player chooses Carla's cube only while her take is owed"))
        elif any(cubes[carla.look_for] for cubes in state.spaces):
            out.append(("$.pending", f"a {carla.look_for.value} cube is on the board: Carla takes that"))
        if len([c for c, _ in state.space(pending.space).items]) < 2:
            out.append(("$.pending.space", "a choice needs two colours or more on the space"))
    if isinstance(pending, FateReveal):
        if not 0 <= pending.slot < len(solo.fate_slots):
            out.append(("$.pending.slot", f"Carla's board has fate slots 0..{len(solo.fate_slots) - 1}"))
        elif carla.fate[pending.slot] is not None:
            out.append(("$.pending.slot", "that fate tile is face up already"))
        elif solo.fate_slots[pending.slot].space != carla.space or carla.took_from is None:
            out.append(("$.pending.slot", "a fate tile is turned up by the cube Carla just placed past it"))
    if (carla.took_from is None) and (carla.reacted or carla.quill):
        out.append(("$.carla.took_from", "a reaction or a death of Carla's follows a cube she took"))
    if state.market_day is not None and state.market_day.trigger == CARLA and not carla.reacted:
        out.append(("$.carla.reacted", "Carla's market day is her reaction to a market cube"))
    if carla.well_turn and (state.turn is None or not carla.idle):
        out.append(("$.carla.well_turn", "only during the player's well turn, in which Carla does nothing"))
    if carla.end_in_market_of is not None and state.end_triggered_by is None:
        out.append(("$.carla.end_in_market_of", "records the market day the end was triggered in"))
    return out + _solo_reading_problems(state, carla, solo)


def _solo_reading_problems(state: GameState, carla: CarlaBoard, solo: SoloData) -> list[Problem]:
    """What the solo readings reach (AMB-36..39, AMB-41, AMB-42; specs/ambiguities.md)."""
    out: list[Problem] = []
    fate = list(zip(carla.fate, solo.fate_slots, strict=True))
    amb37 = state.rules.reading("AMB-37")
    if carla.quill:
        shows = [t for t, where in fate if where.space == carla.space]
        if FateTile.QUILL not in shows and not (amb37 == "c" and None in shows):
            out.append(("$.carla.quill", "Carla owes a death only for a quill where her last cube went"))
    if amb37 == "c":
        for name in sorted({where.tile_set for where in solo.fate_slots}):
            if all(t is not None for t, where in fate if where.tile_set == name):
                out.append(("$.carla.fate", f"AMB-37 c: the {name} set is reshuffled once all are up"))
    if state.rules.reading("AMB-38") == "b" and carla.quill and carla.reacted:
        out.append(("$.carla.quill", "AMB-38 b: Carla's death comes before her reaction"))
    if carla.action_waits is not None:
        if state.rules.reading("AMB-36") != "b":
            out.append(("$.carla.action_waits", "only AMB-36 b holds the player's action for Carla's steps"))
        elif state.turn is None:
            out.append(("$.carla.action_waits", "a held action belongs to the player's turn"))
        if isinstance(state.pending, ChooseAction):
            out.append(("$.pending", "AMB-36 b: the held action begins only after Carla's steps"))
    elif carla.look_for is not None and state.rules.reading("AMB-36") == "b":
        out.append(("$.carla.look_for", "AMB-36 b: Carla takes her cube before the player's action"))
    day = state.market_day
    if state.rules.reading("AMB-39") == "b" and day is not None and day.trigger == CARLA:
        out.append(("$.market_day.trigger", "AMB-39 b: Carla only takes the frontmost customer"))
    ended = state.rules.reading("AMB-41") == "b" and ended_by_the_players_action(state)
    if ended and isinstance(state.pending, ChooseCarlaCube | FateReveal):
        out.append(("$.pending", "AMB-41 b: the player ended the game: Carla's owed take is dropped"))
    moved_up = state.rules.reading("AMB-42") == "b" and state.rules.reading("AMB-39") != "b"
    if moved_up and (day is None or day.closed):  # after a refill the customers left have moved up
        shown = [t is not None for t in state.market_available]
        if False in shown and any(shown[shown.index(False) :]):
            out.append(("$.market_available", "AMB-42 b: the customers left move up before the refill"))
    return out


def _colour_problems(state: GameState) -> list[Problem]:
    """setup.py gives seat k colour k (`PLAYER_COLOURS`), so colours are known and distinct."""
    return [
        (f"$.players[{seat}].colour", f"seat {seat} plays {PLAYER_COLOURS[seat]!r}, not {p.colour!r}")
        for seat, p in enumerate(state.players)
        if p.colour != PLAYER_COLOURS[seat]
    ]


def _turn_problems(state: GameState) -> list[Problem]:
    pending = state.pending
    turn = state.turn
    name = type(pending).__name__
    during_turn = (*_TURN_STEPS, ChoosePayment, ChooseDying, MarketChoice, RefillDraw)
    if isinstance(pending, during_turn) and turn is None:
        return [("$.turn", f"a {name} happens during a turn, but no turn is in progress")]
    own = isinstance(pending, _TURN_STEPS) or (
        isinstance(pending, ChoosePayment) and state.market_day is None
    )
    seat = getattr(pending, "seat", None)
    if own and turn is not None and seat != turn.seat:
        return [("$.pending.seat", f"a {name} belongs to the acting seat {turn.seat}, not {seat}")]
    if isinstance(pending, (*_TURN_STEPS, *_MASS_STEPS)) and state.market_day is not None:
        return [("$.market_day", f"no market day is held during a {name}")]
    if isinstance(pending, _MASS_STEPS) and turn is not None:
        return [("$.turn", f"the mass ({name}) follows the last turn of a round; no turn is in progress")]
    return []


def _market_day_problems(state: GameState) -> list[Problem]:
    day = state.market_day
    if day is None:
        if isinstance(state.pending, MarketChoice | RefillDraw):
            return [("$.market_day", f"a {type(state.pending).__name__} needs a market day in progress")]
        return []
    out: list[Problem] = []
    carla_day = state.is_solo and day.trigger == CARLA  # solo: her reaction, in the player's turn
    if state.turn is None or (state.turn.seat != day.trigger and not carla_day):
        out.append(("$.market_day.trigger", f"the market-day player {day.trigger} must be the acting seat"))
    if day.first_pass_waived and state.rules.reading("AMB-06") != "b":
        out.append(("$.market_day.first_pass_waived", "only AMB-06 b waives the market-day player's pass"))
    if list(day.passed) != sorted(set(day.passed)):
        out.append(("$.market_day.passed", "each seat passes once; the list is kept sorted"))
    if day.trigger_sold and not state.players[day.trigger].customers:
        out.append(("$.market_day.trigger_sold", "the market-day player has served no customer"))
    pending = state.pending
    if day.closed:
        if not isinstance(pending, RefillDraw):
            out.append(("$.pending", "once a market day is closed only refills from the pile remain"))
        elif pending != _next_refill(state):
            want = _next_refill(state)
            where = "no refill" if want is None else f"waiting space {want.position}"
            out.append(("$.pending.position", f"the next refill goes to {where}"))
        return out
    if day.current in day.passed:
        out.append(("$.market_day.current", f"seat {day.current} has passed for this market day"))
    if all(t is None for t in state.market_available) or len(day.passed) == state.num_players:
        out.append(
            ("$.market_day.closed", "the market day is over: nothing left to serve or every seat passed")
        )
    if isinstance(pending, MarketChoice | ChoosePayment) and pending.seat != day.current:
        out.append(("$.pending.seat", f"seat {day.current} is the one to serve or pass now"))
    if not isinstance(pending, MarketChoice | ChoosePayment | ChooseDying):
        out.append(("$.pending", f"a {type(pending).__name__} does not happen during a market day"))
    return out


def _next_refill(state: GameState) -> RefillDraw | None:
    """engine/market_day.py `next_refill`: the first empty waiting space, while tiles remain."""
    if not state.customer_pile:
        return None
    for i, tile in enumerate(state.market_waiting):
        if tile is None:
            return RefillDraw(i)
    return None


def _mass_problems(state: GameState) -> list[Problem]:
    mass = state.mass
    d = state.rules.data
    pending = state.pending
    if mass is None:
        return []
    if not isinstance(pending, _MASS_STEPS):
        return [("$.mass", f"a mass is in progress, but the game waits for a {type(pending).__name__}")]
    out: list[Problem] = []
    if mass.bought > d.mass_pieces:
        out.append(("$.mass.bought", f"at most {d.mass_pieces} pieces come out of the bag"))
    # A round mass with nobody left to act before the last mass: AMB-45 b after the last
    # final action took the last cube, or AMB-33 b / c in a solo game the player ended in
    # their own turn (issue 43); `_end_problems` checks when either is held.
    round_then_last = not mass.final and state.final_turns == () and (mass.in_final_actions or state.is_solo)
    if mass.final != (state.final_turns == ()) and not round_then_last:
        out.append(("$.mass.final", "the final mass follows the last final action, and only it"))
    if isinstance(pending, MassBuy) and mass.bought >= d.mass_pieces:
        out.append(("$.pending", f"{mass.bought} pieces are bought: no more buying"))
    if list(mass.stopped) != sorted(set(mass.stopped)):
        out.append(("$.mass.stopped", "each seat stops buying once; the list is kept sorted"))
    if mass.stopped and state.rules.reading("AMB-15") != "b":
        out.append(("$.mass.stopped", "only AMB-15 b records who has stopped buying (a: one chance each)"))
    if isinstance(pending, MassBuy) and pending.seat in mass.stopped:
        out.append(("$.pending", f"seat {pending.seat} has stopped buying at this mass (AMB-15 b)"))
    if (
        isinstance(pending, MassDraw)
        and state.rules.reading("AMB-15") == "b"
        and len(mass.stopped) < state.num_players
    ):
        out.append(("$.mass.stopped", "under AMB-15 b the drawing starts once every seat has stopped buying"))
    if isinstance(pending, MassBuy | MassAdvance) and state.monks_aside:
        out.append(("$.monks_aside", f"drawn monks go back into the bag before {type(pending).__name__}"))
    if isinstance(pending, MassDraw):
        left = d.mass_pieces - mass.bought - state.monks_aside
        if pending.remaining > left:
            out.append(
                (
                    "$.pending.remaining",
                    f"{left} pieces are left to draw ({mass.bought} bought, "
                    f"{state.monks_aside} monks drawn), not {pending.remaining}",
                )
            )
    return out


def _death_problems(state: GameState) -> list[Problem]:
    """Deaths are owed only by the seat whose action cost the time, and resolved at once
    during an open market day (DEATH-06) or at the end of that seat's action."""
    pending = state.pending
    owing = [seat for seat, n in enumerate(state.deaths_owed) if n]
    day = state.market_day
    out: list[Problem] = []
    if isinstance(pending, ChooseDying) and pending.seat not in owing:
        out.append(("$.pending.seat", f"seat {pending.seat} owes no death"))
    if state.rules.reading("AMB-08") == "b":
        if any(n > 1 for n in state.deaths_owed):
            out.append(("$.deaths_owed", "under AMB-08 b a seat owes at most one death"))
        if day is not None and day.held_deaths > 1:
            out.append(("$.market_day.held_deaths", "under AMB-08 b at most one death is held"))
    if not owing:
        return out
    if day is not None and not day.closed:
        return out
    kept = state.rules.reading("AMB-23") == "b"  # a death with no visible member stays owed
    if isinstance(pending, _MASS_STEPS):
        if not kept:
            out.append(("$.deaths_owed", "every death is resolved before the mass begins"))
        return out
    if isinstance(pending, _BETWEEN_TURNS):
        return out  # invariants.phase_violations names these
    if day is not None and day.closed and not kept:
        # AMB-23 b keeps a death with no visible member owed through a market day, such
        # as the player's during a market day Carla holds in a solo game (SOLO-16).
        out.append(("$.deaths_owed", "deaths are resolved before a market day closes"))
        return out
    turn_seat = None if state.turn is None else state.turn.seat
    others = [s for s in owing if s != turn_seat]
    if others and not kept:
        out.append(("$.deaths_owed", f"seat {others[0]} owes a death but is not acting"))
    return out


def _amb33_b(state: GameState) -> bool:
    return state.rules.reading("AMB-33") == "b"


def _amb33_round_mass(state: GameState) -> bool:
    return state.rules.reading("AMB-33") in {"b", "c"}


def _round_mass_held(state: GameState) -> bool:
    """AMB-33 b (END-08) / c (END-09): the round mass (and under b the reseeding) that come
    between the end trigger and the final actions. They are held only before any final
    action is taken: every seat, or every seat but the one that triggered the end, is still
    to act."""
    final = state.final_turns
    if not _amb33_round_mass(state) or final is None or state.end_triggered_by is None:
        return False
    if state.mass is not None and state.cubes_on_board():
        return False  # the round mass follows the taking of the last cube
    if not final:
        # nobody left to act (a solo game the player ended in their own turn): the round
        # mass is still held, then the last mass (issue 43); never reseeded
        return state.is_solo and not isinstance(state.pending, SeedDraw)
    everyone = set(range(state.num_players))
    return set(final) in (everyone, everyone - {state.end_triggered_by})


def _amb45_problems(state: GameState) -> list[Problem]:
    """AMB-45 (END-03 / END-11): a turn marked as having taken the last cube is a final
    action that emptied the board; a round mass held in the final actions is held under
    AMB-45 b only, on the empty board, and is not the final mass."""
    out: list[Problem] = []
    turn = state.turn
    if turn is not None and turn.took_last_cube and (state.final_turns is None or state.cubes_on_board()):
        out.append(("$.turn.took_last_cube", "only a final action that emptied the board is marked"))
    held = state.mass
    if held is not None and held.in_final_actions:
        if held.final:
            out.append(("$.mass.in_final_actions", "the final mass is not a round mass"))
        elif state.rules.reading("AMB-45") != "b":
            out.append(("$.mass.in_final_actions", "AMB-45 a: no round mass is held in the final actions"))
        elif state.end_triggered_by is None or state.final_turns is None or state.cubes_on_board():
            out.append(("$.mass.in_final_actions", "a round mass in the final actions follows the last cube"))
    return out


def _end_problems(state: GameState) -> list[Problem]:
    final = state.final_turns
    out: list[Problem] = []
    if final is not None:
        if len(set(final)) != len(final):
            out.append(("$.final_turns", "each seat takes one final action"))
        if len(final) > state.num_players:
            out.append(("$.final_turns", f"at most {state.num_players} final actions"))
    triggered = state.end_triggered_by is not None
    pending = state.pending
    if triggered and isinstance(pending, ChooseTurn) and final is None:
        out.append(
            ("$.final_turns", "the final actions are settled at the end of the turn that triggered it")
        )
    held = triggered and _round_mass_held(state)
    if triggered and isinstance(pending, ChooseCompensationCube):
        out.append(("$.end_triggered_by", "no new round begins once the end is triggered"))
    if triggered and isinstance(pending, SeedDraw) and not (held and _amb33_b(state)):
        out.append(
            (
                "$.end_triggered_by",
                "no new round begins once the end is triggered"
                + (" (AMB-33 b: only before the first final action)" if _amb33_b(state) else ""),
            )
        )
    out += _amb45_problems(state)
    in_final_actions = state.mass is not None and state.mass.in_final_actions
    if state.mass is not None and not state.mass.final and triggered and not held and not in_final_actions:
        out.append(
            (
                "$.mass.final",
                "once the end is triggered the next mass is the final one"
                + (
                    " (AMB-33 b / c: a round mass only before the first final action)"
                    if _amb33_round_mass(state)
                    else ""
                ),
            )
        )
    if isinstance(pending, ChooseTurn) and final is not None and pending.seat in final:
        out.append(("$.final_turns", f"seat {pending.seat} is taking its final action now"))
    return out


def _seeding_problems(state: GameState) -> list[Problem]:
    """SEED-02: spaces are seeded in board order from an empty board; AMB-04 stops early."""
    pending = state.pending
    d = state.rules.data
    card = dict(d.setup_card(state.num_players).cubes_per_space)
    if isinstance(pending, ChooseCompensationCube):
        out: list[Problem] = []
        kinds = d.starting_compensation
        if not state.rules.variant.starting_compensation or not kinds:
            out.append(("$.pending", "no compensation cube is chosen in this game (AMB-11)"))
        elif pending.seat >= len(kinds) or kinds[pending.seat] is not Compensation.CHOSEN_CUBE:
            out.append(
                ("$.pending.seat", f"seat {pending.seat} does not choose a compensation cube (SET-10)")
            )
        if state.round != 1 or state.cubes_on_board() or state.green_bag.total():
            out.append(("$.pending", "the compensation cube is chosen at setup, before the bag is filled"))
        return out
    if not isinstance(pending, SeedDraw):
        return []
    spaces = list(ActionSpace)
    index = spaces.index(pending.space)
    if not 1 <= pending.remaining <= card[pending.space]:
        return [
            (
                "$.pending.remaining",
                f"the setup card puts {card[pending.space]} cubes on {pending.space.value}",
            )
        ]
    for i, space in enumerate(spaces):
        want = card[space] if i < index else 0
        if i == index:
            want = card[space] - pending.remaining
        have = state.spaces[i].total()
        if have != want:
            return [
                (
                    f"$.spaces.{space.value}",
                    f"while seeding {pending.space.value} ({pending.remaining} to draw) "
                    f"this space holds {want} cubes, not {have}",
                )
            ]
    return []


def _origin(state: GameState, seat: int, action: Action) -> GameState | None:
    """The state in which `action` (now waiting for its payment) was chosen."""
    match action:
        case Well():
            return replace(state, pending=ChooseTurn(seat), turn=None)
        case Serve():
            return replace(state, pending=MarketChoice(seat))
        case Train() | Produce() | Buy() | Mill():
            return replace(state, pending=ChooseAction(seat, ActionSpace.CRAFTS))
        case Travel():
            return replace(state, pending=ChooseAction(seat, ActionSpace.TRAVEL))
        case CouncilPlace() | CouncilAdvance():
            return replace(state, pending=ChooseAction(seat, ActionSpace.COUNCIL_CHAMBER))
        case ChurchEnter():
            return replace(state, pending=ChooseAction(seat, ActionSpace.CHURCH))
        case TakeCube() | FreeAction() | Skip() | PickCube() | PickGood() | Harvest() | Birth() | CallHome():
            return None  # nothing to pay (`from_json` refuses such a ChoosePayment before)
        case Privilege() | Pay() | Die() | Pass() | BuyFromBag() | ChurchStep():
            return None
        case DrawCube() | DrawCustomer() | DrawMonk() | DrawMember() | CarlaCube() | RevealFate():
            return None
        case _:
            assert_never(action)


def _step_problems(state: GameState) -> list[Problem]:
    """The fields of the pending step itself, against the rest of the state."""
    pending: Pending = state.pending
    d = state.rules.data
    match pending:
        case ChooseAction(_, space) if space is ActionSpace.MARKET:
            return [("$.pending.space", "the market holds a market day, never a ChooseAction")]
        case ChoosePrivilege(seat, top):
            reached = max(
                (loc.stage for loc in state.players[seat].members if isinstance(loc, OnCouncil)), default=0
            )
            if top > reached:
                return [
                    ("$.pending.max_stage", f"seat {seat} has reached council stage {reached}, not {top}")
                ]
        case ChooseSupplyCube(_, n):
            most = max(
                [d.privilege_cubes, *(c.amount for c in d.cities if c.reward is RewardKind.CUBES_OF_CHOICE)]
            )
            if n > most:
                return [("$.pending.remaining", f"at most {most} cubes of choice at a time")]
        case ChooseSupplyGood(_, n) if n > d.privilege_goods:
            return [("$.pending.remaining", f"privilege 3 gives {d.privilege_goods} goods")]
        case ChoosePayment(seat, action):
            if state.market_day is None and isinstance(action, Serve):
                return [("$.pending.action", "a customer is served only on a market day")]
            if state.market_day is not None and not isinstance(action, Serve):
                return [("$.pending.action", "on a market day only serving a customer is paid for")]
            origin = _origin(state, seat, action)
            if origin is not None:
                try:
                    allowed = action in legal_actions(origin)
                except (VillageError, IndexError, KeyError, ValueError):
                    allowed = False
                if not allowed:
                    return [
                        ("$.pending.action", f"{format_action(action)!r} cannot be taken by seat {seat} here")
                    ]
    return []
