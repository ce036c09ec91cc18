"""Carla's "turn" in a solo game (2023 pp. 17-18): her cube taking after each cube the
player takes, her board and fate tiles, her reactions at the market and the church, and
the deaths of her members.

Each step is forced by the rules, a chance outcome (a face-down fate tile turned up), or a
decision of the player made for her (`ChooseCarlaCube`, "Chris chooses the plague cube for
her"): Carla is never the seat to decide. The core calls `owe_take` after the player's
cube take and `next_step` before the end of the player's turn.
"""

from __future__ import annotations

from fractions import Fraction

from village_rules.data.components import (
    BLACK_BAG,
    CHURCH_RESERVE,
    FARMYARD,
    GRAVEYARD,
    REMOVED,
    ActionSpace,
    Cube,
    InChronicle,
    Location,
    OnChurch,
)
from village_rules.data.solo_data import FateTile, SoloData
from village_rules.engine import market_day, shared
from village_rules.engine.context import Ctx
from village_rules.engine.guards import expect, present
from village_rules.engine.time_and_death import note_last_space
from village_rules.model.actions import Action, RevealFate
from village_rules.model.carla_board import CARLA, PLAYER, CarlaBoard
from village_rules.model.chance import proportional
from village_rules.model.evolve import replace
from village_rules.model.pending import ChooseCarlaCube, FateReveal, Pending
from village_rules.model.state import GameState
from village_rules.rule_ids import RuleId


def solo_data(state: GameState) -> SoloData:
    """The edition's solo section (a solo game's edition data always has one)."""
    return present(state.rules.data.solo, "carla.solo_data", "the edition's solo data")


def board(state: GameState) -> CarlaBoard:
    """Carla's board (only a solo game has one)."""
    return present(state.carla, "carla.board", "Carla's board")


# --- her cube taking ----------------------------------------------------------------------


def owe_take(state: GameState, space: ActionSpace, cube: Cube, ctx: Ctx) -> GameState:
    """SOLO-10: after the player took a cube (whether or not they perform the action),
    Carla takes one; it is taken once the player's action is over (p. 17 example)."""
    ctx.fire(RuleId.SOLO_10, state)
    return replace(state, carla=replace(board(state), look_for=cube, look_from=space))


def hold_action(state: GameState, space: ActionSpace) -> GameState:
    """AMB-36 b: Carla takes her cube at once after the player's, before the action: the
    action on `space` waits until her take, reaction and death are done."""
    return replace(state, carla=replace(board(state), action_waits=space))


def held_action(state: GameState) -> ActionSpace | None:
    """AMB-36 b: the space of the player's action still held for Carla's steps, if any."""
    return board(state).action_waits


def release(state: GameState) -> GameState:
    """AMB-36 b: Carla's steps are done; the player's held action begins."""
    return replace(state, carla=replace(board(state), action_waits=None))


def clockwise_from(state: GameState, space: ActionSpace) -> list[ActionSpace]:
    """`space` and then the action spaces in the clockwise order of Carla's board."""
    order = solo_data(state).space_order
    i = order.index(space)
    return [order[(i + k) % len(order)] for k in range(len(order))]


def take_target(state: GameState) -> tuple[ActionSpace, Cube | None] | None:
    """Where Carla's owed take comes from: (space, colour), or (space, None) when the
    player chooses among the colours of that space, or None when the board is empty.

    SOLO-10 the colour looked for from the same space; SOLO-11 else from the next
    clockwise space that has one; SOLO-12 none of that colour on the board: a cube of the
    player's choice from the same space; SOLO-13 that space is empty too: a cube of the
    player's choice from the next clockwise space that has any."""
    carla = board(state)
    colour = present(carla.look_for, "carla", "the colour Carla looks for")
    start = present(carla.look_from, "carla", "the space Carla looks from")
    spaces = clockwise_from(state, start)
    for space in spaces:
        if state.space(space)[colour]:
            return space, colour
    for space in spaces:
        cubes = state.space(space)
        if cubes.total():
            colours = [c for c, _ in cubes.items]
            return space, (colours[0] if len(colours) == 1 else None)
    return None


def choice_colours(state: GameState, space: ActionSpace) -> list[Cube]:
    """The colours the player may choose for Carla on `space` (SOLO-12, SOLO-13)."""
    cubes = state.space(space)
    return [c for c in Cube if cubes[c]]


def _take(state: GameState, space: ActionSpace, cube: Cube, ctx: Ctx) -> tuple[GameState, Pending | None]:
    """Carla's cube leaves the action space for the next cube space of her board (SOLO-08):
    influence and plague cubes alike. A fate tile passed face down is turned up (chance)."""
    solo = solo_data(state)
    carla = board(state)
    ctx.fire(RuleId.SOLO_08, state)
    state = state.with_space(space, state.space(space).remove(cube))
    if state.turn is not None and shared.last_cube_in_final_action(state, state.spaces):
        # AMB-45: her owed take emptied the board in the player's final action
        state = replace(state, turn=replace(state.turn, took_last_cube=True))
    p = state.players[CARLA]
    state = state.with_player(CARLA, replace(p, cubes=p.cubes.add(cube)))
    placed = (carla.space + 1) % solo.track_spaces
    if placed == 0 and carla.space != -1:
        ctx.fire(RuleId.SOLO_09, state)  # round the board again, for the rest of the game
    carla = replace(
        carla, space=placed, last_cube=cube, look_for=None, look_from=None, took_from=space, reacted=False
    )
    state = replace(state, carla=carla)
    for slot, where in enumerate(solo.fate_slots):
        if where.space == placed:
            shown = carla.fate[slot]
            if shown is None:
                return state, FateReveal(slot)
            if state.rules.reading("AMB-37") == "b":  # a tile counts only when turned up
                return state, None
            ctx.fire(RuleId.SOLO_14, state)  # a face-up tile passed again shows what it shows (AMB-37 a)
            return replace(state, carla=replace(carla, quill=shown is FateTile.QUILL)), None
    return state, None


def take_chosen(state: GameState, cube: Cube, ctx: Ctx) -> tuple[GameState, Pending | None]:
    """The player's choice of Carla's cube (SOLO-12 / SOLO-13)."""
    pending = expect(state.pending, ChooseCarlaCube, "carla.take_chosen")
    carla = board(state)
    ctx.fire(RuleId.SOLO_12 if pending.space == carla.look_from else RuleId.SOLO_13, state)
    return _take(state, pending.space, cube, ctx)


def choice_problem(state: GameState, cube: Cube) -> str | None:
    """Why the player may not take a `cube` cube for Carla now (SOLO-12 / SOLO-13), or None."""
    pending = expect(state.pending, ChooseCarlaCube, "carla.choice_problem")
    if state.space(pending.space)[cube] == 0:
        return f"solo: there is no {cube.value} cube on the {pending.space.value} space to take for Carla"
    return None


# --- fate tiles ---------------------------------------------------------------------------


def fate_outcomes(state: GameState) -> list[tuple[Action, Fraction]]:
    """SOLO-14: the tiles of the slot's set not yet turned up, each equally likely to lie
    face down in the slot (the set was shuffled face down at setup, SOLO-06)."""
    pending = expect(state.pending, FateReveal, "carla.fate_outcomes")
    return [(RevealFate(t), p) for t, p in proportional(list(face_down(state, pending.slot).items()))]


def face_down(state: GameState, slot: int) -> dict[FateTile, int]:
    """How many of each tile of `slot`'s set are still face down."""
    solo = solo_data(state)
    carla = board(state)
    name = solo.fate_slots[slot].tile_set
    counts: dict[FateTile, int] = {}
    for tile in solo.tiles_of(name):
        counts[tile] = counts.get(tile, 0) + 1
    for other, where in enumerate(solo.fate_slots):
        shown = carla.fate[other]
        if where.tile_set == name and shown is not None:
            counts[shown] -= 1
    return {t: n for t, n in counts.items() if n > 0}


def reveal(state: GameState, pending: FateReveal, action: Action, ctx: Ctx) -> GameState:
    """SOLO-14: the fate tile drawn for the slot is turned face up (a quill: a death owed)."""
    action = expect(action, RevealFate, "carla.reveal")
    ctx.fire(RuleId.SOLO_14, state)
    carla = board(state)
    fate = list(carla.fate)
    fate[pending.slot] = action.tile
    if state.rules.reading("AMB-37") == "c":
        fate = reshuffled(state, fate, pending.slot)
    return replace(state, carla=replace(carla, fate=tuple(fate), quill=action.tile is FateTile.QUILL))


def reshuffled(state: GameState, fate: list[FateTile | None], slot: int) -> list[FateTile | None]:
    """AMB-37 c: once every tile of `slot`'s set is face up, the set is shuffled face down
    again (the tile just turned up still counts), so a later lap turns its tiles up anew."""
    slots = solo_data(state).fate_slots
    name = slots[slot].tile_set
    same = [i for i, where in enumerate(slots) if where.tile_set == name]
    if all(fate[i] is not None for i in same):
        for i in same:
            fate[i] = None
    return fate


# --- her steps after the player's action --------------------------------------------------


def next_step(state: GameState, ctx: Ctx) -> tuple[GameState, Pending | None] | None:
    """Carla's next owed step at the end of the player's turn, or None when none is owed:
    her cube take, then her reaction to it, then a death for a quill passed."""
    carla = board(state)
    if carla.well_turn:  # SOLO-25: the well's turn is over; Carla did nothing in it
        return replace(state, carla=replace(carla, well_turn=False)), None
    if carla.look_for is not None:
        # AMB-41 b: the player's action just ended the game (no final action settled yet,
        # so not the final action END-04 gives him): her owed take is dropped.
        if ended_by_the_players_action(state) and state.rules.reading("AMB-41") == "b":
            ctx.fire(RuleId.SOLO_28, state)
            return replace(state, carla=replace(carla, look_for=None, look_from=None)), None
        target = take_target(state)
        if target is None:  # the board is empty: nothing to take
            return replace(state, carla=replace(carla, look_for=None, look_from=None)), None
        space, colour = target
        if colour is None:
            return state, ChooseCarlaCube(PLAYER, space)
        same_space = space == carla.look_from
        if colour == carla.look_for:  # the colour she looks for
            ctx.fire(RuleId.SOLO_10 if same_space else RuleId.SOLO_11, state)
        else:  # the player's choice, forced: the space holds one colour only
            ctx.fire(RuleId.SOLO_12 if same_space else RuleId.SOLO_13, state)
        return _take(state, space, colour, ctx)
    if carla.took_from is None:
        return None
    if carla.quill and not carla.reacted and state.rules.reading("AMB-38") == "b":
        state = carla_dies(state, carla.took_from, ctx)  # AMB-38 b: the death as the quill shows
        return replace(state, carla=replace(board(state), quill=False)), None
    if not carla.reacted:
        state = replace(state, carla=replace(carla, reacted=True))
        return react(state, carla.took_from, ctx), None
    if carla.quill:
        state = carla_dies(state, carla.took_from, ctx)
    return replace(state, carla=replace(board(state), took_from=None, reacted=False, quill=False)), None


def ended_by_the_players_action(state: GameState) -> bool:
    """AMB-41: the player triggered the end in the turn still running (the final actions
    are settled only at its end, so a final action of his does not count)."""
    return state.end_triggered_by == PLAYER and state.final_turns is None


def react(state: GameState, space: ActionSpace, ctx: Ctx) -> GameState:
    """SOLO-15: Carla performs no action; from the market or the church she reacts."""
    ctx.fire(RuleId.SOLO_15, state)
    if space is ActionSpace.MARKET:
        ctx.fire(RuleId.SOLO_16, state)  # Carla holds a market day and serves the frontmost customer
        if state.rules.reading("AMB-39") == "b":
            return take_frontmost(state, ctx)
        return market_day.start(state, CARLA, ctx)
    if space is ActionSpace.CHURCH:
        reserve = [
            (state.number_of(i), i)
            for i, loc in enumerate(state.players[CARLA].members)
            if loc == CHURCH_RESERVE
        ]
        if not reserve:
            ctx.fire(RuleId.SOLO_21, state)  # none left on the church: she forgoes the reaction
            return state
        ctx.fire(RuleId.SOLO_20, state)
        _, index = min(reserve)
        return _move(state, index, BLACK_BAG)
    return state


def take_frontmost(state: GameState, ctx: Ctx) -> GameState:
    """AMB-39 b: Carla only takes the frontmost available customer; no market day is held,
    so the player sells nothing and the market is not refilled (MKT-06 closes a market day)."""
    front = next((t for t in state.market_available if t is not None), None)
    if front is None:
        return state
    ctx.fire(RuleId.SOLO_18, state)
    p = state.players[CARLA]
    state = state.with_player(CARLA, replace(p, customers=(*p.customers, front)))
    return replace(state, market_available=tuple(None if t == front else t for t in state.market_available))


def market_turn(state: GameState, ctx: Ctx) -> GameState:
    """SOLO-16 / SOLO-17 / SOLO-18: at her chance in a market day Carla serves the
    frontmost available customer, paying nothing; she never serves more than one per day,
    so she is done for the day at once (as if she had passed). In a market day the player
    holds through the well, AMB-43 a (SOLO-25): she serves nobody (she does not "react",
    p. 18); b (SOLO-31): she serves as in any market day the player triggers."""
    day = present(state.market_day, "carla.market_turn", "the market day in progress")
    front = next((t for t in state.market_available if t is not None), None)
    if board(state).well_turn:
        if state.rules.reading("AMB-43") == "a":
            ctx.fire(RuleId.SOLO_25, state)  # a market day through the well: Carla does not react
            front = None
        elif front is not None:
            ctx.fire(RuleId.SOLO_31, state)  # AMB-43 b: her customer is no reaction to a cube of hers
    if front is not None:
        ctx.fire(RuleId.SOLO_17 if day.trigger == PLAYER else RuleId.SOLO_16, state)
        ctx.fire(RuleId.SOLO_18, state)
        p = state.players[CARLA]
        state = state.with_player(CARLA, replace(p, customers=(*p.customers, front)))
        state = replace(
            state, market_available=tuple(None if t == front else t for t in state.market_available)
        )
    passed = tuple(sorted({*day.passed, CARLA}))
    current = PLAYER if PLAYER not in passed else CARLA
    sold = day.trigger_sold or (day.trigger == CARLA and front is not None)
    return replace(state, market_day=replace(day, current=current, passed=passed, trigger_sold=sold))


def death_candidate(state: GameState) -> int | None:
    """SOLO-22 / SOLO-23 / SOLO-24: the member of Carla's who dies: of those next to her
    board the lowest number; then those still on the church ("3"s, then "4"s); finally
    those on the church track, from left to right. None if she has none of these."""
    members = state.players[CARLA].members
    for place in (FARMYARD, CHURCH_RESERVE):
        here = [(state.number_of(i), i) for i, loc in enumerate(members) if loc == place]
        if here:
            return min(here)[1]
    on_track = [(loc.stage, i) for i, loc in enumerate(members) if isinstance(loc, OnChurch)]
    if on_track:
        return min(on_track)[1]
    return None


def carla_dies(state: GameState, space: ActionSpace, ctx: Ctx) -> GameState:
    """SOLO-14: a quill passed: one of Carla's members dies and goes to a free space of the
    chronicle category of the action space her cube came from (market: the graveyard); no
    free space there: the graveyard; no grave: out of the game (END-05). A full chronicle
    or graveyard triggers the end of the game as usual (END-01)."""
    index = death_candidate(state)
    if index is None:
        ctx.fire(RuleId.SOLO_22, state)  # no member of hers can die
        return state
    before = state.players[CARLA].members[index]
    if before == CHURCH_RESERVE:
        ctx.fire(RuleId.SOLO_23, state)  # no "1" or "2" left next to her board
    elif isinstance(before, OnChurch):
        ctx.fire(RuleId.SOLO_24, state)  # none left on the church either: the church track
    else:
        ctx.fire(RuleId.SOLO_22, state)
    category = solo_data(state).death_place(space)
    dest: Location
    if state.end_triggered_by is not None and state.rules.reading("AMB-10") == "b":
        ctx.fire(RuleId.END_05, state)
        dest = REMOVED
    elif category is not None and state.chronicle_free(category) > 0:
        ctx.fire(RuleId.DEATH_03, state)
        dest = InChronicle(category)
    elif state.graveyard_free() > 0:
        ctx.fire(RuleId.SOLO_19 if category is None else RuleId.DEATH_04, state)
        dest = GRAVEYARD
    else:
        ctx.fire(RuleId.END_05, state)
        dest = REMOVED
    return note_last_space(_move(state, index, dest), CARLA, dest, ctx)


def _move(state: GameState, index: int, to: Location) -> GameState:
    p = state.players[CARLA]
    members = list(p.members)
    members[index] = to
    return state.with_player(CARLA, replace(p, members=tuple(members)))


# --- a new round --------------------------------------------------------------------------


def new_round(state: GameState, ctx: Ctx) -> GameState:
    """SOLO-26: before a new round all but the last cube placed on Carla's board go back to
    the supply; her next cube goes on the space after it (SOLO-09)."""
    carla = board(state)
    p = state.players[CARLA]
    back = p.cubes
    if carla.last_cube is not None and back[carla.last_cube]:
        back = back.remove(carla.last_cube)
    if not back.total():
        return state
    ctx.fire(RuleId.SOLO_26, state)
    state = state.with_player(CARLA, replace(p, cubes=p.cubes.minus(back)))
    return replace(state, supply=replace(state.supply, cubes=state.supply.cubes.plus(back)))


def after_well(state: GameState, ctx: Ctx) -> GameState:
    """SOLO-25: the player performs the well: Carla takes no cube and does not react in
    this turn (p. 18); in the market day the well may start she serves nobody (AMB-43 a)
    or, under AMB-43 b (SOLO-31), serves as in any market day the player triggers."""
    ctx.fire(RuleId.SOLO_25, state)
    return replace(state, carla=replace(board(state), well_turn=True))


def final_seats(state: GameState, order: tuple[int, ...], ctx: Ctx) -> tuple[int, ...]:
    """SOLO-28: the game ends as usual; Carla takes no turns, so no final action either."""
    ctx.fire(RuleId.SOLO_28, state)
    return tuple(seat for seat in order if not state.is_carla(seat))
