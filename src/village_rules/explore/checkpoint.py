"""Checkpoints of a breadth-first exploration (`parallel.explore_parallel`): enough to
resume it at a level boundary and reach the same final counts.

A checkpoint holds, per worker, its seen-set, its frontier, the parents of the states it
accepted and its tallies, and for the whole run the level, the counts and the queries met.
It is written atomically (`data.files.write_bytes`: the old file or the whole new one),
as a header line, the SHA-256 of the payload and the payload (a pickle). Reading checks
the header, the digest (a truncated or altered file is a `CheckpointError`, never a
half-loaded run) and that the run matches: the same configuration, player count,
variant, checks, queries, monitor and worker count, the same library version, and the same
string-hash seed. The last is needed because fingerprints are Python hashes: a run that
is to be resumed must be started with `PYTHONHASHSEED` set (the command line insists),
and resumed with the same value.

A checkpoint is a pickle: resume only checkpoints you wrote (the digest catches damage,
not forgery).
"""

from __future__ import annotations

import hashlib
import os
import pickle
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

from village_rules.data.edition import EditionData
from village_rules.data.files import write_bytes
from village_rules.data.typed_hash import none_canary
from village_rules.errors import VillageError
from village_rules.rules.variant import Variant

MAGIC = b"village-rules explore checkpoint 1\n"
CANARY = "village-rules fingerprint canary"
"""Hashed into every checkpoint: another value on resume means another string-hash seed."""


class CheckpointError(VillageError):
    """A checkpoint that cannot be resumed: names the file and what is wrong with it."""

    def __init__(self, path: Path, problem: str) -> None:
        super().__init__(f"checkpoint {path}: {problem}")
        self.path = path


def library_version() -> str:
    """The installed village-rules version (a checkpoint of another version is refused)."""
    try:
        return metadata.version("village-rules")
    except metadata.PackageNotFoundError:  # run from a source tree without installing
        return "unknown"


def run_identity(
    data: EditionData,
    players: int,
    *,
    variant: Variant | None,
    check: bool,
    refinement: bool,
    queries: list[str],
    monitor: str | None,
    workers: int,
) -> dict[str, object]:
    """What a checkpoint must match to be resumed, field by field (compared by `read`)."""
    return {
        "library version": library_version(),
        "configuration": data.name,
        "edition": data.edition,
        "configuration data (SHA-256 of its repr)": hashlib.sha256(repr(data).encode()).hexdigest(),
        "players": players,
        "variant": repr(variant),
        "invariants checked": check,
        "refinement": refinement,
        "queries": sorted(queries),
        "monitor": monitor,
        "workers": workers,
        "string-hash seed (PYTHONHASHSEED)": os.environ.get("PYTHONHASHSEED"),
        "fingerprint canary": hash(CANARY),
        "None canary (data.typed_hash)": none_canary(),
    }


@dataclass
class Checkpoint:
    """A run stopped at a level boundary."""

    identity: dict[str, object]
    level: int
    states: int
    edges: int
    found: dict[str, tuple[int, int]]
    saved_at: int
    """The states count at which the next periodic checkpoint is due."""
    shares: list[bytes] = field(default_factory=list)
    """Each worker's share, pickled by the worker (`parallel._Worker.save`)."""


def write(path: Path, checkpoint: Checkpoint) -> None:
    """Write `checkpoint` to `path` atomically (`OutputError` naming it if that fails)."""
    payload = pickle.dumps(checkpoint, protocol=pickle.HIGHEST_PROTOCOL)
    write_bytes(path, MAGIC + hashlib.sha256(payload).hexdigest().encode() + b"\n" + payload)


def read(path: Path, identity: dict[str, object]) -> Checkpoint:
    """The checkpoint in `path`, if it is whole and its run is `identity`; else `CheckpointError`."""
    try:
        blob = path.read_bytes()
    except OSError as exc:
        raise CheckpointError(path, f"cannot be read: {exc.strerror or exc}") from None
    if not blob.startswith(MAGIC):
        raise CheckpointError(path, "not an explore checkpoint (its first line is not the checkpoint header)")
    digest, _, payload = blob[len(MAGIC) :].partition(b"\n")
    if hashlib.sha256(payload).hexdigest().encode() != digest:
        raise CheckpointError(path, "corrupted: its contents do not match their SHA-256 (truncated, altered)")
    try:
        checkpoint = pickle.loads(payload)
    except Exception as exc:  # a payload pickled by another version of the classes
        raise CheckpointError(path, f"cannot be loaded ({type(exc).__name__}: {exc})") from None
    if not isinstance(checkpoint, Checkpoint):
        raise CheckpointError(path, "its payload is not an explore checkpoint")
    wrong = [
        f"{key} is {checkpoint.identity.get(key)!r} there, {value!r} here"
        for key, value in identity.items()
        if checkpoint.identity.get(key) != value
    ]
    if wrong:
        raise CheckpointError(path, "written by another run: " + "; ".join(wrong))
    return checkpoint
