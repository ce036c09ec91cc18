"""The one-step evaluation the greedy policy and the planners maximise, and its weights.

`evaluate(state, seat)` is the seat's prestige as if the game ended now (`score_breakdown`:
points during play, travel, council chamber, church, chronicle, customers, coins) plus what
the seat holds that will turn into prestige later: influence cubes, goods tiles, grain,
coins and living family members, each at a documented weight (`Weights`). A planner is the
same evaluation with extra terms (`village_rules.policies.planners`).
"""

from __future__ import annotations

from dataclasses import dataclass

from village_rules.data.components import Cube, is_alive
from village_rules.engine.scoring import score_breakdown
from village_rules.model.state import GameState


@dataclass(frozen=True, slots=True)
class Weights:
    """Prestige-equivalent values of what a farmyard holds (docs/policies.md)."""

    cube: float = 0.6
    """An influence cube: the currency of every action (p. 5); a plague cube counts 0."""
    good: float = 1.2
    """A goods tile: customers pay 2-5 prestige for two or three of them (p. 8)."""
    grain: float = 0.3
    """A grain: customers, the stables, the mill and church steps ask for it."""
    coin: float = 0.8
    """A coin, besides its final points: stands in for any one cube (p. 12)."""
    member: float = 1.5
    """A living family member: every action that places one needs one."""


DEFAULT_WEIGHTS = Weights()


def holdings(state: GameState, seat: int, weights: Weights = DEFAULT_WEIGHTS) -> float:
    """The weighted value of the seat's cubes, goods, grain, coins and living members."""
    p = state.players[seat]
    cubes = sum(n for c, n in p.cubes.items if c is not Cube.PLAGUE)
    goods = sum(n for _, n in p.goods.items)
    members = sum(1 for loc in p.members if is_alive(loc))
    return (
        weights.cube * cubes
        + weights.good * goods
        + weights.grain * p.grain
        + weights.coin * p.coins
        + weights.member * members
    )


def evaluate(state: GameState, seat: int, weights: Weights = DEFAULT_WEIGHTS) -> float:
    """The seat's score as if the game ended now, plus (before the end) its holdings."""
    score = float(score_breakdown(state)[seat].total)
    if state.is_terminal:
        return score
    return score + holdings(state, seat, weights)


def time_aware(state: GameState, seat: int, weights: Weights = DEFAULT_WEIGHTS) -> float:
    """`evaluate` minus the share of a member the life-time token has used up: the token
    passing the quill costs a member (p. 12), so time spent is valued continuously (the
    loss of the member at the pass is `weights.member`, which this share grows to)."""
    value = evaluate(state, seat, weights)
    if state.is_terminal:
        return value
    p = state.players[seat]
    return value - weights.member * p.lifetime / state.rules.data.lifetime_track_length
