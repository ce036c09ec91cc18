"""The fuzzer beyond one process: shards that add up to the whole run, refused options,
and Ctrl-C (in-process and as a real SIGINT to `village-rules fuzz`)."""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from support import loses_a_coin_at_the_market, run_with_file_limit

from village_rules.checks.invariants import COINS
from village_rules.cli.main import main
from village_rules.drivers.play import GameLog
from village_rules.errors import FuzzArgumentError, VillageError
from village_rules.fuzz.runner import (
    MAX_GAMES,
    FuzzInterrupted,
    FuzzSummary,
    Shard,
    run_fuzz,
    write_atomically,
)

SEED = 2024
GAMES = 7


def rule_total(*summaries: FuzzSummary) -> Counter[str]:
    total: Counter[str] = Counter()
    for s in summaries:
        total.update(dict(s.rule_counts))
    return total


@pytest.fixture(scope="module")
def whole_run(tmp_path_factory: pytest.TempPathFactory) -> FuzzSummary:
    return run_fuzz(GAMES, SEED, 1, None, None, tmp_path_factory.mktemp("whole"))


# --- shards ----------------------------------------------------------------------------------


def test_the_shards_of_a_run_play_exactly_its_games(whole_run: FuzzSummary, tmp_path: Path) -> None:
    shards = [
        run_fuzz(GAMES, SEED, workers, None, None, tmp_path, shard=Shard(k, 3))
        for k, workers in ((1, 1), (2, 2), (3, 1))
    ]
    assert [s.requested for s in shards] == [3, 2, 2]
    assert [s.game_indices for s in shards] == [(0, 3, 6), (1, 4), (2, 5)]
    records = [r for s in shards for r in s.records]
    assert len(records) == GAMES
    assert dict(records) == dict(whole_run.records)  # same games, each played once
    assert rule_total(*shards) == rule_total(whole_run)
    assert sum(s.decisions for s in shards) == whole_run.decisions
    assert sum(s.chance_events for s in shards) == whole_run.chance_events
    assert all(s.failure is None and s.run_games == GAMES for s in shards)
    assert "in shard 2/3 of a 7-game run" in shards[1].format()


def test_one_shard_of_one_is_the_whole_run(whole_run: FuzzSummary, tmp_path: Path) -> None:
    alone = run_fuzz(GAMES, SEED, 1, None, None, tmp_path, shard=Shard(1, 1))
    assert alone.records == whole_run.records
    assert alone.rule_counts == whole_run.rule_counts


def test_a_shard_deals_game_indices_round_robin() -> None:
    assert list(Shard(2, 4).indices(10)) == [1, 5, 9]
    assert list(Shard(4, 4).indices(3)) == []
    assert Shard.parse("2/4") == Shard(2, 4)
    assert str(Shard.parse("10/12")) == "10/12"


@pytest.mark.parametrize(
    "text",
    [
        *("0/2", "3/2", "1/0", "a/b", "01/2", "1/02", "1/2/3", " 1/2", "1/2 ", "", "-1/2", "2"),
        *("\u0663/\u0664", "\uff11/\uff12", "1" * 12 + "/" + "2" * 12),  # non-ASCII digits, huge
    ],
)
def test_a_malformed_or_impossible_shard_is_refused(text: str) -> None:
    with pytest.raises(FuzzArgumentError, match="--shard"):
        Shard.parse(text)


def test_a_shard_with_no_games_is_refused(tmp_path: Path) -> None:
    with pytest.raises(FuzzArgumentError, match="has no games: use at most 3 shards"):
        run_fuzz(3, SEED, 1, None, None, tmp_path, shard=Shard(4, 4))


def test_each_shard_stops_at_its_own_first_failure_and_the_lowest_is_the_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("village_rules.fuzz.games.apply", loses_a_coin_at_the_market)
    # the plant is in the reference engine: its games are played there
    whole = run_fuzz(5, 3, 1, None, None, tmp_path / "whole", engine="reference")
    shards = [
        run_fuzz(5, 3, 1, None, None, tmp_path / f"s{k}", shard=Shard(k, 2), engine="reference")
        for k in (1, 2)
    ]
    assert whole.failure is not None
    failed = [s.failure for s in shards if s.failure is not None]
    assert failed
    first = min(failed, key=lambda f: f.game.index)
    assert first.game == whole.failure.game
    assert first.violations == whole.failure.violations
    assert {v.invariant for v in first.violations} == {COINS}
    assert first.log_path.read_text(encoding="utf-8") == whole.failure.log_path.read_text(encoding="utf-8")


# --- refused options -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "option"),
    [
        ({"games": 0}, "--games"),
        ({"games": -5}, "--games"),
        ({"games": MAX_GAMES + 1}, "--games"),
        ({"seed": -1}, "--seed"),
        ({"workers": 0}, "--workers"),
        ({"workers": 10_000}, "--workers"),
        ({"backend": "threads"}, "--backend"),
        ({"address": "127.0.0.1:6379"}, "--address"),
        ({"edition": "original-2011", "players": 5}, "--players"),
        ({"players": 9}, "--players"),
    ],
)
def test_run_fuzz_refuses_bad_arguments_naming_the_option(
    kwargs: dict[str, object], option: str, tmp_path: Path
) -> None:
    args: dict[str, object] = {"games": 2, "seed": 1, "workers": 1, "edition": None, "players": None}
    args.update(kwargs)
    extra = {k: args.pop(k) for k in ("backend", "address") if k in args}
    with pytest.raises(FuzzArgumentError, match=re.escape(option)) as caught:
        run_fuzz(
            args["games"],  # type: ignore[arg-type]
            args["seed"],  # type: ignore[arg-type]
            args["workers"],  # type: ignore[arg-type]
            args["edition"],  # type: ignore[arg-type]
            args["players"],  # type: ignore[arg-type]
            tmp_path / "out",
            **extra,  # type: ignore[arg-type]
        )
    assert isinstance(caught.value, VillageError) and caught.value.option == option
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--games", "0"], "--games: must be from 1"),
        (["--games", "-3"], "--games: must be from 1"),
        (["--seed", "-1"], "--seed: must be 0 or more, not -1"),
        (["--shard", "3/2"], "--shard: shard 3/2 does not exist"),
        (["--shard", "x"], "--shard: 'x' is not K/N"),
        (["--shard", "5/5", "--games", "4"], "--shard: shard 5/5 of a 4-game run has no games"),
        (["--workers", "0"], "--workers: must be from 1"),
        (["--address", "127.0.0.1:1"], "--address: is the address of a Ray cluster"),
    ],
)
def test_the_fuzz_command_refuses_bad_options_with_exit_2(
    argv: list[str], says: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code = main(["fuzz", "--quiet", "--workers", "1", "--out", str(tmp_path / "out"), *argv])
    out, err = capsys.readouterr()
    assert code == 2
    assert says in err and "Traceback" not in err
    assert out == ""
    assert not (tmp_path / "out").exists()


def test_the_ray_backend_without_the_extra_says_which_extra_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # as if not installed: `import ray` fails
    with pytest.raises(FuzzArgumentError, match=r"--backend: ray needs the distributed extra"):
        run_fuzz(2, 1, 1, None, None, tmp_path, backend="ray")


# --- Ctrl-C, in-process ----------------------------------------------------------------------


class StopAfter:
    """A progress callback that presses Ctrl-C once `games` games are reported done."""

    def __init__(self, games: int) -> None:
        self.games = games

    def __call__(self, done: int, total: int) -> None:
        if done >= self.games:
            raise KeyboardInterrupt


@pytest.mark.parametrize("workers", [1, 2])
def test_ctrl_c_stops_the_run_and_says_how_far_it_got(workers: int, tmp_path: Path) -> None:
    with pytest.raises(FuzzInterrupted) as caught:
        run_fuzz(200, SEED, workers, None, None, tmp_path, StopAfter(2), chunk_size=1)
    summary = caught.value.summary
    assert isinstance(caught.value, KeyboardInterrupt)
    assert summary.interrupted and summary.requested == 200
    assert 2 <= summary.games < 200
    assert len(summary.records) == summary.games and summary.decisions > 0
    assert summary.format().startswith(f"INTERRUPTED (Ctrl-C) after {summary.games} of 200 games")
    assert "violations:   0 so far" in summary.format()
    assert not list(tmp_path.iterdir())  # nothing that looks like a result


def test_ctrl_c_keeps_the_games_finished_so_they_match_the_full_run(
    whole_run: FuzzSummary, tmp_path: Path
) -> None:
    with pytest.raises(FuzzInterrupted) as caught:
        run_fuzz(GAMES, SEED, 1, None, None, tmp_path, StopAfter(3))
    summary = caught.value.summary
    assert summary.records == whole_run.records[:3]


def test_ctrl_c_after_a_failing_game_still_writes_its_whole_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("village_rules.fuzz.games.apply", loses_a_coin_at_the_market)
    with pytest.raises(FuzzInterrupted) as caught:  # Ctrl-C as the failing game is reported
        run_fuzz(
            5, 3, 1, None, None, tmp_path, StopAfter(1), engine="reference"
        )  # the plant is the reference's
    summary = caught.value.summary
    assert summary.interrupted and summary.failure is not None
    assert "FAILED game" in summary.format() and "violations:   1 so far" in summary.format()
    log = GameLog.from_json(summary.failure.log_path.read_text(encoding="utf-8"))
    assert len(log.actions) == summary.failure.actions
    assert [p.name for p in tmp_path.iterdir()] == [summary.failure.log_path.name]


def full_disk_write_leaves(writer: str, folder: Path) -> list[str]:
    """The files in `folder` after `writer` (the dotted name of a function of (path, text))
    writes 10 kB to `folder/failing.json` with the file size capped at 4 KiB, as on a full disk."""
    code = (
        "import importlib, sys; from pathlib import Path\n"
        "module, name = sys.argv[1].rsplit('.', 1)\n"
        "try:\n"
        "    getattr(importlib.import_module(module), name)(Path(sys.argv[2]), 'x' * 10_000)\n"
        "except (OSError, ValueError):  # OutputError is a ValueError\n"
        "    sys.exit(3)\n"
    )
    done = run_with_file_limit([sys.executable, "-c", code, writer, str(folder / "failing.json")], 4096)
    assert done.returncode == 3, done.stderr
    return sorted(p.name for p in folder.iterdir())


def test_a_failure_log_is_complete_or_absent(tmp_path: Path) -> None:
    write_atomically(tmp_path / "done.json", "complete\n")
    assert (tmp_path / "done.json").read_text(encoding="utf-8") == "complete\n"
    leaves = full_disk_write_leaves("village_rules.fuzz.runner.write_atomically", tmp_path)
    assert leaves == ["done.json"]


def test_the_full_disk_check_catches_a_plain_write(tmp_path: Path) -> None:
    assert full_disk_write_leaves("support.plain_write", tmp_path) == ["failing.json"]


# --- Ctrl-C, a real SIGINT to the command ----------------------------------------------------

COMMAND = [sys.executable, "-c", "import sys; from village_rules.cli.main import main; sys.exit(main())"]
PROGRESS = re.compile(rb" ([1-9]\d*)/\d+ games")
"""A finished game on the progress bar (cli.progress, drawn by rich)."""
WITH_PROGRESS = {**os.environ, "TTY_COMPATIBLE": "1", "TTY_INTERACTIVE": "1", "COLUMNS": "120"}
WITH_PROGRESS["NO_COLOR"] = "1"  # no colour codes inside the figures PROGRESS reads
"""stderr is a pipe here: rich's switches draw the progress bar on it all the same."""


QUEUED = 1_000_000
"""The games a signalled run asks for: far more than any machine plays before the signal,
however loaded (a run of 500 once finished under load before its SIGINT took effect)."""


def start_fuzz(tmp_path: Path, *options: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [*COMMAND, "fuzz", "--games", str(QUEUED), "--seed", "5", "--out", str(tmp_path / "out"), *options],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own process group, as a terminal's foreground job
        env=WITH_PROGRESS,
    )


def read_until_progress(proc: subprocess.Popen[bytes], timeout: float) -> bytes:
    """Stderr until the progress bar shows a finished game."""
    assert proc.stderr is not None
    seen = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stderr], [], [], 0.5)
        if ready:
            chunk = os.read(proc.stderr.fileno(), 4096)
            if not chunk:
                break
            seen += chunk
            if PROGRESS.search(seen):
                return seen
    proc.kill()
    pytest.fail(f"no game finished within {timeout} s: {seen.decode(errors='replace')}")


def interrupt(proc: subprocess.Popen[bytes], *, whole_group: bool) -> tuple[int, str, str]:
    """Send SIGINT and wait for the exit (a stuck run is killed after 60 s and fails the test)."""
    if whole_group:  # what Ctrl-C in a terminal does: every process of the job gets SIGINT
        os.killpg(proc.pid, signal.SIGINT)
    else:
        proc.send_signal(signal.SIGINT)
    try:
        out, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        pytest.fail("the fuzzer did not stop within 60 s of Ctrl-C")
    return proc.returncode, out.decode(), err.decode()


@pytest.mark.parametrize(("workers", "whole_group"), [("1", False), ("2", False), ("2", True)])
def test_sigint_stops_the_fuzz_command_with_exit_130(workers: str, whole_group: bool, tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    report.write_text("a finished report of an earlier run", encoding="utf-8")
    proc = start_fuzz(tmp_path, "--workers", workers, "--json", str(report))
    read_until_progress(proc, timeout=120)
    code, out, err = interrupt(proc, whole_group=whole_group)
    assert code == 130, (out, err)
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    match = re.search(rf"INTERRUPTED \(Ctrl-C\) after (\d+) of {QUEUED} games", out)
    assert match is not None, out
    assert 1 <= int(match[1]) < QUEUED
    assert "violations:   0 so far" in out
    assert f"interrupted after {match[1]} of {QUEUED} games (0 violation(s) so far)" in err
    assert not (tmp_path / "out").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # the old report is gone, no new one


UNGUARDED = [
    sys.executable,
    "-c",
    "import signal, sys; import village_rules.cli.terminal as t; t._on_sigterm = signal.SIG_DFL;"
    " from village_rules.cli.main import main; sys.exit(main())",
]
"""The command with its SIGTERM handling taken out: the bug the SIGTERM test must catch."""


def group_alive(pgid: int) -> bool:
    """True while any process of the process group is left (a worker, say)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def terminate(proc: subprocess.Popen[bytes]) -> tuple[int, str, str]:
    """SIGTERM to the command alone (as `timeout` sends it), then wait for its exit."""
    proc.send_signal(signal.SIGTERM)
    try:
        out, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        pytest.fail("the fuzzer did not stop within 60 s of SIGTERM")
    return proc.returncode, out.decode(), err.decode()


def test_sigterm_ends_the_workers_and_exits_143(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    proc = start_fuzz(tmp_path, "--workers", "2", "--json", str(report))
    read_until_progress(proc, timeout=120)
    code, out, err = terminate(proc)
    assert code == 143, (out, err)
    assert "Traceback" not in err and "INTERRUPTED" in out
    assert not group_alive(proc.pid)  # no pool worker is left behind
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # no partial report, no failure log


def test_the_sigterm_check_catches_orphaned_workers(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [*UNGUARDED, "fuzz", "--games", str(QUEUED), "--seed", "5", "--workers", "2", "--out", str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        env=WITH_PROGRESS,
    )
    read_until_progress(proc, timeout=120)
    proc.send_signal(signal.SIGTERM)
    try:  # wait for the command only: orphaned workers keep its output pipes open
        assert proc.wait(timeout=60) == -signal.SIGTERM
        assert group_alive(proc.pid)  # the bug: the pool workers outlive the command
    finally:
        if group_alive(proc.pid):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate(timeout=60)


def test_sigint_stops_the_ray_backend_with_exit_130(tmp_path: Path) -> None:
    """The command starts its own local Ray instance (2 CPUs) and shuts it down again."""
    pytest.importorskip("ray")
    proc = start_fuzz(tmp_path, "--workers", "2", "--backend", "ray")
    read_until_progress(proc, timeout=180)
    code, out, err = interrupt(proc, whole_group=False)
    assert code == 130, (out, err)
    assert "Traceback" not in err, err
    match = re.search(rf"INTERRUPTED \(Ctrl-C\) after (\d+) of {QUEUED} games", out)
    assert match is not None and 1 <= int(match[1]) < QUEUED, out
    assert "2 worker(s), ray)" in out
    assert not (tmp_path / "out").exists()
