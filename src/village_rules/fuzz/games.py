"""One fuzz game and one chunk of games: the seeded plan of a game, playing it with every
invariant checked, and the run plan and result collector every backend (this process, a
process pool, Ray tasks in `ray_backend`) shares."""

from __future__ import annotations

import contextlib
import hashlib
import random
import signal
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from multiprocessing.synchronize import Event as EventType

from village_rules.checks.incremental import IncrementalChecker
from village_rules.checks.invariants import Violation
from village_rules.data.loader import EDITIONS, builtin_edition
from village_rules.drivers.play import MAX_GAME_STEPS, GameLog, game_bound
from village_rules.drivers.serialization import to_json
from village_rules.engine.core import apply, chance_outcomes, legal_actions
from village_rules.engine.setup import new_game
from village_rules.errors import InternalError
from village_rules.model.actions import Action, format_action
from village_rules.model.chance import sample
from village_rules.model.state import GameState
from village_rules.policies import POLICIES, policy_named
from village_rules.rules.register import random_choices
from village_rules.rules.variant import Variant


def _legal(state: GameState) -> list[Action] | None:
    return None if state.is_chance or state.is_terminal else legal_actions(state)


MAX_STEPS = MAX_GAME_STEPS
"""Actions after which a game that has not ended counts as a violation: the one bound of
every game played to its end, `drivers.play.MAX_GAME_STEPS` (read when a game is played,
`game_bound`; this name is kept for callers)."""


ENGINE_EXCEPTION = "engine.exception"


GAME_LENGTH = "liveness.game_length"


Progress = Callable[[int, int], None]
"""Called with (games finished, games requested) as results come in."""


MIX = "mix"
"""The policy name of a mixed run: each game's policy is taken from `MIX_CYCLE` by its index."""

MIX_CYCLE: tuple[str, ...] = ("random",) * 146 + ("greedy", "chronicle", "traveller", "climber")
"""The policies of a mixed run (`--policy mix`, and `village-rules check`), game i playing
`MIX_CYCLE[i % 150]`: 146 random games, then one each by greedy, the chronicle planner,
the traveller and the council/church climber (docs/policies.md). A planner's decision
costs about thirty random ones (it evaluates every legal action), so random games stay
the bulk of the batch and the planners' games are 2-player games (unless the run fixes
the player count; `MIX_PLANNER_PLAYERS`); they reach what random seats rarely do (the
fourth council privilege, full chronicle categories, long travels). The planners close
each cycle, so a run of fewer than 147 games is random only. `check`'s 300 games hold 8
planner games, which cost about as much CPU time as 130 random ones (checked and played
again); with 4 in 60 `check` took twice its former time. The search policy is left
out: a game of it costs minutes."""

MIX_PLANNER_PLAYERS = 2
"""The player count of a mixed run's planner games (when the run does not fix one)."""


RUN_POLICIES: tuple[str, ...] = (*POLICIES, MIX)
"""What a run may be played by: one policy in every seat of every game, or the mix."""


def policy_of(policy: str, index: int) -> str:
    """The policy game `index` of a run by `policy` plays by (`MIX` picks from `MIX_CYCLE`)."""
    return MIX_CYCLE[index % len(MIX_CYCLE)] if policy == MIX else policy


@dataclass(frozen=True, slots=True)
class FuzzGame:
    """What game `index` of a run plays: derived from (run seed, index) alone."""

    index: int
    seed: int
    edition: str
    players: int
    variant: Variant
    policy: str = "random"
    """The policy every seat plays by (`village_rules.policies.POLICIES`; never `MIX`:
    a mixed run's games each name their own)."""


def plan_game(  # noqa: PLR0917 - the run's fields, in the order RunPlan holds them
    seed: int,
    index: int,
    edition: str | None = None,
    players: int | None = None,
    readings: tuple[tuple[str, str], ...] | None = None,
    policy: str = "random",
) -> FuzzGame:
    """The game `index` of a run with `seed` (edition, players and the AMB readings of
    `village_rules.rules.register` chosen unless fixed)."""
    rng = random.Random(f"village-rules fuzz {seed} {index}")  # str seeds hash the same everywhere
    game_seed = rng.getrandbits(63)
    if edition is not None:
        ed = edition
    else:
        fitting = [e for e in EDITIONS if players is None or builtin_edition(e).supports_players(players)]
        ed = rng.choice(fitting)
    counts = builtin_edition(ed).playable_counts  # 2023: solo games (1 player) in the mix
    n = players if players is not None else rng.choice(list(counts))
    chosen = policy_of(policy, index)
    if policy == MIX and chosen != "random" and players is None:
        n = MIX_PLANNER_PLAYERS  # drawn all the same, so the draws below are the random run's
    compensation = rng.random() < 0.75
    drawn = random_choices(rng)
    variant = Variant(compensation, drawn if readings is None else readings)
    return FuzzGame(index, game_seed, ed, n, variant, chosen)


@dataclass(frozen=True, slots=True)
class GameResult:
    """The outcome of one fuzzed game."""

    game: FuzzGame
    decisions: int
    chance_events: int
    rule_counts: tuple[tuple[str, int], ...]
    digest: str
    """SHA-256 of the game's log and final state: equal digests, equal games."""
    violations: tuple[Violation, ...] = ()
    log_json: str | None = None
    """The replayable log, kept only for a failing game."""

    @property
    def failed(self) -> bool:
        """True when the game broke an invariant (or the engine raised)."""
        return bool(self.violations)


def no_end(bound: int) -> Violation:
    """The violation of a game that has not ended after `bound` actions."""
    return Violation(GAME_LENGTH, "game", f"an end within {bound} actions", "no end")


def play_game(game: FuzzGame, max_steps: int | None = None) -> GameResult:
    """Play one seeded game (every seat by `game.policy`, random by default) checking every
    invariant after every action (the full checks' violations, computed by an
    `IncrementalChecker` over what each step changed)."""
    max_steps = game_bound(max_steps)
    checker = IncrementalChecker()
    policy = policy_named(game.policy)
    state = new_game(builtin_edition(game.edition), game.players, game.seed, game.variant)
    rng = random.Random(game.seed)
    actions: list[Action] = []
    rules: Counter[str] = Counter()
    trace: list[str] = []
    chance = 0
    try:
        legal = _legal(state)
        violations = checker.state(state, legal)
    except Exception as exc:  # any crash is a finding, reported with the log
        legal = None
        violations = [
            Violation(ENGINE_EXCEPTION, "set-up state", "checks run", f"{type(exc).__name__}: {exc}")
        ]
    while not violations and not state.is_terminal:
        if len(actions) >= max_steps:
            violations = [no_end(max_steps)]
            break
        if state.is_chance:
            try:
                action = sample(chance_outcomes(state), rng)
            except Exception as exc:  # any crash is a finding, reported with the log
                violations = [
                    Violation(
                        ENGINE_EXCEPTION, "chance outcomes", "a chance event", f"{type(exc).__name__}: {exc}"
                    )
                ]
                break
            chance += 1
        else:
            if legal is None:
                raise InternalError("fuzz.play_game", "no legal actions were computed at a decision")
            if not legal:  # reported by the invariants already
                break
            action = policy(state, legal, rng)
        trace.clear()
        actions.append(action)
        try:
            after = apply(state, action, trace=trace)
            legal = _legal(after)
            violations = checker.step(state, action, after, legal)
        except Exception as exc:  # any crash is a finding, reported with the log
            violations = [
                Violation(
                    ENGINE_EXCEPTION,
                    f"action {len(actions)} ({format_action(action)!r})",
                    "a listed action applies",
                    f"{type(exc).__name__}: {exc}",
                )
            ]
            break
        rules.update(trace)
        state = after
    return game_result(game, [format_action(a) for a in actions], chance, rules, to_json(state), violations)


def game_result(  # noqa: PLR0917 - the parts of a GameResult, in its order
    game: FuzzGame,
    actions: list[str],
    chance: int,
    rules: Counter[str],
    final: str,
    violations: list[Violation],
) -> GameResult:
    """A played game's result, whichever engine played it: the log of `actions` (their
    text), its digest with the final state's canonical JSON `final`, the counts."""
    log = GameLog(game.edition, game.players, game.seed, tuple(actions), game.variant)
    text = log.to_json()
    digest = hashlib.sha256((text + "\n" + final).encode()).hexdigest()
    return GameResult(
        game=game,
        decisions=len(actions) - chance,
        chance_events=chance,
        rule_counts=tuple(sorted(rules.items())),
        digest=digest,
        violations=tuple(violations),
        log_json=text if violations else None,
    )


Readings = tuple[tuple[str, str], ...] | None
ChunkArgs = tuple[int, tuple[int, ...], str | None, int | None, int, Readings, str, str]
"""`RunPlan.chunk_args`: seed, the chunk's game indices, edition, players, max steps, readings,
policy, engine."""


@dataclass(frozen=True, slots=True)
class RunPlan:
    """What a run plays, checked: its game indices cut into chunks (one task each)."""

    seed: int
    edition: str | None
    players: int | None
    max_steps: int
    indices: range
    chunks: tuple[tuple[int, ...], ...]
    readings: tuple[tuple[str, str], ...] | None = None
    """Every game's AMB readings, fixed; None: drawn per game (`plan_game`)."""
    policy: str = "random"
    """The policy every seat of every game plays by."""
    engine: str = "reference"
    """The engine that plays the games (`fuzz.engines.ENGINES`): the same results with either."""

    def chunk_args(self, chunk: tuple[int, ...]) -> ChunkArgs:
        """`fuzz.engines.play_chunk`'s arguments for one chunk, in its order (a pool worker
        or a Ray task gets them positionally)."""
        plan = (self.seed, chunk, self.edition, self.players, self.max_steps)
        return (*plan, self.readings, self.policy, self.engine)


class Results:
    """Game results as they come in from any backend, in any order; knows the first
    failure once every earlier game has passed, and reports progress."""

    def __init__(self, plan: RunPlan, progress: Progress | None) -> None:
        self._plan = plan
        self._progress = progress
        self._by_index: dict[int, GameResult] = {}
        self._prefix = 0  # positions 0.._prefix-1 of plan.indices are in and passed
        self.started: float | None = None
        """When the games began (`time.perf_counter`), if later than the call: a backend
        that first starts or reaches a cluster sets it, so the figures time the games."""

    def add(self, results: list[GameResult]) -> None:
        """Record finished games and report the progress."""
        for r in results:
            self._by_index[r.game.index] = r
        if self._progress is not None:
            self._progress(len(self._by_index), len(self._plan.indices))

    def settled_failure(self) -> GameResult | None:
        """The first failing game of the run, once every game before it is in and passed."""
        indices = self._plan.indices
        while self._prefix < len(indices):
            r = self._by_index.get(indices[self._prefix])
            if r is None:
                return None
            if r.failed:
                return r
            self._prefix += 1
        return None

    def played(self) -> list[GameResult]:
        """Finished games in index order, cut after the first failing one."""
        out: list[GameResult] = []
        for i in sorted(self._by_index):
            out.append(self._by_index[i])
            if out[-1].failed:
                break
        return out


Backend = Callable[[RunPlan, int, Results], None]
"""Plays a plan's chunks on `workers` and adds each chunk's results; returns when every
chunk is in or a failure is settled; on Ctrl-C cancels the outstanding chunks, adds
the games finished, then re-raises KeyboardInterrupt."""


_stop_event: EventType | None = None
"""In a pool worker: set by the parent on Ctrl-C, so a chunk stops after its current game."""


def stopping() -> bool:
    """In a pool worker: whether the parent has asked the run to stop (Ctrl-C)."""
    return _stop_event is not None and _stop_event.is_set()


def _init_pool_worker(stop: EventType) -> None:
    """Pool workers leave Ctrl-C to the parent (a terminal sends it to the whole group)."""
    global _stop_event  # noqa: PLW0603 - one per worker process, set once at its start
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _stop_event = stop


@contextlib.contextmanager
def sigint_deferred() -> Iterator[None]:
    """Ignore a second Ctrl-C while a stop is being cleaned up (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@dataclass(frozen=True, slots=True)
class Unchecked:
    """A planned game played again without invariant checks: its final state and log, and
    the rule IDs and rule-ID pairs it fired (for the coverage plots)."""

    final: GameState
    log: GameLog
    rules: frozenset[str]
    pairs: frozenset[tuple[str, str]]
    """Consecutive rule IDs of the game's trace (within an action and across two), as
    `fuzz.guided` counts them."""


def play_unchecked(game: FuzzGame, max_steps: int | None = None) -> Unchecked:
    """Play `game` exactly as `play_game` does (same RNG draws, so the same digest) with no
    checks, tracing the rule IDs; for a random game this is `play.play_logged`'s game."""
    policy = policy_named(game.policy)
    state = new_game(builtin_edition(game.edition), game.players, game.seed, game.variant)
    rng = random.Random(game.seed)
    actions: list[Action] = []
    trace: list[str] = []
    rules: set[str] = set()
    pairs: set[tuple[str, str]] = set()
    previous: str | None = None
    bound = game_bound(max_steps)
    while not state.is_terminal and len(actions) < bound:
        if state.is_chance:
            action = sample(chance_outcomes(state), rng)
        else:
            action = policy(state, legal_actions(state), rng)
        trace.clear()
        state = apply(state, action, trace=trace)
        actions.append(action)
        for rule in trace:
            rules.add(rule)
            if previous is not None:
                pairs.add((previous, rule))
            previous = rule
    log = GameLog(
        game.edition, game.players, game.seed, tuple(format_action(a) for a in actions), game.variant
    )
    return Unchecked(state, log, frozenset(rules), frozenset(pairs))
