"""The end of a turn, the end of a round, and the end of the game (2023 p. 11, p. 13;
2011 "End of a round", "End of the game")."""

from __future__ import annotations

from village_rules.data.components import Category
from village_rules.engine import carla, mass, shared
from village_rules.engine.context import Ctx
from village_rules.engine.guards import present
from village_rules.model.carla_board import PLAYER
from village_rules.model.evolve import replace
from village_rules.model.pending import Pending
from village_rules.model.state import GameState
from village_rules.rule_ids import RuleId


def market_player(state: GameState, turn_seat: int) -> int:
    """The seat the end's trigger is compared with (p. 13 Special case): the player who
    triggered the market day the end came in, else the player who triggered the end.

    In a game of several players the end always comes in the turn of the seat whose turn
    it is, or in that seat's market day, so this is `turn_seat`. In solo (p. 18 "or Carla
    has triggered the market day") the player's turn may hold Carla's market day, and
    Carla's death may end the game outside any market day (END-02 then: the player, who
    did not trigger it, has one action left)."""
    if not state.is_solo:
        return turn_seat
    during = carla.board(state).end_in_market_of
    if during is not None:
        return during
    return present(state.end_triggered_by, "end_of_game.market_player", "the seat that triggered the end")


def final_order(state: GameState, turn_seat: int, ctx: Ctx | None = None) -> tuple[int, ...]:
    """END-02 / END-04: who still acts once the end is triggered.

    Triggered by the market-day player (`market_player`; the player whose turn it is, also
    during their own market day): every other player once, clockwise. Triggered by someone
    else during a market day: every player once, clockwise, the market-day player last
    (AMB-09 a). AMB-09 b (END-07): from the left of the player who triggered the end, that
    player last; c (END-07): from the start player.
    """
    n = state.num_players
    trigger = present(
        state.end_triggered_by, "end_of_game.final_turn_order", "the seat that triggered the end"
    )
    held_by = market_player(state, turn_seat)
    if trigger == held_by:
        order = tuple((held_by + k) % n for k in range(1, n))
    else:
        first = {"a": held_by + 1, "b": trigger + 1, "c": state.start_player}[state.rules.reading("AMB-09")]
        order = tuple((first + k) % n for k in range(n))
    return carla.final_seats(state, order, ctx or Ctx(None)) if state.is_solo else order


def round_mass_first(state: GameState) -> bool:
    """AMB-33 b (END-08) and c (END-09, the 2023 default): the end was triggered on the turn
    that took the last cube, so the round's mass is held before the final actions; under b
    the board is then reseeded, under c it is not (the final actions are free, END-03).
    Under a (the 2011 default) the final actions follow at once on the empty board and only
    the final mass is held. The round mass is held under b and c also when nobody has a
    final action left (a solo game the player ends in their own turn): 2023 p. 5 holds it
    whenever the last cube is taken, p. 13 the last mass after it (issue 43); nothing is
    then reseeded, as nobody would act on the board (`final_actions_after_round_mass`)."""
    return state.rules.reading("AMB-33") != "a" and state.board_is_empty()


def round_mass_in_final_actions(state: GameState, took_last_cube: bool) -> bool:
    """AMB-45 b (END-11, the 2023 default): a final action took the last cube (the turn is
    marked, `Turn.took_last_cube`), so the round ends with its mass (2023 p. 5), with no
    reseeding (p. 13); the final actions left follow, then the last mass. Under a (the 2011
    default, its Note "the usual mass at the end of a round is skipped") no round mass."""
    return took_last_cube and state.rules.reading("AMB-45") == "b"


def final_actions_after_round_mass(state: GameState) -> bool:
    """The round mass just ended came after the end trigger and no new round begins: under
    AMB-33 c (END-09) the mass of the turn that took the last cube, under AMB-45 b (END-11)
    the mass of a final action that took it, and under AMB-33 b a mass with no final
    action left to reseed for. The final actions left follow on the empty board, or, with
    none left, the last mass (`core._end_of_mass`)."""
    if state.end_triggered_by is None:
        return False
    held = present(state.mass, "end_of_game.final_actions_after_round_mass", "the mass just held")
    return held.in_final_actions or state.rules.reading("AMB-33") == "c" or not state.final_turns


def after_reseeding(state: GameState) -> tuple[int, tuple[int, ...] | None]:
    """Who takes the first turn of a freshly seeded round, and the final actions left:
    the start player, or under AMB-33 b (END-08) the first of the final actions that the
    round mass and reseeding came before (under c, END-09, the round mass alone)."""
    final = state.final_turns
    if final:
        return final[0], final[1:]
    return state.start_player, final


def end_of_turn(
    state: GameState, seat: int, ctx: Ctx, took_last_cube: bool = False
) -> tuple[GameState, Pending | None]:
    """Who acts next: the next seat, a final action, the mass of the round, or the last mass.
    `took_last_cube`: the turn just ended was a final action that emptied the board
    (`Turn.took_last_cube`, AMB-45)."""
    if state.end_triggered_by is not None and state.final_turns is None:
        by_market_player = state.end_triggered_by == market_player(state, seat)
        ctx.fire(RuleId.END_02 if by_market_player else RuleId.END_04, state, seat)
        if not by_market_player and state.rules.reading("AMB-09") != "a":
            ctx.fire(RuleId.END_07, state)  # AMB-09 b / c: another first player for the final actions
        state = replace(state, final_turns=final_order(state, seat, ctx))
        if round_mass_first(state):
            ctx.fire(RuleId.ROUND_01, state)  # AMB-33 b / c: the round still ends with its mass
            if state.rules.reading("AMB-33") == "b":
                ctx.fire(RuleId.END_08, state)  # then the board is reseeded
            else:
                ctx.fire(RuleId.END_09, state)  # c: then no reseeding, the final actions are free
            return mass.start(state, final=False, ctx=ctx)
    if state.final_turns is not None:
        if round_mass_in_final_actions(state, took_last_cube):
            ctx.fire(RuleId.ROUND_01, state)  # AMB-45 b: the last cube taken, the round ends with its mass
            ctx.fire(RuleId.END_11, state)  # no reseeding; the final actions left, then the last mass
            state, pending = mass.start(state, final=False, ctx=ctx)
            held = present(state.mass, "end_of_game.end_of_turn", "the mass just begun")
            return replace(state, mass=replace(held, in_final_actions=True)), pending
        if not state.final_turns:
            ctx.fire(RuleId.END_06, state)  # the final mass, then the final scoring
            return mass.start(state, final=True, ctx=ctx)
        following, *rest = state.final_turns
        return replace(state, final_turns=tuple(rest)), shared.choose_turn(following)
    if state.board_is_empty():
        ctx.fire(RuleId.ROUND_01, state)  # the last cube was taken: the round ends with a mass
        return mass.start(state, final=False, ctx=ctx)
    if state.is_solo:
        ctx.fire(RuleId.SOLO_07, state)  # the player is always the one to take the next turn
        return state, shared.choose_turn(PLAYER)
    return state, shared.choose_turn((seat + 1) % state.num_players)


def ended_by(state: GameState) -> str:
    """What filled up and so ended the game (END-01): the chronicle, the graveyard, both;
    under AMB-12 b one full chronicle category is enough ("chronicle category")."""
    if not state.is_terminal:
        return "not ended"
    chronicle = state.chronicle_free_total() <= 0
    category = not chronicle and any(state.chronicle_free(c) <= 0 for c in Category)
    full = [
        name
        for name, ok in (
            ("chronicle", chronicle),
            ("chronicle category", category and state.rules.reading("AMB-12") == "b"),
            ("graveyard", state.graveyard_free() <= 0),
        )
        if ok
    ]
    return " and ".join(full) or "not ended"
