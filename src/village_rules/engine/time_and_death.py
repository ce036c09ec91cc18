"""Time and death (2023 p. 5 "The currency time", p. 12 "A family member passes away").

Each unit of time moves the life-time token one space; each time it passes the quill
(2011: the bridge) one member of the lowest number dies, if one of that number is visible
(AMB-46; under b the lowest number among the visible ones). Deaths are owed until they are
resolved: after the action, or at once during a market day.
"""

from __future__ import annotations

from village_rules.data.components import (
    GRAVEYARD,
    REMOVED,
    InChronicle,
    InGraveyard,
    Location,
    is_alive,
    is_visible,
    workplace,
)
from village_rules.engine.context import Ctx
from village_rules.engine.guards import present
from village_rules.model.evolve import replace
from village_rules.model.pending import ChooseDying
from village_rules.model.state import GameState
from village_rules.rule_ids import RuleId


def spend_time(state: GameState, seat: int, amount: int, ctx: Ctx) -> GameState:
    """TIME-01 / DEATH-01: move the token `amount` spaces; owe one death per quill pass."""
    ctx.fire(RuleId.TIME_01, state, seat)
    p = state.players[seat]
    length = state.rules.data.lifetime_track_length
    moved = p.lifetime + amount
    passes = moved // length
    state = state.with_player(seat, replace(p, lifetime=moved % length))
    for _ in range(passes):
        ctx.fire(RuleId.DEATH_01, state, seat)
    if passes:
        owed = list(state.deaths_owed)
        owed[seat] = cap_owed(state, owed[seat], passes, ctx)
        state = replace(state, deaths_owed=tuple(owed))
    return state


def cap_owed(state: GameState, owed: int, more: int, ctx: Ctx) -> int:
    """The deaths a seat owes after `more` passes. AMB-08 a: one per pass; b (DEATH-08):
    passes not yet resolved kill one member, so a seat never owes more than one death."""
    if state.rules.reading("AMB-08") == "b" and owed + more > 1:
        ctx.fire(RuleId.DEATH_08, state)
        return 1
    return owed + more


def dying_number(state: GameState, seat: int) -> int | None:
    """DEATH-02: the number of the owner's members that has to die, or None when none can.

    AMB-46 a (the default in both editions): "it is always the one with the lowest number
    that has to die" of the owner's living members, the black bag included; if none of
    them is visible, nobody dies (2023 p. 12 "otherwise you do not lose a family member").
    AMB-46 b (DEATH-09): the lowest number among the visible members only."""
    p = state.players[seat]
    visible = [state.number_of(i) for i, loc in enumerate(p.members) if is_visible(loc)]
    if not visible:
        return None
    lowest = min(visible)
    if state.rules.reading("AMB-46") == "a":
        living = min(state.number_of(i) for i, loc in enumerate(p.members) if is_alive(loc))
        if living < lowest:
            return None  # the lowest-numbered are all in the black bag
    return lowest


def death_candidates(state: GameState, seat: int) -> list[Location]:
    """DEATH-02: the distinct places of the owner's visible members of the number that has
    to die (`dying_number`); empty when nobody can die (DEATH-05)."""
    number = dying_number(state, seat)
    if number is None:
        return []
    places: list[Location] = []
    for i, loc in enumerate(state.players[seat].members):
        if is_visible(loc) and state.number_of(i) == number and loc not in places:
            places.append(loc)
    return places


def kill(state: GameState, seat: int, location: Location, ctx: Ctx) -> GameState:
    """DEATH-03: the member goes to a free chronicle space of its workplace's category,
    else to a free grave, else (only once the end is triggered) out of the game."""
    p = state.players[seat]
    lowest = present(dying_number(state, seat), "time_and_death.kill", "a member who can die")
    hidden = (state.number_of(i) for i, loc in enumerate(p.members) if is_alive(loc) and not is_visible(loc))
    if any(n < lowest for n in hidden):  # only under AMB-46 b
        ctx.fire(RuleId.DEATH_09, state, seat)  # AMB-46 b: a lower number in the black bag is passed over
    index = next(i for i, loc in enumerate(p.members) if loc == location and state.number_of(i) == lowest)
    category = workplace(location)
    if state.end_triggered_by is not None and state.rules.reading("AMB-10") == "b":
        ctx.fire(RuleId.END_05, state, seat)  # AMB-10 b: every death after the end trigger leaves the game
        dest: Location = REMOVED
    elif state.chronicle_free(category) > 0:
        ctx.fire(RuleId.DEATH_03, state, seat)
        dest = InChronicle(category)
    elif state.graveyard_free() > 0:
        ctx.fire(RuleId.DEATH_04, state, seat)
        dest = GRAVEYARD
    else:
        ctx.fire(RuleId.END_05, state, seat)
        dest = REMOVED
    members = list(p.members)
    members[index] = dest
    owed = list(state.deaths_owed)
    owed[seat] -= 1
    state = replace(state.with_player(seat, replace(p, members=tuple(members))), deaths_owed=tuple(owed))
    return note_last_space(state, seat, dest, ctx)


def note_last_space(state: GameState, seat: int, dest: Location, ctx: Ctx) -> GameState:
    """END-01: a member of `seat` just put on `dest` took the last free chronicle space
    (AMB-12) or the last free grave: the end is triggered, by `seat`. Once triggered, a
    later fill of the other (AMB-44) changes nothing under a: the first filler triggered
    it; under b (END-10), during the market day of the turn that triggered it (before the
    final actions are settled), the player who occupies the later last space counts."""
    filled = (isinstance(dest, InChronicle) and chronicle_full(state, dest)) or (
        isinstance(dest, InGraveyard) and state.graveyard_free() == 0
    )
    if not filled or state.end_triggered_by == seat:
        return state
    if state.end_triggered_by is None:
        ctx.fire(RuleId.END_01, state, seat)
    elif later_filler_counts(state):
        ctx.fire(RuleId.END_10, state, seat)  # AMB-44 b: the later last space decides who triggered the end
    else:
        return state
    state = replace(state, end_triggered_by=seat)
    if state.carla is not None and state.market_day is not None:  # solo: whose market day
        state = replace(state, carla=replace(state.carla, end_in_market_of=state.market_day.trigger))
    return state


def later_filler_counts(state: GameState) -> bool:
    """AMB-44 b: the chronicle and the graveyard both fill in one market day, and the one
    filled later names who triggered the end (2023 p. 13 Special case "Afterwards, determine
    who has triggered the end of the game by occupying the last space"). Only while that
    market day runs and the final actions are not settled yet."""
    return (
        state.rules.reading("AMB-44") == "b" and state.market_day is not None and state.final_turns is None
    )


def chronicle_full(state: GameState, last: InChronicle) -> bool:
    """END-01 / AMB-12: a: every open chronicle space is taken; b: the category of the
    member just placed is full."""
    if state.rules.reading("AMB-12") == "b":
        return state.chronicle_free(last.category) == 0
    return state.chronicle_free_total() == 0


def resolve_deaths(state: GameState, seat: int, ctx: Ctx) -> tuple[GameState, ChooseDying | None]:
    """Resolve the seat's owed deaths; stops at a `ChooseDying` decision when tied."""
    while state.deaths_owed[seat] > 0:
        places = death_candidates(state, seat)
        if not places:
            if state.rules.reading("AMB-23") == "b":
                ctx.fire(RuleId.DEATH_07, state, seat)  # AMB-23 b: owed until a member is visible
                return state, None
            ctx.fire(RuleId.DEATH_05, state, seat)
            owed = list(state.deaths_owed)
            owed[seat] = 0
            return replace(state, deaths_owed=tuple(owed)), None
        if len(places) > 1:
            return state, ChooseDying(seat)
        state = kill(state, seat, places[0], ctx)
    return state, None
