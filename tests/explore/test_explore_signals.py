"""`village-rules explore` under SIGTERM: it stops at the end of a level, saves its
checkpoint, says where, exits 143 without a traceback, and `--resume` reaches the
uninterrupted counts."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support import TINY_DEPTH, TINY_EDGES, TINY_STATES

from village_rules.cli.main import main

COMMAND = [sys.executable, "-c", "import sys; from village_rules.cli.main import main; sys.exit(main())"]
RUN = ["explore", "tiny", "--workers", "2", "--no-monitors", "--query", "free-final-action"]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONHASHSEED": "7"}


def test_sigterm_saves_a_checkpoint_and_resume_reaches_the_same_counts(tmp_path: Path) -> None:
    saved = tmp_path / "tiny.checkpoint"
    proc = subprocess.Popen(
        [*COMMAND, *RUN, "--checkpoint", str(saved), "--checkpoint-every", "300"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_env(),
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 120
        while not saved.exists():  # the first periodic checkpoint: the run is under way
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "no checkpoint within 120 s"
            time.sleep(0.01)
        proc.send_signal(signal.SIGTERM)
        out, err = (b.decode() for b in proc.communicate(timeout=120))
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 143, (out, err)
    with pytest.raises(ProcessLookupError):  # no worker process is left behind
        os.killpg(proc.pid, 0)
    assert "Traceback" not in err, err
    assert "stopped on request at depth" in err and f"--resume {saved}" in err, err
    assert not any(p.name.endswith(".partial") for p in tmp_path.iterdir())
    resumed = subprocess.run(
        [*COMMAND, *RUN, "--resume", str(saved), "--quiet"], capture_output=True, env=_env(), check=False
    )
    out = resumed.stdout.decode()
    assert resumed.returncode == 0, resumed.stderr.decode()
    assert f"states      {TINY_STATES:,} distinct" in out and f"edges       {TINY_EDGES:,}" in out
    assert f"depth       {TINY_DEPTH}" in out
    assert "free-final-action        reachable: shortest witness 5 actions" in out


SLOW_EDGES = """
import sys, time
from village_rules.explore import search
checked = search.check_edge

def check_edge(*args):  # slow levels: the second signal comes while the workers are mid-level
    time.sleep(0.01)
    checked(*args)

search.check_edge = check_edge
from village_rules.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


def test_a_second_sigterm_stops_at_once_and_the_workers_end_quietly(tmp_path: Path) -> None:
    # the coordinator leaves while its workers are expanding: their replies meet a closed
    # pipe, which used to print a BrokenPipeError traceback per worker (parallel._serve)
    saved = tmp_path / "tiny.checkpoint"
    proc = subprocess.Popen(
        # --quiet: stderr is read line by line below, and a heartbeat (issue 42) could come first
        [
            sys.executable,
            "-c",
            SLOW_EDGES,
            *RUN,
            "--checkpoint",
            str(saved),
            "--checkpoint-every",
            "100",
            "--quiet",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_env(),
        start_new_session=True,
    )
    assert proc.stderr is not None
    try:
        deadline = time.monotonic() + 120
        while not saved.exists():  # under way, the workers busy with a slow level
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "no checkpoint within 120 s"
            time.sleep(0.01)
        proc.send_signal(signal.SIGTERM)
        first = proc.stderr.readline().decode()
        if not first.strip():  # the message starts with a new line
            first = proc.stderr.readline().decode()
        assert "stopping at the end of this breadth-first level" in first, first
        proc.send_signal(signal.SIGTERM)
        out, err = (b.decode() for b in proc.communicate(timeout=120))
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 143, (out, err)
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
    assert err.strip() == "village-rules: terminated", err
    deadline = time.monotonic() + 30
    while True:  # the workers end too (stopped by the coordinator, or by its death)
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            break
        assert time.monotonic() < deadline, "a worker outlived its coordinator by 30 s"
        time.sleep(0.05)


def test_the_scale_options_refuse_what_cannot_work(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("PYTHONHASHSEED", raising=False)
    assert main(["explore", "tiny", "--checkpoint", str(tmp_path / "c")]) == 2
    assert "PYTHONHASHSEED is set" in capsys.readouterr().err
    assert main(["explore", "tiny", "--shape", "--workers", "2"]) == 2
    assert "--shape keeps the whole graph in one process" in capsys.readouterr().err
    assert main(["explore", "tiny", "--workers", "0"]) == 2
    monkeypatch.setenv("PYTHONHASHSEED", "0")
    assert main(["explore", "tiny", "--resume", str(tmp_path / "missing"), "--quiet"]) == 2
    assert f"checkpoint {tmp_path / 'missing'}: cannot be read" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


KILLED_COORDINATOR = """
import os, signal, sys, threading, time
from pathlib import Path
from village_rules.explore import search
from village_rules.explore.configs import configuration
from village_rules.explore.parallel import explore_parallel

COORDINATOR = os.getpid()
BUSY = Path(sys.argv[1])
checked = search.check_edge

def check_edge(*args):  # slow once BUSY exists; left without the coordinator, an hour an edge
    if BUSY.exists():
        time.sleep(3600 if os.getppid() != COORDINATOR else 0.05)
    checked(*args)

search.check_edge = check_edge  # the one edge loop, search.expand, reads it there

def progress(snapshot):
    if snapshot.depth == 8:  # the next level keeps the workers busy: the coordinator dies in it
        children = [int(p) for p in open(f"/proc/{os.getpid()}/task/{os.getpid()}/children").read().split()]
        print(" ".join(map(str, children)), flush=True)
        BUSY.touch()
        threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGKILL)).start()

explore_parallel(configuration("small").data, 2, workers=2, progress=progress)
"""


@pytest.mark.slow  # ~25 s loaded: small to depth 8 over 2 workers, then a slowed level
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's")
def test_workers_end_when_their_coordinator_is_killed(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", KILLED_COORDINATOR, str(tmp_path / "busy")],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdout is not None
    workers = [int(p) for p in proc.stdout.readline().split()]
    assert proc.wait(timeout=300) == -signal.SIGKILL  # the coordinator only: orphans keep the pipe
    proc.stdout.close()
    assert len(workers) == 2
    deadline = time.monotonic() + 30
    try:
        while any(_alive(pid) for pid in workers):
            assert time.monotonic() < deadline, "a worker outlived its coordinator by 30 s"
            time.sleep(0.05)
    finally:
        for pid in workers:  # the bug's orphans, if any: they are this test's own processes
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"
