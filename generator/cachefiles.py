"""The cache folder's files, which a pull request may have put there as easily as a record.

Nothing is read through a symbolic link, from something that is not a regular
file (a FIFO would wait forever, a device never end) or beyond a size; nothing
is written through a link or into a file errpages did not make: a file is
written anew under a name made exclusively in the folder, then renamed over
the old one, which replaces a link found there rather than following it.
"""

from __future__ import annotations

import os
import stat
import tempfile
from contextlib import suppress
from pathlib import Path


def read_file(path: Path, limit: int) -> bytes:
    """A regular file's bytes, read without following a link or waiting on a FIFO; OSError
    when it cannot be opened, ValueError when it is not a regular file or holds more than
    `limit` bytes."""
    handle = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    with os.fdopen(handle, "rb") as stream:
        found = os.fstat(handle)
        if not stat.S_ISREG(found.st_mode):
            raise ValueError(f"{path.name} is not a regular file")
        data = stream.read(limit + 1)
    if len(data) > limit:
        raise ValueError(f"{path.name} holds more than {limit} bytes")
    return data


def replace_file(path: Path, data: bytes) -> None:
    """Write `data` as the file at path: into a file made exclusively beside it, renamed over
    whatever path named (a link is replaced, never written through)."""
    handle, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.replace(temp, path)
    except BaseException:
        with suppress(OSError):
            os.unlink(temp)
        raise


def own_file_problem(path: Path) -> str | None:
    """Why the file at path is not one errpages could have made there (None: it could be, or
    there is none): a link, something other than a regular file, or a file linked elsewhere
    too."""
    try:
        found = os.lstat(path)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(found.st_mode):
        return "it is a symbolic link"
    if not stat.S_ISREG(found.st_mode):
        return "it is not a regular file"
    if found.st_nlink != 1:
        return "it is a hard link to another file"
    return None


def create_file(path: Path) -> None:
    """Make an empty file at path, which must not exist (not even as a dangling link)."""
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644))


def read_first_line(path: Path, limit: int) -> bytes:
    """A regular file's first line (without its end), read as `read_file` reads; ValueError
    when it runs past `limit` bytes."""
    handle = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    with os.fdopen(handle, "rb") as stream:
        if not stat.S_ISREG(os.fstat(handle).st_mode):
            raise ValueError(f"{path.name} is not a regular file")
        line = stream.readline(limit + 1)
    if len(line) > limit:
        raise ValueError(f"{path.name}'s first line holds more than {limit} bytes")
    return line.rstrip(b"\n")
