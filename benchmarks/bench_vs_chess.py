"""Village-rules against python-chess, interleaved in one process (not a test: figures vary
by machine and load). Needs the `bench` extra for the chess side: pip install -e ".[bench]".

    python benchmarks/bench_vs_chess.py [--rounds 5] [--seconds 1.0] [--players 4]

Prints, per round and as medians:
- village-rules random-playout seat decisions/s (public API: new_game, legal_actions,
  chance_outcomes, apply; chance steps are played but not counted),
- python-chess random-playout moves/s (`board.legal_moves`, `push` until
  `is_game_over()`), and the ratio of the two;
- the invariant-checked throughput (what the fuzzer checks at every step: every state and
  transition invariant) as a fraction of bare, with and without the legal-set oracle;
- the time to clone a state (`copy.deepcopy`), its pickled size, and the memory per held
  state (tracemalloc over every state of one game, all kept alive);
- with the native core built (docs/native.md): its seat decisions/s on the part of the game
  it implements so far, driven from Python through the binding and as a loop in C++, beside
  the reference's rate on the very same steps. Until the core plays whole games these are
  *segments*: from the start of each round of some seeded games (the seeding draws, the
  plain turns) up to the first step the core does not implement; the states they start from
  are set up beforehand and not timed.
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


def native_segments(players: int, seed: int) -> list[tuple[GameState, list[int]]]:
    """Start states for the native segments (the first state of every round of a seeded
    game per edition) and the ids of the random segment the native core plays from each:
    (state, ids), the ids then replayed on the reference for its side."""
    from village_rules.model.actions import action_id  # noqa: PLC0415
    from village_rules.native import NativeEngine  # noqa: PLC0415 (optional: the native build)

    starts: list[GameState] = []
    for k, edition in enumerate(EDITIONS):
        _, states = held_states(edition, min(players, 4 if k else 5), seed)
        rounds = {s.round for s in states}
        starts += [next(s for s in states if s.round == r) for r in sorted(rounds)]
    rng = random.Random(seed)
    engine = NativeEngine()
    out: list[tuple[GameState, list[int]]] = []
    for start in starts:
        engine.load_state(start)
        ids: list[int] = []
        state = start
        while not state.is_terminal:
            if state.is_chance:
                action = sample(chance_outcomes(state), rng)
            else:
                legal = legal_actions(state)
                action = legal[rng.randrange(len(legal))]
            try:
                engine.apply(action_id(state.rules.data, action))
            except RuntimeError:  # NotSupported: the segment ends here
                break
            ids.append(action_id(state.rules.data, action))
            state = apply(state, action)
        out.append((start, ids))
    return out


def native_rates(
    segments: list[tuple[GameState, list[int]]], repeat: int
) -> dict[str, tuple[float, float]]:
    """(steps/s, seat decisions/s) on the segments: the native core through the binding
    (legal ids or chance outcomes asked at every step, as a playout does, then the id
    applied), the reference on the same steps (legal_actions / chance_outcomes, apply), and
    the native core's own C++ loop (seeded random segments from the same starts)."""
    from village_rules.model.actions import action_from_id  # noqa: PLC0415
    from village_rules.native import NativeEngine  # noqa: PLC0415

    engine = NativeEngine()
    native_time = reference_time = 0.0
    steps = decisions = 0
    for _ in range(repeat):
        for start, ids in segments:
            engine.load_state(start)  # not timed
            game = engine.game
            t0 = time.perf_counter()
            for i in ids:
                if game.is_chance():
                    game.chance()
                else:
                    game.legal()
                game.apply(i)
            native_time += time.perf_counter() - t0
            state = start
            data = start.rules.data
            t0 = time.perf_counter()
            for i in ids:
                if state.is_chance:
                    chance_outcomes(state)
                else:
                    legal_actions(state)
                    decisions += 1
                state = apply(state, action_from_id(data, i))
            reference_time += time.perf_counter() - t0
            steps += len(ids)
    loop_steps = loop_decisions = 0
    loop_time = 0.0
    for r in range(repeat):
        for k, (start, _) in enumerate(segments):
            engine.load_state(start)  # not timed
            t0 = time.perf_counter()
            done, made = engine.game.playout(1000 * r + k, 10_000)
            loop_time += time.perf_counter() - t0
            loop_steps += done
            loop_decisions += made
    return {
        "native via binding": (steps / native_time, decisions / native_time),
        "reference, same steps": (steps / reference_time, decisions / reference_time),
        "native C++ loop": (loop_steps / loop_time, loop_decisions / loop_time),
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=1.0, help="per side and round")
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args()
    load = os.getloadavg()
    print(f"load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores")
    print(f"{args.players}-player random playouts, both editions alternating; {args.seconds:.1f} s per side")
    print(
        f"{'round':>5} {'village dec/s':>14} {'chess moves/s':>14} {'ratio':>6}"
        f" {'checked/bare':>13} {'no-oracle/bare':>15}"
    )
    ratios: list[float] = []
    checked: list[float] = []
    no_oracle: list[float] = []
    villages: list[float] = []
    chesses: list[float] = []
    for r in range(args.rounds):
        v = village_rate(args.seconds, args.players, 1000 * r)
        c = chess_rate(args.seconds, r)
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
        print(line + f" {full / bare:>13.2f} {part / bare:>15.2f}")
    print(f"median village-rules seat decisions/s: {statistics.median(villages):.0f}")
    if chesses:
        print(f"median python-chess moves/s:           {statistics.median(chesses):.0f}")
        print(f"median ratio village/chess:            {statistics.median(ratios):.2f}")
    else:
        print("python-chess not installed (pip install -e '.[bench]'): no ratio")
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
    try:
        import village_rules.native  # noqa: F401, PLC0415 (optional: the native build)
    except ImportError:
        print("native core: not built (docs/native.md): no native line")
    else:
        segments = native_segments(args.players, 7)
        steps = sum(len(ids) for _, ids in segments)
        rates = native_rates(segments, max(1, args.rounds))
        chess = statistics.median(chesses) if chesses else None
        print(
            f"native segments: {len(segments)} round starts, {steps} steps up to the first unported"
            " step (mostly seeding draws: steps/s counts chance steps too, decisions/s does not)"
        )
        for name, (per_step, per_decision) in rates.items():
            versus = f"  steps/s = {per_step / chess:6.2f}x chess moves/s" if chess else ""
            print(f"  {name:<22} steps/s: {per_step:>9.0f}  seat decisions/s: {per_decision:>8.0f}{versus}")
        same = rates["native via binding"][0] / rates["reference, same steps"][0]
        print(f"  native via binding / reference on the same steps: {same:.1f}x")
    load = os.getloadavg()
    print(f"load average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
