"""The fuzzer's Ray backend (the optional `distributed` extra): every chunk of games is a
Ray task, on an existing Ray cluster (`address`) or on a Ray instance started here.

A task plays exactly what a process-pool worker plays (`fuzz.play_chunk`: games fixed by
run seed and index), so the results are those of any other backend. Ray is imported only
when this backend is used; the engine and the other backends never need it.
"""

from __future__ import annotations

import contextlib
import importlib
import itertools
import logging
import time
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import TypeVar

from village_rules.errors import FuzzArgumentError, FuzzBackendError
from village_rules.fuzz.engines import play_chunk
from village_rules.fuzz.games import Backend, Results, RunPlan, sigint_deferred

T = TypeVar("T")

POLL_SECONDS = 0.25
"""How long one wait for a finished task may block, so Ctrl-C is seen promptly."""


def import_ray() -> ModuleType:
    """The `ray` module, or a FuzzArgumentError saying which extra to install."""
    try:
        return importlib.import_module("ray")
    except ImportError as exc:
        raise FuzzArgumentError(
            "--backend",
            f"ray needs the distributed extra (pip install 'village-rules[distributed]'): {exc}",
        ) from None


def ray_backend(address: str | None) -> Backend:
    """A backend that runs chunks as Ray tasks: on the cluster at `address`, on the Ray
    instance this process is already connected to, or else on a new local instance with
    one CPU per worker. Connections it makes it closes again."""
    ray = import_ray()

    def play(plan: RunPlan, workers: int, results: Results) -> None:
        connected_here = not ray.is_initialized()
        if connected_here:
            _connect(ray, address, workers)
        results.started = time.perf_counter()  # the run's figures leave out Ray's start-up
        try:
            _play_tasks(ray, plan, workers, results)
        finally:
            if connected_here:
                with sigint_deferred():
                    ray.shutdown()

    return play


def _connect(ray: ModuleType, address: str | None, workers: int) -> None:
    quiet = {"log_to_driver": False, "logging_level": logging.ERROR, "include_dashboard": False}
    try:
        if address is None:
            ray.init(address="local", num_cpus=workers, **quiet)
        else:
            ray.init(address=address, **quiet)
    except (ConnectionError, RuntimeError, ValueError, TimeoutError) as exc:
        where = "a local Ray instance" if address is None else f"the Ray cluster at {address!r}"
        raise FuzzBackendError("ray", f"cannot start or reach {where}: {exc}") from None


def _play_tasks(ray: ModuleType, plan: RunPlan, workers: int, results: Results) -> None:
    """At most 2 tasks per worker (or per cluster CPU) outstanding; on a settled failure
    or Ctrl-C the outstanding tasks are cancelled (their worker processes killed)."""
    cpus = int(ray.cluster_resources().get("CPU", 1))
    window = 2 * max(workers, cpus)
    task = ray.remote(play_chunk)
    queued = iter(plan.chunks)
    pending: list[object] = []

    def submit() -> None:
        for chunk in itertools.islice(queued, window - len(pending)):
            pending.append(task.remote(*plan.chunk_args(chunk)))

    def collect(refs: list[object]) -> None:
        for ref in refs:
            pending.remove(ref)
            try:
                chunk_results = ray.get(ref)
            except ray.exceptions.RayError as exc:
                raise FuzzBackendError("ray", f"a task failed: {exc}") from None
            results.add(chunk_results)

    try:
        submit()
        while pending:
            ready, _ = ray.wait(pending, num_returns=1, timeout=POLL_SECONDS)
            collect(ready)
            if results.settled_failure() is not None:
                break
            submit()
    except KeyboardInterrupt:
        with sigint_deferred():
            ready, _ = ray.wait(pending, num_returns=len(pending), timeout=0) if pending else ([], [])
            with contextlib.suppress(FuzzBackendError):  # a task hit by the same Ctrl-C: not played
                collect(ready)
        raise
    finally:
        with sigint_deferred():
            for ref in pending:
                ray.cancel(ref, force=True)


def ray_map(
    fn: Callable[..., T], calls: Sequence[tuple[object, ...]], workers: int, address: str | None
) -> list[T]:
    """`fn(*args)` for each of `calls` as Ray tasks (as `ray_backend` connects: the cluster
    at `address`, the instance already connected, or a new local one), results in order.
    Used by the guided fuzzer, whose segments are independent tasks."""
    ray = import_ray()
    connected_here = not ray.is_initialized()
    if connected_here:
        _connect(ray, address, workers)
    try:
        task = ray.remote(fn)
        refs = [task.remote(*args) for args in calls]
        try:
            return list(ray.get(refs))
        except ray.exceptions.RayError as exc:
            raise FuzzBackendError("ray", f"a task failed: {exc}") from None
    finally:
        if connected_here:
            with sigint_deferred():
                ray.shutdown()
