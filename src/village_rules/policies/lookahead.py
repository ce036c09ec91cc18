"""The greedy policy's lookahead: the value of each legal action for the seat to act.

An action is valued by the state it leads to: a decision of the same seat (the action of
the space whose cube it just took, a payment, a privilege …) is looked through up to
`depth` own decisions, keeping the best; a chance event with at most `max_outcomes`
outcomes is averaged over them with their exact probabilities (expectimax); anything else
(the next seat's decision, a larger chance event, the end) is evaluated. The work is
bounded by `max_applies` engine steps per decision, never by a clock.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from village_rules.engine.core import apply, chance_outcomes, legal_actions
from village_rules.model.actions import Action
from village_rules.model.state import GameState

Evaluation = Callable[[GameState, int], float]
"""A seat's value of a state (higher is better)."""


@dataclass(frozen=True, slots=True)
class Lookahead:
    """How far the greedy lookahead looks (in own decisions, chance outcomes, engine steps)."""

    depth: int = 2
    max_outcomes: int = 6
    max_applies: int = 400


class _Budget:
    """Engine steps left for one decision."""

    def __init__(self, steps: int) -> None:
        self.left = steps

    def take(self) -> bool:
        if self.left <= 0:
            return False
        self.left -= 1
        return True


def _value(state: GameState, seat: int, evaluation: Evaluation, depth: int, *, look: Lookahead,
           budget: _Budget) -> float:
    if state.is_terminal:
        return evaluation(state, seat)
    if state.is_chance:
        outcomes = chance_outcomes(state)
        if len(outcomes) > look.max_outcomes or budget.left < len(outcomes):
            return evaluation(state, seat)
        total = 0.0
        for outcome, p in outcomes:
            budget.take()
            after = apply(state, outcome)
            total += float(p) * _value(after, seat, evaluation, depth, look=look, budget=budget)
        return total
    if depth <= 0 or state.current_player() != seat:
        return evaluation(state, seat)
    best: float | None = None
    for action in legal_actions(state):
        if not budget.take():
            break
        v = _value(apply(state, action), seat, evaluation, depth - 1, look=look, budget=budget)
        best = v if best is None or v > best else best
    return evaluation(state, seat) if best is None else best


def action_values(state: GameState, legal: Sequence[Action], evaluation: Evaluation,
                  look: Lookahead = Lookahead()) -> tuple[list[float], int]:
    """The lookahead value of each legal action, in the order given, and the engine
    steps it took."""
    seat = state.current_player()
    # An equal share of the budget per action, and at least its own step, so none is left
    # unvalued: at most max(len(legal), max_applies) steps in all.
    share = max(1, look.max_applies // max(1, len(legal)))
    values = []
    used = 0
    for action in legal:
        budget = _Budget(share)
        budget.take()
        after = apply(state, action)
        values.append(_value(after, seat, evaluation, look.depth - 1, look=look, budget=budget))
        used += share - budget.left
    return values, used


def best_action(state: GameState, legal: Sequence[Action], evaluation: Evaluation,
                rng: random.Random, look: Lookahead = Lookahead()) -> Action:
    """The action of highest value; ties broken by `rng` (so seeded games differ by seed)."""
    return best_action_counted(state, legal, evaluation, rng, look)[0]


def best_action_counted(state: GameState, legal: Sequence[Action], evaluation: Evaluation,
                        rng: random.Random, look: Lookahead = Lookahead()) -> tuple[Action, int]:
    """`best_action` and the engine steps (simulated actions) the choice took."""
    if len(legal) == 1:
        return legal[0], 0
    values, used = action_values(state, legal, evaluation, look)
    top = max(values)
    best = [a for a, v in zip(legal, values, strict=True) if v >= top - 1e-9]
    return (best[rng.randrange(len(best))] if len(best) > 1 else best[0]), used
