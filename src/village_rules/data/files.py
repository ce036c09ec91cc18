"""Writing files so that no data is lost: the one way every command and library call writes.

- `write_text(path, text)`: the text goes to a temporary file created exclusively in the
  target's folder (`tempfile.mkstemp`: an unpredictable name, never through a symlink),
  is flushed and synced, then renamed over the target. The target is the old file or the
  whole new one, never a part; on any failure (a full disk, Ctrl-C) the old file is
  unchanged and the temporary file is removed.
- `staged_folder(target)`: a folder output (the report, the witnesses) is assembled in a
  fresh folder beside the target and swapped in whole at the end, or thrown away.
- An output that is one of the command's inputs is refused (`show LOG --svg LOG`), and
  `check_writable` lets a command refuse an output it cannot write before it starts work.

Failures raise `OutputError` naming the file and saying that nothing was changed.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

from village_rules.errors import OutputError

_NAME_ROOM = 100
"""Bytes of the target's name kept in a temporary name: a file name is at most 255 bytes, and
the rest (a dot, mkstemp's 8 random characters, `.partial`) must fit beside it."""


def _temp_prefix(name: str) -> str:
    """The prefix of a temporary name for the file or folder `name`: a dot and at most
    `_NAME_ROOM` bytes of it, cut at a character boundary. Cut by characters, a 250-byte
    name of 3-byte characters gave a temporary name of over 255 bytes, which the file system
    refused although it accepts the name itself."""
    return "." + os.fsencode(name)[:_NAME_ROOM].decode("utf-8", "ignore") + "."


def resolved(path: Path) -> Path:
    """`path` made absolute with its symbolic links followed, as far as they go: a loop of
    links is left as it is (Python 3.11's `Path.resolve` raised `RuntimeError` on one, which
    the command reported as an internal error); reading or writing it then fails with ELOOP,
    which names the file."""
    return Path(os.path.realpath(path))


def _umask_mode(bits: int) -> int:
    """`bits` with this process's umask applied: the mode `open` would have given."""
    mask = os.umask(0o022)
    os.umask(mask)
    return bits & ~mask


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet)
        return resolved(a) == resolved(b)


def refuse_inputs(output: Path, inputs: Sequence[Path], *, inside: bool = False) -> None:
    """`OutputError` if `output` is one of `inputs` (or, with `inside`, holds one of them):
    writing it would destroy what the command reads."""
    for source in inputs:
        if _same_file(output, source):
            raise OutputError(
                str(output), f"is also an input of this command ({source}): refusing to overwrite it"
            )
        if inside and resolved(source).is_relative_to(resolved(output)):
            raise OutputError(
                str(output),
                f"holds an input of this command ({source}), and is replaced whole: choose another",
            )


def check_writable(path: Path, *, folder: bool = False) -> None:
    """`OutputError` now, before any work, if `path` (a file, or a folder with `folder`) could
    not be written: it is a folder (a file) already, or its nearest existing parent is not a
    writable folder, or nothing can be created in it (a folder is made there and removed at
    once, so /proc or a read-only mount is refused even for root). Leaves nothing behind."""
    if path.is_symlink() and folder:
        raise OutputError(str(path), "is a symbolic link: give the folder itself")
    if path.exists():
        if folder and not path.is_dir():
            raise OutputError(str(path), "exists and is not a folder")
        if not folder and path.is_dir():
            raise OutputError(str(path), "is a folder, not a file")
    parent = path.absolute().parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise OutputError(str(path), f"cannot be created: {parent} is not a folder")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputError(str(path), f"cannot be written: the folder {parent} is not writable")
    # The permission bits do not tell everything (root may write anywhere by them, yet not
    # create in /proc, a read-only mount or a full disk): make and remove a folder there,
    # the first thing the write itself would do.
    try:
        probe = tempfile.mkdtemp(prefix=".village-rules-probe-", dir=parent)
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise OutputError(
            str(path), f"cannot be written: nothing can be created in {parent} ({reason})"
        ) from None
    with contextlib.suppress(OSError):
        os.rmdir(probe)


def _sync_folder(folder: Path) -> None:
    """Make a rename in `folder` durable (best effort: not every file system allows it)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def write_text(path: Path, text: str, *, inputs: Sequence[Path] = ()) -> None:
    """Write `text` (UTF-8) to `path` atomically: `path` is afterwards the old file or the whole
    new one. The folder is created if needed. Raises `OutputError` naming `path` on any
    failure (the old file is then unchanged) and for an output that is one of `inputs`."""
    write_bytes(path, text.encode("utf-8", "strict"), inputs=inputs)


def write_bytes(path: Path, data: bytes, *, inputs: Sequence[Path] = ()) -> None:
    """Write `data` to `path` atomically, as `write_text` does."""
    refuse_inputs(path, inputs)
    folder = path.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
        mode = stat.S_IMODE(path.stat().st_mode) if path.is_file() else _umask_mode(0o666)
        fd, tmp = tempfile.mkstemp(prefix=_temp_prefix(path.name), suffix=".partial", dir=folder)
    except OSError as exc:
        raise OutputError(
            str(path), f"cannot be written: {exc.strerror or exc}; nothing was changed"
        ) from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise OutputError(
                str(path), f"cannot be written: {exc.strerror or exc}; the old file, if any, is unchanged"
            ) from None
        raise
    _sync_folder(folder)


@contextlib.contextmanager
def staged_folder(target: Path, *, keep: bool = False, inputs: Sequence[Path] = ()) -> Iterator[Path]:
    """A fresh folder beside `target` to assemble a folder output in; when the block ends
    normally it replaces `target` whole, and if the block fails it is removed and `target` is
    unchanged. With `keep`, the staging folder starts as a copy of `target` (outputs that
    update some files of a folder, like `prove --out`). Refuses (`OutputError`) a target that
    is a file or a symbolic link and, without `keep`, one that holds one of `inputs`."""
    refuse_inputs(target, inputs, inside=not keep)
    check_writable(target, folder=True)
    parent = target.absolute().parent
    prefix = _temp_prefix(target.name)
    try:
        parent.mkdir(parents=True, exist_ok=True)
        mode = stat.S_IMODE(target.stat().st_mode) if target.is_dir() else _umask_mode(0o777)
        staging = Path(tempfile.mkdtemp(prefix=prefix, suffix=".partial", dir=parent))
    except OSError as exc:
        raise OutputError(
            str(target), f"cannot be written: {exc.strerror or exc}; nothing was changed"
        ) from None
    try:
        if keep and target.is_dir():
            with _folder_lock(parent):  # not while another writer swaps its folder in
                shutil.copytree(target, staging, symlinks=True, dirs_exist_ok=True)
        os.chmod(staging, mode)
        yield staging
        with _folder_lock(parent):
            _swap_in(staging, target, parent, prefix)
    except BaseException as exc:
        shutil.rmtree(staging, ignore_errors=True)
        if isinstance(exc, OSError) and not isinstance(exc, OutputError):
            raise OutputError(
                str(target), f"cannot be written: {exc.strerror or exc}; the old folder, if any, is unchanged"
            ) from None
        raise
    _sync_folder(parent)


@contextlib.contextmanager
def _folder_lock(parent: Path) -> Iterator[None]:
    """Hold an exclusive lock (`flock`) on the folder `parent` for the block: two commands
    writing one folder output swap it in one after the other. Without it, the second writer
    found the target gone (moved aside by the first) or taken (put back by it): its rename
    failed, and the first writer's folder moved aside was left behind as a hidden `.old`.
    Best effort: where the folder cannot be opened or locked, the swap goes on unlocked."""
    try:
        fd = os.open(parent, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:  # a folder one may write but not read: no lock, as before it existed
        yield
        return
    try:
        with contextlib.suppress(OSError):  # a file system without locks (some network ones)
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def _swap_in(staging: Path, target: Path, parent: Path, prefix: str) -> None:
    """Put the finished `staging` folder where `target` is: the old one is moved aside
    first and removed only once the new one is in place. Called holding `_folder_lock`;
    the last of several writers wins, and nothing of the others is left."""
    if not target.exists():
        os.rename(staging, target)
        return
    aside = Path(tempfile.mkdtemp(prefix=prefix, suffix=".old", dir=parent))
    os.rename(target, aside)  # onto an empty folder: allowed, and atomic
    try:
        os.rename(staging, target)
    except BaseException:
        os.rename(aside, target)
        raise
    shutil.rmtree(aside, ignore_errors=True)
