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
    assert "states      7,678 distinct" in out and "edges       9,172" in out and "depth       30" in out
    assert "free-final-action        reachable: shortest witness 5 actions" in out


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
