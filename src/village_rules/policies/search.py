"""The search policy: expectimax on the engine with explicit chance nodes.

From the decision to take, the search expands the seat's own decisions up to `depth` deep
(the best child), and every chance event of at most `max_outcomes` outcomes by all its
outcomes with their exact probabilities (the expectation); a line ends at the next
seat's decision, a larger chance event or the end, where it is evaluated *relative to the
others*: the seat's `strategic_value` minus the best opponent's. That leaf evaluation is
greedy's `evaluate` plus the long-term terms of the traveller and the climber
(`policies/strategic.py`): with greedy's own evaluation at the leaves the search won only
half its games against greedy, seeing what greedy sees (docs/policies.md). The budget is
`simulations`, the engine steps (simulated actions) per decision, shared out over the
legal actions, so a decision costs the same on every machine; `simulated` counts the
steps taken so far.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from village_rules.model.actions import Action
from village_rules.model.state import GameState
from village_rules.policies.lookahead import Evaluation, Lookahead, best_action_counted
from village_rules.policies.strategic import strategic_value


def relative(evaluation: Evaluation) -> Evaluation:
    """The seat's `evaluation` minus the best of the other seats' (Carla's counts 0)."""

    def value(state: GameState, seat: int) -> float:
        mine = evaluation(state, seat)
        others = [
            evaluation(state, s) for s in range(state.num_players) if s != seat and not state.is_carla(s)
        ]
        return mine - max(others, default=0.0)

    return value


@dataclass
class SearchPolicy:
    """Expectimax with chance nodes, `simulations` engine steps per decision."""

    simulations: int = 600
    depth: int = 3
    max_outcomes: int = 12
    evaluation: Evaluation = strategic_value
    """The leaf evaluation, taken relative to the best opponent (`relative`)."""
    decisions: int = field(default=0, init=False)
    """Decisions taken so far (for the simulations-per-decision figure)."""
    simulated: int = field(default=0, init=False)
    """Engine steps simulated so far, over all decisions."""

    def __call__(self, state: GameState, legal: Sequence[Action], rng: random.Random) -> Action:
        """The action of highest expectimax value (`relative_value` at the leaves)."""
        self.decisions += 1
        look = Lookahead(depth=self.depth, max_outcomes=self.max_outcomes, max_applies=self.simulations)
        action, used = best_action_counted(state, legal, relative(self.evaluation), rng, look)
        self.simulated += used
        return action


def search_policy(state: GameState, legal: Sequence[Action], rng: random.Random) -> Action:
    """`SearchPolicy()` with its default budget (600 simulations per decision)."""
    return _DEFAULT(state, legal, rng)


_DEFAULT = SearchPolicy()
