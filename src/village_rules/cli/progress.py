"""Progress on stderr for the commands that can run longer than a few seconds (`fuzz`,
`check`, `report`, `explore`, `prove`, `diverge`), drawn by rich.

Drawn only when stderr is an interactive terminal and `--quiet` is not given; it never
writes to stdout. When stderr is not a terminal (a pipe, a CI log) the bar is replaced by a
heartbeat (issue 42): a plain line on stderr at least every `HEARTBEAT_SECONDS` with how far
the command got, so a log tells a slow run from a hung one (a hung one repeats its count);
`--quiet` turns it off too. The heartbeat's clock and period are parameters (`Heartbeat`),
so its tests count lines, never seconds.
"Interactive terminal" is rich's judgement: `isatty()`, not `TERM=dumb`; rich's own
environment switches `TTY_COMPATIBLE=1` and `TTY_INTERACTIVE=1` force it on a pipe (the
signal tests of the fuzzer watch the bar that way), `TTY_INTERACTIVE=0` turns it off. The bar is
transient: it is erased when the command finishes (and while the command prints a line of
its own, `Bar.above`), leaving only the command's output.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import TextIO

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from village_rules.cli.terminal import unescaped

REDRAWS_PER_SECOND = 4
"""How often the bar is redrawn (its clock keeps going between two updates); it decides nothing."""

HEARTBEAT_SECONDS = 30.0
"""The longest a long command whose stderr is not a terminal stays silent; it decides nothing."""


def add_quiet_flag(p: argparse.ArgumentParser) -> None:
    """The `--quiet` option of a long command."""
    p.add_argument(
        "--quiet",
        action="store_true",
        help="no progress on stderr (a bar on a terminal, elsewhere a line every "
        f"{HEARTBEAT_SECONDS:.0f} s at most)",
    )


class Heartbeat:
    """A line on `stream` saying how far the work got, written when `update` is called and
    at least `period` seconds (of `clock`) have gone since the last line, and by a timer
    thread every `period` seconds when the work is silent (`start`; a stuck command repeats
    its count). `beat()` writes the line due, if any: the tests call it with a clock of their
    own instead of waiting."""

    def __init__(
        self,
        stream: TextIO,
        unit: str,
        period: float = HEARTBEAT_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stream = stream
        self.unit = unit
        self.period = period
        self.clock = clock
        self.started = clock()
        self.last = self.started
        self._status: tuple[int, int | None, str, str] | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Beat from a timer thread too (a daemon: it never keeps the process alive)."""
        self._thread = threading.Thread(target=self._run, name="village-rules heartbeat", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.period):
            self.beat(force=True)

    def update(self, done: int, total: int | None, what: str = "", detail: str = "") -> None:
        """Record how far the work got; write a line if one is due."""
        with self._lock:
            self._status = (done, total, what, detail)
        self.beat()

    def line(self) -> str | None:
        """The line that says how far the work got (None before the first update)."""
        if self._status is None:
            return None
        done, total, what, detail = self._status
        count = f"{done:,}" if total is None else f"{done:,} of {total:,}"
        unit = f" {self.unit}" if self.unit else ""
        more = f" ({detail})" if detail else ""
        elapsed = round(self.clock() - self.started)
        return f"village-rules progress: {what}: {count}{unit}{more}, {elapsed} s so far"

    def beat(self, *, force: bool = False) -> None:
        """Write the line if `period` has gone since the last one (`force`: the timer's call,
        which comes every `period`)."""
        with self._lock:
            now = self.clock()
            if not force and now - self.last < self.period:
                return
            said = self.line()
            if said is None:
                return
            self.last = now
            # stdout's finished lines first, so that in a log of both streams (`2>&1`) the line
            # falls between two lines of the command's output, never inside one; a stdout that
            # fails keeps its error for the command (the raw stream, not the escaping one).
            with contextlib.suppress(OSError, ValueError):
                unescaped(sys.stdout).flush()
            with contextlib.suppress(OSError, ValueError):  # messages only: a broken stderr loses them
                print(said, file=self.stream, flush=True)

    def stop(self) -> None:
        """Stop the timer thread (no more lines)."""
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()
            self._thread = None


class Bar:
    """One progress bar: `update(done, total, what)` as the work advances, `finish()` at the
    end. Made by `progress_bar`; on a stream that is not a terminal it is a `Heartbeat`
    instead; with `--quiet` it does nothing."""

    def __init__(self, console: Console | None, unit: str, heartbeat: Heartbeat | None = None) -> None:
        self._progress: Progress | None = None
        self._heartbeat = heartbeat
        if console is not None:
            self._progress = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn(unit),
                TextColumn("{task.fields[detail]}"),
                TimeElapsedColumn(),
                console=console,
                # Drawn by rich's own thread, so update() only sets figures: the command's
                # thread (where Ctrl-C lands) never stops half-way through drawing.
                refresh_per_second=REDRAWS_PER_SECOND,
                transient=True,
                redirect_stdout=False,  # stdout stays the command's own
                redirect_stderr=False,
            )
            self._progress.start()
        self._task: TaskID | None = None

    @property
    def shown(self) -> bool:
        """Whether this bar shows anything (a bar on a terminal, or a heartbeat elsewhere)."""
        return self._progress is not None or self._heartbeat is not None

    def update(self, done: int, total: int | None, what: str = "", detail: str = "") -> None:
        """Show `done` of `total` (None: not known in advance) for the step `what`."""
        if self._heartbeat is not None:
            self._heartbeat.update(done, total, what, detail)
        if self._progress is None:
            return
        if self._task is None:
            self._task = self._progress.add_task(what, total=total, detail=detail)
        self._progress.update(self._task, completed=done, total=total, description=what, detail=detail)

    @contextlib.contextmanager
    def above(self) -> Iterator[None]:
        """Erase the bar while the command prints a line, then draw it again below."""
        if self._progress is None:
            yield
            return
        self._progress.stop()
        try:
            yield
        finally:
            sys.stdout.flush()
            self._progress.start()

    def __enter__(self) -> Bar:
        return self

    def __exit__(self, *exc: object) -> None:
        self.finish()

    def finish(self) -> None:
        """Erase the bar for good (the command's own output follows)."""
        if self._heartbeat is not None:
            self._heartbeat.stop()
            self._heartbeat = None
        if self._progress is not None:
            self._progress.stop()
            self._progress = None


def progress_bar(quiet: bool, unit: str) -> Bar:
    """A `Bar` on stderr, drawn on an interactive terminal, a `Heartbeat` elsewhere, nothing
    with `quiet`; use it in a `with` block so that it is erased however the command ends."""
    if quiet:
        return Bar(None, unit)
    console = Console(file=unescaped(sys.stderr))
    if console.is_interactive:
        return Bar(console, unit)
    heartbeat = Heartbeat(sys.stderr, unit, HEARTBEAT_SECONDS)
    heartbeat.start()
    return Bar(None, unit, heartbeat)
