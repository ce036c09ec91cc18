"""The returns vector (scoring.returns): the win shared out, or the final totals."""

from __future__ import annotations

import random
from dataclasses import replace
from fractions import Fraction

import pytest

from village_rules import ParameterError, new_game, returns, score_breakdown, winners
from village_rules.drivers.play import play, random_policy
from village_rules.model.pending import GameOver


@pytest.mark.parametrize(("edition", "players", "seed"), [("original-2011", 2, 1), ("big-box-2023", 4, 2)])
def test_returns_at_the_end_of_a_game(edition: str, players: int, seed: int) -> None:
    """SCORE-07: the winners share the win; score returns are the SCORE-01..06 totals."""
    final, _ = play(new_game(edition, players, seed), [random_policy] * players, random.Random(seed))
    assert final.is_terminal
    win = returns(final)
    assert sum(win) == 1
    best = winners(final)
    assert [seat for seat, r in enumerate(win) if r > 0] == list(best)
    assert {win[s] for s in best} == {Fraction(1, len(best))}
    assert returns(final, "score") == tuple(Fraction(b.total) for b in score_breakdown(final))


def test_a_full_tie_shares_the_win() -> None:
    """SCORE-07 / AMB-29: identical players at the end all win, each a 1/n share."""
    state = replace(new_game("big-box-2023", 3, seed=0), pending=GameOver())
    same = state.players[0]
    state = replace(state, players=tuple(replace(same, colour=p.colour) for p in state.players))
    assert returns(state) == (Fraction(1, 3),) * 3


def test_returns_before_the_end_are_zero_and_a_bad_kind_is_named() -> None:
    state = new_game("original-2011", 3, seed=4)
    assert returns(state) == (Fraction(0),) * 3
    assert returns(state, "score") == (Fraction(0),) * 3
    finished = replace(state, pending=GameOver())
    with pytest.raises(ParameterError, match="'kind'"):
        returns(finished, "points")  # type: ignore[arg-type]
