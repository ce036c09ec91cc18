"""The command line's sentences for failures the operating system reports, instead of
Python's `[Errno 2] No such file or directory: 'x'`."""

from __future__ import annotations

import errno
import os
from pathlib import Path

from village_rules.data.files import write_text
from village_rules.drivers.play import EndlessGameError
from village_rules.errors import OutputError

_SENTENCES: dict[int, str] = {
    errno.ENOENT: "there is no such file or folder",
    errno.EISDIR: "this is a folder; a file was expected",
    errno.ENOTDIR: "a part of this path is a file, not a folder",
    errno.EACCES: "permission denied: you may not read or write it",
    errno.EPERM: "the operation is not permitted",
    errno.ENOSPC: "the disk is full",
    errno.EROFS: "it is on a read-only file system",
    errno.ENAMETOOLONG: "the file name is too long",
    errno.ELOOP: "the path goes round a loop of symbolic links",
}


def os_error_sentence(exc: OSError) -> str:
    """`exc` as a sentence naming the file: "x.json: there is no such file or folder".
    When the working folder was deleted, that is what it says, naming the folder: the
    error then comes from `os.getcwd` and names no file."""
    said = _SENTENCES.get(exc.errno or -1) or (exc.strerror or str(exc)).lower()
    relative = exc.filename is None or not os.path.isabs(os.fsdecode(exc.filename))
    gone = _deleted_working_folder() if exc.errno == errno.ENOENT and relative else None
    if gone is not None:
        where = f" ({exc.filename} is read or written there)" if exc.filename is not None else ""
        return (
            f"the working folder {gone} no longer exists (it was deleted or moved){where}:"
            " change to an existing folder"
        )
    if exc.filename is None:
        return f"cannot read or write a file: {said}"
    return f"{exc.filename}: {said}"


def endless_game_sentence(exc: EndlessGameError) -> str:
    """An endless game, found by any command that plays games to the end: the sentence,
    after its log is written to the working folder (`endless-game-seed<N>.json`) so that
    `village-rules replay` and `view` can show where it goes round."""
    if exc.log is None:
        return f"{exc}; no log: the command does not know the game's set-up"
    path = Path(f"endless-game-seed{exc.log.seed}.json")
    try:
        write_text(path, exc.log.to_json() + "\n")
    except OutputError as failed:
        return f"{exc}; its log could not be written: {failed}"
    actions = len(exc.log.actions)
    return f"{exc}; its log ({actions:,} actions) is written to {path} (village-rules replay {path})"


def _deleted_working_folder() -> str | None:
    """The working folder's former path if it no longer exists, else None. Linux still
    names it in /proc/self/cwd ("PATH (deleted)"); elsewhere $PWD is the best guess."""
    try:
        os.getcwd()
        return None
    except FileNotFoundError:
        pass
    try:
        return os.readlink("/proc/self/cwd").removesuffix(" (deleted)")
    except OSError:
        return os.environ.get("PWD", "(unknown)")
