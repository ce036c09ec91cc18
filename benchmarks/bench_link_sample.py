"""What the link costs on `check`'s fuzz batch: every step, and the deterministic sample
(`proofs.link.sample.link_check_logs`). Not a test: figures vary by machine and load.

    python benchmarks/bench_link_sample.py [--games 300] [--seed 0] [--sample 14] [--steps 12000] [--every]

Plays the fuzz batch's games as `check` does (`fuzz.games.plan_game`, `play_logged`),
then prints, in CPU seconds: playing them, the link on the deterministic sample, and with
`--every` the link on every game (what checking all of check's games would cost).
"""

from __future__ import annotations

import argparse
import time

from village_rules.drivers.play import GameLog, play_logged
from village_rules.fuzz.games import plan_game
from village_rules.proofs.link.sample import SAMPLE_GAMES, SAMPLE_STEPS, link_check_logs, model_covers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300, help="fuzz games (check plays 300)")
    parser.add_argument("--seed", type=int, default=0, help="the fuzz run's seed")
    parser.add_argument("--sample", type=int, default=SAMPLE_GAMES, help="games in the sample")
    parser.add_argument("--steps", type=int, default=SAMPLE_STEPS, help="the sample's step budget")
    parser.add_argument("--every", action="store_true", help="also check the link on every game")
    args = parser.parse_args()
    logs: list[GameLog] = []
    start = time.process_time()
    for index in range(args.games):
        g = plan_game(args.seed, index)
        logs.append(play_logged(g.edition, g.players, g.seed, g.variant)[1])
    played = time.process_time() - start
    actions = sum(len(log.actions) for log in logs)
    cover = sum(1 for log in logs if log.players >= 2 and model_covers(log))
    print(f"{len(logs)} games, {actions} actions, played in {played:.1f} s CPU")
    print(f"{cover} of them played by the default readings (the model covers those as logged)")

    start = time.process_time()
    result = link_check_logs(logs, games=args.sample, max_steps=args.steps)
    spent = time.process_time() - start
    print(result)
    per_step = 1e6 * spent / max(result.steps, 1)
    print(f"link on the sample: {result.steps} steps in {spent:.1f} s CPU ({per_step:.0f} µs/step)")
    if args.every:
        start = time.process_time()
        every = link_check_logs(logs, games=len(logs), max_steps=10**9)
        spent = time.process_time() - start
        print(every)
        print(f"link on every game: {every.steps} steps in {spent:.1f} s CPU")


if __name__ == "__main__":
    main()
