"""The observation tensor as a list (`observation_tensor`) and as a NumPy array
(`observation_array`, what the adapters use): microseconds per tensor over every state of
seeded random games, and the speed-up. Prints figures; asserts only that both agree."""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable

import numpy as np

from village_rules import apply, chance_outcomes, legal_actions, new_game
from village_rules.adapters.observation import observation_tensor
from village_rules.adapters.observation_array import clear_caches, observation_array
from village_rules.model.chance import sample
from village_rules.model.state import GameState


def states(edition: str, players: int, games: int) -> list[GameState]:
    out: list[GameState] = []
    for seed in range(games):
        state, rng = new_game(edition, players, seed), random.Random(seed)
        while not state.is_terminal:
            out.append(state)
            if state.is_chance:
                state = apply(state, sample(chance_outcomes(state), rng))
            else:
                state = apply(state, rng.choice(legal_actions(state)))
    return out


def per_tensor(build: Callable[[GameState, int], object], seen: list[GameState], rounds: int) -> float:
    """The best of `rounds` passes over the states in game order, each from empty caches:
    what a learning loop sees, where each state shares most parts with the one before."""
    best = float("inf")
    for _ in range(rounds):
        clear_caches()
        start = time.perf_counter()
        for state in seen:
            build(state, 0)
        best = min(best, (time.perf_counter() - start) / len(seen))
    return best * 1e6


def main(games: int = 3, rounds: int = 3) -> None:
    print(f"{'edition':<14} {'p':>2} {'states':>7} {'list us':>9} {'numpy us':>9} {'speed-up':>9}")
    for edition, players in (("original-2011", 2), ("big-box-2023", 3), ("big-box-2023", 5)):
        seen = states(edition, players, games)
        for state in seen[:: max(1, len(seen) // 50)]:
            listed = np.asarray(observation_tensor(state, 0), np.float32)
            assert np.array_equal(listed, observation_array(state, 0))
        slow = per_tensor(observation_tensor, seen, rounds)
        fast = per_tensor(observation_array, seen, rounds)
        print(f"{edition:<14} {players:>2} {len(seen):>7} {slow:>9.1f} {fast:>9.1f} {slow / fast:>8.1f}x")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
