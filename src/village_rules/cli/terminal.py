"""What the command line does to its terminal: nothing raw reaches it, and SIGTERM stops a
command the way Ctrl-C does.

`guarded()` wraps `sys.stdout` and `sys.stderr` for the length of a command so that every
string written is passed through `village_rules.data.text.for_terminal` (and encoded with
backslash escapes where the terminal's encoding lacks a character). Only the progress bars
write control characters (`\\r`), through `unescaped(stream)`.

It also makes SIGTERM (what `timeout`, CI and `kill` send) raise `KeyboardInterrupt` once, so
every command's Ctrl-C path runs: pool workers are stopped, no partial output is written;
`terminated()` then tells `main` to exit 143 (128 + SIGTERM) instead of 130.
"""

from __future__ import annotations

import contextlib
import io
import signal
import sys
import threading
from collections.abc import Iterator
from types import FrameType
from typing import TextIO, cast

from village_rules.data.text import for_terminal

SIGTERM_EXIT = 128 + signal.SIGTERM
SIGINT_EXIT = 128 + signal.SIGINT

_terminated = threading.Event()


class SafeStream(io.TextIOBase):
    """A text stream that escapes what it is given before writing it to `raw`."""

    def __init__(self, raw: TextIO) -> None:
        super().__init__()
        self.raw = raw

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
        self.raw.write(safe)
        return len(text)

    def flush(self) -> None:
        """Flush the underlying stream."""
        self.raw.flush()

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
    sys.stdout = cast(TextIO, SafeStream(out))
    sys.stderr = cast(TextIO, SafeStream(err))
    main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _on_sigterm) if main_thread else None
    try:
        yield
    finally:
        if main_thread:
            signal.signal(signal.SIGTERM, previous)
        sys.stdout, sys.stderr = out, err
