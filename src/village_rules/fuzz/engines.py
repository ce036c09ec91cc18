"""Which engine plays a fuzz run's games: the reference (the Python engine) or the native
core (issue 39, item 2), and the native core's game loop.

The native loop is `games.play_game`'s, step for step: the same set-up (the reference's
`new_game`, loaded into the core), the same RNG draws in the same order (a decision is the
policy's pick among the legal ids in the reference's order; a chance outcome is `sample`'s
ticket over the exact probabilities), the same checks (the native `state_violations` of
the state after and `transition_violations` of the step, `cpp/checks.cpp`, each tied to
the Python checker), the same rule IDs (the core's rule events, `Game.apply_steps`, tied
to the reference's) and the same digest (the log and the core's canonical JSON, byte for
byte the reference's). So a run gives the same summary with either engine;
tests/fuzz/test_fuzz_engines.py holds them to it, and `village-rules check` plays its
batch natively and then every passing game again on the reference, comparing digests.

A policy other than random reads the reference's state: it is handed the core's state
decoded by the reference (`from_json`) and the legal actions decoded from their ids; it is
a player, not the engine under test.
"""

from __future__ import annotations

import random
from collections import Counter
from math import gcd, lcm

from village_rules.checks.invariants import Violation
from village_rules.data.loader import builtin_edition
from village_rules.drivers import engine_choice
from village_rules.drivers.engine_choice import ENGINES, NATIVE, REFERENCE
from village_rules.drivers.play import game_bound
from village_rules.drivers.serialization import from_json, to_json
from village_rules.engine.setup import new_game
from village_rules.errors import FuzzArgumentError
from village_rules.fuzz.games import (
    ENGINE_EXCEPTION,
    FuzzGame,
    GameResult,
    game_result,
    no_end,
    plan_game,
    play_game,
    stopping,
)
from village_rules.model.actions import action_from_id, action_id, format_action
from village_rules.policies import policy_named

__all__ = [
    "ENGINES",
    "NATIVE",
    "REFERENCE",
    "default_engine",
    "native_built",
    "play",
    "play_chunk",
    "play_game_native",
    "resolve_engine",
    "sample_id",
]

def native_built() -> bool:
    """Whether this install has the compiled native core (`engine_choice.native_built`)."""
    return engine_choice.native_built()


def default_engine() -> str:
    """The engine a run uses when none is named: the native core where it is built."""
    return engine_choice.choose(None, native_built())[0]


def resolve_engine(engine: str | None) -> str:
    """`engine`, or the default when None; `FuzzArgumentError` for an unknown name or for
    the native core where it is not built (never a silent fall-back to the reference)."""
    chosen, problem = engine_choice.choose(engine, native_built(), reference="--engine reference")
    if problem is not None:
        raise FuzzArgumentError("--engine", problem)
    return chosen


def play(game: FuzzGame, max_steps: int | None = None, engine: str = REFERENCE) -> GameResult:
    """Play one planned game, every invariant checked, on `engine`."""
    return play_game_native(game, max_steps) if engine == NATIVE else play_game(game, max_steps)


def play_chunk(  # noqa: PLR0917 - sent to pool workers and Ray tasks positionally
    seed: int,
    indices: tuple[int, ...],
    edition: str | None,
    players: int | None,
    max_steps: int,
    readings: tuple[tuple[str, str], ...] | None = None,
    policy: str = "random",
    engine: str = REFERENCE,
) -> list[GameResult]:
    """Games of a chunk in order on `engine`, stopping after the first failing one (or when
    the run is being stopped)."""
    out = []
    for i in indices:
        if stopping():
            break
        result = play(plan_game(seed, i, edition, players, readings, policy), max_steps, engine)
        out.append(result)
        if result.failed:
            break
    return out


def sample_id(outcomes: list[tuple[int, int, int]], rng: random.Random) -> int:
    """`model.chance.sample` over the core's (id, numerator, denominator) outcomes: the same
    ticket from `rng` over the same reduced fractions, so the same outcome as the
    reference's draw (in integers: no `Fraction` per outcome)."""
    if not outcomes:
        raise ValueError("a chance event needs at least one outcome")
    reduced = [(i, n // g, d // g) for i, n, d in outcomes for g in (gcd(n, d),)]
    denominator = lcm(*(d for _, _, d in reduced))
    ticket = rng.randrange(denominator)
    for outcome, n, d in reduced:
        ticket -= n * (denominator // d)
        if ticket < 0:
            return outcome
    raise ValueError("chance outcome probabilities do not sum to 1")


def _violations(found: list[tuple[str, str, str, str]]) -> list[Violation]:
    return [Violation(*v) for v in found]


def play_game_native(game: FuzzGame, max_steps: int | None = None) -> GameResult:
    """`games.play_game` on the native core (module docstring): the same result."""
    from village_rules.native import NativeEngine  # noqa: PLC0415 - the optional extension

    max_steps = game_bound(max_steps)
    data = builtin_edition(game.edition)
    policy = policy_named(game.policy)
    uniform = game.policy == "random"
    rng = random.Random(game.seed)
    ids: list[int] = []
    rules: Counter[str] = Counter()
    chance = 0
    engine = NativeEngine()
    violations: list[Violation]
    start = new_game(data, game.players, game.seed, game.variant)  # outside the try, as play_game's
    try:
        engine.load_state(start)
        state = engine.game
        violations = _violations(state.violations())
    except Exception as exc:  # any crash is a finding, reported with the log
        return _result(game, ids, chance, rules, to_json(start), [_crash("set-up state", "checks run", exc)])
    while not violations and not state.is_terminal():
        if len(ids) >= max_steps:
            violations = [no_end(max_steps)]
            break
        if state.is_chance():
            try:
                action = sample_id(state.chance(), rng)
            except Exception as exc:  # any crash is a finding, reported with the log
                violations = [_crash("chance outcomes", "a chance event", exc)]
                break
            chance += 1
        else:
            legal = state.legal()
            if not legal:  # reported by the invariants already
                break
            if uniform:
                action = legal[rng.randrange(len(legal))]  # drivers.play.random_policy's draw
            else:
                reference = from_json(state.to_json())
                pick = policy(reference, [action_from_id(data, i) for i in legal], rng)
                action = action_id(data, pick)
        ids.append(action)
        try:
            after = state.copy()
            steps = after.apply_steps(action)
            violations = _violations(after.violations()) + _violations(
                state.transition_violations(action, after)
            )
        except Exception as exc:  # any crash is a finding, reported with the log
            where = f"action {len(ids)} ({format_action(action_from_id(data, action))!r})"
            violations = [_crash(where, "a listed action applies", exc)]
            break
        rules.update(event[0] for _, _, events in steps for event in events)
        state = after
    return _result(game, ids, chance, rules, state.to_json(), violations)


def _result(  # noqa: PLR0917 - game_result's arguments
    game: FuzzGame, ids: list[int], chance: int, rules: Counter[str], final: str, violations: list[Violation]
) -> GameResult:
    """`games.game_result` of a game played by action ids."""
    data = builtin_edition(game.edition)
    actions = [format_action(action_from_id(data, i)) for i in ids]
    return game_result(game, actions, chance, rules, final, violations)


def _crash(where: str, expected: str, exc: Exception) -> Violation:
    return Violation(ENGINE_EXCEPTION, where, expected, f"{type(exc).__name__}: {exc}")
