"""The search policy (`policies/search.py`) searches: its choices repeat under a seed, stay
within the budget, change with the budget (a search cut to one step per action chooses
otherwise), take actions whose worth shows only deeper than one step, and differ from
greedy's where the strategic leaf evaluation (`policies/strategic.py`) sees more."""

from __future__ import annotations

import random
from functools import cache

import pytest

from village_rules.data.components import OnChurch, OnCouncil
from village_rules.drivers.play import random_policy
from village_rules.engine.core import apply, chance_outcomes, legal_actions
from village_rules.engine.setup import new_game
from village_rules.model.actions import Action
from village_rules.model.chance import sample
from village_rules.model.state import GameState
from village_rules.policies.evaluation import evaluate
from village_rules.policies.greedy import greedy_policy
from village_rules.policies.lookahead import Lookahead, action_values
from village_rules.policies.planners import climber
from village_rules.policies.search import SearchPolicy, relative
from village_rules.policies.strategic import strategic_value


@cache
def _decisions(edition: str, seed: int, count: int) -> tuple[GameState, ...]:
    """The first `count` decision states with at least three legal actions of a seeded
    2-player game played by random seats."""
    state = new_game(edition, 2, seed=seed)
    rng = random.Random(seed)
    out: list[GameState] = []
    while len(out) < count and not state.is_terminal:
        if state.is_chance:
            state = apply(state, sample(chance_outcomes(state), rng))
            continue
        legal = legal_actions(state)
        if len(legal) >= 3:
            out.append(state)
        state = apply(state, random_policy(state, legal, rng))
    return tuple(out)


def _choice(policy: SearchPolicy, state: GameState) -> Action:
    return policy(state, legal_actions(state), random.Random(0))


def test_the_search_repeats_its_choices_under_a_seed() -> None:
    first, again = SearchPolicy(), SearchPolicy()
    for state in _decisions("big-box-2023", 1, 12):
        assert _choice(first, state) == _choice(again, state)
    assert first.simulated == again.simulated > 0


def test_the_search_stays_within_its_budget_and_counts_it() -> None:
    for budget in (50, 200, 600):
        search = SearchPolicy(simulations=budget)
        for state in _decisions("original-2011", 2, 10):
            before = search.simulated
            _choice(search, state)
            # Every legal action gets at least its own step, so a tiny budget is exceeded
            # only up to one step per action.
            assert 0 < search.simulated - before <= max(budget, len(legal_actions(state)))
        assert search.decisions == 10


def test_the_choice_changes_with_the_budget() -> None:
    """A search cut to one engine step per action (the state each action leads to, no
    deeper) chooses otherwise than the full budget at some decisions."""
    states = _decisions("big-box-2023", 3, 30)
    full, cut = SearchPolicy(), SearchPolicy(simulations=0)
    differ = sum(1 for s in states if _choice(full, s) != _choice(cut, s))
    assert differ >= 3
    assert full.simulated > 3 * cut.simulated


@pytest.mark.no_cover  # CPU-bound replays: not traced in the coverage run (tests/README.md, "Coverage")
def test_the_search_takes_actions_whose_worth_shows_only_deeper() -> None:
    """At every decision the search's action is the best by its full lookahead, and at
    some it is not the best by its leaf evaluation one step ahead: it chose by what it
    searched (1 of these 60 decisions; the budget test above finds more that differ)."""
    leaf = relative(strategic_value)
    search = SearchPolicy()
    deeper = 0
    for state in _decisions("original-2011", 4, 60):
        legal = legal_actions(state)
        chosen = _choice(search, state)
        one_step, _ = action_values(state, legal, leaf, Lookahead(depth=1, max_applies=0))
        full, _ = action_values(state, legal, leaf, Lookahead(depth=search.depth,
                                max_outcomes=search.max_outcomes, max_applies=search.simulations))
        i = legal.index(chosen)
        assert full[i] >= max(full) - 1e-9
        if one_step[i] < max(one_step) - 1e-9:
            deeper += 1
    assert deeper >= 1


def test_the_strategic_evaluation_values_climbing_that_greedy_does_not() -> None:
    """In a game the climber plays, members on the council chamber and in the church are
    worth more to the search's evaluation than to greedy's."""
    state = new_game("big-box-2023", 2, seed=7)
    rng = random.Random(7)
    for _ in range(220):
        if state.is_chance:
            state = apply(state, sample(chance_outcomes(state), rng))
        else:
            state = apply(state, climber(state, legal_actions(state), rng))
    climbing = [
        s for s in range(2) if any(isinstance(loc, OnCouncil | OnChurch) for loc in state.players[s].members)
    ]
    assert climbing
    for seat in climbing:
        assert strategic_value(state, seat) > evaluate(state, seat) + 1.0


def test_the_search_is_not_greedy() -> None:
    """On the same decisions and the same RNG, the search and greedy choose differently
    at some: a search that fell back to greedy's evaluation and depth fails here."""
    states = _decisions("big-box-2023", 5, 30)
    search = SearchPolicy()
    differ = sum(
        1 for s in states
        if _choice(search, s) != greedy_policy(s, legal_actions(s), random.Random(0))
    )
    assert differ >= 3
