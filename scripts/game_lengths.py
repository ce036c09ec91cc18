"""Print the longest seeded random game (moves = decisions + chance outcomes, the setup's
deal included), the most outcomes at one chance node, and the final score range, per
edition and player count: the evidence behind bounds.DEFAULT_MAX_MOVES (docs/rl.md).

    .venv/bin/python scripts/game_lengths.py [games per configuration, default 100]
"""

from __future__ import annotations

import random
import sys

from village_rules import (
    apply,
    chance_outcomes,
    deal_outcomes,
    game_from_deal,
    legal_actions,
    score_breakdown,
)
from village_rules.adapters.bounds import DEFAULT_MAX_MOVES, max_chance_outcomes, score_bounds
from village_rules.data.loader import EDITIONS, builtin_edition
from village_rules.model.actions import Action
from village_rules.model.chance import sample


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    overall = 0
    for edition in EDITIONS:
        data = builtin_edition(edition)
        for players in data.player_counts:
            longest, most, low, high = 0, 0, 10**9, -(10**9)
            for g in range(games):
                rng = random.Random(1000 + g)
                dealt: list[Action] = []
                while outcomes := deal_outcomes(data, players, dealt):
                    most = max(most, len(outcomes))
                    dealt.append(sample(outcomes, rng))
                state, moves = game_from_deal(data, players, dealt), len(dealt)
                while not state.is_terminal:
                    if state.is_chance:
                        outcomes = chance_outcomes(state)
                        most = max(most, len(outcomes))
                        state = apply(state, sample(outcomes, rng))
                    else:
                        legal = legal_actions(state)
                        state = apply(state, legal[rng.randrange(len(legal))])
                    moves += 1
                longest = max(longest, moves)
                totals = [b.total for b in score_breakdown(state)]
                low, high = min(low, *totals), max(high, *totals)
            overall = max(overall, longest)
            bounds = score_bounds(data, players)
            print(
                f"{edition} {players} players, {games} games: longest {longest} moves "
                f"(limit {DEFAULT_MAX_MOVES}); most chance outcomes {most} "
                f"(bound {max_chance_outcomes(data, players)}); scores {low}..{high} "
                f"(bounds {bounds.low}..{bounds.high})",
                flush=True,
            )
    print(f"longest game overall: {overall} moves; limit / longest = {DEFAULT_MAX_MOVES / overall:.1f}")


if __name__ == "__main__":
    main()
