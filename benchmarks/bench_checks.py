"""What each invariant check costs per step, next to what the step itself costs (not a
test: figures vary by machine and load). Explains the invariant-checked / bare ratio of
bench_vs_chess.py: which checks are worth making incremental, and what the fast/oracle
legal-set comparison costs on its own.

    python benchmarks/bench_checks.py [--games 20] [--players 4]

Records seeded random playouts (both editions alternating), then times, over every
recorded step in playout order (so the checks' memos fill as in a fuzz run): replaying the
steps with `apply`, each state check of `invariants.state_violations` on the state after,
the transition check, the legal-set oracle (`legal_set_violations`), and the
`IncrementalChecker` the fuzzer uses (every check, only over what each step changed), with
and without the oracle, its change spotting alone (the floor of comparing fields by
identity) and the share of steps its fused sound-test answers. Prints µs/step. (Here the
chance check computes the chance outcomes itself; in a playout the policy's
`chance_outcomes` call reuses them.)

Then the same in the playout loop, where the figures that decide the invariant-checked /
bare ratio are made: a check between two engine steps costs about 1.35x what it costs
replayed on its own (most likely the engine's work evicts the checker's code and data from
the CPU caches: an unrelated `apply` between two replayed checks has the same effect). Per
step, by CPU time, the median of `--rounds` rounds of `--loop-games` games:

- the bare loop;
- the loop with the calls a checked loop makes (the legal actions of the state after,
  which the next step reuses) but no check;
- plus only spotting what changed (the identity of every field, as the checker does first);
- plus spotting and the chance check (the outcomes of every chance state form a
  distribution);
- plus the whole `IncrementalChecker` without the oracle.

The spotting and chance rows are a floor: an exact checker that does not trust the
engine's own account of what it changed pays at least for them at every step, so the
ratio they leave bounds what any such checker can reach. The loop (`loop_per_step`) is
also what bench_compiled_checker.py times.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections.abc import Callable

from village_rules import apply, chance_outcomes, legal_actions, new_game
from village_rules.checks import invariants as inv
from village_rules.checks.incremental import IncrementalChecker
from village_rules.model.actions import Action
from village_rules.model.chance import sample
from village_rules.model.state import GameState

EDITIONS = ("big-box-2023", "original-2011")
Step = tuple[GameState, Action, GameState, list[Action] | None]

STATE_CHECKS: tuple[Callable[[GameState], list[inv.Violation]], ...] = (
    inv.cube_violations,
    inv.coin_violations,
    inv.grain_violations,
    inv.goods_violations,
    inv.customer_violations,
    inv.monk_violations,
    inv.marker_violations,
    inv.member_violations,
    inv.grain_capacity_violations,
    inv.non_negative_violations,
    inv.lifetime_violations,
    inv.seat_violations,
    inv.board_violations,
    inv.chance_violations,
    inv.phase_violations,
)


def record(games: int, players: int) -> list[Step]:
    steps: list[Step] = []
    for g in range(games):
        rng = random.Random(g)
        state = new_game(EDITIONS[g % 2], min(players, 4 if g % 2 else 5), g)
        while not state.is_terminal:
            if state.is_chance:
                action = sample(chance_outcomes(state), rng)
            else:
                options = legal_actions(state)
                action = options[rng.randrange(len(options))]
            after = apply(state, action)
            legal = None if after.is_chance or after.is_terminal else legal_actions(after)
            steps.append((state, action, after, legal))
            state = after
    return steps


def per_step(steps: list[Step], fn: Callable[[Step], object]) -> float:
    start = time.perf_counter()
    for step in steps:
        fn(step)
    return (time.perf_counter() - start) * 1e6 / len(steps)


def _after(check: Callable[[GameState], list[inv.Violation]]) -> Callable[[Step], object]:
    return lambda step: check(step[2])


def _fused_share(steps: list[Step]) -> float:
    """The share of steps the checker answers through its fused sound-test."""
    checker = IncrementalChecker(oracle=False)
    hits = 0
    fused = checker._fused

    def counting(state: GameState, changed: int, seatless: bool) -> bool:
        nonlocal hits
        found = fused(state, changed, seatless)
        hits += found
        return found

    checker._fused = counting  # type: ignore[method-assign]
    for step in steps:
        checker.step(*step)
    return hits / len(steps)


LOOP_MODES = (
    "bare loop",
    "+ the checked loop's calls, no check",
    "+ spotting the changes only",
    "+ spotting and the chance check",
    "+ IncrementalChecker, no oracle",
)


def loop_per_step(games: int, players: int, mode: int) -> float:
    """CPU µs per step of `games` seeded random playouts, checking as `LOOP_MODES[mode]`."""
    rng = random.Random(0)
    checker = IncrementalChecker(oracle=False)
    steps = 0
    start = time.process_time()
    for g in range(games):
        state = new_game(EDITIONS[g % 2], min(players, 4 if g % 2 else 5), g)
        while not state.is_terminal:
            if state.is_chance:
                action = sample(chance_outcomes(state), rng)
            else:
                options = legal_actions(state)
                action = options[rng.randrange(len(options))]
            after = apply(state, action)
            steps += 1
            if mode:
                legal = None if after.is_chance or after.is_terminal else legal_actions(after)
                found: list[inv.Violation] = []
                if mode == 4:
                    found = checker.step(state, action, after, legal)
                elif mode >= 2:
                    checker._changed(after)
                    if mode == 3 and legal is None:
                        found = inv.chance_violations(after)
                if found:
                    raise AssertionError(found)
            state = after
    return (time.process_time() - start) * 1e6 / steps


def loop_rows(games: int, players: int, rounds: int) -> list[float]:
    """The median per-step cost of each of `LOOP_MODES`, the modes interleaved per round."""
    costs: list[list[float]] = [[] for _ in LOOP_MODES]
    for _ in range(rounds):
        for mode in range(len(LOOP_MODES)):
            costs[mode].append(loop_per_step(games, players, mode))
    return [statistics.median(c) for c in costs]


def positive_int(text: str) -> int:
    """An argparse type: a whole number from 1 (else argparse's usage error, no traceback)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {value}")
    return value


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=positive_int, default=20)
    parser.add_argument("--players", type=int, choices=range(2, 6), default=4)
    parser.add_argument("--loop-games", type=positive_int, default=20, help="games per round in the loop")
    parser.add_argument("--rounds", type=positive_int, default=3, help="rounds of the loop figures")
    args = parser.parse_args()
    load = os.getloadavg()
    print(f"load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores")
    steps = record(args.games, args.players)
    print(f"{len(steps)} steps of {args.games} seeded {args.players}-player random playouts")
    rows: list[tuple[float, str]] = []
    for check in STATE_CHECKS:
        rows.append((per_step(steps, _after(check)), check.__name__))
    rows.append((per_step(steps, lambda s: inv.well_violations(s[2], s[3])), "well_violations"))
    rows.append((per_step(steps, lambda s: inv.has_move_violations(s[2], s[3] or [])), "has_move_violations"))
    rows.append(
        (per_step(steps, lambda s: inv.transition_violations(s[0], s[1], s[2])), "transition_violations")
    )
    oracle = per_step(steps, lambda s: inv.legal_set_violations(s[2], s[3]) if s[3] is not None else None)
    replay = per_step(steps, lambda s: apply(s[0], s[1]))
    quick = IncrementalChecker(oracle=False)
    incremental = per_step(steps, lambda s: quick.step(*s))
    full_checker = IncrementalChecker()
    incremental_oracle = per_step(steps, lambda s: full_checker.step(*s))
    spotting = IncrementalChecker(oracle=False)
    spot = per_step(steps, lambda s: spotting._changed(s[2]))  # the floor of this design
    fused = _fused_share(steps)
    print(f"{'apply (replaying the step)':34} {replay:7.2f} µs/step")
    for cost, name in sorted(rows, reverse=True):
        print(f"{name:34} {cost:7.2f} µs/step")
    checks = sum(cost for cost, _ in rows)
    print(f"{'every check but the oracle':34} {checks:7.2f} µs/step")
    print(f"{'IncrementalChecker, no oracle':34} {incremental:7.2f} µs/step (the same violations)")
    print(f"{'  of which spotting the changes':34} {spot:7.2f} µs/step (identity of the fields)")
    print(f"{'  steps through the fused test':34} {fused:7.0%}")
    print(f"{'legal_set_violations (the oracle)':34} {oracle:7.2f} µs/step")
    print(f"{'IncrementalChecker with the oracle':34} {incremental_oracle:7.2f} µs/step")
    loop = loop_rows(args.loop_games, args.players, args.rounds)
    print(f"in the playout loop (CPU time, median of {args.rounds} rounds of {args.loop_games} games):")
    print(f"{'':38} {'µs/step':>7}  {'added':>6}  {'÷ bare':>6}")
    for name, cost in zip(LOOP_MODES, loop, strict=True):
        print(f"{name:38} {cost:7.2f}  {cost - loop[0]:6.2f}  {loop[0] / cost:6.2f}")
    budget = loop[0] / 0.8 - loop[1]
    print(f"{'a ratio of 0.8 allows':38} {budget:7.2f} µs/step of checking in all")
    load = os.getloadavg()
    print(f"load average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
