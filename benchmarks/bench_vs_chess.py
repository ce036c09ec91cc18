"""Village-rules against python-chess, interleaved in one process (not a test: figures vary
by machine and load). Needs the `bench` extra for the chess side: pip install -e ".[bench]".

    python benchmarks/bench_vs_chess.py [--rounds 5] [--seconds 1.0] [--players 4]

Prints, per round and as medians:
- village-rules random-playout seat decisions/s (public API: new_game, legal_actions,
  chance_outcomes, apply; chance steps are played but not counted),
- python-chess random-playout moves/s (`board.legal_moves`, `push` until
  `is_game_over()`), and the ratio of the two;
- with the native core built (docs/native.md): its whole random playouts, from the set-up
  to the end of the game, in seat decisions/s counted the same way (chance steps played, not
  counted), each with its ratio to python-chess's moves/s of the same round: the core's own
  loop in C++ (`Game.playout`: uniform choices and seeded draws in C++) and the same loop in
  Python through the binding (`NativeEngine`: legal_actions, chance_outcomes, apply). Their
  games are of 2 to 5 players (the core refuses solo, so `--players` is 2 to 5), set up by the
  reference (a few seeded set-ups per round, both editions alternating) and loaded into the
  core before each game, untimed: only the playouts are timed;
- the invariant-checked throughput (what the fuzzer checks at every step: every state and
  transition invariant) as a fraction of bare, with and without the legal-set oracle;
- the time to clone a state (`copy.deepcopy`), its pickled size, and the memory per held
  state (tracemalloc over every state of one game, all kept alive).
The sides run one after another within each round (reference, python-chess, the native
loop, the native binding, then the checked runs), so that load on a shared machine falls
on all of them alike.
"""

from __future__ import annotations

import argparse
import copy
import os
import pickle
import random
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable

from village_rules import apply, chance_outcomes, legal_actions, new_game
from village_rules.checks.incremental import IncrementalChecker
from village_rules.model.chance import sample
from village_rules.model.state import GameState

EDITIONS = ("big-box-2023", "original-2011")


def village_rate(seconds: float, players: int, seed: int, check: str = "none") -> float:
    """Seat decisions per second of seeded random playouts for about `seconds`."""
    rng = random.Random(seed)
    decisions = 0
    game = 0
    # what the fuzzer checks at every step; "no-oracle": every invariant but structure.legal_set
    checker = IncrementalChecker(oracle=check != "no-oracle")
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = new_game(EDITIONS[game % 2], min(players, 4 if game % 2 else 5), seed + game)
        game += 1
        while not state.is_terminal:
            if state.is_chance:
                action = sample(chance_outcomes(state), rng)
            else:
                legal = legal_actions(state)
                action = legal[rng.randrange(len(legal))]
                decisions += 1
            after = apply(state, action)
            if check != "none":
                legal_after = None if after.is_chance or after.is_terminal else legal_actions(after)
                found = checker.step(state, action, after, legal_after)
                if found:
                    raise AssertionError(found)
            state = after
    return decisions / (time.perf_counter() - start)


def chess_rate(seconds: float, seed: int) -> float | None:
    """python-chess random-playout moves per second, or None without the bench extra."""
    try:
        import chess  # noqa: PLC0415 (optional: the `bench` extra)
    except ImportError:
        return None
    rng = random.Random(seed)
    moves = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        board = chess.Board()
        while not board.is_game_over():
            legal = list(board.legal_moves)
            board.push(legal[rng.randrange(len(legal))])
            moves += 1
    return moves / (time.perf_counter() - start)


def held_states(edition: str, players: int, seed: int) -> tuple[GameState, list[GameState]]:
    rng = random.Random(seed)
    state = new_game(edition, players, seed)
    states = [state]
    while not state.is_terminal:
        if state.is_chance:
            action = sample(chance_outcomes(state), rng)
        else:
            legal = legal_actions(state)
            action = legal[rng.randrange(len(legal))]
        state = apply(state, action)
        states.append(state)
    return state, states


def memory_per_state(edition: str, players: int, seed: int) -> tuple[float, int]:
    """Bytes per held state: tracemalloc's growth while one game's states are all kept."""
    held_states(edition, players, seed)  # warm caches (edition data, lru caches)
    tracemalloc.start()
    base, _ = tracemalloc.get_traced_memory()
    _, states = held_states(edition, players, seed)
    used, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return (used - base) / len(states), len(states)


def timed(fn: Callable[[], object], number: int) -> float:
    start = time.perf_counter()
    for _ in range(number):
        fn()
    return (time.perf_counter() - start) / number


def native_setups(players: int, seed: int, count: int = 8) -> list[GameState]:
    """The reference's set-ups the native playouts start from: `count` seeded games, both
    editions alternating (as `village_rate` plays them), made once per round, untimed."""
    return [new_game(EDITIONS[k % 2], min(players, 4 if k % 2 else 5), seed + k) for k in range(count)]


def native_loop_rate(seconds: float, setups: list[GameState], seed: int) -> float:
    """Seat decisions per second of the native core's own C++ loop (`Game.playout`) on whole
    games for about `seconds` of playout time (each game's load into the core untimed)."""
    from village_rules.native import NativeEngine  # noqa: PLC0415 (optional: the native build)

    engine = NativeEngine()
    decisions = 0
    elapsed = 0.0
    game = 0
    while elapsed < seconds:
        engine.load_state(setups[game % len(setups)])  # not timed
        start = time.perf_counter()
        _, made = engine.game.playout(seed + game, 10**9)
        elapsed += time.perf_counter() - start
        if not engine.is_terminal:
            raise RuntimeError(f"the native playout stopped before the end of game {game}")
        decisions += made
        game += 1
    return decisions / elapsed


def native_binding_rate(seconds: float, setups: list[GameState], seed: int) -> float:
    """Seat decisions per second of whole random games played through the binding
    (`NativeEngine`: the same loop as `village_rate`'s), each game's load untimed."""
    from village_rules.native import NativeEngine  # noqa: PLC0415 (optional: the native build)

    engine = NativeEngine()
    rng = random.Random(seed)
    decisions = 0
    elapsed = 0.0
    game = 0
    while elapsed < seconds:
        engine.load_state(setups[game % len(setups)])  # not timed
        game += 1
        start = time.perf_counter()
        while not engine.is_terminal:
            if engine.is_chance:
                engine.apply(sample(engine.chance_outcomes(), rng))
            else:
                ids = engine.legal_actions()
                engine.apply(ids[rng.randrange(len(ids))])
                decisions += 1
        elapsed += time.perf_counter() - start
    return decisions / elapsed


def native_built() -> bool:
    try:
        import village_rules.native  # noqa: F401, PLC0415 (optional: the native build)
    except ImportError:
        return False
    return True


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=1.0, help="per side and round")
    parser.add_argument("--players", type=int, default=4, choices=range(2, 6), metavar="{2..5}")
    args = parser.parse_args()
    native = native_built()
    load = os.getloadavg()
    print(f"load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores")
    print(f"{args.players}-player random playouts, both editions alternating; {args.seconds:.1f} s per side")
    if native:
        print(
            "native: whole games, seat decisions/s and x python-chess's moves/s of the round;"
            " 'C++ loop' = Game.playout, 'binding' = NativeEngine from Python"
        )
    else:
        print("native core: not built (docs/native.md): no native columns")
    head = f"{'round':>5} {'village dec/s':>14} {'chess moves/s':>14} {'ratio':>6}"
    if native:
        head += f" {'C++ loop dec/s':>15} {'x chess':>8} {'binding dec/s':>14} {'x chess':>8}"
    print(head + f" {'checked/bare':>13} {'no-oracle/bare':>15}")
    ratios: list[float] = []
    checked: list[float] = []
    no_oracle: list[float] = []
    villages: list[float] = []
    chesses: list[float] = []
    natives: dict[str, list[float]] = {"C++ loop": [], "binding": []}
    native_ratios: dict[str, list[float]] = {"C++ loop": [], "binding": []}
    for r in range(args.rounds):
        v = village_rate(args.seconds, args.players, 1000 * r)
        c = chess_rate(args.seconds, r)
        rates: dict[str, float] = {}
        if native:
            setups = native_setups(args.players, 1000 * r)  # made before the timed runs
            rates["C++ loop"] = native_loop_rate(args.seconds, setups, 1000 * r)
            rates["binding"] = native_binding_rate(args.seconds, setups, 1000 * r)
        full = village_rate(args.seconds, args.players, 1000 * r, check="all")
        v2 = village_rate(args.seconds, args.players, 1000 * r)
        part = village_rate(args.seconds, args.players, 1000 * r, check="no-oracle")
        bare = (v + v2) / 2
        villages.append(bare)
        checked.append(full / bare)
        no_oracle.append(part / bare)
        line = f"{r + 1:>5} {bare:>14.0f} "
        if c is not None:
            chesses.append(c)
            ratios.append(bare / c)
            line += f"{c:>14.0f} {bare / c:>6.2f}"
        else:
            line += f"{'(no chess)':>14} {'-':>6}"
        for name, width in (("C++ loop", 15), ("binding", 14)):
            if name not in rates:
                continue
            natives[name].append(rates[name])
            line += f" {rates[name]:>{width}.0f}"
            if c is not None:
                native_ratios[name].append(rates[name] / c)
                line += f" {rates[name] / c:>7.1f}x"
            else:
                line += f" {'-':>8}"
        print(line + f" {full / bare:>13.2f} {part / bare:>15.2f}")
    print(f"median village-rules seat decisions/s: {statistics.median(villages):.0f}")
    if chesses:
        print(f"median python-chess moves/s:           {statistics.median(chesses):.0f}")
        print(f"median ratio village/chess:            {statistics.median(ratios):.2f}")
    else:
        print("python-chess not installed (pip install -e '.[bench]'): no ratio")
    for name, label in (("C++ loop", "native C++ loop"), ("binding", "native binding ")):
        if natives[name]:
            line = f"median {label} seat decisions/s: {statistics.median(natives[name]):.0f}"
            if native_ratios[name]:
                ratio = statistics.median(native_ratios[name])
                line += f" ({ratio:.1f}x python-chess: the median of the rounds' ratios)"
            print(line)
    print(f"median invariant-checked / bare:       {statistics.median(checked):.2f} (with the oracle)")
    print(f"median invariant-checked / bare:       {statistics.median(no_oracle):.2f} (without it)")

    final, states = held_states("big-box-2023", args.players, 7)
    mid = states[len(states) // 2]
    print(f"clone (copy.deepcopy) of a state:      {timed(lambda: copy.deepcopy(mid), 20000) * 1e6:.2f} µs")
    print(f"clone (copy.copy) of a state:          {timed(lambda: copy.copy(mid), 20000) * 1e6:.2f} µs")
    sizes = [len(pickle.dumps(s, protocol=pickle.HIGHEST_PROTOCOL)) for s in (states[0], mid, final)]
    print(f"pickled state (start, middle, end):    {sizes[0]} / {sizes[1]} / {sizes[2]} bytes")
    blob = pickle.dumps(mid, protocol=pickle.HIGHEST_PROTOCOL)
    round_trip = timed(lambda: pickle.loads(pickle.dumps(mid)), 2000) * 1e6
    print(
        f"pickle + unpickle of a state:          {round_trip:.1f} µs"
        f" (equal after: {pickle.loads(blob) == mid})"
    )
    for edition, players in (("big-box-2023", args.players), ("original-2011", min(args.players, 4))):
        per, count = memory_per_state(edition, players, 7)
        print(f"memory per held state ({edition}, {count} states): {per:.0f} bytes")
    load = os.getloadavg()
    print(f"load average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
