"""The native explorer's checkpoints: what identifies a run, and the refusal of a file that
cannot continue it, before the work (issue 40).

The file (cpp/checkpoint.hpp) is a header of three lines, then the body's length and
checksum, then the body the C++ loop wrote (cpp/explore.cpp: the seen sets' fingerprints,
every state's parent and move, the states still to expand, the tallies):

    village-rules native explore checkpoint
    format 1
    {"configuration": "tiny", "players": 2, ...}
    body 00000000000000151024 checksum 9f0c...
    <body>

The third line is the run's identity (`run_identity`): the configuration's data (the
SHA-256 of its file's content), the player count, the variant, the set-up deals, the options
that change the result (`check`, a planted bug) and the native core's build (the SHA-256 of
its C++ sources, compiled in: `_core.build_id`). How the run is carried out is not in it: the
thread count and the state budget may differ on resume (the counts do not depend on them).
`check_resumable` reads the header and names what differs; the C++ side then checks the
header byte for byte, the length and the checksum of the whole body before it uses any of it.
Unlike the Python explorer's, the native fingerprints are not Python hashes, so no
`PYTHONHASHSEED` is needed.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Sequence
from pathlib import Path

from village_rules.data.edition import EditionData
from village_rules.drivers.serialization import to_json
from village_rules.explore.checkpoint import MAGIC as PYTHON_MAGIC
from village_rules.explore.checkpoint import NATIVE_MAGIC, CheckpointError, library_version
from village_rules.explore.search import Root
from village_rules.native import _core

FORMAT = 1
"""The body's layout version (cpp/explore.cpp `save_run`): another is refused, named."""
MAX_IDENTITY_BYTES = 1 << 16
"""The longest identity line read (a few hundred bytes in practice)."""
BUILD_KEY = "native core build (SHA-256 of its C++ sources)"


def run_identity(
    data: EditionData, players: int, starts: Sequence[Root], *, check: bool, plant: str
) -> dict[str, object]:
    """What a checkpoint must match to be resumed, field by field: what the run's result
    depends on (`check_resumable` names each that differs)."""
    variant = starts[0].state.rules.variant if starts else None
    deals = hashlib.sha256("\n".join(to_json(r.state) for r in starts).encode()).hexdigest()
    return {
        "configuration": data.name,
        "edition": data.edition,
        "configuration data (SHA-256 of its file's content)": data.fingerprint,
        "players": players,
        "variant": None
        if variant is None
        else {"starting compensation": variant.starting_compensation, "readings": dict(variant.choices)},
        "set-up deals (SHA-256 of their canonical JSON)": deals,
        "invariants checked": check,
        "planted bug": plant,
        BUILD_KEY: _core.build_id(),
        "library version": library_version(),
    }


def header(identity: dict[str, object]) -> str:
    """The file's header for a run of `identity`: the C++ side writes it first and resumes
    only a file that begins with it, byte for byte."""
    line = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return f"{NATIVE_MAGIC.decode()}format {FORMAT}\n{line}\n"


def require_build_id(path: Path) -> None:
    """`CheckpointError` when this extension was built without its sources' hash (not by
    setup.py), so that a checkpoint could not say which build wrote it."""
    if not _core.build_id():
        raise CheckpointError(
            path, "this native core was built without its sources' hash (setup.py passes it): rebuild it"
        )


def check_resumable(path: Path, identity: dict[str, object]) -> None:
    """Refuse `path` (`CheckpointError`, naming the problem) unless it is a whole native
    checkpoint of a run of `identity`: a missing or unreadable file, another kind of file, the
    Python explorer's checkpoint, another format, another run (each differing field named,
    the native core's build among them) or a truncated body. The body's checksum is checked
    by the C++ loop, over all of it, before it is used (`explore_counts`)."""
    require_build_id(path)
    try:  # not blocking: a FIFO is refused, not waited on
        with os.fdopen(os.open(path, os.O_RDONLY | os.O_NONBLOCK), "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                raise CheckpointError(
                    path,
                    "is not a regular file (a device, FIFO or socket): a checkpoint is always a regular file",
                )
            first = f.readline(len(NATIVE_MAGIC) + 1)
            if first.startswith(PYTHON_MAGIC.rstrip(b"\n")):
                raise CheckpointError(
                    path,
                    "written by the Python explorer (--engine reference), not the native one: "
                    "resume it with --engine reference",
                )
            if first != NATIVE_MAGIC:
                raise CheckpointError(
                    path, "not a native explore checkpoint (its first line is not the checkpoint header)"
                )
            version = f.readline(64)
            if version != f"format {FORMAT}\n".encode():
                shown = version.decode("ascii", "replace").strip() or "none"
                raise CheckpointError(path, f"its format is {shown!r}; this build reads format {FORMAT}")
            saved = _identity(path, f.readline(MAX_IDENTITY_BYTES))
            length = f.readline(64)
            body = f.tell()
            size = os.fstat(f.fileno()).st_size
    except OSError as exc:
        raise CheckpointError(path, f"cannot be read: {exc.strerror or exc}") from None
    wrong = [
        f"{key} is {_shown(saved.get(key))} there, {_shown(value)} here"
        for key, value in identity.items()
        if saved.get(key) != value
    ]
    if wrong:
        rebuilt = saved.get(BUILD_KEY) != identity[BUILD_KEY]
        other = "another build of the native core" if rebuilt else "another run"
        raise CheckpointError(path, f"written by {other}: " + "; ".join(wrong))
    words = length.decode("ascii", "replace").split()
    if len(words) != 4 or words[0] != "body" or not words[1].isdigit():
        raise CheckpointError(path, "truncated or damaged: its length line is missing or unreadable")
    if size - body < int(words[1]):
        raise CheckpointError(path, f"truncated: its body has {size - body:,} of its {int(words[1]):,} bytes")


def _shown(value: object) -> str:
    """A field's value in a refusal: a SHA-256 by its first 12 digits."""
    if isinstance(value, str) and len(value) == 64 and all(c in "0123456789abcdef" for c in value):
        return f"{value[:12]}..."
    return repr(value)


def _identity(path: Path, line: bytes) -> dict[str, object]:
    try:
        value = json.loads(line)
    except (UnicodeDecodeError, json.JSONDecodeError):
        value = None
    if not isinstance(value, dict) or not line.endswith(b"\n"):
        raise CheckpointError(path, "damaged: its identity line is not a JSON object")
    return value
