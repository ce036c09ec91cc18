"""The OpenSpiel game and the PettingZoo environment on the native core beside the
reference engine, in one run (issue 39, item 2; docs/native.md, "The adapters"):

- OpenSpiel, random playouts: `legal_actions`, `chance_outcomes`, `apply_action` and
  `returns` only (what a rollout of Monte Carlo tree search does), moves per second;
- OpenSpiel, the same playouts with an observation tensor at every decision (what a
  learning loop does): on the native engine the core writes it (cpp/observation.cpp);
- PettingZoo, whole random games through `last()` and `step()`: an observation and a
  mask at every step.

Rounds alternate the engines on the same seeds; times are CPU seconds of this process
(`time.process_time`), the best round. Both engines must play the very same games (the
same move lists): the script stops otherwise. Prints figures; tests/test_benchmarks.py
runs it small. Usage: bench_adapters.py [GAMES] [ROUNDS]. Needs the `openspiel` and
`pettingzoo` extras and the native core."""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable

import numpy as np
import pyspiel

import village_rules.adapters.openspiel as adapter
from village_rules.adapters.pettingzoo import raw_env

EDITION, PLAYERS = "big-box-2023", 3
ENGINES = ("native", "reference")


def openspiel_games(engine: str, games: int, observe: bool) -> tuple[int, list[list[int]]]:
    """Seeded random playouts of the win game: the moves made and each game's history."""
    game = pyspiel.load_game(adapter.WIN_GAME, {"edition": EDITION, "players": PLAYERS, "engine": engine})
    observer = game.make_py_observer()
    moves, histories = 0, []
    for seed in range(games):
        rng, state = random.Random(seed), game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                codes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(codes, probs)[0])
            else:
                if observe:
                    observer.set_from(state, state.current_player())
                state.apply_action(rng.choice(state.legal_actions()))
            moves += 1
        state.returns()
        histories.append(state.history())
    return moves, histories


def pettingzoo_games(engine: str, games: int) -> tuple[int, list[list[int]]]:
    """Seeded random games of the environment: the steps taken and each game's actions."""
    steps, histories = 0, []
    for seed in range(games):
        env = raw_env(edition=EDITION, players=PLAYERS, engine=engine)
        env.reset(seed=seed)
        rng, taken = random.Random(seed), []
        for _ in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            action = rng.choice(np.flatnonzero(observation["action_mask"]).tolist())
            taken.append(action)
            env.step(action)
            steps += 1
        histories.append(taken)
    return steps, histories


def best(run: Callable[[str], tuple[int, list[list[int]]]], rounds: int) -> dict[str, tuple[int, float]]:
    """Per engine: the moves and the best CPU seconds over `rounds` alternating rounds."""
    out: dict[str, tuple[int, float]] = {}
    seen: dict[str, list[list[int]]] = {}
    for _ in range(rounds):
        for engine in ENGINES:
            start = time.process_time()
            moves, histories = run(engine)
            spent = time.process_time() - start
            seen[engine] = histories
            if engine not in out or spent < out[engine][1]:
                out[engine] = (moves, spent)
    if seen["native"] != seen["reference"]:
        sys.exit("the native and the reference engines played different games")
    return out


def report(title: str, figures: dict[str, tuple[int, float]]) -> None:
    """One line per engine and the ratio."""
    rate = {engine: moves / max(spent, 1e-9) for engine, (moves, spent) in figures.items()}
    print(title)
    for engine in ENGINES:
        moves, spent = figures[engine]
        print(f"  {engine:9}: {moves} moves in {spent:.2f} s CPU = {rate[engine]:,.0f} moves/s")
    print(f"  native / reference: {rate['native'] / rate['reference']:.1f}x (the same games)")


def main(argv: list[str]) -> None:
    """Run the three comparisons and print them."""
    games = int(argv[0]) if argv else 20
    rounds = int(argv[1]) if len(argv) > 1 else 3
    print(f"{games} seeded random games of {EDITION}, {PLAYERS} players, per engine; best of {rounds} rounds")
    report(
        "OpenSpiel random playouts (no observation)", best(lambda e: openspiel_games(e, games, False), rounds)
    )
    report(
        "OpenSpiel random playouts, an observation tensor at every decision",
        best(lambda e: openspiel_games(e, games, True), rounds),
    )
    report(
        "PettingZoo random games (last() and step(): an observation every step)",
        best(lambda e: pettingzoo_games(e, games), rounds),
    )


if __name__ == "__main__":
    main(sys.argv[1:])
