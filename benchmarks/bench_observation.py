"""The observation tensor as a list (`observation_tensor`) and as a NumPy array
(`observation_array`, what the adapters use), side by side in one run:

- per call: microseconds per tensor over every state of seeded random games, in game
  order, each pass from empty caches (what a learning loop sees, where each state
  shares most parts with the one before);
- per step: microseconds of a learning loop's step (the engine's `apply` of the recorded
  action or chance outcome, then the tensor of the new state), with each tensor and with
  none, and the steps per second.

Times are CPU seconds of this process (`time.process_time`), the best of a few passes, so
other work on a shared machine disturbs them less than wall time would. Prints figures;
asserts only that both tensors agree. Usage: bench_observation.py [GAMES] [ROUNDS]."""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable

import numpy as np

from village_rules import apply, chance_outcomes, legal_actions, new_game
from village_rules.adapters.observation import observation_tensor
from village_rules.adapters.observation_array import clear_caches, observation_array
from village_rules.model.actions import Action
from village_rules.model.chance import sample
from village_rules.model.state import GameState

Build = Callable[[GameState, int], object]


def moves(edition: str, players: int, games: int) -> list[tuple[GameState, Action]]:
    """Every (state, move chosen there) of `games` seeded random games."""
    out: list[tuple[GameState, Action]] = []
    for seed in range(games):
        state, rng = new_game(edition, players, seed), random.Random(seed)
        while not state.is_terminal:
            chosen = (
                sample(chance_outcomes(state), rng) if state.is_chance else rng.choice(legal_actions(state))
            )
            out.append((state, chosen))
            state = apply(state, chosen)
    return out


def best(rounds: int, run: Callable[[], None]) -> float:
    """The least CPU seconds of `rounds` runs, each from empty caches."""
    least = float("inf")
    for _ in range(rounds):
        clear_caches()
        start = time.process_time()
        run()
        least = min(least, time.process_time() - start)
    return least


def per_call(build: Build, seen: list[tuple[GameState, Action]], rounds: int) -> float:
    def run() -> None:
        for state, _ in seen:
            build(state, 0)

    return best(rounds, run) / len(seen) * 1e6


def per_step(build: Build | None, seen: list[tuple[GameState, Action]], rounds: int) -> float:
    def run() -> None:
        for state, chosen in seen:
            after = apply(state, chosen)
            if build is not None:
                build(after, 0)

    return best(rounds, run) / len(seen) * 1e6


def main(games: int = 3, rounds: int = 3) -> None:
    print("per call: us per tensor; per step: us per apply + tensor of the new state (CPU time)")
    print(
        f"{'edition':<14} {'p':>2} {'states':>7} | {'list us':>8} {'numpy us':>8} {'speed-up':>8} |"
        f" {'apply us':>8} {'+list':>8} {'+numpy':>8} {'speed-up':>8} | {'steps/s list':>12} {'numpy':>7}"
    )
    configs = (("original-2011", 2), ("big-box-2023", 3), ("big-box-2023", 5), ("big-box-2023", 1))
    for edition, players in configs:  # the last: solo against Carla
        seen = moves(edition, players, games)
        for state, _ in seen[:: max(1, len(seen) // 50)]:
            listed = np.asarray(observation_tensor(state, 0), np.float32)
            assert np.array_equal(listed, observation_array(state, 0))
        slow, fast = per_call(observation_tensor, seen, rounds), per_call(observation_array, seen, rounds)
        bare = per_step(None, seen, rounds)
        slow_step, fast_step = (
            per_step(observation_tensor, seen, rounds),
            per_step(observation_array, seen, rounds),
        )
        print(
            f"{edition:<14} {players:>2} {len(seen):>7} | {slow:>8.1f} {fast:>8.1f} {slow / fast:>7.1f}x |"
            f" {bare:>8.1f} {slow_step:>8.1f} {fast_step:>8.1f} {slow_step / fast_step:>7.1f}x |"
            f" {1e6 / slow_step:>12,.0f} {1e6 / fast_step:>7,.0f}"
        )


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
