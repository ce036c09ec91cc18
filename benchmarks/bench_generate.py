"""Time spent generating the legal actions (`engine.core._generate`) per pending step, and
which steps still reach the generate-and-filter fallback (not a test: figures vary by
machine).

    python benchmarks/bench_generate.py [--games 60] [--players 4]
    PYTHONPATH=/tmp/old/src python benchmarks/bench_generate.py   # another tree's engine

Plays seeded random games (both editions alternating; solo and 5 players are
big-box-2023 only) and, at
every decision, times a fresh `_generate` of the state (the best of `--repeat` calls, CPU
time) and counts the calls of `_step_precondition`, which only the filtering fallback of
`_generate` made in older engines (this one has no fallback and no `_step_precondition`,
so its column is 0; the oracle `legal_actions_oracle` never called it). Prints, per kind of
pending step, the number of steps, how many reached the fallback, and the microseconds
spent generating (total and per step).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import defaultdict

from village_rules import apply, chance_outcomes, legal_actions, new_game
from village_rules.engine import core
from village_rules.model.chance import sample
from village_rules.model.pending import ChooseAction, Pending
from village_rules.model.state import GameState

EDITIONS = ("big-box-2023", "original-2011")


def _kind(pending: Pending) -> str:
    if isinstance(pending, ChooseAction):
        return f"ChooseAction({pending.space.value})"
    return type(pending).__name__


def survey(games: int, players: int, repeat: int) -> dict[str, list[float]]:
    """{step kind: [steps, fallback steps, seconds]} over seeded random games."""
    fallback = [0]
    original = getattr(core, "_step_precondition", None)  # gone once no step filters

    def counting(state: GameState) -> object:
        fallback[0] += 1
        return original(state) if original is not None else None

    if original is not None:
        core._step_precondition = counting  # type: ignore[assignment]  # a benchmark's probe
    figures: dict[str, list[float]] = defaultdict(lambda: [0, 0, 0.0])
    try:
        for g in range(games):
            edition = "big-box-2023" if players in (1, 5) else EDITIONS[g % 2]
            rng = random.Random(g)
            state = new_game(edition, players, g)
            while not state.is_terminal:
                if state.is_chance:
                    action = sample(chance_outcomes(state), rng)
                else:
                    row = figures[_kind(state.pending)]
                    before = fallback[0]
                    best = float("inf")
                    for _ in range(repeat):
                        start = time.process_time()
                        core._generate(state)
                        best = min(best, time.process_time() - start)
                    row[0] += 1
                    row[1] += fallback[0] > before
                    row[2] += best
                    legal = legal_actions(state)
                    action = legal[rng.randrange(len(legal))]
                state = apply(state, action)
    finally:
        if original is not None:
            core._step_precondition = original
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3, help="calls per state; the fastest counts")
    args = parser.parse_args()
    survey(2, args.players, 1)  # warm the caches
    figures = survey(args.games, args.players, args.repeat)
    print(f"{args.games} seeded {args.players}-player games, engine from {core.__file__}")
    print(f"{'pending step':<34} {'steps':>7} {'fallback':>8} {'total ms':>9} {'us/step':>8}")
    total_steps = total_fallback = 0
    total_seconds = 0.0
    for kind, (steps, fell, seconds) in sorted(figures.items(), key=lambda kv: -kv[1][2]):
        print(f"{kind:<34} {steps:>7.0f} {fell:>8.0f} {seconds * 1e3:>9.1f} {seconds / steps * 1e6:>8.1f}")
        total_steps += int(steps)
        total_fallback += int(fell)
        total_seconds += seconds
    print(
        f"{'all':<34} {total_steps:>7} {total_fallback:>8} {total_seconds * 1e3:>9.1f}"
        f" {total_seconds / max(1, total_steps) * 1e6:>8.1f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
