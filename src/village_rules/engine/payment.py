"""Paying costs: alternatives (e.g. 2 green or 1 scroll), and coins standing in for influence
cubes (COIN-01, 2023 p. 12: "As a SUBSTITUTE for any one influence cube"; AMB-01).

A payment moves what is paid to the general supply; time moves the life-time token.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import product

from village_rules.data.components import Cube
from village_rules.data.edition import Cost
from village_rules.data.tally import Tally
from village_rules.engine.context import Ctx
from village_rules.engine.time_and_death import spend_time
from village_rules.model.actions import Pay
from village_rules.model.evolve import replace
from village_rules.model.state import GameState, PlayerState
from village_rules.rule_ids import RuleId


def coin_splits(cost: Cost, player: PlayerState, coins_allowed: bool) -> Iterator[Tally[Cube]]:
    """Every way to pay `cost` with some of its cubes replaced by coins."""
    colours = [(c, n) for c, n in cost.cubes.items]
    spare = player.coins - cost.coins
    if not coins_allowed or spare <= 0 or not colours:
        if _affordable(cost, player, Tally()):
            yield Tally()
        return
    ranges = [range(min(n, spare) + 1) for _, n in colours]
    for split in product(*ranges):
        coins = Tally.of([(c, k) for (c, _), k in zip(colours, split, strict=True)])
        if _affordable(cost, player, coins):
            yield coins


def can_pay(cost: Cost, player: PlayerState, coins_allowed: bool) -> bool:
    """Whether `coin_splits(cost, player, coins_allowed)` yields anything, computed
    directly: grain and goods must be there; each missing cube needs one spare coin (at
    most one per cube of the cost, which the shortfall never exceeds). The legal-move
    generator asks this; the oracle enumerates the splits (the fuzzer compares the two)."""
    if player.grain < cost.grain or (cost.goods.items and not player.goods.covers(cost.goods)):
        return False
    spare = player.coins - cost.coins
    if spare < 0:
        return False
    short = 0
    have = player.cubes
    for colour, n in cost.cubes.items:
        held = have[colour]
        if held < n:
            short += n - held
    return short == 0 or (coins_allowed and short <= spare)


def _affordable(cost: Cost, player: PlayerState, coins: Tally[Cube]) -> bool:
    if player.grain < cost.grain or not player.goods.covers(cost.goods):
        return False
    if player.coins < cost.coins + coins.total():
        return False
    return player.cubes.covers(cost.cubes.minus(coins))


def payment_options(
    alternatives: Sequence[Cost], player: PlayerState, coins_allowed: bool = True
) -> list[Pay]:
    """Every affordable way to pay one of `alternatives`."""
    return [
        Pay(i, coins)
        for i, cost in enumerate(alternatives)
        for coins in coin_splits(cost, player, coins_allowed)
    ]


def describe_shortfall(alternatives: Sequence[Cost], player: PlayerState) -> str:
    """A person-readable 'needs … ; you have …' for an unaffordable cost."""
    needs = " or ".join(f"({c})" if len(alternatives) > 1 else str(c) for c in alternatives)
    relevant_cubes = sorted({k for c in alternatives for k in c.cubes}, key=lambda k: k.value)
    relevant_goods = sorted({k for c in alternatives for k in c.goods}, key=lambda k: k.value)
    have = [f"{player.cubes[k]} {k.value}" for k in relevant_cubes]
    have += [f"{player.coins} coins"]
    have += [f"{player.goods[g]} {g.value}" for g in relevant_goods]
    if any(c.grain for c in alternatives):
        have.append(f"{player.grain} grain")
    return f"needs {needs}; you have {', '.join(have)}"


def pay(state: GameState, seat: int, cost: Cost, coins: Tally[Cube], ctx: Ctx) -> GameState:
    """Move `cost` (with `coins` in place of those cubes) to the supply and spend its time."""
    p = state.players[seat]
    cubes = cost.cubes.minus(coins)
    total_coins = cost.coins + coins.total()
    if coins.total():
        ctx.fire(RuleId.COIN_01, state)
    p = replace(
        p,
        grain=p.grain - cost.grain,
        coins=p.coins - total_coins,
        cubes=p.cubes.minus(cubes),
        goods=p.goods.minus(cost.goods),
    )
    supply = state.supply
    supply = replace(
        supply,
        grain=supply.grain + cost.grain,
        coins=supply.coins + total_coins,
        cubes=supply.cubes.plus(cubes),
        goods=supply.goods.plus(cost.goods),
    )
    players = state.players
    state = replace(state, supply=supply, players=(*players[:seat], p, *players[seat + 1 :]))
    if cost.time:
        state = spend_time(state, seat, cost.time, ctx)
    return state
