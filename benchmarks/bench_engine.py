"""Print the engine's speed and memory figures (not a test: figures vary by machine).

    python benchmarks/bench_engine.py [--games 20]

Reports, per edition and player count: seeded random games per second, actions per
second, the mean game length, and the size of a state in memory and as JSON.
"""

from __future__ import annotations

import argparse
import sys
import time
import tracemalloc

from village_rules.data.loader import builtin_edition
from village_rules.drivers.play import play_logged
from village_rules.drivers.serialization import to_json
from village_rules.engine.setup import new_game


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=20)
    args = parser.parse_args()
    header = ("edition", "players", "games/s", "actions/s", "actions", "state KiB", "JSON KiB")
    print(" ".join(f"{h:>{w}}" for h, w in zip(header, (14, 7, 8, 10, 8, 9, 8), strict=True)))
    for edition in ("big-box-2023", "original-2011"):
        for players in builtin_edition(edition).player_counts:
            start = time.perf_counter()
            actions = 0
            for seed in range(args.games):
                _, log = play_logged(edition, players, seed)
                actions += len(log.actions)
            seconds = time.perf_counter() - start
            tracemalloc.start()
            state = new_game(edition, players, 0)
            size, _ = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            json_kib = len(to_json(state)) / 1024
            print(
                f"{edition:14} {players:>7} {args.games / seconds:>8.1f} {actions / seconds:>10.0f} "
                f"{actions / args.games:>8.0f} {size / 1024:>9.1f} {json_kib:>8.1f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
