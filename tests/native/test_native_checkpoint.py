"""The native explorer's checkpoints (issue 40; cpp/checkpoint.hpp, cpp/explore.cpp,
explore/native_checkpoint.py): a run stopped between two batches (a stop request, the state
or memory budget) or saved at a level boundary (`checkpoint_every`) and resumed reaches
exactly the counts, checks and shortest games of an uninterrupted run, on one thread or two;
a file that cannot continue the run (damaged, another run's, another engine's or build's,
missing) is refused before the work, naming the problem; `--max-memory` stops the native
run, saving it, and refuses a shipped configuration that cannot fit.

Skipped with a reason when the extension is not built, failed instead under
VILLAGE_REQUIRE_NATIVE=1 (tests/conftest.py)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from support import LARGE_PINNED

from village_rules.cli import explore as explore_cli
from village_rules.cli.main import main
from village_rules.errors import OutputError
from village_rules.explore.checkpoint import CheckpointError
from village_rules.explore.configs import configuration
from village_rules.explore.native import NativeExploration, explore_counts
from village_rules.explore.parallel import ExplorationStoppedError, MemoryBudgetError, explore_parallel
from village_rules.explore.search import ExplorationLimitError, roots
from village_rules.native import _core
from village_rules.native.engine import native_game

Outcome = dict[str, object]


def outcome(r: NativeExploration) -> Outcome:
    """Everything a resumed run must give as an uninterrupted one does."""
    return {
        **r.figures(),
        "engine_exceptions": r.engine_exceptions,
        "states_checked": r.states_checked,
        "edges_checked": r.edges_checked,
        "violation_count": r.violation_count,
        "violations": r.violations,
        "shortest_end": r.shortest_end,
        "seen_bytes": r.seen_bytes,
        "frontier_bytes": r.frontier_bytes,
    }


def stop_after(batches: int) -> Callable[[], bool]:
    """A stop request at the `batches`-th batch boundary (as Ctrl-C would make one)."""
    asked = [0]

    def stop() -> bool:
        asked[0] += 1
        return asked[0] == batches

    return stop


_WHOLE: dict[tuple[str, int], NativeExploration] = {}


def whole(name: str, workers: int) -> NativeExploration:
    """The uninterrupted run, checked (every invariant on every state and edge)."""
    if (name, workers) not in _WHOLE:
        _WHOLE[name, workers] = explore_counts(name, workers=workers, check=True)
    return _WHOLE[name, workers]


def stopped(
    name: str, path: Path, batches: int, *, workers: int = 1, resume: Path | None = None
) -> ExplorationStoppedError:
    """A checked run of `name` stopped at its `batches`-th batch boundary, saved to `path`."""
    with pytest.raises(ExplorationStoppedError) as stop:
        explore_counts(
            name, workers=workers, check=True, stop=stop_after(batches), checkpoint=path, resume=resume
        )
    return stop.value


def saved(tmp_path: Path, name: str = "tiny") -> Path:
    """A checkpoint of `name` stopped after a few levels (checked, one thread)."""
    path = tmp_path / f"{name}.ckpt"
    stopped(name, path, 5)
    return path


# ---- resuming gives the uninterrupted run's outcome ------------------------------------------


def batch_ends(name: str, workers: int) -> tuple[int, list[int]]:
    """The batch boundaries of a run of `name` (where `stop` is asked), and the ones among them
    that end a level (each level's last batch), by their number from 1."""
    batches = [0]
    ends: list[int] = []

    def count() -> bool:
        batches[0] += 1
        return False

    explore_counts(name, workers=workers, stop=count, progress=lambda *_: ends.append(batches[0]))
    return batches[0], ends


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("name", ["tiny", "solo"])
def test_a_run_stopped_after_some_levels_resumes_to_the_uninterrupted_outcome(
    name: str, workers: int, tmp_path: Path
) -> None:
    # stopped at the end of the roots' level, of a level half way, of the last but one and
    # of the last: each saved at that level boundary and resumed to the same outcome
    want = outcome(whole(name, workers))
    _, ends = batch_ends(name, workers)
    assert len(ends) == whole(name, workers).depth + 1  # the last level expanded finds nothing
    path = tmp_path / "run.ckpt"
    for level in (0, len(ends) // 2, len(ends) - 2, len(ends) - 1):
        stop = stopped(name, path, ends[level], workers=workers)
        assert stop.saved == path and f"checkpoint written to {path}: continue with --resume" in str(stop)
        assert f"at depth {level + 1} after" in str(stop)
        resumed = explore_counts(name, workers=workers, check=True, resume=path)
        assert resumed.resumed_depth == level and resumed.resumed_states is not None
        assert outcome(resumed) == want, level


def test_a_run_stopped_twice_resumes_to_the_uninterrupted_outcome(tmp_path: Path) -> None:
    # stopped, resumed and stopped again into the same file, then resumed to the end
    path = tmp_path / "run.ckpt"
    stopped("solo", path, 4, workers=2)
    stopped("solo", path, 10, workers=2, resume=path)
    resumed = explore_counts("solo", workers=2, check=True, resume=path)
    assert resumed.resumed_depth == 13
    assert outcome(resumed) == outcome(whole("solo", 2))


@pytest.mark.parametrize(("name", "workers"), [("solo", 1), ("small", 2)])
def test_a_run_stopped_inside_a_level_resumes_to_the_uninterrupted_outcome(
    name: str, workers: int, tmp_path: Path
) -> None:
    # the wider levels take several batches of 2,048 states: a stop between two of them
    # saves the states still to expand and the part of the next level found so far
    batches, ends = batch_ends(name, workers)
    inside = [b for b in range(1, batches) if b not in ends]
    assert len(inside) >= 2, (batches, ends)
    want = outcome(whole(name, workers))
    path = tmp_path / "run.ckpt"
    for b in (inside[0], inside[-1]):
        stopped(name, path, b, workers=workers)
        assert outcome(explore_counts(name, workers=workers, check=True, resume=path)) == want, b


def test_the_periodic_checkpoint_is_written_at_level_boundaries_and_resumes(tmp_path: Path) -> None:
    # every 2,500 states, at the first level boundary after: tiny's 10,175 states give 4
    # saves; resuming the last one (a run killed after it) gives the whole run's outcome
    path = tmp_path / "run.ckpt"
    run = explore_counts("tiny", check=True, checkpoint=path, checkpoint_every=2500)
    assert outcome(run) == outcome(whole("tiny", 1))
    assert run.checkpoints_written == 4 and run.checkpoint_bytes == path.stat().st_size
    resumed = explore_counts("tiny", check=True, resume=path)
    assert resumed.resumed_states is not None and resumed.resumed_states >= 10000
    assert outcome(resumed) == outcome(whole("tiny", 1))
    # a level boundary: nothing of a next level is held
    assert resumed.resumed_depth is not None and 0 < resumed.resumed_depth < int(run.depth)


def test_a_checkpoint_resumes_on_another_thread_count(tmp_path: Path) -> None:
    # the seen set's fingerprints go to their owners on the new thread count: the same
    # counts and checks, and shortest games of the same lengths
    path = saved(tmp_path)
    resumed = explore_counts("tiny", workers=2, check=True, resume=path)
    want = whole("tiny", 1)
    assert resumed.figures() == explore_counts("tiny").figures()
    assert resumed.states_checked == want.states_checked and resumed.violation_count == 0
    lengths = {end: len(ids) for end, (_, ids) in resumed.shortest_end.items()}
    assert lengths == {end: len(ids) for end, (_, ids) in want.shortest_end.items()}
    # inside a level too: solo stopped on two threads half way through a level of several
    # batches, resumed on one and on three
    batches, ends = batch_ends("solo", 2)
    inside = next(b for b in range(batches // 2, batches) if b not in ends)
    stopped("solo", path, inside, workers=2)
    for workers in (1, 3):
        again = explore_counts("solo", workers=workers, check=True, resume=path)
        assert again.figures() == whole("solo", 2).figures()
        assert again.states_checked == again.states and again.edges_checked == again.edges


def test_the_state_budget_saves_the_run_and_a_larger_one_finishes_it(tmp_path: Path) -> None:
    path = tmp_path / "run.ckpt"
    with pytest.raises(ExplorationLimitError, match="more than 3,000 distinct states") as limit:
        explore_counts("tiny", check=True, max_states=3000, checkpoint=path)
    assert f"checkpoint written to {path}: continue with --resume {path}" in str(limit.value)
    assert outcome(explore_counts("tiny", check=True, resume=path)) == outcome(whole("tiny", 1))


def test_the_memory_budget_stops_the_run_saving_it(tmp_path: Path) -> None:
    # 1 MiB: the process holds more from the start, so the run stops at its first batch
    path = tmp_path / "run.ckpt"
    with pytest.raises(MemoryBudgetError, match=r"more than --max-memory 1 MiB, at depth 1") as over:
        explore_counts("tiny", check=True, max_memory=2**20, checkpoint=path)
    assert f"checkpoint written to {path}" in str(over.value)
    assert outcome(explore_counts("tiny", check=True, resume=path)) == outcome(whole("tiny", 1))
    with pytest.raises(MemoryBudgetError, match="nothing saved"):
        explore_counts("tiny", max_memory=2**20)


def test_the_file_is_compact_and_says_what_it_holds(tmp_path: Path) -> None:
    # the seen set at 6 bytes a fingerprint after a directory of a byte a segment, each
    # parent and move in 2 to 4 bytes, the states still to expand packed
    path = tmp_path / "run.ckpt"
    with pytest.raises(ExplorationLimitError):
        explore_counts("tiny", max_states=10000, checkpoint=path)
    size = path.stat().st_size
    assert 2**16 + 6 * 10000 < size < 2**16 + 6 * 10000 + 4 * 10000 + 2**17, size
    head = path.read_bytes()[:2000].split(b"\n")
    assert head[0] == b"village-rules native explore checkpoint" and head[1] == b"format 1"
    assert b'"players":2' in head[2] and _core.build_id().encode() in head[2]
    body = path.read_bytes()[sum(len(line) + 1 for line in head[:4]) :]
    assert head[3] == f"body {len(body):020d} checksum {checksum(body):016x}".encode()


def checksum(body: bytes) -> int:
    """The body's checksum as cpp/checkpoint.cpp computes it (splitmix64's mixer folded over
    its 8-byte little-endian words, the last padded with zeros, then its length)."""

    def mix(z: int) -> int:
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) % 2**64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) % 2**64
        return z ^ (z >> 31)

    h = 0x243F6A8885A308D3
    for at in range(0, len(body), 8):
        h = mix(h ^ int.from_bytes(body[at : at + 8].ljust(8, b"\0"), "little"))
    return mix(h ^ len(body))


# ---- refusals, before the work ----------------------------------------------------------------


def refused(path: Path, name: str = "tiny", *, players: int | None = None, plant: str = "") -> str:
    """The refusal of resuming `path` as a checked run of `name` (no state is explored)."""
    with pytest.raises(CheckpointError) as refusal:
        explore_counts(name, players, check=True, resume=path, plant=plant)
    return str(refusal.value)


def test_a_damaged_checkpoint_is_refused_naming_the_damage(tmp_path: Path) -> None:
    path = saved(tmp_path)
    blob = path.read_bytes()
    body = len(blob) - int(blob.split(b"\n")[3].split()[1])
    damaged = tmp_path / "damaged.ckpt"
    cases = {
        b"not a checkpoint\n" + blob: "not a native explore checkpoint",
        blob[: len(blob) // 2]: "truncated: its body has",
        blob[: body - 40]: "truncated or damaged: its length line",
        blob + b"\0": "1 bytes follow its body",
        flipped(blob, body + 100): "does not match its checksum",
        blob.replace(b"format 1\n", b"format 9\n", 1): "its format is 'format 9'; this build reads format",
        blob.replace(b'"players":2', b'"players":2,', 1): "its identity line is not a JSON object",
    }
    for blob_, problem in cases.items():
        damaged.write_bytes(blob_)
        message = refused(damaged)
        assert problem in message and str(damaged) in message, (problem, message)


def flipped(blob: bytes, at: int) -> bytes:
    """`blob` with one bit of its byte `at` flipped."""
    return blob[:at] + bytes([blob[at] ^ 1]) + blob[at + 1 :]


def test_a_body_that_does_not_hold_together_is_refused_not_loaded(tmp_path: Path) -> None:
    # the checksum catches damage, not forgery: a body with a good checksum that is not a
    # loop's state is still refused, by its structure, before the work
    path = saved(tmp_path)
    lines = path.read_bytes().split(b"\n", 4)
    forged = tmp_path / "forged.ckpt"
    for body, problem in [
        (b"\x01\x05\x00\x00\x00", "its counts do not hold together"),
        (b"\x01" + b"\x05" * 4 + b"\x00" * 100, "malformed"),
        (b"\x01\x00\x05\x00\x00" + b"\x00" * 6 * 2**16, "malformed"),
    ]:
        line = f"body {len(body):020d} checksum {checksum(body):016x}".encode()
        forged.write_bytes(b"\n".join([*lines[:3], line]) + b"\n" + body)
        assert problem in refused(forged)


def test_a_checkpoint_of_another_run_is_refused_naming_what_differs(tmp_path: Path) -> None:
    tiny = saved(tmp_path)
    assert "configuration is 'reduced: tiny' there, 'reduced: solo' here" in refused(tiny, "solo")
    assert "invariants checked is True there, False here" in (refused_unchecked := _unchecked(tiny))
    assert "written by another run" in refused_unchecked
    planted = refused(tiny, plant="omit players.lifetime")
    assert "planted bug is '' there, 'omit players.lifetime' here" in planted
    solo = saved(tmp_path, "solo")
    assert "players is 1 there, 2 here" in refused(solo, "solo", players=2)


def _unchecked(path: Path) -> str:
    with pytest.raises(CheckpointError) as refusal:
        explore_counts("tiny", check=False, resume=path)
    return str(refusal.value)


def test_a_checkpoint_of_another_native_build_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = saved(tmp_path)
    monkeypatch.setattr(_core, "build_id", lambda: "0" * 64)
    message = refused(path)
    assert "written by another build of the native core" in message
    assert "native core build (SHA-256 of its C++ sources) is" in message
    assert "000000000000... here" in message


def test_a_checkpoint_of_the_python_explorer_is_refused_and_the_reverse(tmp_path: Path) -> None:
    python = tmp_path / "python.ckpt"
    with pytest.raises(ExplorationLimitError):
        explore_parallel(configuration("tiny").data, 2, workers=1, max_states=50, checkpoint=python)
    assert "written by the Python explorer (--engine reference), not the native one" in refused(python)
    native = saved(tmp_path)
    with pytest.raises(CheckpointError, match=r"written by the native explorer \(--engine native\)"):
        explore_parallel(configuration("tiny").data, 2, workers=1, resume=native)


def test_resuming_without_the_file_is_refused(tmp_path: Path) -> None:
    assert "cannot be read: No such file or directory" in refused(tmp_path / "none.ckpt")
    assert "cannot be read" in refused(tmp_path)  # a folder
    assert "is not a regular file" in refused(Path("/dev/zero"))  # refused, not read


def test_the_core_refuses_a_header_that_is_not_the_runs(tmp_path: Path) -> None:
    # the C++ side's own check, behind the Python one: the header byte for byte
    path = saved(tmp_path)
    games = [native_game(r.state) for r in roots(configuration("tiny").data, 2)]
    header = "village-rules native explore checkpoint\nformat 1\n{}\n"
    other = _core.Checkpointing(resume=str(path), header=header)
    with pytest.raises(_core.CheckpointDamagedError, match="its header is not this run's"):
        _core.explore(games, 10**6, check=True, checkpoint=other)


def test_a_checkpoint_that_cannot_be_written_is_an_output_error(tmp_path: Path) -> None:
    (tmp_path / "folder.ckpt").mkdir()
    with pytest.raises(OutputError, match="cannot be written"):
        explore_counts("tiny", stop=stop_after(2), checkpoint=tmp_path / "folder.ckpt")
    assert not list(tmp_path.glob("*.partial"))  # the temporary file is gone


# ---- the command line --------------------------------------------------------------------------


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["explore", *argv, "--engine", "native", "--quiet"])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_command_line_saves_at_the_memory_budget_and_resumes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "tiny.ckpt"
    code, out, err = cli(capsys, "tiny", "--max-memory", "2", "--checkpoint", str(path))
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and "more than --max-memory 2 MiB" in err and f"--resume {path}" in err
    code, out, err = cli(capsys, "tiny", "--workers", "2", "--resume", str(path), "--expect")
    assert code == 0, err
    assert "checkpoint  resumed at depth 0 with 8 distinct states" in out
    assert "expect      matches the pinned figures" in out
    assert "shortest    chronicle in 8 actions, chronicle and graveyard in 8 actions" in out


def test_the_command_line_writes_periodic_checkpoints(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "out" / "tiny.ckpt"
    code, out, _ = cli(capsys, "tiny", "--checkpoint", str(path), "--checkpoint-every", "4000")
    assert code == 0 and f"checkpoint  written 2 time(s), the last {path.stat().st_size:,} bytes" in out


@pytest.mark.parametrize(
    ("make", "argv", "problem"),
    [
        (None, ["--resume", "{tmp}/none.ckpt"], "cannot be read: No such file or directory"),
        ("damaged", ["--resume", "{file}"], "does not match its checksum"),
        ("tiny", ["solo", "--resume", "{file}"], "configuration is 'reduced: tiny' there, 'reduced: solo'"),
        ("tiny", ["--no-check", "--resume", "{file}"], "invariants checked is True there, False here"),
        ("solo", ["solo", "--players", "2", "--resume", "{file}"], "players is 1 there, 2 here"),
        ("python", ["--resume", "{file}"], "written by the Python explorer"),
        (None, ["large", "--max-memory", "20"], "2,002,430 distinct states (pinned), which need at least"),
        (None, ["--checkpoint", "/proc/run.ckpt"], "/proc/run.ckpt"),
    ],
)
def test_the_command_line_refuses_before_the_work_naming_the_problem(
    make: str | None, argv: list[str], problem: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = tmp_path / "given.ckpt"
    if make in ("tiny", "solo"):
        shutil.copy(saved(tmp_path, make), file)
    elif make == "damaged":
        blob = saved(tmp_path).read_bytes()
        file.write_bytes(blob[:-1] + bytes([blob[-1] ^ 1]))
    elif make == "python":
        with pytest.raises(ExplorationLimitError):
            explore_parallel(configuration("tiny").data, 2, workers=1, max_states=50, checkpoint=file)
    args = [a.format(tmp=tmp_path, file=file) for a in argv]
    if args[0].startswith("-"):
        args.insert(0, "tiny")
    code, out, err = cli(capsys, *args)
    assert (code, out) == (2, ""), err
    assert problem in err and err.count("\n") == 1 and "Traceback" not in err, err


def test_the_memory_budget_is_refused_where_memory_cannot_be_read(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(explore_cli, "memory_available", lambda: False)
    code, out, err = cli(capsys, "tiny", "--max-memory", "100")
    assert (code, out) == (2, "") and "does not report processes' memory (/proc)" in err


# ---- large ---------------------------------------------------------------------------------------


@pytest.mark.slow  # 10-30 s on 2 cores: 2.0 million states, stopped, saved and resumed twice
def test_large_stopped_inside_its_levels_resumes_to_its_pinned_figures(tmp_path: Path) -> None:
    path = tmp_path / "large.ckpt"
    with pytest.raises(ExplorationStoppedError):
        explore_counts("large", workers=2, stop=stop_after(300), checkpoint=path)
    with pytest.raises(ExplorationStoppedError):
        explore_counts("large", workers=2, stop=stop_after(400), checkpoint=path, resume=path)
    resumed = explore_counts("large", workers=2, resume=path)
    assert resumed.figures() == {**LARGE_PINNED, "deadlocks": 0}
    assert resumed.shortest_end == explore_counts("large", workers=2).shortest_end
