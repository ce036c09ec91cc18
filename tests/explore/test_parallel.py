"""The exploration split over worker processes (village_rules.explore.parallel) gives the
single-process run's counts, checks and verdicts, with shortest witnesses of the same length."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import TINY_STATES

from village_rules.checks.invariants import Violation
from village_rules.data.edition import EditionData
from village_rules.engine.core import apply, apply_steps
from village_rules.explore import checkpoint, parallel, search
from village_rules.explore.checkpoint import CheckpointError
from village_rules.explore.configs import configuration
from village_rules.explore.monitors import MONITORS
from village_rules.explore.parallel import (
    ExplorationStoppedError,
    MemoryBudgetError,
    WorkerError,
    explore_parallel,
)
from village_rules.explore.search import ExplorationLimitError, explore
from village_rules.proofs.catalogue.catalogue import by_name
from village_rules.proofs.search.history import History, play_steps


def _figures(r: search.Exploration) -> dict[str, object]:
    return {
        "roots": r.roots,
        "states": r.states,
        "edges": r.edges,
        "depth": r.depth,
        "terminal": dict(r.terminal),
        "deadlocks": r.deadlocks,
        "violations": r.violation_count,
        "states checked": r.states_checked,
        "edges checked": r.edges_checked,
        "verdicts": {
            q: (v.decided, None if v.witness is None else len(v.witness[1])) for q, v in r.verdicts.items()
        },
    }


def _data(name: str) -> tuple[EditionData, int]:
    config = configuration(name)
    return config.data, config.player_counts[0]


@pytest.fixture(scope="module")
def tiny_alone() -> search.Exploration:
    return explore(*_data("tiny"))


@pytest.fixture(scope="module")
def tiny_split() -> search.Exploration:
    return explore_parallel(*_data("tiny"), workers=2)


def test_tiny_over_two_worker_processes_has_the_single_process_counts_and_verdicts(
    tiny_alone: search.Exploration, tiny_split: search.Exploration
) -> None:
    assert _figures(tiny_split) == _figures(tiny_alone)
    assert tiny_split.states_checked == tiny_split.states  # every state checked once, by one worker


@pytest.mark.slow  # ~10 s: tiny over 1 and 3 workers (3: the frontier balanced three ways)
@pytest.mark.parametrize("workers", [1, 3])
def test_tiny_over_one_or_three_workers_has_the_single_process_counts(
    tiny_alone: search.Exploration, workers: int
) -> None:
    assert _figures(explore_parallel(*_data("tiny"), workers=workers)) == _figures(tiny_alone)


def test_a_witness_found_by_a_worker_replays_to_its_query(tiny_split: search.Exploration) -> None:
    data, players = _data("tiny")
    split = tiny_split
    starts = search.roots(data, players)
    reached = [v for v in split.verdicts.values() if v.witness is not None]
    assert reached
    for v in reached:
        assert v.witness is not None
        root, actions = v.witness
        states = [starts[root].state]
        for action in actions[:-1]:
            assert action in [a for a, _ in search.moves(states[-1])], v.query
            states.append(apply(states[-1], action))
        # judged after every sub-step of the last edge, with its events
        edge = History([states[-1]])
        assert play_steps(edge, apply_steps(states[-1], actions[-1]), by_name(v.query).concrete), v.query


@pytest.mark.no_cover  # CPU-bound replays: not traced in the coverage run (tests/README.md, "Coverage")
def test_a_monitored_product_over_workers_decides_its_path_query_the_same_way() -> None:
    data, players = _data("tiny")
    monitor = MONITORS["two-deaths-one-turn"]
    query = [by_name("two-deaths-one-turn")]
    alone = explore(data, players, queries=query, check=False, monitor=monitor)
    split = explore_parallel(data, players, workers=2, queries=query, check=False, monitor=monitor)
    assert _figures(split) == _figures(alone)


def test_a_planted_rule_bug_is_found_by_the_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    # the workers are forked after the patch, so they run the broken rule
    def broken(state: object, legal: object = None) -> list[Violation]:
        return [Violation("planted", "state", "nothing", "always")]

    monkeypatch.setattr(search, "state_violations", broken)
    split = explore_parallel(*_data("tiny"), workers=2, queries=[])
    assert split.violation_count == split.states == TINY_STATES
    assert len(split.violations) == search.MAX_VIOLATIONS


@pytest.mark.slow  # ~15 s: solo explored alone and over 2 workers
def test_solo_over_two_workers_has_the_single_process_counts_and_verdicts() -> None:
    assert _figures(explore_parallel(*_data("solo"), workers=2)) == _figures(explore(*_data("solo")))


def test_the_state_budget_stops_the_workers_with_the_same_error() -> None:
    with pytest.raises(ExplorationLimitError, match="more than 1,000 distinct states"):
        explore_parallel(*_data("tiny"), workers=2, max_states=1_000, check=False)


def test_a_failing_worker_is_reported_with_its_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    def crash(self: object, found: object) -> None:
        raise RuntimeError("planted worker crash")

    monkeypatch.setattr(parallel._Worker, "expand", crash)
    with pytest.raises(WorkerError, match="planted worker crash"):
        explore_parallel(*_data("tiny"), workers=2, check=False)


def test_workers_must_be_at_least_one() -> None:
    with pytest.raises(Exception, match="at least 1 worker"):
        explore_parallel(*_data("tiny"), workers=0)


# checkpoints: stop at a budget, a request or the memory budget, resume to the same counts


@pytest.mark.no_cover  # CPU-bound replays: not traced in the coverage run (tests/README.md, "Coverage")
def test_a_run_stopped_at_its_state_budget_resumes_to_the_uninterrupted_counts(
    tiny_alone: search.Exploration, tmp_path: Path
) -> None:
    saved = tmp_path / "tiny.checkpoint"
    with pytest.raises(ExplorationLimitError, match=f"checkpoint written to {saved}"):
        explore_parallel(*_data("tiny"), workers=2, max_states=3_000, checkpoint=saved)
    resumed = explore_parallel(*_data("tiny"), workers=2, resume=saved)
    assert _figures(resumed) == _figures(tiny_alone)


@pytest.mark.no_cover  # CPU-bound replays: not traced in the coverage run (tests/README.md, "Coverage")
def test_a_run_asked_to_stop_saves_at_a_level_boundary_and_resumes_in_one_process(
    tiny_alone: search.Exploration, tmp_path: Path
) -> None:
    saved = tmp_path / "tiny.checkpoint"
    asked = iter([False] * 11 + [True])
    with pytest.raises(ExplorationStoppedError, match="stopped on request at depth 11") as stopped:
        explore_parallel(*_data("tiny"), workers=1, checkpoint=saved, stop=lambda: next(asked))
    assert stopped.value.saved == saved
    assert _figures(explore_parallel(*_data("tiny"), workers=1, resume=saved)) == _figures(tiny_alone)


def test_periodic_checkpoints_are_written_every_so_many_states(tmp_path: Path) -> None:
    saved = tmp_path / "tiny.checkpoint"
    data, players = _data("tiny")
    explore_parallel(
        data, players, workers=1, queries=[], check=False, checkpoint=saved, checkpoint_every=7_000
    )
    last = checkpoint.read(
        saved,
        checkpoint.run_identity(
            data, players, variant=None, check=False, refinement=False, queries=[], monitor=None, workers=1
        ),
    )
    assert 7_000 <= last.states < 7_678 and last.saved_at == 14_000


def test_the_memory_budget_stops_the_run_with_a_checkpoint(tmp_path: Path) -> None:
    saved = tmp_path / "tiny.checkpoint"
    with pytest.raises(
        MemoryBudgetError, match=r"more than --max-memory 0 MiB, at depth 0 .* checkpoint written"
    ):
        explore_parallel(*_data("tiny"), workers=2, checkpoint=saved, max_memory=1)
    assert saved.is_file()


def test_a_damaged_or_foreign_checkpoint_is_refused_naming_the_file_and_the_fault(tmp_path: Path) -> None:
    saved = tmp_path / "tiny.checkpoint"
    with pytest.raises(ExplorationLimitError):
        explore_parallel(*_data("tiny"), workers=2, max_states=500, check=False, checkpoint=saved)
    blob = saved.read_bytes()
    damaged = tmp_path / "damaged.checkpoint"
    damaged.write_bytes(blob[:-10] + bytes(10))
    with pytest.raises(CheckpointError, match=f"checkpoint {damaged}: corrupted"):
        explore_parallel(*_data("tiny"), workers=2, check=False, resume=damaged)
    with pytest.raises(CheckpointError, match="not an explore checkpoint"):
        explore_parallel(*_data("tiny"), workers=2, check=False, resume=configuration("tiny").path)
    with pytest.raises(
        CheckpointError, match="written by another run: configuration is 'reduced: tiny' there"
    ):
        explore_parallel(*_data("small"), workers=2, check=False, resume=saved)
    with pytest.raises(CheckpointError, match="workers is 2 there, 3 here"):
        explore_parallel(*_data("tiny"), workers=3, check=False, resume=saved)
    with pytest.raises(CheckpointError, match="invariants checked is False there, True here"):
        explore_parallel(*_data("tiny"), workers=2, resume=saved)
    with pytest.raises(CheckpointError, match="cannot be read"):
        explore_parallel(*_data("tiny"), workers=2, check=False, resume=tmp_path / "missing")
