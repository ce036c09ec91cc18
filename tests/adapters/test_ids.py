"""Integer ids for wrappers: sorted legal ids, the legal mask, sorted chance outcome ids,
and str(action) as the text notation."""

from __future__ import annotations

import random

import pytest

import village_rules
from village_rules import (
    action_from_id,
    action_id,
    apply,
    chance_outcome_ids,
    chance_outcomes,
    format_action,
    legal_action_ids,
    legal_actions,
    legal_mask,
    new_game,
    num_distinct_actions,
    parse_action,
)
from village_rules.data.loader import builtin_edition
from village_rules.model.actions import ActionSyntaxError, action_universe
from village_rules.model.chance import sample


@pytest.mark.parametrize("edition", ["original-2011", "big-box-2023"])
def test_str_of_every_action_is_its_text_notation(edition: str) -> None:
    for action in action_universe(builtin_edition(edition)):
        assert str(action) == format_action(action)
        assert parse_action(str(action)) == action
        assert f"{action}" == format_action(action)


def test_ids_are_exported_and_round_trip() -> None:
    data = builtin_edition("big-box-2023")
    assert village_rules.action_id is action_id
    for i in range(num_distinct_actions(data)):
        assert action_id(data, action_from_id(data, i)) == i
    with pytest.raises(ActionSyntaxError, match="out of range"):
        action_from_id(data, num_distinct_actions(data))


@pytest.mark.parametrize(("edition", "players"), [("original-2011", 4), ("big-box-2023", 3)])
def test_ids_mask_and_outcomes_match_the_engine_along_a_game(edition: str, players: int) -> None:
    data = builtin_edition(edition)
    rng = random.Random(11)
    state = new_game(edition, players, seed=11)
    steps = 0
    while not state.is_terminal and steps < 400:
        ids = legal_action_ids(state)
        assert ids == sorted(ids)
        legal = legal_actions(state)
        assert len(ids) == len(legal)
        assert {action_from_id(data, i) for i in ids} == set(legal)
        mask = legal_mask(state)
        assert len(mask) == num_distinct_actions(data)
        assert [i for i, bit in enumerate(mask) if bit] == ids
        outcomes = chance_outcome_ids(state)
        assert [i for i, _ in outcomes] == sorted(i for i, _ in outcomes)
        if state.is_chance:
            assert ids == []
            assert sum(p for _, p in outcomes) == 1
            assert {(action_from_id(data, i), p) for i, p in outcomes} == set(chance_outcomes(state))
            state = apply(state, sample(chance_outcomes(state), rng))
        else:
            assert outcomes == []
            state = apply(state, action_from_id(data, ids[rng.randrange(len(ids))]))
        steps += 1
    assert steps == 400 or state.is_terminal
