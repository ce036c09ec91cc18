"""The planners: the greedy lookahead on `evaluate` plus the terms of one strategy
(docs/policies.md).

- chronicle planner: members in the chronicle are worth more than their chronicle points,
  a member in the graveyard costs, and the life-time token moving on is good while the
  seat's next member to die (its lowest-numbered visible one, p. 12) works where the
  chronicle has an open space, bad otherwise: deaths are timed into open spaces;
- traveller: travel points and markers count double, markers on the cities of the
  cheapest tour (`travel_plans.cheapest_tour`) more, members on the map by how close they
  stand to the next city of that tour, wagons more (every path asks for one);
- council/church climber: council chamber and church points count double, and every
  member on the council chamber, in the church or in the black bag counts by its stage.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from village_rules.data.components import (
    FARMYARD,
    Category,
    Good,
    InBlackBag,
    InChronicle,
    InGraveyard,
    OnChurch,
    OnCouncil,
    Travelling,
    is_visible,
    workplace,
)
from village_rules.engine.scoring import score_breakdown
from village_rules.model.actions import Action
from village_rules.model.state import GameState
from village_rules.policies.evaluation import evaluate
from village_rules.policies.lookahead import best_action
from village_rules.policies.travel_plans import cheapest_tour, plan_distance


def chronicle_value(state: GameState, seat: int) -> float:
    """`evaluate` plus the chronicle planner's terms."""
    value = evaluate(state, seat)
    if state.is_terminal:
        return value
    p = state.players[seat]
    value += 3.0 * sum(1 for loc in p.members if isinstance(loc, InChronicle))
    value -= 5.0 * sum(1 for loc in p.members if isinstance(loc, InGraveyard))
    visible = [(state.number_of(i), loc) for i, loc in enumerate(p.members) if is_visible(loc)]
    if visible:
        lowest = min(n for n, _ in visible)
        ripeness = 0.5 + p.lifetime / state.rules.data.lifetime_track_length
        # Each member the next death may take (the owner chooses among them, p. 12): good
        # where its workplace's chronicle category has room, bad where it has none; and
        # the more open categories they cover, the more later deaths find room.
        covered = set()
        for n, loc in visible:
            if n == lowest:
                category = workplace(loc)
                if state.chronicle_free(category) > 0:
                    covered.add(category)
                    value += 1.0 * ripeness
                else:
                    value -= 2.5 * ripeness
        value += 4.0 * len(covered)
    if state.chronicle_free(Category.TRAVEL) > 0:
        value += 1.0 * p.goods[Good.WAGON]  # a travel death needs a member on the map
    return value


def traveller_value(state: GameState, seat: int) -> float:
    """`evaluate` plus the traveller's terms."""
    value = evaluate(state, seat)
    if state.is_terminal:
        return value
    data = state.rules.data
    p = state.players[seat]
    value += float(score_breakdown(state)[seat].travel)
    tour = cheapest_tour(data, min(len(data.score_travel) - 1, len(data.cities)))
    planned = frozenset(tour.cities) if tour is not None else frozenset()
    value += sum(1.5 if c in planned else 0.75 for c in p.markers)
    todo = planned - set(p.markers)
    for loc in p.members:
        if isinstance(loc, Travelling):
            d = plan_distance(data, loc.city, todo)
            value += 1.0 if d is None else 2.0 / (1 + d)
    if FARMYARD in p.members:
        d = plan_distance(data, data.village, todo)
        value += 0.0 if d is None else 1.0 / (1 + d)
    value += 1.0 * p.goods[Good.WAGON]
    return value


def climber_value(state: GameState, seat: int) -> float:
    """`evaluate` plus the council/church climber's terms."""
    value = evaluate(state, seat)
    if state.is_terminal:
        return value
    b = score_breakdown(state)[seat]
    value += float(b.council_chamber + b.church)
    for loc in state.players[seat].members:
        if isinstance(loc, OnCouncil | OnChurch):
            value += 1.0 + 0.5 * loc.stage
        elif isinstance(loc, InBlackBag):
            value += 1.0
    return value


def chronicle_planner(state: GameState, legal: Sequence[Action], rng: random.Random) -> Action:
    """Times deaths into open, valuable chronicle spaces (`chronicle_value`)."""
    return best_action(state, legal, chronicle_value, rng)


def traveller(state: GameState, legal: Sequence[Action], rng: random.Random) -> Action:
    """Travels the cheapest tour of the map (`traveller_value`)."""
    return best_action(state, legal, traveller_value, rng)


def climber(state: GameState, legal: Sequence[Action], rng: random.Random) -> Action:
    """Climbs the council chamber and the church (`climber_value`)."""
    return best_action(state, legal, climber_value, rng)
