"""Writing the user's own files (records, snippets, the registry, drift.json) safely.

Every write goes through a temporary file beside the target and a rename, so a
crash, a full disk or a read-only folder never leaves half a file. Kept apart
from recordfile (which needs ruamel.yaml), so that commands that never edit a
record do not import a YAML round-tripper.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

if sys.platform != "win32":
    import fcntl


class FileChanged(OSError):
    """The file changed on disk since it was read: the edit was not written over it."""


def new_file_mode() -> int:
    """The mode a new file gets, as the umask says (0o644 under the usual 022)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


def refuse_link(path: Path) -> None:
    """Raise unless path is no symbolic link (before anything of an edit is written)."""
    if path.is_symlink():
        raise OSError(f"{path} is a symbolic link; errpages does not replace links")


def atomic_write_text(path: Path, text: str, expected: str | None = None) -> None:
    """Write text to path through a temporary file and a rename.

    A symbolic link is never replaced by a file (it is refused: writing through it could
    reach outside content/). With `expected`, the text the file held when it was read:
    when it no longer holds that (someone saved it meanwhile), nothing is written and
    FileChanged is raised. An existing file keeps its mode; a new one gets the umask's.
    """
    refuse_link(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        mode = path.stat().st_mode & 0o777 if path.exists() else new_file_mode()
        os.chmod(temp, mode)
        if expected is not None and path.read_text(encoding="utf-8") != expected:
            raise FileChanged(f"{path} changed since it was read; it was left as it is")
        os.replace(temp, path)
    except OSError as exc:
        Path(temp).unlink(missing_ok=True)
        if exc.filename is None and exc.errno is not None:  # a full disk: name the file
            raise OSError(exc.errno, exc.strerror, str(path)) from exc
        raise
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


@contextmanager
def editing(folder: Path) -> Iterator[None]:
    """Hold the folder against other errpages commands editing it (an `flock` on the folder
    itself), from reading a file to writing it: two edits at once would each write over the
    other's."""
    handle = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    finally:
        os.close(handle)
