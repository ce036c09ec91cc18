"""adapters/chance_codes.py: the chance outcome codes OpenSpiel sees. At every chance node
of seeded games and deals (every edition, player count and solo) the codes are distinct,
below `code_range`, and decode back to their outcomes; `code_range` is the rules' bound
`max_chance_outcomes` (two derivations, one figure) and follows the data."""

from __future__ import annotations

import random
from dataclasses import replace
from fractions import Fraction

import pytest

from village_rules import apply, chance_outcomes, deal_outcomes, legal_actions, new_game
from village_rules.adapters.bounds import max_chance_outcomes
from village_rules.adapters.chance_codes import action_of_code, code_range, coded_outcomes, outcome_code
from village_rules.data.loader import builtin_edition
from village_rules.errors import IllegalActionError, InternalError
from village_rules.model.actions import Action, Harvest
from village_rules.model.chance import sample

CONFIGS = [("original-2011", n) for n in (2, 3, 4)] + [("big-box-2023", n) for n in (1, 2, 3, 4, 5)]


@pytest.mark.parametrize(("edition", "players"), CONFIGS)
def test_every_chance_node_has_distinct_codes_in_range_that_decode(edition: str, players: int) -> None:
    """SEED-02 / SET-10 (green bag), SET-05 / MKT-07 (pile), MASS-03 (black bag), SOLO-14
    (fate tiles): each node's outcomes are coded one-to-one into range(code_range)."""
    data = builtin_edition(edition)
    bound = code_range(data, players)
    assert bound == max_chance_outcomes(data, players) == 24  # both editions' data today
    nodes: list[list[tuple[Action, Fraction]]] = []
    rng, dealt = random.Random(players), list[Action]()
    while outcomes := deal_outcomes(data, players, dealt):
        nodes.append(list(outcomes))
        dealt.append(sample(outcomes, rng))
    state = new_game(edition, players, players)
    while not state.is_terminal:
        if state.is_chance:
            nodes.append(list(chance_outcomes(state)))
            state = apply(state, sample(chance_outcomes(state), rng))
        else:
            state = apply(state, rng.choice(legal_actions(state)))
    for outcomes in nodes:
        coded = coded_outcomes(data, players, outcomes)
        codes = [c for c, _ in coded]
        assert len(set(codes)) == len(codes) and all(0 <= c < bound for c in codes)
        for action, _ in outcomes:
            code = outcome_code(data, players, action)
            assert action_of_code(data, players, outcomes, code) == action


def test_the_range_follows_the_data() -> None:
    """Fewer customer tiles (the largest container) shrink both derivations alike."""
    data = builtin_edition("big-box-2023")
    fewer = replace(data, customers=data.customers[:10], fingerprint=data.fingerprint + "-10-tiles")
    assert code_range(fewer, 3) == max_chance_outcomes(fewer, 3) == 1 + 3 * len(set(data.family_numbers))
    assert code_range(fewer, 2) == max_chance_outcomes(fewer, 2) == 10


def test_a_code_no_outcome_has_and_an_action_that_is_no_draw_are_refused() -> None:
    data = builtin_edition("original-2011")
    state = new_game("original-2011", 2, 0)
    outcomes = chance_outcomes(state) if state.is_chance else []
    with pytest.raises(IllegalActionError, match="no outcome of this chance node"):
        action_of_code(data, 2, outcomes, 23 if len(outcomes) < 24 else 99)
    with pytest.raises(InternalError, match="not a chance outcome"):
        outcome_code(data, 2, Harvest())
