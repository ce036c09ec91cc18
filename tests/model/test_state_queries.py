"""The state's cheap look-ups agree with the counts they stand in for, at every step."""

from __future__ import annotations

import random

import pytest

from village_rules import new_game
from village_rules.data.components import Cube
from village_rules.data.tally import Tally
from village_rules.drivers.play import play, random_policy
from village_rules.model.actions import Action
from village_rules.model.evolve import replace
from village_rules.model.state import GameState


@pytest.mark.parametrize(
    ("edition", "players"), [("big-box-2023", 4), ("original-2011", 3), ("big-box-2023", 1)]
)
def test_board_is_empty_is_no_cube_on_the_board(edition: str, players: int) -> None:
    empty_seen = []

    def compare(before: GameState, action: Action, after: GameState) -> None:
        assert after.board_is_empty() == (after.cubes_on_board() == 0)
        empty_seen.append(after.board_is_empty())

    play(new_game(edition, players, seed=7), [random_policy] * players, random.Random(7), on_step=compare)
    assert any(empty_seen) and not all(empty_seen)  # the board empties at the end of each round


def test_covers_is_every_count_available() -> None:
    have = Tally.of({Cube.PINK: 2, Cube.GREEN: 1})
    assert have.covers(Tally.of({Cube.PINK: 2}))
    assert have.covers(Tally())
    assert not have.covers(Tally.of({Cube.PINK: 3}))
    assert not have.covers(Tally.of({Cube.BROWN: 1}))  # none of that colour at all
    assert not have.covers(Tally.of({Cube.GREEN: 1, Cube.BROWN: 1}))


def test_hand_built_zero_counts_read_as_the_sums_do() -> None:
    """A tally built by hand (as the invariant tests build broken ones) may hold a zero
    count: `covers` and `board_is_empty` then answer as the counts and the sum do."""
    zero = Tally(((Cube.PINK, 0),))
    nothing: Tally[Cube] = Tally()
    assert nothing.covers(zero) and zero.covers(zero)
    state = new_game("big-box-2023", 2, seed=1)
    others_empty = [nothing] * (len(state.spaces) - 1)
    state = replace(state, spaces=(zero, *others_empty))
    assert state.cubes_on_board() == 0 and state.board_is_empty()
    state = replace(state, spaces=(Tally(((Cube.PINK, 1),)), *others_empty))
    assert not state.board_is_empty()
