"""The policies (`village_rules.policies`): legal, deterministic given their RNG, and each
doing its job on small seeded samples, each beside random play on the same seed (so a
policy that stopped doing its job, playing as random does, fails its test)."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from village_rules.data.components import InBlackBag, OnChurch, OnCouncil
from village_rules.drivers.play import Policy, play, random_policy
from village_rules.engine.core import apply, chance_outcomes, legal_actions
from village_rules.engine.end_of_game import ended_by
from village_rules.engine.scoring import score_breakdown
from village_rules.engine.setup import new_game
from village_rules.errors import ParameterError
from village_rules.model.chance import sample
from village_rules.model.state import GameState
from village_rules.policies import POLICIES, SearchPolicy, policy_named
from village_rules.policies.evaluation import evaluate
from village_rules.policies.planners import chronicle_planner, climber, traveller


def _prefix(edition: str, players: int, seed: int, policies: Sequence[Policy], steps: int) -> GameState:
    """The state after `steps` actions (or the end) of a seeded game."""
    state = new_game(edition, players, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if state.is_terminal:
            break
        if state.is_chance:
            action = sample(chance_outcomes(state), rng)
        else:
            legal = legal_actions(state)
            action = policies[state.current_player()](state, legal, rng)
            assert action in legal
        state = apply(state, action)
    return state


def _small(name: str) -> Policy:
    return SearchPolicy(simulations=60) if name == "search" else policy_named(name)


@pytest.mark.parametrize("name", sorted(POLICIES))
def test_policies_choose_legal_actions_and_repeat_given_the_seed(name: str) -> None:
    first = _prefix("big-box-2023", 3, 5, [_small(name)] * 3, 60)
    again = _prefix("big-box-2023", 3, 5, [_small(name)] * 3, 60)
    assert first == again
    other = _prefix("big-box-2023", 3, 6, [_small(name)] * 3, 60)
    assert other != first


def test_solo_games_are_played_by_the_policies() -> None:
    state = _prefix("big-box-2023", 1, 2, [policy_named("greedy"), random_policy], 80)
    assert state.round >= 1 and state.is_solo


def test_an_unknown_policy_is_named_with_the_known_ones() -> None:
    with pytest.raises(ParameterError, match=r"no policy named 'best'.*greedy.*search"):
        policy_named("best")


def _margin(policy: Policy, edition: str, seed: int) -> int:
    """The policy's final total minus random's, seated first in a seeded 2-player game."""
    final, _ = play(new_game(edition, 2, seed=seed), [policy, random_policy], random.Random(seed))
    b = score_breakdown(final)
    return b[0].total - b[1].total


@pytest.mark.parametrize("edition", ["big-box-2023", "original-2011"])
def test_greedy_outscores_random_play(edition: str) -> None:
    greedy = _margin(policy_named("greedy"), edition, 3)
    assert greedy >= 15
    assert greedy >= _margin(random_policy, edition, 3) + 10


def test_search_outscores_random_play_and_counts_its_simulations() -> None:
    search = SearchPolicy(simulations=80, depth=2)
    assert _margin(search, "original-2011", 4) >= 15
    assert search.decisions > 50
    assert 0 < search.simulated <= search.decisions * 80 * 2


def _on_map(state: GameState, seat: int) -> int:
    return len(state.players[seat].markers)


def _climbed(state: GameState, seat: int) -> int:
    return sum(
        loc.stage if isinstance(loc, OnCouncil | OnChurch) else 1
        for loc in state.players[seat].members
        if isinstance(loc, OnCouncil | OnChurch | InBlackBag)
    )


def test_the_traveller_collects_cities() -> None:
    def markers(policy: Policy) -> int:
        state = _prefix("original-2011", 2, 7, [policy, policy], 220)
        return _on_map(state, 0) + _on_map(state, 1)

    assert markers(traveller) >= 4
    assert markers(random_policy) <= 1


def test_the_climber_climbs_the_council_chamber_and_church() -> None:
    def climbed(policy: Policy) -> int:
        state = _prefix("big-box-2023", 2, 7, [policy, policy], 220)
        return _climbed(state, 0) + _climbed(state, 1)

    assert climbed(climber) >= 2 * max(1, climbed(random_policy))


@pytest.mark.slow  # two whole games, the planner's about 7 s
def test_the_chronicle_planner_fills_the_chronicle() -> None:
    final, _ = play(new_game("original-2011", 2, seed=1), [chronicle_planner] * 2, random.Random(1))
    assert "chronicle" in ended_by(final)
    final, _ = play(new_game("original-2011", 2, seed=1), [random_policy] * 2, random.Random(1))
    assert ended_by(final) == "graveyard"


def test_the_evaluation_counts_holdings_beside_the_score() -> None:
    state = new_game("big-box-2023", 2, seed=0)
    assert evaluate(state, 0) > score_breakdown(state)[0].total
