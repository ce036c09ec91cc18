"""The greedy policy: the legal action of highest one-step evaluation (`evaluation.evaluate`
through `lookahead`), ties broken by the RNG."""

from __future__ import annotations

import random
from collections.abc import Sequence

from village_rules.model.actions import Action
from village_rules.model.state import GameState
from village_rules.policies.evaluation import evaluate
from village_rules.policies.lookahead import best_action


def greedy_policy(state: GameState, legal: Sequence[Action], rng: random.Random) -> Action:
    """Maximise `evaluate` (score plus the value of cubes, goods, grain, coins, members)."""
    return best_action(state, legal, evaluate, rng)
