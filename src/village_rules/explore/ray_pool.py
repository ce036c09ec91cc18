"""The explorer's workers as Ray actors (the optional `distributed` extra), for
configurations beyond one machine: `parallel.explore_parallel(..., ray=True)`.

Each actor holds one worker's share (`parallel._Worker`: the fingerprints it owns, its
frontier, its parents and tallies) and runs the commands the coordinator sends, the same
commands as the worker processes of `parallel._Pool` get through their pipes; so the four
barrier phases of a level, the balancing, checkpoints, resuming and the tallies are the
coordinator's own code whichever pool runs them, and the counts are the same.

The fingerprints are Python hashes of states that hold strings, and a string's hash
depends on the process's `PYTHONHASHSEED`: forked processes share the coordinator's, Ray's
workers are started afresh. So the coordinator must have one set (`RayUnavailableError`
otherwise), every actor is started with it (Ray's `runtime_env` `env_vars`), and before any
work each actor's hashes of a canary string and of a value holding None are compared
with the coordinator's. None matters because a state holds many (no Carla, no end
triggered yet) and before Python 3.12 `hash(None)` is None's address, which differs
between processes whatever the seed; the state's classes hash None as a constant string
(`data.typed_hash`), and the second canary checks that they do on every actor. Ray is
imported only here, only when asked for; the engine and the process pool never need it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import logging
import os
import pickle
import socket
from collections.abc import Iterator, Sequence
from types import ModuleType
from typing import Any, cast

from village_rules.data.edition import EditionData
from village_rules.data.typed_hash import none_canary
from village_rules.errors import VillageError
from village_rules.explore.checkpoint import CANARY

EXTRA = "pip install 'village-rules[distributed]'"


class RayUnavailableError(VillageError):
    """Ray cannot run the exploration: not installed, no `PYTHONHASHSEED`, a cluster that
    cannot be reached or is too small, actors that hash strings differently."""


class RayWorkerError(VillageError):
    """An actor failed or was lost in a command (with Ray's account of it)."""


def import_ray() -> ModuleType:
    """The `ray` module, or a `RayUnavailableError` naming the extra to install."""
    try:
        return importlib.import_module("ray")
    except ImportError as exc:
        raise RayUnavailableError(f"explore on Ray needs the distributed extra ({EXTRA}): {exc}") from None


def hash_seed() -> str:
    """This process's `PYTHONHASHSEED`, which every actor is given; `RayUnavailableError`
    when it is not set (each Ray worker would hash strings its own way)."""
    seed = os.environ.get("PYTHONHASHSEED", "")
    if not seed or seed == "random":
        raise RayUnavailableError(
            "explore on Ray: the fingerprints are Python hashes, which differ from one process to the "
            "next unless PYTHONHASHSEED is set; run it as PYTHONHASHSEED=0 village-rules explore ... --ray"
        )
    return seed


@contextlib.contextmanager
def session(address: str | None, cpus: int) -> Iterator[None]:
    """Connected to Ray for the block: to the cluster at `address`, or to a new local
    instance of `cpus` CPUs; a connection already open is used as it is (and left open)."""
    ray = import_ray()
    if ray.is_initialized():
        yield
        return
    if address is not None:
        reach(address)
    quiet = {"log_to_driver": False, "logging_level": logging.ERROR, "include_dashboard": False}
    try:
        if address is None:
            ray.init(address="local", num_cpus=cpus, **quiet)
        else:
            ray.init(address=address, **quiet)
    except (ConnectionError, RuntimeError, ValueError, TimeoutError) as exc:
        where = "a local Ray instance" if address is None else f"the Ray cluster at {address!r}"
        raise RayUnavailableError(f"explore on Ray: cannot start or reach {where}: {exc}") from None
    try:
        yield
    finally:
        ray.shutdown()


def canaries() -> tuple[int, int]:
    """This process's hashes of a string and of a value holding None: equal in two processes
    when their fingerprints of equal states are equal."""
    return hash(CANARY), none_canary()


def reach(address: str) -> None:
    """One TCP connection to a cluster's `host:port` (Ray itself would retry an address
    that does not answer without end): `RayUnavailableError` if it is refused or fails.
    "auto" and Ray's `ray://` client addresses are left to Ray."""
    host, colon, port = address.rpartition(":")
    if address == "auto" or address.startswith("ray://"):
        return
    if not colon or not port.isdigit() or not host:
        raise RayUnavailableError(f"explore --ray-address {address!r}: not host:port (or 'auto')")
    try:
        with socket.create_connection((host, int(port))):
            pass
    except OSError as exc:
        raise RayUnavailableError(
            f"explore on Ray: cannot reach the Ray cluster at {address!r}: {exc.strerror or exc}"
        ) from None


class _Host:
    """An actor's state: one worker, and the one method that runs its commands.

    A pickled state names its edition data by fingerprint (`data.loader`), which must be
    loaded in the process that unpickles it: so the data comes first, by value (its fields),
    and the worker, pickled by the coordinator, is unpickled after it."""

    def __init__(self, data: dict[str, object], worker: bytes) -> None:
        EditionData(**data)  # type: ignore[arg-type]  # registered in this process by its fingerprint
        self.worker = pickle.loads(worker)

    def call(self, command: str, argument: object) -> object:
        """The worker's method `command`, with `argument` unless None (as `parallel._serve`)."""
        method = getattr(self.worker, command)
        return method(argument) if argument is not None else method()

    def where(self) -> tuple[str, int, tuple[int, int]]:
        """The actor's node, process id and its two canaries (`canaries`)."""
        node: str = importlib.import_module("ray").get_runtime_context().get_node_id()
        return node, os.getpid(), canaries()


class RayPool:
    """The workers as Ray actors, one CPU each; `call` sends one command to each and waits
    for every reply (a barrier), as `parallel._Pool.call` does."""

    def __init__(self, workers: Sequence[object], data: EditionData, address: str | None) -> None:
        seed = hash_seed()
        self.ray = import_ray()
        self._data = {f.name: getattr(data, f.name) for f in dataclasses.fields(data)}
        self._actors: list[Any] = []  # Ray's actor handles (Ray is untyped here: imported by name)
        self._pids: list[int] = []
        self._connection = contextlib.ExitStack()
        self._connection.enter_context(session(address, len(workers)))
        try:
            self._start(workers, seed)
        except BaseException:
            self.close()
            raise

    def _start(self, workers: Sequence[object], seed: str) -> None:
        ray = self.ray
        cpus = int(ray.cluster_resources().get("CPU", 0))
        if cpus < len(workers):
            raise RayUnavailableError(
                f"explore on Ray: the Ray cluster has {cpus} CPU(s), fewer than the {len(workers)} "
                "workers asked for (one CPU each): give fewer --workers"
            )
        host = ray.remote(_Host).options(num_cpus=1, runtime_env={"env_vars": {"PYTHONHASHSEED": seed}})
        dumps = ray.cloudpickle.dumps  # the queries' predicates may be closures: pickled by value
        self._actors = [host.remote(self._data, dumps(worker)) for worker in workers]
        started = self._get([a.where.remote() for a in self._actors], "start")
        places = cast(list[tuple[str, int, tuple[int, int]]], started)
        here = ray.get_runtime_context().get_node_id()
        mine = canaries()
        for i, (node, pid, theirs) in enumerate(places):
            if theirs[0] != mine[0]:
                raise RayUnavailableError(
                    f"explore on Ray: worker {i} hashes strings differently from this process although "
                    f"both have PYTHONHASHSEED={seed}: this process must be started with it set (setting "
                    "it later does not change its own hashes)"
                )
            if theirs[1] != mine[1]:
                raise RayUnavailableError(
                    f"explore on Ray: worker {i} hashes a value holding None differently from this "
                    "process (another version of village-rules on that node?): its fingerprints would "
                    "not be this one's"
                )
            if node == here:
                self._pids.append(pid)

    def call(self, command: str, arguments: Sequence[object] | None = None) -> list[object]:
        """Run `command` on every actor (with its own argument, if any); their replies in order."""
        refs = [
            actor.call.remote(command, None if arguments is None else arguments[i])
            for i, actor in enumerate(self._actors)
        ]
        return self._get(refs, command)

    def _get(self, refs: list[object], command: str) -> list[object]:
        replies = []
        for i, ref in enumerate(refs):
            try:
                replies.append(self.ray.get(ref))
            except self.ray.exceptions.RayActorError as exc:
                raise RayWorkerError(f"explore Ray worker {i} was lost in {command!r}: {exc}") from None
            except self.ray.exceptions.RayError as exc:
                raise RayWorkerError(f"explore Ray worker {i} failed in {command!r}:\n{exc}") from None
        return replies

    def pids(self) -> list[int]:
        """The actors' process ids on this machine (for their memory; those on other
        machines are not counted)."""
        return list(self._pids)

    def close(self) -> None:
        """End the actors, and the Ray connection if this pool opened it."""
        for actor in self._actors:
            with contextlib.suppress(Exception):  # already gone with its node
                self.ray.kill(actor)
        self._actors = []
        self._connection.close()
