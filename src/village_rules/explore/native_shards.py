"""The native explorer's loop spread over shards: Ray actors for a cluster (`explore
--engine native --ray`), or shards in this process (the tie) (issue 40, item 1).

Each shard (`_core.Shard`, cpp/explore.cpp) owns the fingerprints whose segment is its
number modulo the shards, as a thread of the native loop owns them (`native.explore_counts`
with `workers`), and holds their seen set, their parents and its part of each level,
packed. This coordinator runs the threads' barrier phases over them: every shard seeds the
set-ups it owns; then, level by level, every shard expands its frontier (one outbox of
packed children per owner), every owner keeps the new states of its outboxes (in shard
order) and advances. On Ray the outboxes go from actor to actor through Ray's object store,
not through this process. The counts are those of the threaded loop, and a shortest game to
each end is one of the same length (`tests/native/test_native_shards.py` ties both, in
process and on a local Ray instance).

Fingerprints are computed in C++ from a state's packed bytes, the same in every process by
construction: unlike the Python explorer on Ray (`ray_pool`), no `PYTHONHASHSEED` is needed.
What the threaded loop has that this does not: checkpoints, `--max-memory` and stopping
between batches (a run on Ray stops with its coordinator); the state budget is checked at
each level's end.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Protocol

from village_rules.data.edition import EditionData
from village_rules.explore.configs import configuration
from village_rules.explore.native import NativeExploration, Progress
from village_rules.explore.ray_pool import RayUnavailableError, RayWorkerError, import_ray, session
from village_rules.explore.search import MAX_STATES, ExplorationLimitError, roots
from village_rules.native import _core
from village_rules.native.engine import native_game
from village_rules.rules.variant import Variant

MAX_SHARDS = 64
"""The most shards a run takes (cpp/explore.cpp `Shard`)."""

_Counts = dict[str, Any]
"""A shard's tallies as `_core.Shard.counts` gives them."""


@dataclass(frozen=True)
class Spec:
    """What every shard of a run is built from, but the edition data: the players, the
    readings, the number of shards and whether the invariants are checked."""

    players: int
    variant: Variant | None
    shards: int
    check: bool

    def shard(self, data: EditionData, owner: int) -> _core.Shard:
        """Shard `owner` over every set-up deal of `data` (`search.roots`)."""
        games = [native_game(root.state) for root in roots(data, self.players, self.variant)]
        return _core.Shard(games, owner, self.shards, self.check)


class Shards(Protocol):
    """The shards of one run, as the coordinator drives them (each call a barrier)."""

    def seed(self) -> list[int]:
        """Every shard seeds the set-ups it owns: how many each."""
        ...

    def level(self) -> list[tuple[int, int]]:
        """Every shard expands its frontier, every owner keeps its new states and advances:
        each one's next frontier, in states and packed bytes."""
        ...

    def parent_of(self, owner: int, local: int) -> tuple[int, int]:
        """State `local` of shard `owner`: its parent's id (`Shard.ROOT_ID` for a set-up)
        and the move's index."""
        ...

    def replay(self, root: int, moves: Sequence[int]) -> list[int]:
        """The action ids of the move indexes `moves` from set-up `root`."""
        ...

    def counts(self) -> list[_Counts]:
        """Every shard's tallies, in shard order."""
        ...


class LocalShards:
    """The shards in this process, one after another: the coordinator's own logic without
    transport, tied to the threaded loop in the default suite."""

    def __init__(self, data: EditionData, spec: Spec) -> None:
        self._shards = [spec.shard(data, o) for o in range(spec.shards)]

    def seed(self) -> list[int]:
        """Every shard seeds the set-ups it owns."""
        return [int(s.seed()) for s in self._shards]

    def level(self) -> list[tuple[int, int]]:
        """One level, the outboxes handed from shard to owner here."""
        boxes = [s.expand() for s in self._shards]
        for o, shard in enumerate(self._shards):
            shard.keep([box[o] for box in boxes])
        return [_sizes(s.advance()) for s in self._shards]

    def parent_of(self, owner: int, local: int) -> tuple[int, int]:
        """A state's parent and move."""
        parent, move = self._shards[owner].parent_of(local)
        return int(parent), int(move)

    def replay(self, root: int, moves: Sequence[int]) -> list[int]:
        """Move indexes to action ids."""
        return [int(i) for i in self._shards[0].replay(root, list(moves))]

    def counts(self) -> list[_Counts]:
        """Every shard's tallies."""
        return [dict(s.counts()) for s in self._shards]

    def close(self) -> None:
        """Nothing to end."""


def _sizes(raw: tuple[int, int]) -> tuple[int, int]:
    states, size = raw
    return int(states), int(size)


class _ShardHost:
    """A Ray actor's state: one shard. The edition data comes by value (its fields), so the
    actor's process registers it before the set-ups are dealt (as `ray_pool._Host`)."""

    def __init__(self, data: dict[str, object], spec: Spec, owner: int) -> None:
        edition = EditionData(**data)  # type: ignore[arg-type]  # registered in this process
        self.shard = spec.shard(edition, owner)
        self.shards = spec.shards

    def seed(self) -> int:
        return int(self.shard.seed())

    def expand(self) -> Any:
        boxes = self.shard.expand()
        return boxes[0] if self.shards == 1 else tuple(boxes)  # Ray's num_returns = shards

    def keep(self, *boxes: bytes) -> int:
        return int(self.shard.keep(list(boxes)))

    def advance(self) -> tuple[int, int]:
        return _sizes(self.shard.advance())

    def parent_of(self, local: int) -> tuple[int, int]:
        parent, move = self.shard.parent_of(local)
        return int(parent), int(move)

    def replay(self, root: int, moves: list[int]) -> list[int]:
        return [int(i) for i in self.shard.replay(root, moves)]

    def counts(self) -> _Counts:
        return dict(self.shard.counts())


class RayShards:
    """The shards as Ray actors, one CPU each, on a local instance or the cluster at
    `address`; an outbox goes from the actor that filled it to its owner as a Ray object."""

    def __init__(self, data: EditionData, spec: Spec, address: str | None) -> None:
        shards = spec.shards
        self.ray: ModuleType = import_ray()
        self._session = session(address, shards)
        self._session.__enter__()
        try:
            cpus = int(self.ray.cluster_resources().get("CPU", 0))
            if cpus < shards:
                raise RayUnavailableError(
                    f"explore on Ray: the Ray cluster has {cpus} CPU(s), fewer than the {shards} "
                    "workers asked for (one CPU each): give fewer --workers"
                )
            fields = {f.name: getattr(data, f.name) for f in dataclasses.fields(data)}
            host = self.ray.remote(_ShardHost).options(num_cpus=1)
            self._actors = [host.remote(fields, spec, o) for o in range(shards)]
        except BaseException:
            self.close()
            raise
        self._shards = shards

    def _get(self, refs: Sequence[Any], what: str) -> list[Any]:
        try:
            return list(self.ray.get(list(refs)))
        except self.ray.exceptions.RayActorError as exc:
            raise RayWorkerError(f"explore Ray shard lost in {what!r}: {exc}") from None
        except self.ray.exceptions.RayError as exc:
            raise RayWorkerError(f"explore Ray shard failed in {what!r}:\n{exc}") from None

    def seed(self) -> list[int]:
        """Every actor seeds the set-ups it owns."""
        return self._get([a.seed.remote() for a in self._actors], "seed")

    def level(self) -> list[tuple[int, int]]:
        """One level: the outboxes passed from actor to actor as Ray objects."""
        n = self._shards
        boxes = [a.expand.options(num_returns=n).remote() for a in self._actors]
        if n == 1:
            boxes = [[b] for b in boxes]
        kept = [a.keep.remote(*(boxes[w][o] for w in range(n))) for o, a in enumerate(self._actors)]
        self._get(kept, "keep")
        return self._get([a.advance.remote() for a in self._actors], "advance")

    def parent_of(self, owner: int, local: int) -> tuple[int, int]:
        """A state's parent and move, asked of its owner."""
        parent, move = self._get([self._actors[owner].parent_of.remote(local)], "parent_of")[0]
        return int(parent), int(move)

    def replay(self, root: int, moves: Sequence[int]) -> list[int]:
        """Move indexes to action ids, on the first actor."""
        return list(self._get([self._actors[0].replay.remote(root, list(moves))], "replay")[0])

    def counts(self) -> list[_Counts]:
        """Every actor's tallies."""
        return self._get([a.counts.remote() for a in self._actors], "counts")

    def close(self) -> None:
        """End the actors and the Ray connection this opened."""
        for actor in getattr(self, "_actors", []):
            with contextlib.suppress(Exception):  # already gone with its node
                self.ray.kill(actor)
        self._actors = []
        self._session.__exit__(None, None, None)


def explore_sharded(
    config: str | EditionData,
    players: int | None = None,
    *,
    variant: Variant | None = None,
    shards: int = 2,
    check: bool = False,
    max_states: int = MAX_STATES,
    ray: bool = False,
    ray_address: str | None = None,
    progress: Progress | None = None,
) -> NativeExploration:
    """Count every state reachable from every set-up deal of `config` over `shards` shards
    (Ray actors with `ray`, else in this process): the figures of `native.explore_counts`
    with as many threads, and a shortest game to each end of the same length.
    Raises `ExplorationLimitError` when more than `max_states` distinct states are found
    by a level's end."""
    if isinstance(config, str):
        name, data = config, configuration(config).data
    else:
        name, data = config.name, config
    if players is None:
        players = data.playable_counts[0]
    if not 1 <= shards <= MAX_SHARDS:
        raise ValueError(f"shards must be 1 to {MAX_SHARDS}, not {shards}")
    setups = len(roots(data, players, variant))
    if ray:
        logging.getLogger("ray").setLevel(logging.ERROR)
    spec = Spec(players, variant, shards, check)
    pool: LocalShards | RayShards = RayShards(data, spec, ray_address) if ray else LocalShards(data, spec)
    try:
        return _coordinate(pool, name, spec, setups, max_states=max_states, progress=progress)
    finally:
        pool.close()


def _coordinate(
    pool: Shards, name: str, spec: Spec, setups: int, *, max_states: int, progress: Progress | None
) -> NativeExploration:
    """The threads' barrier phases over the shards (cpp/explore.cpp `run`), level by level."""
    start = time.perf_counter()
    seeded = pool.seed()
    states, depth, frontier, widest = sum(seeded), 0, sum(seeded), 0
    while frontier:
        sizes = pool.level()
        frontier = sum(n for n, _ in sizes)
        widest = max(widest, sum(b for _, b in sizes))
        states += frontier
        if states > max_states:
            raise ExplorationLimitError(max_states, depth + 1, frontier)
        if frontier:
            depth += 1
        if progress is not None:
            progress(depth, states, sum(int(c["edges"]) for c in pool.counts()), frontier)
    seconds = time.perf_counter() - start
    tallies = pool.counts()
    terminal: Counter[str] = Counter()
    first_end: dict[str, tuple[int, int]] = {}
    violations: list[str] = []
    first_exception = ""
    for t in tallies:  # in shard order, as `run` sums its threads' tallies
        terminal.update({str(k): int(v) for k, v in dict(t["terminal"]).items()})
        violations.extend(str(v) for v in t["violations"])
        if not first_exception and t["first_exception"]:
            first_exception = str(t["first_exception"])
        for ended, (level, ident) in dict(t["first_end"]).items():  # the lowest level, then id
            mine = (int(level), int(ident))
            first_end[str(ended)] = min(first_end.get(str(ended), mine), mine)

    def total(key: str) -> int:
        return sum(int(t[key]) for t in tallies)

    return NativeExploration(
        config=name,
        players=spec.players,
        roots=setups,
        states=states,
        edges=total("edges"),
        depth=depth,
        terminal=terminal,
        deadlocks=total("deadlocks"),
        engine_exceptions=total("engine_exceptions"),
        first_exception=first_exception,
        seen_bytes=total("seen_bytes"),
        seconds=seconds,
        json_error="",
        workers=spec.shards,
        frontier_bytes=widest,
        parents_bytes=total("parents_bytes"),
        shortest_end={ended: _witness(pool, ident) for ended, (_, ident) in sorted(first_end.items())},
        states_checked=total("states_checked"),
        edges_checked=total("edges_checked"),
        violation_count=total("violation_count"),
        violations=violations[:10],
        checkpoints_written=0,
        checkpoint_bytes=0,
        resumed_states=None,
        resumed_depth=None,
    )


def _witness(pool: Shards, ident: int) -> tuple[int, list[int]]:
    """The set-up's index and the action ids of the game from it to state `ident`, followed
    back through each state's owner."""
    moves: list[int] = []
    root_id = int(_core.Shard.ROOT_ID)
    while True:
        parent, move = pool.parent_of(ident >> 40, ident & ((1 << 40) - 1))
        if parent == root_id:
            return move, pool.replay(move, moves[::-1])
        moves.append(move)
        ident = parent

