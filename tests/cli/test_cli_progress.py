"""Issue 28: the long commands show progress on stderr on a terminal (a pseudo-terminal
here), nothing with --quiet, and stdout is the same either way. When stderr is not a terminal
only heartbeat lines may come (at most one per 30 s: none in a short run, but a slow machine
may write one; issue 42, tests/cli/test_cli_heartbeat.py)."""

from __future__ import annotations

import argparse
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from village_rules.cli.main import _parser

COMMAND = [sys.executable, "-c", "import sys; from village_rules.cli.main import main; sys.exit(main())"]
LONG_COMMANDS = ("fuzz", "check", "report", "explore", "prove", "diverge")


def run_with_terminal_stderr(argv: list[str], cwd: Path) -> tuple[int, str, str]:
    """Run the command with stdout a pipe and stderr a pseudo-terminal; (exit, out, err)."""
    master, slave = pty.openpty()
    env = {**os.environ, "COLUMNS": "120", "LINES": "40", "TERM": "xterm"}
    env.pop("NO_COLOR", None)
    proc = subprocess.Popen([*COMMAND, *argv], stdout=subprocess.PIPE, stderr=slave, cwd=cwd, env=env)
    os.close(slave)
    chunks: list[bytes] = []
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    out = proc.stdout.read() if proc.stdout is not None else b""
    code = proc.wait()
    os.close(master)
    return code, out.decode(), b"".join(chunks).decode(errors="replace")


def run_piped(argv: list[str], cwd: Path) -> tuple[int, str, str]:
    done = subprocess.run([*COMMAND, *argv], capture_output=True, text=True, cwd=cwd, check=False)
    return done.returncode, done.stdout, done.stderr


def timeless(out: str) -> str:
    """stdout without the lines of measured times and rates (the rest is deterministic)."""
    timed = ("time:", "games/s:", "decisions/s:")
    return "\n".join(line for line in out.splitlines() if not line.startswith(timed))


FUZZ = ["fuzz", "--games", "3", "--seed", "4", "--workers", "1", "--out", "failures"]
DIVERGE = ["diverge", "AMB-26", "--examples", "1"]


@pytest.mark.no_cover  # CPU-bound replays: not traced in the coverage run (tests/README.md, "Coverage")
@pytest.mark.parametrize(
    "argv", [FUZZ, pytest.param(DIVERGE, marks=pytest.mark.slow)], ids=["fuzz", "diverge"]
)
def test_progress_on_a_terminal_and_not_elsewhere(argv: list[str], tmp_path: Path) -> None:
    code, out, err = run_with_terminal_stderr(argv, tmp_path)
    assert code == 0, err
    assert argv[0] in err and "\x1b[" in err  # drawn, then erased with the terminal's controls
    piped = run_piped(argv, tmp_path)
    other = [line for line in piped[2].splitlines() if not line.startswith("village-rules progress: ")]
    assert (piped[0], timeless(piped[1]), other) == (0, timeless(out), [])  # not a terminal: no bar
    quiet = run_with_terminal_stderr([*argv, "--quiet"], tmp_path)
    assert (quiet[0], timeless(quiet[1]), quiet[2]) == (0, timeless(out), "")  # --quiet: none


def _subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = _parser()
    actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(actions[0].choices)


def test_every_long_command_has_quiet() -> None:
    commands = _subcommands()
    for name in LONG_COMMANDS:
        options = {o for a in commands[name]._actions for o in a.option_strings}
        assert "--quiet" in options, name
