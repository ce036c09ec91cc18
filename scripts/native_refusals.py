"""Which steps the native core refuses, and how often, over seeded games (issue 39).

Plays seeded random games of the reference (both editions, 2 to 5 players, the default
readings) through the tie (`village_rules.native.tie.compare_game`) and prints every
refused step by the core's NotSupportedError message, most frequent first: what to port
next. Each refusal ends a stretch the core played by itself (the tie then loads the
reference's state again), so every count is a "first refusal" of its stretch.

    python scripts/native_refusals.py [--seeds N]
"""

from __future__ import annotations

import argparse
import random

from village_rules.engine.core import apply, chance_outcomes, legal_actions
from village_rules.engine.setup import new_game
from village_rules.model.actions import Action
from village_rules.model.chance import sample
from village_rules.model.state import GameState
from village_rules.native.tie import TieCounts, compare_game
from village_rules.rules.variant import Variant

CONFIGS = (("original-2011", (2, 3, 4)), ("big-box-2023", (2, 3, 4, 5)))


def seeded_game(edition: str, players: int, seed: int) -> tuple[GameState, list[Action]]:
    """A random game of the reference from a fixed seed (as tests/native's seeded games)."""
    rng = random.Random(seed)
    state = initial = new_game(edition, players, seed, Variant(True, ()))
    actions: list[Action] = []
    while not state.is_terminal:
        if state.is_chance:
            action = sample(chance_outcomes(state), rng)
        else:
            legal = legal_actions(state)
            action = legal[rng.randrange(len(legal))]
        actions.append(action)
        state = apply(state, action)
    return initial, actions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3, help="games per edition and player count")
    args = parser.parse_args()
    total = TieCounts()
    for edition, counts in CONFIGS:
        for players in counts:
            for seed in range(args.seeds):
                total.add(compare_game(*seeded_game(edition, players, 1000 * seed + players)))
    print(total.describe())
    steps = total.applied + sum(total.refused_why.values())
    print(f"steps applied natively: {total.applied} of {steps}")
    print("refused steps (apply), by the core's reason:")
    for why, n in sorted(total.refused_why.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"{n:7d}  {why}")
    print("other refused questions:")
    for what, n in sorted(total.unsupported.items(), key=lambda kv: (-kv[1], kv[0])):
        if not what.startswith("apply at "):
            print(f"{n:7d}  {what}")


if __name__ == "__main__":
    main()
