"""Checkpoints that cannot be resumed are refused when the run starts, and a checkpoint is
read through the bounded reader (issue 42)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from village_rules.cli.main import main
from village_rules.explore import checkpoint, parallel
from village_rules.explore.checkpoint import CheckpointError
from village_rules.explore.configs import configuration
from village_rules.explore.parallel import explore_parallel
from village_rules.explore.search import ExplorationLimitError


@pytest.mark.parametrize("value", ["random", "", "-1", "4294967296", "7" * 5000, " 1"])
def test_a_checkpoint_that_could_never_be_resumed_is_refused_before_the_run(
    value: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # PYTHONHASHSEED=random was accepted (it is set): the run was explored and saved, and
    # every resume had another string-hash key
    monkeypatch.setenv("PYTHONHASHSEED", value)
    saved = tmp_path / "run.checkpoint"
    assert main(["explore", "tiny", "--checkpoint", str(saved), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert str(saved) in err and "PYTHONHASHSEED" in err and "Traceback" not in err
    assert not list(tmp_path.iterdir())


def test_a_checkpoint_is_read_from_a_regular_file_only(tmp_path: Path) -> None:
    data, players = configuration("tiny").data, 2
    identity = checkpoint.run_identity(
        data, players, variant=None, check=False, refinement=False, queries=[], monitor=None, workers=1
    )
    with pytest.raises(CheckpointError, match="/dev/zero: is not a regular file"):
        checkpoint.read(Path("/dev/zero"), identity)  # was read until the memory ran out
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)

    def feed() -> None:
        # The reader refuses the FIFO without reading from it, so the write side's pipe is
        # broken: that is the behaviour under test, not a failure of the feeder.
        try:
            with open(fifo, "wb") as f:
                f.write(b"village-rules explore checkpoint 1\n")
        except BrokenPipeError:
            pass

    writer = threading.Thread(target=feed)
    writer.start()
    with pytest.raises(CheckpointError, match=f"{fifo}: is not a regular file"):
        checkpoint.read(fifo, identity)
    writer.join()


def test_a_checkpoint_over_the_limit_is_refused_naming_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    big = tmp_path / "big.checkpoint"
    big.write_bytes(b"x" * 1000)
    monkeypatch.setattr(checkpoint, "MAX_CHECKPOINT_BYTES", 999)
    with pytest.raises(
        CheckpointError, match=f"{big}: the checkpoint file is larger than the limit of 999 bytes"
    ):
        checkpoint.read(big, {})


def test_a_resumed_run_saves_by_its_own_checkpoint_every(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Honoured, not refused: how often to save is a property of the run going on, not of
    the saved one, and changing it changes no count. Before, the saved run's schedule went
    on (the next save at 7,000 states here) whatever the resumed run was given."""
    data, players = configuration("tiny").data, configuration("tiny").player_counts[0]
    first, second = tmp_path / "first.checkpoint", tmp_path / "second.checkpoint"
    with pytest.raises(ExplorationLimitError):
        explore_parallel(
            data,
            players,
            workers=1,
            queries=[],
            check=False,
            max_states=3_000,
            checkpoint=first,
            checkpoint_every=7_000,
        )
    saves: list[int] = []
    save = parallel._save

    def counted(pool: parallel.Pool, run: checkpoint.Checkpoint, path: Path) -> None:
        saves.append(run.states)
        save(pool, run, path)

    monkeypatch.setattr(parallel, "_save", counted)
    explore_parallel(
        data,
        players,
        workers=1,
        queries=[],
        check=False,
        resume=first,
        checkpoint=second,
        checkpoint_every=1_000,
    )
    assert saves[0] < 7_000 and len(saves) >= 4, saves  # was one save, at 7,000 states
