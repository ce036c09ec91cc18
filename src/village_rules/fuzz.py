"""The random-game fuzzer: many seeded random games, every invariant checked at every step.

`run_fuzz(games, seed, workers, ...)` plays game i from a seed derived from (seed, i), with
an edition, player count and variant also derived from (seed, i) unless fixed, so the same
arguments play the same games whatever the number of worker processes. Each game is played
exactly like `play.play_logged(edition, players, game_seed, variant)` (setup and policy
use the game seed), so its log can also be regenerated without the fuzzer.

On the first violation (the lowest game index that breaks an invariant, raises in `apply`
or does not end) the run stops, the failing game's log is written to `out_dir` as
`village-rules replay` JSON, and the summary reports it.
"""

from __future__ import annotations

import hashlib
import random
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path

from village_rules.actions import Action, format_action
from village_rules.chance import sample
from village_rules.engine.core import apply, chance_outcomes, legal_actions
from village_rules.invariants import Violation, state_violations, transition_violations
from village_rules.loader import EDITIONS, builtin_edition
from village_rules.play import GameLog, random_policy
from village_rules.readings import random_choices
from village_rules.rules import Variant
from village_rules.serialization import to_json
from village_rules.setup import new_game
from village_rules.state import GameState

KNOWN_RULE_IDS: tuple[str, ...] = (
    "CHU-01",
    "CNC-01",
    "CNC-02",
    "CNC-03",
    "CNC-05",
    "CNC-06",
    "CNC-07",
    "CNC-08",
    "COIN-01",
    "CRAFT-01",
    "CRAFT-02",
    "CRAFT-03",
    "CRAFT-04",
    "CRAFT-05",
    "DEATH-01",
    "DEATH-02",
    "DEATH-03",
    "DEATH-04",
    "DEATH-05",
    "DEATH-06",
    "DEATH-07",
    "END-01",
    "END-02",
    "END-03",
    "END-04",
    "END-05",
    "END-06",
    "FAM-01",
    "FAM-02",
    "HARV-01",
    "HARV-02",
    "HARV-03",
    "MASS-01",
    "MASS-02",
    "MASS-03",
    "MASS-04",
    "MASS-05",
    "MKT-01",
    "MKT-02",
    "MKT-03",
    "MKT-04",
    "MKT-05",
    "MKT-06",
    "MKT-07",
    "MKT-08",
    "ROUND-01",
    "ROUND-02",
    "SCORE-01",
    "SEED-02",
    "SET-10",
    "TIME-01",
    "TRV-01",
    "TRV-02",
    "TRV-03",
    "TRV-04",
    "TRV-06",
    "TRV-07",
    "TURN-01",
    "TURN-02",
    "TURN-03",
    "WELL-01",
)
"""Every rule ID the engine can fire (the literals of its `ctx.fire(...)` calls), sorted."""

MAX_STEPS = 50_000
"""Actions after which a game that has not ended counts as a violation (a real game of
five players takes a few thousand)."""

ENGINE_EXCEPTION = "engine.exception"
GAME_LENGTH = "liveness.game_length"

Progress = Callable[[int, int], None]
"""Called with (games finished, games requested) as results come in."""


# --- one game -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FuzzGame:
    """What game `index` of a run plays: derived from (run seed, index) alone."""

    index: int
    seed: int
    edition: str
    players: int
    variant: Variant


def plan_game(
    seed: int,
    index: int,
    edition: str | None = None,
    players: int | None = None,
    readings: tuple[tuple[str, str], ...] | None = None,
) -> FuzzGame:
    """The game `index` of a run with `seed` (edition, players and the AMB readings of
    `village_rules.readings` chosen unless fixed)."""
    rng = random.Random(f"village-rules fuzz {seed} {index}")  # str seeds hash the same everywhere
    game_seed = rng.getrandbits(63)
    if edition is not None:
        ed = edition
    else:
        fitting = [e for e in EDITIONS if players is None or players in builtin_edition(e).player_counts]
        ed = rng.choice(fitting)
    counts = builtin_edition(ed).player_counts
    n = players if players is not None else rng.choice(list(counts))
    compensation = rng.random() < 0.75
    drawn = random_choices(rng)
    variant = Variant(compensation, drawn if readings is None else readings)
    return FuzzGame(index, game_seed, ed, n, variant)


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
        return bool(self.violations)


def play_game(game: FuzzGame, max_steps: int = MAX_STEPS) -> GameResult:
    """Play one seeded random game checking every invariant after every action."""
    state = new_game(builtin_edition(game.edition), game.players, game.seed, game.variant)
    rng = random.Random(game.seed)
    actions: list[Action] = []
    rules: Counter[str] = Counter()
    trace: list[str] = []
    chance = 0
    try:
        legal = _legal(state)
        violations = state_violations(state, legal)
    except Exception as exc:  # any crash is a finding, reported with the log
        legal = None
        violations = [
            Violation(ENGINE_EXCEPTION, "set-up state", "checks run", f"{type(exc).__name__}: {exc}")
        ]
    while not violations and not state.is_terminal:
        if len(actions) >= max_steps:
            violations = [Violation(GAME_LENGTH, "game", f"an end within {max_steps} actions", "no end")]
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
            assert legal is not None
            if not legal:  # reported by the invariants already
                break
            action = random_policy(state, legal, rng)
        trace.clear()
        actions.append(action)
        try:
            after = apply(state, action, trace=trace)
            legal = _legal(after)
            violations = state_violations(after, legal) + transition_violations(state, action, after)
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
    log = GameLog(
        game.edition, game.players, game.seed, tuple(format_action(a) for a in actions), game.variant
    )
    text = log.to_json()
    digest = hashlib.sha256((text + "\n" + to_json(state)).encode()).hexdigest()
    return GameResult(
        game=game,
        decisions=len(actions) - chance,
        chance_events=chance,
        rule_counts=tuple(sorted(rules.items())),
        digest=digest,
        violations=tuple(violations),
        log_json=text if violations else None,
    )


def _legal(state: GameState) -> list[Action] | None:
    return None if state.is_chance or state.is_terminal else legal_actions(state)


def _play_chunk(  # noqa: PLR0917 - pickled to worker processes positionally
    seed: int,
    indices: tuple[int, ...],
    edition: str | None,
    players: int | None,
    max_steps: int,
    readings: tuple[tuple[str, str], ...] | None = None,
) -> list[GameResult]:
    """Games of a chunk in order, stopping after the first failing one."""
    out = []
    for i in indices:
        result = play_game(plan_game(seed, i, edition, players, readings), max_steps)
        out.append(result)
        if result.failed:
            break
    return out


# --- a run --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FuzzFailure:
    game: FuzzGame
    violations: tuple[Violation, ...]
    log_path: Path
    actions: int


@dataclass(frozen=True, slots=True)
class FuzzSummary:
    seed: int
    requested: int
    workers: int
    games: int
    """Games played: all requested, or up to and including the first failing one."""
    decisions: int
    chance_events: int
    seconds: float
    rule_counts: tuple[tuple[str, int], ...]
    game_digests: tuple[str, ...]
    """One digest per game played, in game order (the same for any number of workers)."""
    failure: FuzzFailure | None = None
    known_rule_ids: tuple[str, ...] = field(default=KNOWN_RULE_IDS)

    @property
    def violations(self) -> int:
        return 0 if self.failure is None else len(self.failure.violations)

    @property
    def steps(self) -> int:
        return self.decisions + self.chance_events

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else 0.0

    @property
    def decisions_per_second(self) -> float:
        return self.decisions / self.seconds if self.seconds > 0 else 0.0

    @property
    def actions_per_second(self) -> float:
        return self.steps / self.seconds if self.seconds > 0 else 0.0

    @property
    def rules_fired(self) -> tuple[str, ...]:
        return tuple(rule for rule, _ in self.rule_counts)

    @property
    def rules_never_fired(self) -> tuple[str, ...]:
        fired = set(self.rules_fired)
        return tuple(sorted(r for r in {*self.known_rule_ids, *fired} if r not in fired))

    def format(self) -> str:
        lines = [
            f"games:        {self.games} of {self.requested} (seed {self.seed}, {self.workers} worker(s))",
            f"decisions:    {self.decisions} (+ {self.chance_events} chance outcomes)",
            f"time:         {self.seconds:.2f} s",
            f"games/s:      {self.games_per_second:.2f}",
            f"decisions/s:  {self.decisions_per_second:.0f} ({self.actions_per_second:.0f} actions/s)",
            f"violations:   {self.violations}",
        ]
        known = len({*self.known_rule_ids, *self.rules_fired})
        lines.append(f"rule IDs exercised ({len(self.rule_counts)} of {known}):")
        lines += _columns([f"{rule} x{count}" for rule, count in self.rule_counts])
        never = self.rules_never_fired
        lines.append(f"rule IDs never fired ({len(never)}): {', '.join(never) or 'none'}")
        if self.failure is not None:
            f = self.failure
            g = f.game
            lines.append(
                f"FAILED game {g.index}: {g.edition}, {g.players} players, seed {g.seed}, {g.variant}, "
                f"after {f.actions} actions"
            )
            lines += [f"  - {v}" for v in f.violations]
            lines.append(f"replayable log: {f.log_path}")
        return "\n".join(lines)


def _columns(items: list[str], per_line: int = 5) -> list[str]:
    width = max((len(s) for s in items), default=0)
    return [
        "  " + "  ".join(f"{s:<{width}}" for s in items[k : k + per_line]).rstrip()
        for k in range(0, len(items), per_line)
    ]


def _chunks(games: int, size: int) -> Iterator[tuple[int, ...]]:
    for start in range(0, games, size):
        yield tuple(range(start, min(start + size, games)))


def run_fuzz(  # noqa: PLR0917 - the CLI's argument order
    games: int,
    seed: int,
    workers: int,
    edition: str | None,
    players: int | None,
    out_dir: Path,
    progress: Progress | None = None,
    *,
    chunk_size: int | None = None,
    max_steps: int = MAX_STEPS,
    readings: tuple[tuple[str, str], ...] | None = None,
) -> FuzzSummary:
    """Play `games` seeded random games over `workers` processes (1 = in this process),
    checking every invariant at every step; stop at the first violation and write its log
    to `out_dir`. The result depends only on (games, seed, edition, players, readings);
    `readings` fixes every game's AMB choices (default: drawn per game)."""
    if games < 0:
        raise ValueError("games must be >= 0")
    if workers < 1:
        raise ValueError("workers must be >= 1")
    if edition is not None:
        data = builtin_edition(edition)
        if players is not None and players not in data.player_counts:
            raise ValueError(f"{edition} is for {data.min_players}-{data.max_players} players, not {players}")
    elif players is not None and not any(players in builtin_edition(e).player_counts for e in EDITIONS):
        raise ValueError(f"no edition is for {players} players")
    size = chunk_size or max(1, min(8, games // (workers * 4) or 1))
    chunks = list(_chunks(games, size))
    start = time.perf_counter()
    results: dict[int, list[GameResult]] = {}
    done = 0

    def collect(k: int, chunk_results: list[GameResult]) -> None:
        nonlocal done
        results[k] = chunk_results
        done += len(chunk_results)
        if progress is not None:
            progress(done, games)

    if workers == 1:
        for k, chunk in enumerate(chunks):
            collect(k, _play_chunk(seed, chunk, edition, players, max_steps, readings))
            if results[k][-1].failed:
                break
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            pending: dict[Future[list[GameResult]], int] = {
                pool.submit(_play_chunk, seed, chunk, edition, players, max_steps, readings): k
                for k, chunk in enumerate(chunks)
            }
            while pending:
                finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    collect(pending.pop(future), future.result())
                if _settled_failure(results) is not None:
                    for future in pending:
                        future.cancel()
                    break
    seconds = time.perf_counter() - start
    played = _in_order(results, len(chunks))
    return _summarise(
        seed=seed, requested=games, workers=workers, played=played, seconds=seconds, out_dir=out_dir
    )


def _settled_failure(results: dict[int, list[GameResult]]) -> int | None:
    """The chunk of the first failing game once every earlier chunk is known to pass."""
    k = 0
    while k in results:
        if results[k][-1].failed:
            return k
        k += 1
    return None


def _in_order(results: dict[int, list[GameResult]], chunks: int) -> list[GameResult]:
    """Games in index order, up to the first failing one."""
    out: list[GameResult] = []
    for k in range(chunks):
        if k not in results:
            break
        out += results[k]
        if out and out[-1].failed:
            break
    return out


def _summarise(
    *, seed: int, requested: int, workers: int, played: list[GameResult], seconds: float, out_dir: Path
) -> FuzzSummary:
    rules: Counter[str] = Counter()
    for r in played:
        rules.update(dict(r.rule_counts))
    failure = None
    last = played[-1] if played else None
    if last is not None and last.failed:
        assert last.log_json is not None
        out_dir.mkdir(parents=True, exist_ok=True)
        g = last.game
        path = out_dir / f"fuzz-seed{seed}-game{g.index}-{g.edition}-{g.players}p.json"
        path.write_text(last.log_json + "\n", encoding="utf-8")
        failure = FuzzFailure(g, last.violations, path, last.decisions + last.chance_events)
    return FuzzSummary(
        seed=seed,
        requested=requested,
        workers=workers,
        games=len(played),
        decisions=sum(r.decisions for r in played),
        chance_events=sum(r.chance_events for r in played),
        seconds=seconds,
        rule_counts=tuple(sorted(rules.items())),
        game_digests=tuple(r.digest for r in played),
        failure=failure,
    )
