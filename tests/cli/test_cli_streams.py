"""Issue 42: the command with its standard streams closed, full or broken, run as a real
process (a closed stream is a property of the process, not of Python's objects).

With stdout closed (`>&-`) `ambiguities`, `setup` and `play` died with an internal error
(exit 70): they are refused before any work (exit 2) with a sentence saying so. Bad input
with stderr closed, full or a broken pipe exited 1 (the code for "violations found"), because
writing the error message failed: the message is lost, the exit code stays 2. A full disk
behind stdout names standard output."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

COMMAND = [sys.executable, "-c", "import sys; from village_rules.cli.main import main; sys.exit(main())"]


def closing(fd: int) -> Callable[[], None]:
    """For `preexec_fn`: close `fd` in the child, after its streams are set up."""
    return lambda: os.close(fd)


@pytest.mark.parametrize(
    "argv",
    [["ambiguities"], ["setup", "--players", "2"], ["play", "--players", "2", "--log", "game.json"]],
)
def test_a_closed_stdout_is_refused_with_a_sentence(argv: list[str], tmp_path: Path) -> None:
    proc = subprocess.run(
        [*COMMAND, *argv], stderr=subprocess.PIPE, preexec_fn=closing(1), cwd=tmp_path, check=False
    )
    err = proc.stderr.decode()
    assert proc.returncode == 2, err
    assert err == (
        "village-rules: standard output is closed (as by `>&-`): the command's output would be lost; "
        "send it to a file or to /dev/null instead\n"
    )
    assert list(tmp_path.iterdir()) == []  # no game played, no log written


BAD_INPUT = ["replay", "missing.json"]


def test_bad_input_with_stderr_closed_exits_2(tmp_path: Path) -> None:
    proc = subprocess.run(
        [*COMMAND, *BAD_INPUT], stdout=subprocess.PIPE, preexec_fn=closing(2), cwd=tmp_path, check=False
    )
    assert proc.returncode == 2 and proc.stdout == b""


def test_bad_input_with_stderr_full_exits_2(tmp_path: Path) -> None:
    with open("/dev/full", "wb") as full:
        proc = subprocess.run(
            [*COMMAND, *BAD_INPUT], stdout=subprocess.PIPE, stderr=full, cwd=tmp_path, check=False
        )
    assert proc.returncode == 2 and proc.stdout == b""


def test_bad_input_with_stderr_a_broken_pipe_exits_2(tmp_path: Path) -> None:
    read, write = os.pipe()
    os.close(read)  # nobody reads: the first write to stderr is EPIPE
    try:
        proc = subprocess.run(
            [*COMMAND, *BAD_INPUT], stdout=subprocess.PIPE, stderr=write, cwd=tmp_path, check=False
        )
    finally:
        os.close(write)
    assert proc.returncode == 2 and proc.stdout == b""


def test_a_good_command_with_stderr_closed_still_succeeds(tmp_path: Path) -> None:
    proc = subprocess.run(
        [*COMMAND, "setup", "--players", "2"],
        stdout=subprocess.PIPE,
        preexec_fn=closing(2),
        cwd=tmp_path,
        check=False,
    )
    assert proc.returncode == 0 and b"2 players" in proc.stdout


@pytest.mark.parametrize("argv", [["setup", "--players", "2"], ["ambiguities"]])
def test_stdout_on_a_full_disk_names_standard_output(argv: list[str], tmp_path: Path) -> None:
    with open("/dev/full", "wb") as full:
        proc = subprocess.run(
            [*COMMAND, *argv], stdout=full, stderr=subprocess.PIPE, cwd=tmp_path, check=False
        )
    err = proc.stderr.decode()
    assert (
        proc.returncode == 2
        and err == "village-rules: standard output: cannot be written: the disk is full\n"
    )


def test_stdout_piped_into_a_reader_that_stops_is_still_a_quiet_stop(tmp_path: Path) -> None:
    """`play | head -1`: the broken pipe on stdout stays exit 0 with nothing on stderr."""
    proc = subprocess.Popen(
        [*COMMAND, "play", "--players", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait() == 0 and err == b""
