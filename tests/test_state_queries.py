"""The state's cheap look-ups agree with the counts they stand in for, at every step."""

from __future__ import annotations

import random

import pytest

from village_rules import apply, chance_outcomes, legal_actions, new_game
from village_rules.chance import sample
from village_rules.components import Cube
from village_rules.tally import Tally


@pytest.mark.parametrize(
    ("edition", "players"), [("big-box-2023", 4), ("original-2011", 3), ("big-box-2023", 1)]
)
def test_board_is_empty_is_no_cube_on_the_board(edition: str, players: int) -> None:
    rng = random.Random(7)
    state = new_game(edition, players, seed=7)
    empty_seen = 0
    while not state.is_terminal:
        assert state.board_is_empty() == (state.cubes_on_board() == 0)
        empty_seen += state.board_is_empty()
        if state.is_chance:
            action = sample(chance_outcomes(state), rng)
        else:
            legal = legal_actions(state)
            action = legal[rng.randrange(len(legal))]
        state = apply(state, action)
    assert empty_seen > 0  # the board empties at the end of each round


def test_covers_is_every_count_available() -> None:
    have = Tally.of({Cube.PINK: 2, Cube.GREEN: 1})
    assert have.covers(Tally.of({Cube.PINK: 2}))
    assert have.covers(Tally())
    assert not have.covers(Tally.of({Cube.PINK: 3}))
    assert not have.covers(Tally.of({Cube.BROWN: 1}))  # none of that colour at all
    assert not have.covers(Tally.of({Cube.GREEN: 1, Cube.BROWN: 1}))
