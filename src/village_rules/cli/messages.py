"""The command line's sentences for failures the operating system reports, instead of
Python's `[Errno 2] No such file or directory: 'x'`."""

from __future__ import annotations

import errno

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
    """`exc` as a sentence naming the file: "x.json: there is no such file or folder"."""
    said = _SENTENCES.get(exc.errno or -1) or (exc.strerror or str(exc)).lower()
    if exc.filename is None:
        return f"cannot read or write a file: {said}"
    return f"{exc.filename}: {said}"
