"""bounds.py: seeded random games stay within the chance-outcome, length and score bounds."""

from __future__ import annotations

import random

import pytest

from village_rules import (
    apply,
    chance_outcomes,
    deal_outcomes,
    game_from_deal,
    legal_actions,
    score_breakdown,
)
from village_rules.adapters.bounds import (
    DEFAULT_MAX_MOVES,
    max_chance_outcomes,
    prestige_per_move,
    score_bounds,
)
from village_rules.data.loader import builtin_edition
from village_rules.model.actions import Action
from village_rules.model.chance import sample


def excess(edition: str, players: int, seed: int, outcome_bound: int, move_bound: int) -> list[str]:
    """Every bound a seeded random game breaks (empty: it kept to all of them)."""
    data = builtin_edition(edition)
    rng = random.Random(seed)
    problems: list[str] = []
    dealt: list[Action] = []
    while outcomes := deal_outcomes(data, players, dealt):
        if len(outcomes) > outcome_bound:
            problems.append(f"a deal step has {len(outcomes)} outcomes")
        dealt.append(sample(outcomes, rng))
    state, moves = game_from_deal(data, players, dealt), len(dealt)
    step = prestige_per_move(data)
    while not state.is_terminal:
        before = [p.prestige for p in state.players]
        if state.is_chance:
            outcomes = chance_outcomes(state)
            if len(outcomes) > outcome_bound:
                problems.append(f"a chance node has {len(outcomes)} outcomes")
            state = apply(state, sample(outcomes, rng))
        else:
            legal = legal_actions(state)
            state = apply(state, legal[rng.randrange(len(legal))])
        moves += 1
        for seat, p in enumerate(state.players):
            if not 0 <= p.prestige - before[seat] <= step:
                problems.append(f"seat {seat}'s prestige went {before[seat]} -> {p.prestige} in one move")
    if moves > move_bound:
        problems.append(f"the game took {moves} moves")
    bounds = score_bounds(data, players, moves)
    for b in score_breakdown(state):
        if not bounds.low <= b.total <= bounds.high:
            problems.append(f"seat {b.seat} scored {b.total}, outside {bounds.low}..{bounds.high}")
    return problems


CONFIGS = [("original-2011", n) for n in (2, 3, 4)] + [("big-box-2023", n) for n in (2, 3, 4, 5)]


@pytest.mark.parametrize(("edition", "players"), CONFIGS)
def test_random_games_stay_within_the_bounds(edition: str, players: int) -> None:
    """SEED-02, MKT-07, MASS-03, SET-05, SET-10 draws within max_chance_outcomes; the game
    well within the truncation limit; SCORE-01..06 totals within score_bounds for the
    game's own length; prestige during play never falls and rises by a bounded step."""
    data = builtin_edition(edition)
    for seed in (1, 2):
        bound = max_chance_outcomes(data, players)
        assert excess(edition, players, seed, bound, DEFAULT_MAX_MOVES // 10) == []


def test_the_check_reports_a_bound_that_is_too_small() -> None:
    problems = excess("original-2011", 2, 1, outcome_bound=3, move_bound=50)
    assert any("outcomes" in p for p in problems)
    assert any("moves" in p for p in problems)


def test_score_bounds_grow_with_the_length_and_are_sound_at_the_start() -> None:
    data = builtin_edition("big-box-2023")
    short, long = score_bounds(data, 3, 10), score_bounds(data, 3, 1000)
    assert short.low == long.low <= 0 < short.high < long.high
    assert long.high - short.high == 990 * prestige_per_move(data)
    assert max_chance_outcomes(data, 5) >= len(data.customers)
