"""Phase 2, step 1: take a cube from an action space (2023 p. 5), use the well instead
(p. 10), or, in the final actions with an empty board, take any action for free (p. 13)."""

from __future__ import annotations

from functools import cache, lru_cache

from village_rules.data.components import INFLUENCE, ActionSpace, Cube
from village_rules.data.edition import Cost
from village_rules.data.tally import Tally
from village_rules.engine import carla, market_day, shared
from village_rules.engine.context import Ctx
from village_rules.engine.time_and_death import spend_time
from village_rules.errors import InternalError
from village_rules.model.actions import Action, FreeAction, TakeCube, Well
from village_rules.model.evolve import replace
from village_rules.model.pending import Pending
from village_rules.model.state import GameState
from village_rules.rule_ids import RuleId

_SPACES = tuple(ActionSpace)
_SPACE_INDEX = {space: i for i, space in enumerate(_SPACES)}

# The turn choices as shared objects (actions are immutable values): the turn choice is
# more than half of all decisions, and building its dozen actions anew each time was a
# measurable part of a playout.
_TAKE = {(space, cube): TakeCube(space, cube) for space in ActionSpace for cube in Cube}
_TAKE_BY_SPACE = tuple({cube: _TAKE[space, cube] for cube in Cube} for space in _SPACES)
"""`_TAKE` by the space's position (`GameState.spaces` order), then the cube."""
_WELLS = {colour: tuple(Well(space, colour) for space in ActionSpace) for colour in INFLUENCE}
_FREE = tuple(FreeAction(space) for space in ActionSpace)


def candidates(state: GameState, seat: int) -> list[Action]:
    """The turn's choices of `seat`: take a cube from an action space, or the well."""
    out: list[Action] = []
    spaces = state.spaces
    # strict=False as before: a hand-built state with a short board is the board check's to report
    for memo, takes, cubes in zip(_TAKES_MEMO, _TAKE_BY_SPACE, spaces, strict=False):
        items = cubes.items
        if items:
            hit = memo.get(items)
            if hit is None:
                hit = memo[items] = tuple(takes[cube] for cube, n in items if n > 0)  # as the oracle
            out += hit
    if out:
        p = state.players[seat]
        need = state.rules.data.well_cubes
        coins = p.coins if well_coins_allowed(state) else 0
        least = 0 if state.rules.reading("AMB-01") == "c" else 1
        held = dict(p.cubes.items)
        # Only colours that could pay (the exact check is the payment's); AMB-01 a: >= 1 real cube.
        colours = tuple(c for c in INFLUENCE if (n := held.get(c, 0)) >= least and n + coins >= need)
        if colours:
            out += _wells(colours)
    elif state.final_turns is not None:
        out += _FREE
    return out


@cache
def _wells(colours: tuple[Cube, ...]) -> tuple[Well, ...]:
    """The well actions for these colours, in the order space by space, colour by colour."""
    return tuple(_WELLS[c][i] for i in range(len(_SPACES)) for c in colours)


_TAKES_MEMO: tuple[dict[tuple[tuple[Cube, int], ...], tuple[TakeCube, ...]], ...] = tuple(
    {} for _ in _SPACES
)
"""Per action space: the cube takes for each set of cubes on it (by the tally's pairs,
which hash in C). A space holds at most a handful of cubes of five colours, so each
dictionary stays small, and most turn choices build no take at all."""


def precondition(state: GameState, seat: int, action: Action) -> str | None:
    """Why `seat` may not take this cube or use the well now, or None."""
    match action:
        case TakeCube(space, cube):
            if state.space(space)[cube] == 0:
                return f"turn: there is no {cube.value} cube on the {space.value} space"
        case Well(_, colour):
            if not colour.is_influence:
                return "well: plague cubes cannot be returned at the well"
            if state.board_is_empty():
                return "well: only possible while at least one cube is left on an action space"
        case FreeAction(_):
            if state.final_turns is None or state.cubes_on_board():
                return "end of the game: a free action is only for the final actions once the board is empty"
    return None


def well_coins_allowed(state: GameState) -> bool:
    """AMB-01: coins may stand in for the well's cubes (readings a and c), not in b."""
    return state.rules.reading("AMB-01") != "b"


def well_payment_allowed(state: GameState, coins: Tally[Cube]) -> bool:
    """AMB-01 a: at least one real cube of the colour; c: any number of coins."""
    return state.rules.reading("AMB-01") == "c" or coins.total() < state.rules.data.well_cubes


def well_cost(state: GameState, action: Well) -> Cost:
    """WELL-01: 3 influence cubes of one colour (a coin may stand in for some, AMB-01)."""
    return _well_cost(action.colour, state.rules.data.well_cubes)


@lru_cache(maxsize=64)
def _well_cost(colour: Cube, cubes: int) -> Cost:
    return Cost(cubes=Tally.of({colour: cubes}))


def costs(state: GameState, seat: int, action: Action) -> list[Cost]:
    """WELL-01: the well's cubes; taking a cube (TURN-01) and a free final action (END-03)
    cost nothing (a plague cube's time is part of taking it, TURN-03)."""
    if isinstance(action, Well):
        return [well_cost(state, action)]
    return []


def effect(state: GameState, seat: int, action: Action, ctx: Ctx) -> tuple[GameState, Pending | None]:
    """Phase 2 step 1 done: the cube is taken (TURN-01), the well paid for (WELL-01, its
    `Turn` begun when it was chosen) or the free action chosen (END-03); then step 2."""
    match action:
        case TakeCube(space, _):
            state = take_cube(state, seat, action, ctx)
            if state.is_solo:
                state = carla.owe_take(state, space, action.cube, ctx)  # solo: her take follows
                if state.rules.reading("AMB-36") == "b":
                    return carla.hold_action(state, space), None  # her steps first
            return begin_action(state, seat, space, ctx)
        case Well(space, _):
            return begin_action(state, seat, space, ctx)
        case FreeAction(space):
            ctx.fire(RuleId.END_03, state, seat)
            state = replace(state, turn=shared.turn(seat))
            return begin_action(state, seat, space, ctx)
    raise InternalError("turn.effect", f"not a turn choice: {action!r}")


def begin_action(
    state: GameState, seat: int, space: ActionSpace, ctx: Ctx
) -> tuple[GameState, Pending | None]:
    """Phase 2 step 2: the action of the space; at the market a market day must be held."""
    if space is ActionSpace.MARKET:
        return market_day.start(state, seat, ctx), None
    return state, shared.choose_action(seat, space)


def take_cube(state: GameState, seat: int, action: TakeCube, ctx: Ctx) -> GameState:
    """TURN-01: an influence cube goes to the farmyard; a plague cube goes back to the
    supply and costs 2 time (TURN-03)."""
    ctx.fire(RuleId.TURN_01, state, seat)
    spaces = state.spaces
    i = _SPACE_INDEX[action.space]
    spaces = (*spaces[:i], spaces[i].remove(action.cube), *spaces[i + 1 :])
    marker = shared.turn(seat, shared.last_cube_in_final_action(state, spaces))
    if action.cube is Cube.PLAGUE:
        ctx.fire(RuleId.TURN_03, state, seat)
        supply = replace(state.supply, cubes=state.supply.cubes.add(Cube.PLAGUE))
        state = replace(state, spaces=spaces, turn=marker, supply=supply)
        return spend_time(state, seat, state.rules.data.plague_time, ctx)
    p = state.players[seat]
    players = state.players
    players = (*players[:seat], replace(p, cubes=p.cubes.add(action.cube)), *players[seat + 1 :])
    return replace(state, spaces=spaces, turn=marker, players=players)

