"""The fuzzer's Ray backend (the `distributed` extra) on a local Ray instance of 2 CPUs: the
same games, rule counts and progress as the process pool, shards included. (Ctrl-C with
`--backend ray` is tested in test_fuzz_runs.py beside the other SIGINT tests.)

Skipped without Ray; `.ci/run` installs the extra and runs the Ray tests with
VILLAGE_REQUIRE_EXTRAS=1, where a missing Ray fails instead."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from village_rules.fuzz.runner import Shard, run_fuzz

ray: ModuleType = pytest.importorskip("ray")

SEED = 2024
GAMES = 6


def test_ray_plays_the_same_games_as_the_process_pool(local_ray: None, tmp_path: Path) -> None:
    pool = run_fuzz(GAMES, SEED, 2, None, None, tmp_path / "pool")
    seen: list[tuple[int, int]] = []
    on_ray = run_fuzz(
        GAMES, SEED, 2, None, None, tmp_path / "ray", lambda d, t: seen.append((d, t)), backend="ray"
    )
    assert on_ray.backend == "ray" and on_ray.failure is None
    assert on_ray.records == pool.records and len(on_ray.records) == GAMES
    assert on_ray.rule_counts == pool.rule_counts
    assert (on_ray.decisions, on_ray.chance_events) == (pool.decisions, pool.chance_events)
    assert seen[-1] == (GAMES, GAMES)  # the same progress reports
    assert "2 worker(s), ray)" in on_ray.format()
    assert not list(tmp_path.rglob("*.json"))


def test_a_shard_on_ray_is_the_same_shard_as_in_the_pool(local_ray: None, tmp_path: Path) -> None:
    pool = run_fuzz(GAMES, SEED, 1, None, None, tmp_path, shard=Shard(2, 3))
    on_ray = run_fuzz(GAMES, SEED, 2, None, None, tmp_path, shard=Shard(2, 3), backend="ray", chunk_size=1)
    assert on_ray.records == pool.records and on_ray.game_indices == (1, 4)
    assert on_ray.rule_counts == pool.rule_counts


def test_guided_segments_as_ray_tasks_are_those_played_here(local_ray: None) -> None:
    from village_rules.fuzz.guided import GuidedPlan, merge_segments, play_segments  # noqa: PLC0415

    plan = GuidedPlan("guided", 0, 600, "original-2011", 2, segments=2)
    on_ray = play_segments(plan, [0, 1], 2, "ray")
    here = play_segments(plan, [0, 1], 1)
    assert {k: (c.seen, c.curve, c.first) for k, c in on_ray.items()} == {
        k: (c.seen, c.curve, c.first) for k, c in here.items()
    }
    assert merge_segments([on_ray[0], on_ray[1]]).curve == merge_segments([here[0], here[1]]).curve
