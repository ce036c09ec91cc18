"""Which steps the native core refuses, and how often, over seeded games (issue 39).

Plays seeded random games of the reference (both editions, 1 to 5 players: 1 is the 2023
edition's solo game against Carla; the default readings) through the tie
(`village_rules.native.tie.compare_game`) and prints every refused step by the core's
NotSupportedError message, most frequent first: what to port next. Each refusal ends a
stretch the core played by itself (the tie then loads the reference's state again), so
every count is a "first refusal" of its stretch.

    python scripts/native_refusals.py [--seeds N]
    python scripts/native_refusals.py --figures
    python scripts/native_refusals.py --speed [--seeds N]

`--figures` prints docs/native.md's coverage table instead: seeded games (every edition and
player count under the default readings and AMB-01 b and c, solo games also under each solo
reading's other letter, 2 seeds each), the golden games and the stored witnesses that are game
logs, each compared by the tie (0 differences, or the first one raises).

`--speed` prints the whole-game playout speed (uniform random choices, seeded draws, from the
set-up to the end) of the reference and of the native core in one run: through the binding
(the same Python loop over `NativeEngine`) and as the core's own C++ loop (`Game.playout`),
with their ratios to the reference (2 to 5 players, as the figures in docs/native.md were
measured). Figures of one run on one machine, not a timed test.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

from village_rules.engine.core import apply, chance_outcomes, legal_actions
from village_rules.engine.setup import new_game
from village_rules.model.chance import sample
from village_rules.native import NativeEngine
from village_rules.native.tie import TieCounts, compare_game, log_game, seeded_game
from village_rules.rules.variant import Variant

CONFIGS = (("original-2011", (2, 3, 4)), ("big-box-2023", (1, 2, 3, 4, 5)))
"""Every edition and player count (1: the 2023 solo game; 2011 has no solo mode)."""
SPEED_CONFIGS = (("original-2011", (2, 3, 4)), ("big-box-2023", (2, 3, 4, 5)))
SOLO_READINGS = tuple(
    ((amb, letter),)
    for amb, letter in (
        ("AMB-36", "b"),
        ("AMB-37", "b"),
        ("AMB-37", "c"),
        ("AMB-38", "b"),
        ("AMB-39", "b"),
        ("AMB-41", "b"),
        ("AMB-42", "b"),
        ("AMB-43", "b"),
    )
)
"""Each solo reading's other letter (specs/ambiguities.md), for the solo games of --figures."""


ROOT = Path(__file__).resolve().parent.parent


def figures() -> None:
    """docs/native.md's coverage table: one row per input, then the total."""
    seeded = TieCounts()
    for edition, counts in CONFIGS:
        for players in counts:
            solo = SOLO_READINGS if players == 1 else ()
            for readings in ((), (("AMB-01", "b"),), (("AMB-01", "c"),), *solo):
                for seed in range(2):
                    seeded.add(compare_game(*seeded_game(edition, players, 1000 * seed + players, readings)))
    golden = TieCounts()
    for path in sorted((ROOT / "tests" / "golden" / "engine-golden").glob("*-seed*.json")):
        golden.add(compare_game(*log_game(path)))
    witnesses = TieCounts()
    folders = (ROOT / "proofs" / "witnesses", ROOT / "src" / "village_rules" / "readings" / "witnesses")
    for path in sorted(p for folder in folders for p in folder.glob("*.json")):
        if json.loads(path.read_text()).get("format") == "village-rules-log":
            witnesses.add(compare_game(*log_game(path)))
    total = TieCounts()
    columns = ("input", "games", "states compared", "legal sets", "chance events", "steps applied natively")
    print("| " + " | ".join((*columns, "steps refused", "ends scored")) + " |")
    for name, row in (("seeded", seeded), ("golden", golden), ("witnesses", witnesses), ("total", total)):
        if name != "total":
            total.add(row)
        refused = sum(row.refused_why.values())
        scored = row.compared.get("scores", 0)
        print(
            f"| {name} | {row.games:,} (+{row.refused_games:,} refused at load) | {row.states:,} "
            f"| {row.legal:,} | {row.chance:,} | {row.applied:,} | {refused:,} | {scored:,} |"
        )


def speed(seeds: int) -> None:
    """Whole random playouts on the reference and natively, `seeds` games per edition and
    player count each: steps and seat decisions per second, and the ratios."""
    setups = [
        (edition, n, seed) for edition, counts in SPEED_CONFIGS for n in counts for seed in range(seeds)
    ]
    rows: list[tuple[str, int, int, float]] = []

    steps = decisions = 0
    start = time.perf_counter()
    for edition, players, seed in setups:
        rng = random.Random(seed)
        state = new_game(edition, players, seed, Variant(True, ()))
        while not state.is_terminal:
            if state.is_chance:
                action = sample(chance_outcomes(state), rng)
            else:
                legal = legal_actions(state)
                action = legal[rng.randrange(len(legal))]
                decisions += 1
            state = apply(state, action)
            steps += 1
    rows.append(("reference", steps, decisions, time.perf_counter() - start))

    steps = decisions = 0
    engine = NativeEngine()
    start = time.perf_counter()
    for edition, players, seed in setups:
        rng = random.Random(seed)
        engine.new_game_from(edition=edition, players=players, seed=seed)
        while not engine.is_terminal:
            if engine.is_chance:
                choice = sample(engine.chance_outcomes(), rng)
            else:
                ids = engine.legal_actions()
                choice = ids[rng.randrange(len(ids))]
                decisions += 1
            engine.apply(choice)
            steps += 1
        engine.scores()
    rows.append(("native, through the binding", steps, decisions, time.perf_counter() - start))

    steps = decisions = 0
    elapsed = 0.0
    for edition, players, seed in setups:
        engine.new_game_from(edition=edition, players=players, seed=seed)  # the set-up is the reference's
        start = time.perf_counter()
        done, decided = engine.game.playout(seed, 10**9)
        elapsed += time.perf_counter() - start
        if not engine.is_terminal:
            raise SystemExit(f"the native playout stopped before the end: {edition} {players} {seed}")
        steps, decisions = steps + done, decisions + decided
    rows.append(("native, C++ loop", steps, decisions, elapsed))

    chess = chess_rate(2.0)
    print(f"whole random playouts: {len(setups)} games each (both editions, 2-5 players)")
    head = ("", "games' steps", "steps/s", "seat decisions/s", "vs the reference (steps/s)", "vs chess")
    print("| " + " | ".join(head) + " |")
    print("|---|---|---|---|---|---|")
    reference_rate = rows[0][1] / rows[0][3]
    for name, n, d, seconds in rows:
        rate = n / seconds
        versus = f"{d / seconds / chess:.1f}x (seat decisions/s)" if chess else "(no python-chess)"
        ratio = rate / reference_rate
        print(f"| {name} | {n:,} | {rate:,.0f} | {d / seconds:,.0f} | {ratio:.1f}x | {versus} |")
    if chess:
        print(f"python-chess random playouts, same run: {chess:,.0f} moves/s")


def chess_rate(seconds: float) -> float | None:
    """python-chess random-playout moves per second (as benchmarks/bench_vs_chess.py), or
    None without the bench extra."""
    try:
        import chess  # noqa: PLC0415 (optional: the `bench` extra)
    except ImportError:
        return None
    rng = random.Random(0)
    moves = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        board = chess.Board()
        while not board.is_game_over():
            legal = list(board.legal_moves)
            board.push(legal[rng.randrange(len(legal))])
            moves += 1
    return moves / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3, help="games per edition and player count")
    parser.add_argument("--figures", action="store_true", help="print docs/native.md's coverage table")
    parser.add_argument("--speed", action="store_true", help="print the whole-game playout speed, both cores")
    args = parser.parse_args()
    if args.figures:
        figures()
        return
    if args.speed:
        speed(args.seeds)
        return
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
