"""What the command line does to its terminal: nothing raw reaches it, and SIGTERM stops a
command the way Ctrl-C does.

`guarded()` wraps `sys.stdout` and `sys.stderr` for the length of a command so that every
string written is passed through `village_rules.data.text.for_terminal` (and encoded with
backslash escapes where the terminal's encoding lacks a character). Only the progress bars
write control characters (`\\r`), through `unescaped(stream)`.

It also makes SIGTERM (what `timeout`, CI and `kill` send) raise `KeyboardInterrupt` once, so
every command's Ctrl-C path runs: pool workers are stopped, no partial output is written;
`terminated()` then tells `main` to exit 143 (128 + SIGTERM) instead of 130.

The streams themselves may be missing or broken (issue 42): `closed_stdout()` finds a
closed standard output (`>&-`) before the command starts, so it is refused (exit 2) instead
of failing half-way; a closed standard input, output or error is given `/dev/null` so no file
the command opens takes its number. Standard error carries only messages, so a write to a
closed, full or broken standard error is dropped: the command's exit code still says what
happened (bad input stays 2, not the 1 of "violations found"). A standard output that cannot
be written (a full disk) is an `OutputError` naming it (exit 2); a broken pipe on it stays the
quiet stop of `main`.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import signal
import sys
import threading
from collections.abc import Iterator
from types import FrameType
from typing import TextIO, cast

from village_rules.data.text import for_terminal
from village_rules.errors import OutputError

SIGTERM_EXIT = 128 + signal.SIGTERM
SIGINT_EXIT = 128 + signal.SIGINT

_terminated = threading.Event()


class SafeStream(io.TextIOBase):
    """A text stream that escapes what it is given before writing it to `raw`.

    With `messages_only` (standard error) a write or flush that fails is dropped and
    remembered in `failed`; otherwise (standard output) a failure other than a broken pipe
    is an `OutputError` naming the stream."""

    def __init__(self, raw: TextIO, name: str = "standard output", *, messages_only: bool = False) -> None:
        super().__init__()
        self.raw = raw
        self.name = name
        self.messages_only = messages_only
        self.failed = False

    def write(self, text: str) -> int:
        """Write `text`, escaped for a terminal; returns its length."""
        safe = for_terminal(text)
        encoding = getattr(self.raw, "encoding", None) or "utf-8"
        try:
            safe.encode(encoding)
        except UnicodeEncodeError:  # e.g. an ASCII terminal: escape what it cannot show
            safe = safe.encode(encoding, "backslashreplace").decode(encoding)
        except LookupError:  # an encoding Python does not know: leave it to the stream
            pass
        with self._reported():
            self.raw.write(safe)
        return len(text)

    def flush(self) -> None:
        """Flush the underlying stream."""
        with self._reported():
            self.raw.flush()

    @contextlib.contextmanager
    def _reported(self) -> Iterator[None]:
        try:
            yield
        except BrokenPipeError:
            if not self.messages_only:
                raise  # `main`'s quiet stop of `command | head`
            self.failed = True
        except (OSError, ValueError) as exc:  # ValueError: a stream closed under us
            if self.messages_only:
                self.failed = True
                return
            said = "the disk is full" if getattr(exc, "errno", None) == errno.ENOSPC else str(exc)
            _to_devnull(self.raw)  # what is still buffered can never be written: drop it
            raise OutputError(self.name, f"cannot be written: {said}") from None

    def isatty(self) -> bool:
        """Whether the underlying stream is a terminal."""
        return self.raw.isatty()

    def fileno(self) -> int:
        """The underlying stream's file descriptor."""
        return self.raw.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]  # io.TextIOBase declares it read-only
        """The underlying stream's encoding."""
        return str(getattr(self.raw, "encoding", "utf-8"))


def _to_devnull(raw: TextIO) -> None:
    """Point the stream's file descriptor at /dev/null (Python's documented recipe for a
    stream that failed), so the interpreter's last flush cannot fail again."""
    with contextlib.suppress(OSError, ValueError, AttributeError, io.UnsupportedOperation):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, raw.fileno())
        os.close(devnull)


STDOUT_CLOSED = (
    "standard output is closed (as by `>&-`): the command's output would be lost; "
    "send it to a file or to /dev/null instead"
)


def closed_stdout() -> bool:
    """Whether standard output was closed when the command started (Python then sets
    `sys.stdout` to None; a caller that gave `sys.stdout` a stream of its own is not
    refused). Closed standard streams are given `/dev/null` here, so no file the command
    opens takes number 0, 1 or 2 (and a library writing to 1 or 2 cannot write into it); a
    missing `sys.stderr` becomes a sink, so messages are dropped, not fatal."""
    closed = sys.stdout is None
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            null = os.open(os.devnull, os.O_RDWR)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - for the process's life
    return closed


def quiet_broken_streams(stderr: SafeStream) -> None:
    """After a command: a standard error that failed is pointed at /dev/null, so the
    interpreter's own last flush cannot fail too (and turn the exit code into 120)."""
    if stderr.failed:
        _to_devnull(stderr.raw)


def unescaped(stream: TextIO) -> TextIO:
    """The stream beneath a `SafeStream` (for progress bars, which draw with `\\r`)."""
    return stream.raw if isinstance(stream, SafeStream) else stream


def terminated() -> bool:
    """True once SIGTERM was received during the current `guarded()` command."""
    return _terminated.is_set()


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    if _terminated.is_set():
        return  # already stopping: let the clean-up finish
    _terminated.set()
    raise KeyboardInterrupt


@contextlib.contextmanager
def guarded() -> Iterator[None]:
    """For one command: escaped stdout and stderr, and SIGTERM handled like Ctrl-C."""
    _terminated.clear()
    out, err = sys.stdout, sys.stderr
    safe_err = SafeStream(err, "standard error", messages_only=True)
    sys.stdout = cast(TextIO, SafeStream(out))
    sys.stderr = cast(TextIO, safe_err)
    main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _on_sigterm) if main_thread else None
    try:
        yield
    finally:
        if main_thread:
            signal.signal(signal.SIGTERM, previous)
        with contextlib.suppress(OSError, ValueError):
            safe_err.flush()
        quiet_broken_streams(safe_err)
        sys.stdout, sys.stderr = out, err
