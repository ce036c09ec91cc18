"""The memory an exploration's processes hold, for its progress display and its budget.

Read from Linux's /proc (resident pages of each process); None where there is no /proc,
so a memory budget there is refused rather than silently ignored (the command line says so).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

PROC = Path("/proc")


def available() -> bool:
    """Whether this machine reports processes' resident memory (`resident_bytes`)."""
    return (PROC / str(os.getpid()) / "statm").is_file()


def resident_bytes(pids: Sequence[int]) -> int | None:
    """The resident bytes of the processes `pids` together; None where /proc is missing.
    A process that has just ended counts nothing."""
    if not available():
        return None
    page = os.sysconf("SC_PAGE_SIZE")
    total = 0
    for pid in pids:
        try:
            fields = (PROC / str(pid) / "statm").read_text(encoding="ascii").split()
        except OSError:
            continue
        total += int(fields[1]) * page
    return total
