"""Phase 1 of a round: fill the green bag and seed the action spaces (2023 p. 4)."""

from __future__ import annotations

from functools import lru_cache

from village_rules.data.components import INFLUENCE, ActionSpace, Cube
from village_rules.data.edition import EditionData
from village_rules.data.tally import Tally
from village_rules.engine import shared
from village_rules.engine.end_of_game import after_reseeding
from village_rules.model.evolve import replace
from village_rules.model.pending import SeedDraw
from village_rules.model.state import GameState

_SPACES: tuple[ActionSpace, ...] = tuple(ActionSpace)
_SPACE_INDEX: dict[ActionSpace, int] = {s: i for i, s in enumerate(ActionSpace)}


@lru_cache(maxsize=64)
def _cubes_per_space(data: EditionData, players: int) -> dict[ActionSpace, int]:
    """The setup card's cubes per action space (looked up once per edition and count)."""
    return dict(data.setup_card(players).cubes_per_space)


def begin_round(state: GameState) -> GameState:
    """SEED-01: the setup card's cubes per colour, only as many as the supply holds, plus
    every plague cube in the supply, go into the green bag; then the draws begin."""
    card = state.rules.data.setup_card(state.num_players)
    supply = state.supply.cubes
    moved: Tally[Cube] = Tally.of(
        [(c, min(card.cubes_added[c], supply[c])) for c in INFLUENCE] + [(Cube.PLAGUE, supply[Cube.PLAGUE])]
    )
    state = replace(
        state,
        supply=replace(state.supply, cubes=supply.minus(moved)),
        green_bag=state.green_bag.plus(moved),
    )
    return next_draw(state, first_space=0, remaining=None)


def next_draw(state: GameState, first_space: int, remaining: int | None) -> GameState:
    """SEED-02: the next chance draw onto the action spaces in board order, or the first
    turn once every space has its cubes or the bag is empty (AMB-04)."""
    after = _next_step(state, state.green_bag, first_space, remaining)
    return _first_turn(state) if after is None else state.with_pending(after)


def _next_step(
    state: GameState, bag: Tally[Cube], first_space: int, remaining: int | None
) -> SeedDraw | None:
    """The next draw `next_draw` waits for, with `bag` as the green bag; None once the
    seeding is done."""
    card = _cubes_per_space(state.rules.data, state.num_players)
    spaces = _SPACES
    index = first_space
    left = card[spaces[index]] if remaining is None else remaining
    while left == 0:
        index += 1
        if index == len(spaces):
            return None
        left = card[spaces[index]]
    if bag.total() == 0:
        return None
    return shared.seed_draw(spaces[index], left)


def _first_turn(state: GameState) -> GameState:
    """Seeding done: the start player's turn, or under AMB-33 b the first final action."""
    seat, final = after_reseeding(state)
    return replace(state, final_turns=final, pending=shared.choose_turn(seat))


def draw_onto_space(state: GameState, pending: SeedDraw, cube: Cube) -> GameState:
    """A drawn cube leaves the bag for its action space (one new state: this is a third
    of all the steps of a game)."""
    bag = state.green_bag.remove(cube)
    index = _SPACE_INDEX[pending.space]
    spaces = state.spaces
    spaces = (*spaces[:index], spaces[index].add(cube), *spaces[index + 1 :])
    after: SeedDraw | None
    if pending.remaining > 1:
        after = _next_step(state, bag, index, pending.remaining - 1)
    elif index + 1 == len(ActionSpace):
        after = None
    else:
        after = _next_step(state, bag, index + 1, None)
    if after is None:
        return _first_turn(replace(state, green_bag=bag, spaces=spaces))
    return replace(state, green_bag=bag, spaces=spaces, pending=after)
