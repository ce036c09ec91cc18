"""The breadth-first exploration of `search.explore` split over worker processes, with the
same counts.

Each fingerprint has one owner, the worker `fingerprint % workers`, which alone holds it in
its seen-set. The search goes level by level, in four phases a level, each a barrier:

1. **expand**: every worker expands its frontier (every decision and chance outcome
   applied, every transition invariant and `STEP` query on every edge) and keeps the
   successors as candidates, once each by fingerprint;
2. **own**: each candidate's fingerprint (8 bytes, not the state) goes to its owner, which
   adds it to its seen-set in a fixed order (worker 0's candidates first) and says which
   are new;
3. **accept**: every worker keeps its new candidates as its next frontier and checks every
   state invariant on them;
4. **balance**: a worker with more than its share of the frontier sends the excess states
   to one with less (only the excess: a state costs about as much to send as to expand).

Every distinct state is thus kept exactly once, by exactly one worker, at the level it is
first reached, so the states, edges, depth, terminal states by end type, deadlocks and
checks are those of the single-process run, and every query's first witness is at the
same level (its shortest witness has the same length; which of several equally short ones
is kept may differ). Processes are forked (the fingerprints are Python hashes, which must
agree across the workers). The whole graph (`graph=True`) is kept by the single-process
run only.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import pickle
import signal
import sys
import traceback
from array import array
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Protocol, cast

from village_rules.checks.invariants import Violation
from village_rules.data.edition import EditionData
from village_rules.errors import ParameterError, VillageError
from village_rules.explore.checkpoint import Checkpoint, read, run_identity, write
from village_rules.explore.memory import resident_bytes
from village_rules.explore.monitors import Monitor, Value
from village_rules.explore.ray_pool import RayPool
from village_rules.explore.search import (
    MAX_STATES,
    MAX_VIOLATIONS,
    EdgeChecks,
    Exploration,
    ExplorationLimitError,
    Progress,
    QueryVerdict,
    Root,
    Snapshot,
    check_state,
    expand,
    moves,
    path_to,
    record,
    refines,
    replay,
    roots,
    seen_key,
)
from village_rules.explore.seen import SeenSet
from village_rules.model.state import GameState
from village_rules.proofs.catalogue.catalogue import CATALOGUE, STEP, Query
from village_rules.proofs.model.abstraction import abstract
from village_rules.proofs.model.model import Constants, broken_initial
from village_rules.rules.variant import Variant

BALANCE_SLACK = 0.05
"""A worker's frontier may exceed its share by this fraction before states are moved."""

Entry = tuple[int, GameState, Value]
"""A frontier state: its global id (local id * workers + worker), the state, the monitor's value."""
Candidate = tuple[int, GameState, Value, int, int]
"""A successor: fingerprint, state, monitor value, the parent's global id, the move's index."""


class WorkerError(VillageError):
    """A worker process failed (a bug, reported with the worker's traceback)."""


@dataclass
class _Tally:
    """What one worker counted (summed over the workers at the end)."""

    edges: int = 0
    deadlocks: int = 0
    terminal: Counter[str] = field(default_factory=Counter)
    violations: list[tuple[int, Violation]] = field(default_factory=list)
    violation_count: int = 0
    states_checked: int = 0
    edges_checked: int = 0
    edges_refined: int = 0
    fired: set[str] = field(default_factory=set)
    """The rule IDs its edges fired (a query whose rules never fire is vacuous, `scope`)."""


class _Worker:
    """One worker's share: its seen-set (the fingerprints it owns), its frontier, the
    parents of the states it accepted."""

    def __init__(
        self,
        index: int,
        workers: int,
        *,
        starts: Sequence[Root],
        queries: Sequence[Query],
        check: bool,
        link: Constants | None,
        monitor: Monitor | None,
    ) -> None:
        self.index = index
        self.workers = workers
        self.checks = EdgeChecks(check, link, monitor, {q.name: q for q in queries})
        self.seen = SeenSet()
        self.parent = array("q")
        self.move = array("H")
        self.frontier: list[Entry] = []
        self.candidates: list[Candidate] = []
        self.tally = _Tally()
        self.checks.fired = self.tally.fired
        start = monitor.start if monitor is not None else None
        for i, root in enumerate(starts):
            if i % workers == index:
                fp = seen_key(root.state, start, monitored=monitor is not None)
                self.candidates.append((fp, root.state, start, -1 - i, 0))

    def expand(self, found: Sequence[str]) -> tuple[list[bytes], dict[str, tuple[int, int]], int]:
        """Expand the frontier into candidates; their fingerprints by owner, the queries
        first met on this level's edges (query -> (source's global id, move)), the edges so far."""
        for name in found:
            self.checks.pending.pop(name, None)
        hits: dict[str, tuple[int, int]] = {}
        candidates: list[Candidate] = []
        firsts: set[int] = set()
        for gid, state, value in self.frontier:
            out = expand(gid, state, value, tally=self.tally, checks=self.checks, hits=hits)
            for fp, k, after, new, _ in out:
                if fp not in firsts:
                    firsts.add(fp)
                    candidates.append((fp, after, new, gid, k))
        self.frontier = []
        self.candidates = candidates
        return self.by_owner(), hits, self.tally.edges

    def by_owner(self) -> list[bytes]:
        """The candidates' fingerprints, one array per owner (as bytes, cheap to send)."""
        out = [array("q") for _ in range(self.workers)]
        for fp, *_ in self.candidates:
            out[fp % self.workers].append(_signed(fp))
        return [a.tobytes() for a in out]

    def own(self, requests: Sequence[bytes]) -> list[bytes]:
        """Add the fingerprints each worker asks about (in worker order) to the seen-set;
        per worker, one byte per fingerprint: 1 if it was new."""
        replies = []
        for request in requests:
            fps = array("q")
            fps.frombytes(request)
            replies.append(bytes(1 if self.seen.add(fp) else 0 for fp in fps))
        return replies

    def accept(self, replies: Sequence[bytes]) -> int:
        """Keep the candidates their owners found new (checking every state invariant on
        them) as the next frontier; how many."""
        verdicts = [iter(r) for r in replies]
        frontier: list[Entry] = []
        for fp, state, value, parent, k in self.candidates:
            if not next(verdicts[fp % self.workers]):
                continue
            gid = len(self.parent) * self.workers + self.index
            self.parent.append(parent)
            self.move.append(k)
            frontier.append((gid, state, value))
            if self.checks.check:
                check_state(self.tally, gid, state)
            if self.checks.link is not None and parent < 0:
                broken = broken_initial(abstract(state), self.checks.link)
                if broken:
                    record(self.tally, gid, [refines("set-up", broken)])
        self.candidates = []
        self.frontier = frontier
        return len(frontier)

    def give(self, count: int) -> list[Entry]:
        """The last `count` states of the frontier, handed to another worker."""
        given = self.frontier[len(self.frontier) - count :]
        del self.frontier[len(self.frontier) - count :]
        return given

    def take(self, entries: Sequence[Entry]) -> int:
        """Append states handed over by another worker to the frontier."""
        self.frontier.extend(entries)
        return len(self.frontier)

    def save(self) -> bytes:
        """This worker's share of a checkpoint, pickled here (not by the coordinator)."""
        pending = sorted(self.checks.pending)
        share = (self.seen.keys(), self.parent, self.move, self.frontier, self.tally, pending)
        return pickle.dumps(share, protocol=pickle.HIGHEST_PROTOCOL)

    def load(self, share: bytes) -> None:
        """Continue from a share written by `save` (at a level boundary)."""
        keys, self.parent, self.move, self.frontier, self.tally, pending = pickle.loads(share)
        self.seen = SeenSet(len(keys))
        for key in keys:
            self.seen.add(key)
        self.checks.pending = {name: q for name, q in self.checks.pending.items() if name in pending}
        self.checks.fired = self.tally.fired
        self.candidates = []

    def finish(self) -> tuple[_Tally, bytes, bytes, int]:
        """The tally, the parents (global ids) and moves of the states accepted, the seen-set's bytes."""
        return self.tally, self.parent.tobytes(), self.move.tobytes(), self.seen.nbytes


def _signed(fp: int) -> int:
    fp &= (1 << 64) - 1
    return fp - (1 << 64) if fp >= 1 << 63 else fp


PR_SET_PDEATHSIG = 1
"""Linux's prctl option: a signal for this process when its parent ends."""


def _end_with_parent() -> None:
    """On Linux, have the kernel end this worker when the coordinator ends, however it ends
    (killed by the kernel for memory, say): a worker blocked in a long level would otherwise
    go on until the level's end. Elsewhere the closed pipe ends it at its next command."""
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def _serve(conn: Connection, worker: _Worker, inherited: list[Connection]) -> None:
    """A worker process: run each command the coordinator sends until `finish` or `stop`."""
    for other in inherited:  # the coordinator's ends, copied by the fork: close them here
        other.close()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the group: the coordinator stops
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _end_with_parent()
    try:
        while True:
            command, argument = conn.recv()
            if command == "stop":
                return
            method = getattr(worker, command)
            conn.send(("ok", method(argument) if argument is not None else method()))
            if command == "finish":
                return
    except (EOFError, BrokenPipeError, ConnectionResetError):
        return  # the coordinator has gone (stopped at once by a second signal): no one to tell
    except BaseException:  # a bug in a worker: the coordinator raises it, with this traceback
        with contextlib.suppress(OSError):  # unless the coordinator has gone meanwhile
            conn.send(("error", traceback.format_exc()))
    finally:
        conn.close()


class _Pool:
    """The worker processes and their pipes; `call` sends one command to each and waits for
    every reply (a barrier)."""

    def __init__(self, make: list[_Worker]) -> None:
        context = multiprocessing.get_context("fork")
        self.conns: list[Connection] = []
        self.procs: list[BaseProcess] = []
        for worker in make:
            mine, theirs = context.Pipe()
            proc = context.Process(target=_serve, args=(theirs, worker, [*self.conns, mine]), daemon=True)
            proc.start()
            theirs.close()
            self.conns.append(mine)
            self.procs.append(proc)

    def call(self, command: str, arguments: Sequence[object] | None = None) -> list[object]:
        for i, conn in enumerate(self.conns):
            conn.send((command, None if arguments is None else arguments[i]))
        replies = []
        for i, conn in enumerate(self.conns):
            try:
                status, value = conn.recv()
            except EOFError as exc:
                raise WorkerError(f"explore worker {i} ended without a reply to {command!r}") from exc
            if status != "ok":
                raise WorkerError(f"explore worker {i} failed in {command!r}:\n{value}")
            replies.append(value)
        return replies

    def pids(self) -> list[int]:
        """The worker processes' ids (for their memory)."""
        return [p.pid for p in self.procs if p.pid is not None]

    def close(self) -> None:
        for conn in self.conns:
            with contextlib.suppress(OSError):  # that worker has already ended
                conn.send(("stop", None))
            conn.close()
        for proc in self.procs:
            proc.join(timeout=5)
            if proc.is_alive():
                proc.terminate()
                proc.join()


class Pool(Protocol):
    """Where the workers run: `_Pool` (forked processes), `_Inline` (this process) or
    `ray_pool.RayPool` (Ray actors). The coordinator drives each the same way."""

    def call(self, command: str, arguments: Sequence[object] | None = None) -> list[object]:
        """Run `command` on every worker (with its own argument, if any); their replies in order."""
        ...

    def pids(self) -> list[int]:
        """The worker processes on this machine."""
        ...

    def close(self) -> None:
        """Stop the workers."""
        ...


class _Inline:
    """One worker in this process (`workers=1`): the same commands, no process, no pipe."""

    def __init__(self, worker: _Worker) -> None:
        self.worker = worker

    def call(self, command: str, arguments: Sequence[object] | None = None) -> list[object]:
        method = getattr(self.worker, command)
        return [method(arguments[0]) if arguments is not None else method()]

    def pids(self) -> list[int]:
        """No worker process."""
        return []

    def close(self) -> None:
        """Nothing to stop."""


class ExplorationStoppedError(VillageError):
    """The run was asked to stop (`stop()` became true: Ctrl-C or SIGTERM in the command
    line) and stopped at a level boundary, after writing its checkpoint if it had a file."""

    def __init__(self, message: str, saved: Path | None) -> None:
        super().__init__(message)
        self.saved = saved


class MemoryBudgetError(VillageError):
    """The explorer's processes hold more memory than `max_memory` allows."""


def explore_parallel(
    data: EditionData,
    players: int,
    *,
    workers: int,
    variant: Variant | None = None,
    max_states: int = MAX_STATES,
    queries: Sequence[Query] = CATALOGUE,
    check: bool = True,
    refinement: bool = False,
    monitor: Monitor | None = None,
    progress: Progress | None = None,
    checkpoint: Path | None = None,
    checkpoint_every: int = 500_000,
    resume: Path | None = None,
    stop: Callable[[], bool] | None = None,
    max_memory: int | None = None,
    ray: bool = False,
    ray_address: str | None = None,
) -> Exploration:
    """`search.explore` over `workers` processes (module docstring): the same counts,
    checks and verdicts, shortest witnesses of the same length.

    With `checkpoint`, the run is saved there (`checkpoint.write`) at the first level
    boundary after every `checkpoint_every` distinct states, when `stop()` turns true
    (checked at every level boundary; then `ExplorationStoppedError`), when the memory of its
    processes passes `max_memory` bytes (then `MemoryBudgetError`) and when the state budget
    is passed (then `ExplorationLimitError`, after the level that passes it). `resume`
    continues a saved run to the same final counts (`CheckpointError` if the file is
    damaged or from another run).

    With `ray`, the workers are Ray actors (`ray_pool`, the `distributed` extra): on the
    cluster at `ray_address`, on the Ray instance this process is connected to, or on a new
    local one; this process must have `PYTHONHASHSEED` set (`RayUnavailableError`). The
    counts, checks, verdicts and checkpoints are those of the worker processes."""
    if ray_address is not None and not ray:
        raise ParameterError("ray_address", "a Ray address is for ray=True")
    if workers < 1:
        raise ParameterError("workers", f"at least 1 worker process, not {workers}")
    if checkpoint_every < 1:
        raise ParameterError("checkpoint_every", f"at least 1 state, not {checkpoint_every}")
    if refinement and players == 1:
        raise ParameterError("refinement", "the z3 model has no Carla: refinement is for 2 or more players")
    link = Constants.of(data, players) if refinement else None
    watched = monitor.query if monitor is not None else None
    step_queries = [q for q in queries if q.horizon == STEP or q.name == watched]
    identity = run_identity(
        data,
        players,
        variant=variant,
        check=check,
        refinement=refinement,
        queries=[q.name for q in queries],
        monitor=watched,
        workers=workers,
    )
    saved = read(resume, identity) if resume is not None else None
    starts = roots(data, players, variant)
    result = Exploration(players=players, roots=len(starts))
    for q in queries:
        if q not in step_queries:
            result.verdicts[q.name] = QueryVerdict(q.name, q.horizon, None, decided=False)
    made = [
        _Worker(i, workers, starts=starts, queries=step_queries, check=check, link=link, monitor=monitor)
        for i in range(workers)
    ]
    pool: Pool = RayPool(made, data, ray_address) if ray else _Pool(made) if workers > 1 else _Inline(made[0])
    run = Checkpoint(identity, level=-1, states=0, edges=0, found={}, saved_at=checkpoint_every)
    try:
        if saved is not None:
            pool.call("load", saved.shares)
            run = saved
            run.shares = []
            # this run's checkpoint_every, not the saved run's: the next save is due after
            # that many more states (before, the saved schedule went on, ignoring the option)
            run.saved_at = run.states + checkpoint_every
        while True:
            new = _level(pool, run, workers)
            if new == 0:
                break
            memory = resident_bytes([os.getpid(), *pool.pids()])
            if progress is not None:
                progress(Snapshot(run.states, new, run.level, run.edges, 0, memory))
            due = run.states >= run.saved_at
            if due:
                while run.saved_at <= run.states:
                    run.saved_at += checkpoint_every
            asked = stop is not None and stop()
            over_memory = max_memory is not None and memory is not None and memory > max_memory
            over_states = run.states > max_states
            if checkpoint is not None and (due or asked or over_memory or over_states):
                _save(pool, run, checkpoint)
            where = f"at depth {run.level} after {run.states:,} distinct states"
            kept = (
                f"; checkpoint written to {checkpoint}: continue with --resume {checkpoint}"
                if checkpoint is not None
                else "; nothing saved (give --checkpoint FILE to be able to resume)"
            )
            if over_states:
                raise ExplorationLimitError(max_states, run.level, new, kept if checkpoint else "")
            if over_memory and memory is not None and max_memory is not None:
                raise MemoryBudgetError(
                    f"the explorer's processes hold {memory / 2**20:,.0f} MiB, more than --max-memory "
                    f"{max_memory / 2**20:,.0f} MiB, {where}{kept}"
                )
            if asked:
                raise ExplorationStoppedError(f"stopped on request {where}{kept}", checkpoint)
        finished = [cast(tuple[_Tally, bytes, bytes, int], f) for f in pool.call("finish")]
    finally:
        pool.close()
    return _merge(result, finished, starts, step_queries, run.found, run.states, max(run.level, 0), workers)


def _level(pool: Pool, run: Checkpoint, workers: int) -> int:
    """One breadth-first level (the module docstring's four phases); the new states."""
    if run.level >= 0:
        expanded = [
            cast(tuple[list[bytes], dict[str, tuple[int, int]], int], e)
            for e in pool.call("expand", [list(run.found)] * workers)
        ]
        outboxes = [e[0] for e in expanded]
        for e in expanded:  # the lowest worker's first hit, on the earliest level
            for name, hit in e[1].items():
                run.found.setdefault(name, hit)
        run.edges = sum(e[2] for e in expanded)
    else:  # the roots: already candidates, by worker
        outboxes = [cast(list[bytes], r) for r in pool.call("by_owner")]
    requests = [[outboxes[src][dst] for src in range(workers)] for dst in range(workers)]
    replies = [cast(list[bytes], r) for r in pool.call("own", requests)]
    verdicts = [[replies[owner][w] for owner in range(workers)] for w in range(workers)]
    accepted = [cast(int, n) for n in pool.call("accept", verdicts)]
    new = sum(accepted)
    if new:
        run.level += 1
        run.states += new
        _balance(pool, accepted)
    return new


def _save(pool: Pool, run: Checkpoint, path: Path) -> None:
    run.shares = [cast(bytes, b) for b in pool.call("save")]
    try:
        write(path, run)
    finally:
        run.shares = []


def _balance(pool: Pool, sizes: list[int]) -> None:
    """Move states from frontiers above their share to those below it."""
    workers = len(sizes)
    share = sum(sizes) // workers
    if share == 0 or max(sizes) <= share * (1 + BALANCE_SLACK) + 1:
        return
    excess = [max(n - share, 0) for n in sizes]
    lack = [max(share - n, 0) for n in sizes]
    gives = [0] * workers
    takes: list[list[tuple[int, int]]] = [[] for _ in range(workers)]  # receiver -> [(donor, count)]
    donor = 0
    for receiver in range(workers):
        while lack[receiver] > 0 and donor < workers:
            n = min(lack[receiver], excess[donor] - gives[donor])
            if n > 0:
                takes[receiver].append((donor, n))
                gives[donor] += n
                lack[receiver] -= n
            if gives[donor] >= excess[donor]:
                donor += 1
    given = [cast(list[Entry], g) for g in pool.call("give", gives)]
    parcels: list[list[Entry]] = [[] for _ in range(workers)]
    for receiver, sources in enumerate(takes):
        for d, n in sources:
            parcels[receiver].extend(given[d][:n])
            given[d] = given[d][n:]
    pool.call("take", parcels)


def _merge(  # noqa: PLR0917 (one call site, every argument named by its role)
    result: Exploration,
    finished: list[tuple[_Tally, bytes, bytes, int]],
    starts: Sequence[Root],
    step_queries: Sequence[Query],
    found: dict[str, tuple[int, int]],
    states: int,
    depth: int,
    workers: int,
) -> Exploration:
    """The workers' tallies summed into `result`, and each query's witness from the parents."""
    parents: list[array[int]] = []
    moved: list[array[int]] = []
    fired: set[str] = set()
    for tally, parent_bytes, move_bytes, nbytes in finished:
        fired |= tally.fired
        result.edges += tally.edges
        result.deadlocks += tally.deadlocks
        result.terminal.update(tally.terminal)
        result.violation_count += tally.violation_count
        result.violations.extend(tally.violations)
        result.states_checked += tally.states_checked
        result.edges_checked += tally.edges_checked
        result.edges_refined += tally.edges_refined
        result.seen_bytes += nbytes
        p = array("q")
        p.frombytes(parent_bytes)
        m = array("H")
        m.frombytes(move_bytes)
        parents.append(p)
        moved.append(m)
    del result.violations[MAX_VIOLATIONS:]
    result.states = states
    result.depth = depth
    result.rules_fired = frozenset(fired)

    def parent_of(gid: int) -> tuple[int, int]:
        w, local = gid % workers, gid // workers
        return parents[w][local], moved[w][local]

    for q in step_queries:
        hit = found.get(q.name)
        witness = None
        if hit is not None:
            index, path = path_to(parent_of, starts, hit[0])
            witness = (index, (*path, moves(replay(starts[index].state, path))[hit[1]][0]))
        result.verdicts[q.name] = QueryVerdict(q.name, q.horizon, witness)
    return result
