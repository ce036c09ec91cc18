"""The random-game fuzzer: many seeded random games, every invariant checked at every step.

`run_fuzz(games, seed, workers, ...)` plays game i from a seed derived from (seed, i), with
an edition, player count and variant also derived from (seed, i) unless fixed, so the same
arguments play the same games whatever the number of worker processes. Each game is played
exactly like `play.play_logged(edition, players, game_seed, variant)` (setup and policy
use the game seed), so its log can also be regenerated without the fuzzer.

On the first violation (the lowest game index that breaks an invariant, raises in `apply`
or does not end) the run stops, the failing game's log is written to `out_dir` as
`village-rules replay` JSON, and the summary reports it.

Because games are fixed by (seed, index), a run can be split: `Shard(k, n)` plays the games
i with i % n == k - 1, so n machines play a run between them. The games are played in
this process, a process pool, or as Ray tasks (`fuzz_ray`, the `distributed` extra), with
the same results. Ctrl-C cancels the outstanding games and raises `FuzzInterrupted`
carrying a summary of the games finished. `fuzz_report` writes a finished run's summary as
JSON and merges the reports of a run's shards into the whole run's summary.
"""

from __future__ import annotations

import contextlib
import itertools
import multiprocessing
import re
import time
from collections import Counter
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path

from village_rules.checks.invariants import Violation
from village_rules.data.files import write_text
from village_rules.data.loader import EDITIONS, builtin_edition
from village_rules.drivers.play import game_bound
from village_rules.errors import FuzzArgumentError, FuzzBackendError, InternalError
from village_rules.fuzz.engines import play, play_chunk, resolve_engine
from village_rules.fuzz.games import (
    MIX,
    RUN_POLICIES,
    Backend,
    FuzzGame,
    GameResult,
    Progress,
    Results,
    RunPlan,
    _init_pool_worker,
    plan_game,
    sigint_deferred,
)
from village_rules.rule_ids import TRACED_RULE_IDS

_SHARD_TEXT = re.compile(r"([1-9][0-9]{0,8})/([1-9][0-9]{0,8})")


@dataclass(frozen=True, slots=True)
class Shard:
    """Shard `index` of `count` (both from 1): the games i of a run with i % count == index - 1.

    Games are fixed by (seed, index) alone, so the `count` shards of a run play exactly
    the run's games between them, each game once, on as many machines as there are shards.
    Dealing the indices round-robin gives every shard the same mix of editions and player
    counts.
    """

    index: int
    count: int

    def __post_init__(self) -> None:
        if self.count < 1 or not 1 <= self.index <= self.count:
            raise FuzzArgumentError(
                "--shard", f"shard {self.index}/{self.count} does not exist: K/N needs 1 <= K <= N"
            )

    @classmethod
    def parse(cls, text: str) -> Shard:
        """`"K/N"` in ASCII digits without leading zeros, e.g. `"2/4"`."""
        match = _SHARD_TEXT.fullmatch(text)
        if match is None:
            raise FuzzArgumentError("--shard", f"{text!r} is not K/N (two whole numbers from 1, e.g. 2/4)")
        return cls(int(match[1]), int(match[2]))

    def indices(self, games: int) -> range:
        """The game indices of this shard in a run of `games` games, in order."""
        return range(self.index - 1, games, self.count)

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


MAX_GAMES = 10_000_000
"""The most games one run may ask for (about three weeks on two cores; split bigger
campaigns into several seeds)."""


MAX_WORKERS = 256


BACKENDS: tuple[str, ...] = ("process", "ray")
"""`process`: a process pool on this machine (1 worker: in this process); `ray`: Ray tasks
(the `distributed` extra) on a cluster or a local Ray instance."""


@dataclass(frozen=True, slots=True)
class FuzzFailure:
    """The first failing game of a fuzz run: its violations and the replayable log written."""
    game: FuzzGame
    violations: tuple[Violation, ...]
    log_path: Path
    actions: int


@dataclass(frozen=True, slots=True)
class FuzzSummary:
    """The figures of a fuzz run (or of one shard): games, speed, rule IDs fired, any failure."""
    seed: int
    requested: int
    """Games this run was asked to play (with a shard: the shard's share)."""
    workers: int
    games: int
    """Games played: all requested, or up to and including the first failing one (or, when
    interrupted, those finished before the interruption)."""
    decisions: int
    chance_events: int
    seconds: float
    rule_counts: tuple[tuple[str, int], ...]
    game_digests: tuple[str, ...]
    """One digest per game played, in game order (the same for any number of workers)."""
    failure: FuzzFailure | None = None
    known_rule_ids: tuple[str, ...] = field(default=TRACED_RULE_IDS)
    game_indices: tuple[int, ...] = ()
    """The run index of each game played, in the order of `game_digests`."""
    shard: Shard | None = None
    run_games: int = 0
    """Games of the whole run (all shards together)."""
    backend: str = "process"
    interrupted: bool = False
    """True when Ctrl-C stopped the run: the figures cover only the games finished."""
    edition: str | None = None
    """The run's --edition (None: drawn per game)."""
    players: int | None = None
    """The run's --players (None: drawn per game)."""
    readings: tuple[tuple[str, str], ...] | None = None
    """The run's fixed --reading choices (None: drawn per game)."""
    policy: str = "random"
    """The policy every seat played by (--policy)."""
    engine: str = "reference"
    """The engine that played the games (`fuzz.engines.ENGINES`; merged shards: "+"-joined)."""
    merged_from: int = 0
    """How many shard reports `fuzz_report.merge_shards` combined into this summary (0: none)."""

    @property
    def violations(self) -> int:
        """How many violations the failing game showed (0 without a failure)."""
        return 0 if self.failure is None else len(self.failure.violations)

    @property
    def records(self) -> tuple[tuple[int, str], ...]:
        """(game index, digest) of every game played: shards' records add up to the run's."""
        return tuple(zip(self.game_indices, self.game_digests, strict=True))

    @property
    def steps(self) -> int:
        """Decisions and chance events played, together."""
        return self.decisions + self.chance_events

    @property
    def games_per_second(self) -> float:
        """Games played per second of the run (0.0 for a run that took no time)."""
        return self.games / self.seconds if self.seconds > 0 else 0.0

    @property
    def decisions_per_second(self) -> float:
        """Player decisions per second of the run (0.0 for a run that took no time)."""
        return self.decisions / self.seconds if self.seconds > 0 else 0.0

    @property
    def actions_per_second(self) -> float:
        """Decisions and chance events per second of the run (0.0 for a run that took no time)."""
        return self.steps / self.seconds if self.seconds > 0 else 0.0

    @property
    def rules_fired(self) -> tuple[str, ...]:
        """The rule IDs the run's games fired, in the order of `rule_counts`."""
        return tuple(rule for rule, _ in self.rule_counts)

    @property
    def rules_never_fired(self) -> tuple[str, ...]:
        """The rule IDs the engine can trace that no game of the run fired, sorted."""
        fired = set(self.rules_fired)
        return tuple(sorted(r for r in {*self.known_rule_ids, *fired} if r not in fired))

    def format(self) -> str:
        """The run's summary as the `fuzz` command prints it."""
        where = f"the {self.engine} engine, {self.workers} worker(s)"
        where += "" if self.backend == "process" else f", {self.backend}"
        if self.policy != "random":
            where += (
                ", the policies of the check mix (fuzz.games.MIX_CYCLE)"
                if self.policy == MIX
                else f", every seat by the {self.policy} policy"
            )
        if self.merged_from:
            where = f"merged from {self.merged_from} shards, {where}"
        of = f"{self.requested}"
        if self.shard is not None:
            of += f" in shard {self.shard} of a {self.run_games}-game run"
        lines = []
        if self.interrupted:
            lines.append(
                f"INTERRUPTED (Ctrl-C) after {self.games} of {self.requested} games: "
                "not a finished run, the figures cover only the games finished"
            )
        lines += [
            f"games:        {self.games} of {of} (seed {self.seed}, {where})",
            f"decisions:    {self.decisions} (+ {self.chance_events} chance outcomes)",
            f"time:         {self.seconds:.2f} s" + (" (summed over the shards)" if self.merged_from else ""),
            f"games/s:      {self.games_per_second:.2f}",
            f"decisions/s:  {self.decisions_per_second:.0f} ({self.actions_per_second:.0f} actions/s)",
            f"violations:   {self.violations}" + (" so far" if self.interrupted else ""),
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


class FuzzInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped `run_fuzz`: outstanding games were cancelled; `summary` (marked
    `interrupted`) covers the games finished before. A KeyboardInterrupt, so a caller
    that does not look for it stops as on any Ctrl-C."""

    def __init__(self, summary: FuzzSummary) -> None:
        super().__init__(f"interrupted after {summary.games} of {summary.requested} games")
        self.summary = summary


def _columns(items: list[str], per_line: int = 5) -> list[str]:
    width = max((len(s) for s in items), default=0)
    return [
        "  " + "  ".join(f"{s:<{width}}" for s in items[k : k + per_line]).rstrip()
        for k in range(0, len(items), per_line)
    ]


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
    max_steps: int | None = None,
    shard: Shard | None = None,
    backend: str = "process",
    address: str | None = None,
    readings: tuple[tuple[str, str], ...] | None = None,
    policy: str = "random",
    engine: str | None = None,
) -> FuzzSummary:
    """Play the `games` seeded random games of a run (or only those of `shard`) over
    `workers` processes (1 = in this process) or Ray tasks, checking every invariant at
    every step; stop at the first violation and write its log to `out_dir`.

    The result depends only on (games, seed, edition, players, shard, readings; `readings`
    fixes every game's AMB choices, by default drawn per game). Bad arguments raise
    `FuzzArgumentError`. Ctrl-C cancels the outstanding games within seconds and raises
    `FuzzInterrupted` with a summary of the games finished (a failing log among them is
    written, complete, as usual; nothing else is)."""
    plan = plan_run(
        games,
        seed,
        workers,
        edition,
        players,
        chunk_size=chunk_size,
        max_steps=max_steps,
        shard=shard,
        backend=backend,
        address=address,
        readings=readings,
        policy=policy,
        engine=engine,
    )
    play: Backend
    if backend == "ray":
        # late: fuzz_ray builds on this module, and Ray is an optional extra
        from village_rules.fuzz.ray_backend import ray_backend  # noqa: PLC0415

        play = ray_backend(address)
    elif workers == 1:
        play = _in_process
    else:
        play = _process_pool
    results = Results(plan, progress)
    start = time.perf_counter()
    interrupted = False
    try:
        play(plan, workers, results)
    except KeyboardInterrupt:
        interrupted = True
    with sigint_deferred() if interrupted else contextlib.nullcontext():
        summary = _summarise(
            plan,
            requested=len(plan.indices),
            run_games=games,
            workers=workers,
            played=results.played(),
            seconds=time.perf_counter() - (results.started or start),
            out_dir=out_dir,
            shard=shard,
            backend=backend,
            interrupted=interrupted,
        )
    if interrupted:
        raise FuzzInterrupted(summary)
    return summary


def plan_run(
    games: int,
    seed: int,
    workers: int,
    edition: str | None,
    players: int | None,
    *,
    chunk_size: int | None = None,
    max_steps: int | None = None,
    shard: Shard | None = None,
    backend: str = "process",
    address: str | None = None,
    readings: tuple[tuple[str, str], ...] | None = None,
    policy: str = "random",
    engine: str | None = None,
) -> RunPlan:
    """Check every argument of `run_fuzz` (FuzzArgumentError naming the option) and cut
    the run into chunks; plays nothing."""
    if not 1 <= games <= MAX_GAMES:
        raise FuzzArgumentError("--games", f"must be from 1 to {MAX_GAMES:,}, not {games}")
    if seed < 0:
        raise FuzzArgumentError("--seed", f"must be 0 or more, not {seed}")
    if not 1 <= workers <= MAX_WORKERS:
        raise FuzzArgumentError("--workers", f"must be from 1 to {MAX_WORKERS}, not {workers}")
    if backend not in BACKENDS:
        raise FuzzArgumentError("--backend", f"must be one of {', '.join(BACKENDS)}, not {backend!r}")
    if address is not None and backend != "ray":
        raise FuzzArgumentError("--address", "is the address of a Ray cluster: use it with --backend ray")
    if chunk_size is not None and chunk_size < 1:
        raise FuzzArgumentError("chunk_size", f"must be 1 or more, not {chunk_size}")
    max_steps = game_bound(max_steps)  # resolved here, so worker processes get the number
    if max_steps < 1:
        raise FuzzArgumentError("max_steps", f"must be 1 or more, not {max_steps}")
    if policy not in RUN_POLICIES:
        raise FuzzArgumentError("--policy", f"must be one of {', '.join(RUN_POLICIES)}, not {policy!r}")
    if edition is not None:
        if edition not in EDITIONS:
            raise FuzzArgumentError("--edition", f"must be one of {', '.join(EDITIONS)}, not {edition!r}")
        data = builtin_edition(edition)
        if players is not None and not data.supports_players(players):
            counts = ", ".join(str(n) for n in data.playable_counts)
            raise FuzzArgumentError("--players", f"{edition} is for {counts} players, not {players}")
    elif players is not None and not any(builtin_edition(e).supports_players(players) for e in EDITIONS):
        raise FuzzArgumentError("--players", f"no edition is for {players} players")
    indices = range(games) if shard is None else shard.indices(games)
    if not indices:
        raise FuzzArgumentError(
            "--shard", f"shard {shard} of a {games}-game run has no games: use at most {games} shards"
        )
    n = len(indices)
    size = chunk_size or max(1, min(8, n // (workers * 4) or 1))
    chunks = tuple(tuple(indices[k : k + size]) for k in range(0, n, size))
    engine = resolve_engine(engine)
    return RunPlan(seed, edition, players, max_steps, indices, chunks, readings, policy, engine)


def _in_process(plan: RunPlan, workers: int, results: Results) -> None:
    """One game at a time in this process; Ctrl-C loses only the game being played."""
    for chunk in plan.chunks:
        for i in chunk:
            game = plan_game(plan.seed, i, plan.edition, plan.players, plan.readings, plan.policy)
            results.add([play(game, plan.max_steps, plan.engine)])
            if results.settled_failure() is not None:
                return


def _process_pool(plan: RunPlan, workers: int, results: Results) -> None:
    """Chunks over a process pool, at most 2 per worker queued at a time. On Ctrl-C the
    queued chunks are cancelled and the running ones stop after their current game."""
    context = multiprocessing.get_context()
    stop = context.Event()
    pool = ProcessPoolExecutor(workers, context, _init_pool_worker, (stop,))
    queued = iter(plan.chunks)
    pending: set[Future[list[GameResult]]] = set()

    def submit() -> None:
        for chunk in itertools.islice(queued, 2 * workers - len(pending)):
            pending.add(pool.submit(play_chunk, *plan.chunk_args(chunk)))

    try:
        submit()
        while pending:
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                pending.discard(future)
                try:
                    chunk_results = future.result()
                except BrokenProcessPool as exc:  # a worker was killed (e.g. out of memory)
                    raise FuzzBackendError("process", f"a worker process died: {exc}") from None
                results.add(chunk_results)
            if results.settled_failure() is not None:
                break
            submit()
    except KeyboardInterrupt:
        with sigint_deferred():
            stop.set()
            pool.shutdown(wait=True, cancel_futures=True)
            for future in pending:  # the games the running chunks finished before stopping
                if future.done() and not future.cancelled() and future.exception() is None:
                    results.add(future.result())
        raise
    finally:
        stop.set()
        pool.shutdown(wait=True, cancel_futures=True)


def _summarise(
    plan: RunPlan,
    *,
    requested: int,
    run_games: int,
    workers: int,
    played: list[GameResult],
    seconds: float,
    out_dir: Path,
    shard: Shard | None,
    backend: str,
    interrupted: bool,
) -> FuzzSummary:
    rules: Counter[str] = Counter()
    for r in played:
        rules.update(dict(r.rule_counts))
    failure = None
    last = played[-1] if played else None
    if last is not None and last.failed:
        if last.log_json is None:
            raise InternalError("fuzz summary", f"failed game {last.game.index} has no log")
        g = last.game
        path = out_dir / f"fuzz-seed{plan.seed}-game{g.index}-{g.edition}-{g.players}p.json"
        write_atomically(path, last.log_json + "\n")
        failure = FuzzFailure(g, last.violations, path, last.decisions + last.chance_events)
    return FuzzSummary(
        seed=plan.seed,
        requested=requested,
        workers=workers,
        games=len(played),
        decisions=sum(r.decisions for r in played),
        chance_events=sum(r.chance_events for r in played),
        seconds=seconds,
        rule_counts=tuple(sorted(rules.items())),
        game_digests=tuple(r.digest for r in played),
        failure=failure,
        game_indices=tuple(r.game.index for r in played),
        shard=shard,
        run_games=run_games,
        backend=backend,
        interrupted=interrupted,
        edition=plan.edition,
        readings=plan.readings,
        players=plan.players,
        policy=plan.policy,
        engine=plan.engine,
    )


def write_atomically(path: Path, text: str) -> None:
    """Write `text` to `path` so that `path` is either the old file or the complete new one
    (`village_rules.data.files.write_text`)."""
    write_text(path, text)
