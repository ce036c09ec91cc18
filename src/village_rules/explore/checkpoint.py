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
is to be resumed must be started with `PYTHONHASHSEED` set to a number (checked when the
run starts, `require_fixed_hash_seed`), and resumed with the same value. A file is read
through the bounded reader, from a regular file only (`MAX_CHECKPOINT_BYTES`).

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
from village_rules.data.jsonio import JsonInputError, read_file_bytes
from village_rules.data.typed_hash import none_canary
from village_rules.errors import VillageError
from village_rules.rules.variant import Variant

MAGIC = b"village-rules explore checkpoint 1\n"
NATIVE_MAGIC = b"village-rules native explore checkpoint\n"
"""The first line of the native explorer's checkpoints (explore/native_checkpoint.py): such a
file is named as the native one's, here and there."""
MAX_CHECKPOINT_BYTES = 16 * 2**30
"""The largest checkpoint read (16 GiB): far beyond a run of the explorer's state ceiling.
Checkpoints are read only from regular files (`read_file_bytes(regular=True)`): before,
`--resume /dev/zero` read until the memory ran out."""
CANARY = "village-rules fingerprint canary"
"""Hashed into every checkpoint: another value on resume means another string-hash seed."""


class CheckpointError(VillageError):
    """A checkpoint that cannot be resumed: names the file and what is wrong with it."""

    def __init__(self, path: Path, problem: str) -> None:
        super().__init__(f"checkpoint {path}: {problem}")
        self.path = path


MAX_HASH_SEED = 4_294_967_295
"""The largest `PYTHONHASHSEED` Python accepts (besides "random")."""


def require_fixed_hash_seed(path: Path) -> str:
    """This process's `PYTHONHASHSEED` when a run saved to or resumed from `path` can be
    resumed: the variable is a whole number (0 to 4,294,967,295). `CheckpointError`
    otherwise, before any work (the command line calls it; a library caller may checkpoint
    and resume within one process without it, and `read` refuses another key by its canary).

    Why a checkpoint depends on it: the explorer's fingerprints are Python hashes of the
    states (`hash` of tuples holding strings), and Python salts string hashes with a random
    key per process unless `PYTHONHASHSEED` fixes it. A checkpoint holds fingerprints, so it
    can only be resumed by a process hashing with the same key. Before, a checkpoint written
    under `PYTHONHASHSEED=random` (a set, non-empty value) was accepted and written, and
    could never be resumed: every resume had another key. Making the fingerprints
    independent of the seed would mean a hash of our own over every state, slower than the
    built-in one the explorer is tuned for; so the seed is required and checked instead."""
    seed = os.environ.get("PYTHONHASHSEED", "")
    if not (seed.isascii() and seed.isdigit() and len(seed) <= 10 and int(seed) <= MAX_HASH_SEED):
        shown = "unset" if not seed else f"{seed!r}"
        raise CheckpointError(
            path,
            "the fingerprints are Python hashes, which differ from one process to the next unless "
            f"PYTHONHASHSEED is set to a whole number from 0 to {MAX_HASH_SEED:,} (it is {shown}): run it as "
            "PYTHONHASHSEED=0 village-rules explore ... (and resume with the same value)",
        )
    return seed


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
        "rule IDs fired kept (vacuous verdicts)": True,
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
        blob = read_file_bytes(path, MAX_CHECKPOINT_BYTES, "checkpoint", regular=True)
    except JsonInputError as exc:
        raise CheckpointError(path, exc.problem) from None
    except OSError as exc:
        raise CheckpointError(path, f"cannot be read: {exc.strerror or exc}") from None
    if blob.startswith(NATIVE_MAGIC):
        raise CheckpointError(
            path,
            "written by the native explorer (--engine native), not this one: resume it with --engine native",
        )
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
