"""Phase 1 of a round: fill the green bag and seed the action spaces (2023 p. 4)."""

from __future__ import annotations

from dataclasses import replace

from village_rules.components import INFLUENCE, ActionSpace, Cube
from village_rules.pending import ChooseTurn, SeedDraw
from village_rules.state import GameState
from village_rules.tally import Tally


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
    card = dict(state.rules.data.setup_card(state.num_players).cubes_per_space)
    spaces = list(ActionSpace)
    index = first_space
    left = card[spaces[index]] if remaining is None else remaining
    while left == 0:
        index += 1
        if index == len(spaces):
            return replace(state, pending=ChooseTurn(state.start_player))
        left = card[spaces[index]]
    if state.green_bag.total() == 0:
        return replace(state, pending=ChooseTurn(state.start_player))
    return replace(state, pending=SeedDraw(spaces[index], left))


def draw_onto_space(state: GameState, pending: SeedDraw, cube: Cube) -> GameState:
    """A drawn cube leaves the bag for its action space."""
    state = replace(state, green_bag=state.green_bag.remove(cube))
    state = state.with_space(pending.space, state.space(pending.space).add(cube))
    index = list(ActionSpace).index(pending.space)
    if pending.remaining > 1:
        return next_draw(state, index, pending.remaining - 1)
    if index + 1 == len(ActionSpace):
        return replace(state, pending=ChooseTurn(state.start_player))
    return next_draw(state, index + 1, None)
