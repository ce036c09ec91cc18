"""Progress on stderr for the commands that can run longer than a few seconds (`fuzz`,
`check`, `report`, `explore`, `prove`, `diverge`), drawn by rich.

Shown only when stderr is an interactive terminal and `--quiet` is not given, so logs,
pipes and CI (which compare `check`'s stdout) see nothing of it; it never writes to stdout.
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
from collections.abc import Iterator

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from village_rules.cli.terminal import unescaped

REDRAWS_PER_SECOND = 4
"""How often the bar is redrawn (its clock keeps going between two updates); it decides nothing."""


def add_quiet_flag(p: argparse.ArgumentParser) -> None:
    """The `--quiet` option of a long command."""
    p.add_argument(
        "--quiet", action="store_true", help="no progress on stderr (it is shown only on a terminal anyway)"
    )


class Bar:
    """One progress bar: `update(done, total, what)` as the work advances, `finish()` at the
    end. Made by `progress_bar`; a bar that is off (not a terminal, `--quiet`) does nothing."""

    def __init__(self, console: Console | None, unit: str) -> None:
        self._progress: Progress | None = None
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
        """Whether this bar draws anything."""
        return self._progress is not None

    def update(self, done: int, total: int | None, what: str = "", detail: str = "") -> None:
        """Show `done` of `total` (None: not known in advance) for the step `what`."""
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
        if self._progress is not None:
            self._progress.stop()
            self._progress = None


def progress_bar(quiet: bool, unit: str) -> Bar:
    """A `Bar` on stderr, drawn on an interactive terminal unless `quiet`; use it in a `with`
    block so that it is erased however the command ends."""
    if quiet:
        return Bar(None, unit)
    console = Console(file=unescaped(sys.stderr))
    return Bar(console if console.is_interactive else None, unit)
