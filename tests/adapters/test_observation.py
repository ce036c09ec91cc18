"""The observation encoding (observation.py): fixed layout, one-to-one on sampled states."""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterator

import pytest
from support import ROOT

from village_rules import apply, chance_outcomes, deal_outcomes, legal_actions, new_game, to_json
from village_rules.adapters.observation import (
    OBSERVATION_VERSION,
    layout,
    observation_string,
    observation_tensor,
    tensor_size,
)
from village_rules.data.loader import builtin_edition
from village_rules.engine.setup import board_after
from village_rules.errors import ParameterError
from village_rules.model.actions import Action
from village_rules.model.chance import sample
from village_rules.model.state import GameState

Encoder = Callable[[GameState, int], list[float]]


def sampled_states(edition: str, players: int, seeds: range) -> Iterator[GameState]:
    for seed in seeds:
        rng = random.Random(seed)
        state = new_game(edition, players, seed)
        while True:
            yield state
            if state.is_terminal:
                break
            if state.is_chance:
                state = apply(state, sample(chance_outcomes(state), rng))
            else:
                legal = legal_actions(state)
                state = apply(state, legal[rng.randrange(len(legal))])


def collisions(states: Iterator[GameState], encode: Encoder, observer: int) -> list[tuple[str, str]]:
    """Pairs of different states (as the observer knows them: all of it) with one encoding."""
    seen: dict[tuple[float, ...], str] = {}
    found = []
    for state in states:
        key = tuple(encode(state, observer))
        text = to_json(state)
        if seen.setdefault(key, text) != text:
            found.append((seen[key], text))
    return found


CONFIGS = [("original-2011", 2), ("original-2011", 4), ("big-box-2023", 3), ("big-box-2023", 5)]


@pytest.mark.parametrize(("edition", "players"), CONFIGS)
def test_the_tensor_is_one_to_one_on_sampled_states(edition: str, players: int) -> None:
    """Every state of two seeded random games: different states never share a tensor
    (the information model: nothing is private, so a player knows the whole state; the
    observers' tensors differ only in the observer segment, next test)."""
    assert collisions(sampled_states(edition, players, range(2)), observation_tensor, 0) == []


def test_the_collision_check_catches_an_encoding_that_drops_segments() -> None:
    data = builtin_edition("original-2011")
    players = next(s for s in layout(data, 2) if s.name == "p0_members")

    def forgets_the_players(state: GameState, observer: int) -> list[float]:
        values = observation_tensor(state, observer)
        return values[: players.offset]  # the board only: farmyards, pending step ... dropped

    found = collisions(sampled_states("original-2011", 2, range(1)), forgets_the_players, 0)
    assert found
    first, second = found[0]
    assert first != second


@pytest.mark.parametrize(("edition", "players"), CONFIGS)
def test_layout_is_contiguous_and_matches_the_tensor(edition: str, players: int) -> None:
    data = builtin_edition(edition)
    segments = layout(data, players)
    assert segments[0].offset == 0
    for a, b in itertools.pairwise(segments):
        assert b.offset == a.offset + a.size
    state = new_game(edition, players, seed=1)
    values = observation_tensor(state, 0)
    assert len(values) == tensor_size(data, players)
    observer = next(s for s in segments if s.name == "observer")
    assert values[observer.offset : observer.offset + observer.size] == [1.0] + [0.0] * (players - 1)
    other = observation_tensor(state, 1)
    differ = [i for i, (x, y) in enumerate(zip(values, other, strict=True)) if x != y]
    assert differ == [observer.offset, observer.offset + 1]


def test_setup_boards_are_encoded_apart_from_states_of_play() -> None:
    """SET-05: the boards of a deal in progress have their own encodings (chance to act,
    no pending step), one per deal prefix."""
    rng = random.Random(3)
    dealt: list[Action] = []
    keys = set()
    while outcomes := deal_outcomes("big-box-2023", 3, dealt):
        board = board_after("big-box-2023", 3, dealt)
        keys.add(tuple(observation_tensor(board, 0, dealing=True)))
        dealt.append(sample(outcomes, rng))
    play = {tuple(observation_tensor(s, 0)) for s in sampled_states("big-box-2023", 3, range(1))}
    assert len(keys) == len(dealt)
    assert not keys & play


def test_strings_and_errors() -> None:
    state = new_game("big-box-2023", 2, seed=2)
    assert observation_string(state, 0) == observation_string(state, 1) == to_json(state)
    with pytest.raises(ParameterError, match="observer"):
        observation_tensor(state, 2)
    with pytest.raises(ParameterError, match="observer"):
        observation_string(state, -1)


def test_docs_list_every_segment_of_the_layout() -> None:
    """docs/rl.md documents the layout of OBSERVATION_VERSION, segment by segment."""
    text = (ROOT / "docs" / "rl.md").read_text(encoding="utf-8")
    assert f"version {OBSERVATION_VERSION}" in text
    names = {s.name.replace("p0_", "p<seat>_") for s in layout(builtin_edition("big-box-2023"), 2)}
    missing = [n for n in names if not n.startswith("p1_") and f"`{n}`" not in text]
    assert missing == []
