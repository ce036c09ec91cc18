"""Integer ids for game-tree wrappers (OpenSpiel, PettingZoo, RL code): legal action ids in
ascending order, a legal-action mask, and chance outcome ids with exact probabilities.

An id is an action's index in `action_universe(data)` (`action_id` / `action_from_id`), so
it is stable for one edition data and the same for decisions and chance outcomes. The
setup's random steps (`village_rules.engine.setup.deal_outcomes`) use the same ids.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from fractions import Fraction

from village_rules.data.edition import EditionData
from village_rules.engine.core import chance_outcomes, legal_actions
from village_rules.errors import ActionTypeError
from village_rules.model.actions import Action, action_from_id, action_id, action_universe
from village_rules.model.state import GameState

__all__ = [
    "action_from_id",
    "action_id",
    "action_id_of",
    "chance_outcome_ids",
    "legal_action_ids",
    "legal_mask",
    "num_distinct_actions",
    "sorted_outcome_ids",
]


def action_id_of(value: object) -> int:
    """`value` as an action id: an `int` or an integer type such as NumPy's (anything with
    `__index__`), never a bool, a float or a text. `ActionTypeError` otherwise, so `step(0.5)`
    or `step("0")` is refused instead of being rounded or parsed into action 0."""
    if isinstance(value, bool) or not hasattr(type(value), "__index__"):
        kind = type(value).__name__
        raise ActionTypeError(f"an action id must be a whole number (int), not {kind} {value!r}")
    return operator.index(value)  # type: ignore[arg-type]  # __index__ checked above


def num_distinct_actions(data: EditionData) -> int:
    """How many ids there are for this data: every id is in range(num_distinct_actions)."""
    return len(action_universe(data))


def legal_action_ids(state: GameState) -> list[int]:
    """The ids of `legal_actions(state)`, ascending; empty at chance nodes and at the end."""
    data = state.rules.data
    return sorted(action_id(data, a) for a in legal_actions(state))


def legal_mask(state: GameState) -> list[int]:
    """1 at the id of every legal action, 0 elsewhere; length `num_distinct_actions`."""
    mask = [0] * num_distinct_actions(state.rules.data)
    for i in legal_action_ids(state):
        mask[i] = 1
    return mask


def sorted_outcome_ids(
    data: EditionData, outcomes: Sequence[tuple[Action, Fraction]]
) -> list[tuple[int, Fraction]]:
    """(id, probability) of chance outcomes, ascending by id."""
    return sorted((action_id(data, a), p) for a, p in outcomes)


def chance_outcome_ids(state: GameState) -> list[tuple[int, Fraction]]:
    """(id, exact probability) of the pending chance event's outcomes, ascending by id;
    the probabilities sum to 1. Empty when no chance event is pending."""
    return sorted_outcome_ids(state.rules.data, chance_outcomes(state))
