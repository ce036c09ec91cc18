"""The search policy's leaf evaluation: greedy's `evaluate` plus the long-term terms of
the traveller and of the council/church climber (`village_rules.policies.planners`).

Greedy's evaluation values a position by its score as if the game ended now and what the
farmyard holds; it sees nothing of positions that pay only later. The planners' terms are
those: travel points and markers (more on the cities of the map's cheapest tour), members
on the map by how near they stand to its next city, wagons; council chamber and church
points and every member climbing them by its stage, or in the black bag. Played alone,
each planner's game scores more than greedy's (docs/policies.md); a leaf valued by both
lets the search weigh a long travel against a climb on the same scale. The chronicle
planner's terms are left out: added here they made the search weaker against greedy in
2011 (docs/policies.md, the search's rows).
"""

from __future__ import annotations

from village_rules.model.state import GameState
from village_rules.policies.evaluation import evaluate
from village_rules.policies.planners import climber_value, traveller_value


def strategic_value(state: GameState, seat: int) -> float:
    """`evaluate`, plus the traveller's terms, plus the climber's (each its planner's
    value minus `evaluate`); at the end of the game, the final score alone."""
    base = evaluate(state, seat)
    if state.is_terminal:
        return base
    return traveller_value(state, seat) + climber_value(state, seat) - base
