"""Issue 28: the NumPy observation (`observation_array`, what both adapters use) is the
list version's tensor float for float, on every state of seeded games of every edition
and player count (the deal's boards included), from cold caches and warm ones; so the
one-to-one test of tests/adapters/test_observation.py holds for it too."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

np = pytest.importorskip("numpy")

from village_rules import apply, chance_outcomes, legal_actions, new_game  # noqa: E402
from village_rules.adapters.observation import observation_tensor  # noqa: E402
from village_rules.adapters.observation_array import clear_caches, observation_array  # noqa: E402
from village_rules.data.loader import builtin_edition  # noqa: E402
from village_rules.engine.setup import board_after, deal_outcomes  # noqa: E402
from village_rules.errors import ParameterError  # noqa: E402
from village_rules.model.actions import Action  # noqa: E402
from village_rules.model.chance import sample  # noqa: E402
from village_rules.model.state import GameState  # noqa: E402
from village_rules.rules.variant import Variant  # noqa: E402

GAMES = [("original-2011", n) for n in (2, 3, 4)] + [("big-box-2023", n) for n in (1, 2, 3, 4, 5)]
"""Every player count, solo (1: Carla's seat and board) included."""


def same(state: GameState, observer: int, dealing: bool = False) -> bool:
    expected = np.asarray(observation_tensor(state, observer, dealing=dealing), np.float32)
    got = observation_array(state, observer, dealing=dealing)
    return got.dtype == np.float32 and got.shape == expected.shape and bool(np.array_equal(got, expected))


@pytest.mark.parametrize(("edition", "players"), GAMES)
def test_the_array_is_the_list_tensor_on_every_state_of_a_game(edition: str, players: int) -> None:
    clear_caches()
    state, rng = new_game(edition, players, players + 7), random.Random(players)
    seen: list[GameState] = []
    while True:
        seen.append(state)
        observer = rng.randrange(players)
        assert same(state, observer), (len(seen), type(state.pending).__name__)
        if state.is_terminal:
            break
        chosen = sample(chance_outcomes(state), rng) if state.is_chance else rng.choice(legal_actions(state))
        state = apply(state, chosen)
    for old in seen[::17]:  # warm caches: states met again give the same tensors
        assert same(old, 0)


@pytest.mark.parametrize(
    ("edition", "players"), [("original-2011", 3), ("big-box-2023", 4), ("big-box-2023", 1)]
)
def test_the_array_is_the_list_tensor_during_the_deal(edition: str, players: int) -> None:
    data, rng = builtin_edition(edition), random.Random(1)
    dealt: list[Action] = []
    while outcomes := deal_outcomes(data, players, dealt, Variant()):
        assert same(board_after(data, players, dealt, Variant()), 1, dealing=True)
        dealt.append(sample(outcomes, rng))


def test_a_changed_seat_is_not_served_from_the_cache() -> None:
    """The caches go by identity: an equal-looking but changed seat must be rebuilt."""
    state = new_game("big-box-2023", 3, 2)
    assert same(state, 0)
    seat = replace(state.players[0], coins=state.players[0].coins + 3)
    richer = replace(state, players=(seat, *state.players[1:]))
    assert same(richer, 0)
    assert not np.array_equal(observation_array(richer, 0), observation_array(state, 0))


def test_a_bad_observer_is_refused() -> None:
    with pytest.raises(ParameterError, match="observer"):
        observation_array(new_game("original-2011", 2, 0), 2)


def test_two_games_observed_in_turn_each_get_their_own_tensor() -> None:
    """The last-state shortcut (a part that is the last one observed keeps its block) holds
    when a loop steps two games of one edition and player count in turn, as vectorised
    environments do, and for the other observers of one state."""
    clear_caches()
    games = [new_game("big-box-2023", 3, seed) for seed in (1, 2)]
    rngs = [random.Random(1), random.Random(2)]
    for _ in range(150):
        for k, state in enumerate(games):
            for observer in (0, 2):
                assert same(state, observer)
            if not state.is_terminal:
                rng = rngs[k]
                chosen = (
                    sample(chance_outcomes(state), rng)
                    if state.is_chance
                    else rng.choice(legal_actions(state))
                )
                games[k] = apply(state, chosen)
