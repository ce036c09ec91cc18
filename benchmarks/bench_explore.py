"""Print the explorer's figures beside the playout loop's, in one run (not a test: figures
vary by machine and load).

    python benchmarks/bench_explore.py [--config small] [--games 20] [--workers 1 2]
    python benchmarks/bench_explore.py --native [--config small]

Prints, for a shipped reduced configuration: distinct states per second and edges per
second with every invariant checked and without, and the seen-set's bytes per state, for
each worker count asked for (`explore/parallel.py`); then the steps per second of seeded
random playouts of the same configuration (the same engine calls, no seen-set) and of the
shipped 2011 edition, as the anchor. Each run is timed twice: in CPU seconds of all its
processes (this one and its workers), which other work on the machine changes little, so
1 and 2 processes compare by what splitting costs; and in wall seconds, which is what the
second core buys on a machine to itself and what a loaded machine slows (say so beside
the figures).

With `--native`, instead: the native explorer's loop (`village_rules.explore.native`,
C++; with each `--workers` count of threads) and the Python explorer's (one process, no
invariants: the same count) on the same configuration, in one run: each one's states and
distinct states per wall second and per CPU second, whether their counts tie, and the
native rates over the Python one.
"""

from __future__ import annotations

import argparse
import random
import resource
import time

from bench_checks import positive_int  # (this script's folder is on sys.path)

from village_rules.data.edition import EditionData
from village_rules.data.loader import builtin_edition
from village_rules.drivers.play import play, random_policy
from village_rules.engine.setup import new_game
from village_rules.explore.configs import configuration, shipped_names
from village_rules.explore.parallel import explore_parallel


def playout_steps_per_second(data: EditionData, players: int, games: int) -> float:
    """Actions per CPU second of seeded random games (`play`, the fuzzer's policy)."""
    start = time.process_time()
    steps = 0
    for seed in range(games):
        state = new_game(data, players, seed)
        _, actions = play(state, [random_policy] * state.num_players, random.Random(seed), max_steps=20_000)
        steps += len(actions)
    return steps / max(time.process_time() - start, 1e-9)


def _cpu_seconds() -> float:
    """CPU seconds of this process and of its ended children (the explorer's workers)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def native_beside_python(name: str, workers: list[int]) -> None:
    """Print the native loop's counts and rates on `name` for each thread count in
    `workers`, and the Python explorer's (one process) beside them."""
    try:
        from village_rules.explore.native import differences, explore_counts  # noqa: PLC0415 (optional)
    except ImportError as exc:
        print(f"the native core is not built: {exc}")
        return
    from village_rules.explore.search import explore  # noqa: PLC0415

    config = configuration(name)
    players = config.player_counts[0]
    natives = []
    for count in workers:
        wall, cpu = time.perf_counter(), _cpu_seconds()
        native = explore_counts(name, players, workers=count)
        natives.append((native, time.perf_counter() - wall, _cpu_seconds() - cpu))
    checked = []
    for count in workers:
        wall, cpu = time.perf_counter(), _cpu_seconds()
        native = explore_counts(name, players, workers=count, check=True)
        checked.append((native, time.perf_counter() - wall, _cpu_seconds() - cpu))
    wall, cpu = time.perf_counter(), _cpu_seconds()
    python = explore(config.data, players, check=False)
    python_wall, python_cpu = time.perf_counter() - wall, _cpu_seconds() - cpu
    figures = {
        "roots": python.roots,
        "states": python.states,
        "edges": python.edges,
        "depth": python.depth,
        "terminal": dict(python.terminal),
        "deadlocks": python.deadlocks,
    }
    rows = [(f"native, {n.workers} thr", n.states, w, c) for n, w, c in natives]
    rows += [(f"  checked, {n.workers} thr", n.states, w, c) for n, w, c in checked]
    for label, states, w, c in [*rows, ("Python, 1 proc", python.states, python_wall, python_cpu)]:
        print(
            f"{label:<20} {states:>9,} states {w:>8.2f} wall s {states / max(w, 1e-9):>10,.0f} states/wall s "
            f"{states / max(c, 1e-9):>10,.0f} states/CPU s"
        )
    for native, native_wall, native_cpu in natives:
        found = differences(native, figures)
        print(
            f"native, {native.workers} thread(s): counts "
            f"{'tied' if not found else 'DIFFER: ' + '; '.join(found)}; "
            f"{python_wall / max(native_wall, 1e-9):,.1f}x the Python explorer per wall second, "
            f"{python_cpu / max(native_cpu, 1e-9):,.1f}x per CPU second "
            f"(native loop alone {native.states_per_second:,.0f} states/s, set-up and loading excluded; "
            f"seen set {native.bytes_per_state:.1f} bytes/state, 1 MiB a thread of it the directory)"
        )
    for native, _, _ in checked:
        print(
            f"native, {native.workers} thread(s), every state and transition invariant checked: "
            f"{native.states_checked:,} states and {native.edges_checked:,} edges, "
            f"{native.violation_count} violations; "
            f"native loop alone {native.states_per_second:,.0f} checked states/s"
        )
    widest = natives[0][0]
    print(f"counts: {widest.figures()}; the widest level packed in {widest.frontier_bytes:,} bytes")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", choices=shipped_names(), default="small")
    parser.add_argument("--games", type=positive_int, default=20, help="playouts for the anchor figures")
    parser.add_argument("--workers", type=positive_int, nargs="+", default=[1, 2], help="worker counts")
    parser.add_argument("--native", action="store_true", help="the native loop beside the Python explorer")
    args = parser.parse_args()
    if args.native:
        print(f"configuration {args.config}: the native explorer's loop beside the Python explorer's")
        native_beside_python(args.config, args.workers)
        return 0
    config = configuration(args.config)
    players = config.player_counts[0]
    print(f"configuration {args.config} ({config.data.edition}, {players} player(s))")
    for workers in args.workers:
        for check in (True, False):
            wall, cpu = time.perf_counter(), _cpu_seconds()
            r = explore_parallel(config.data, players, workers=workers, check=check)
            wall, cpu = max(time.perf_counter() - wall, 1e-9), max(_cpu_seconds() - cpu, 1e-9)
            label = "every invariant checked" if check else "no invariants"
            print(
                f"explore, {workers} process(es), {label:<24} {r.states:>9,} states "
                f"{r.states / cpu:>9,.0f} states/CPU s {r.states / wall:>9,.0f} states/wall s  "
                f"{r.bytes_per_state:.1f} bytes/state (seen-set)"
            )
    same = playout_steps_per_second(config.data, players, args.games)
    anchor = playout_steps_per_second(builtin_edition("original-2011"), 2, args.games)
    print(f"random playouts, {args.config:<20} {same:>9,.0f} steps/s")
    print(f"random playouts, original-2011 2p      {anchor:>9,.0f} steps/s (the anchor)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
