"""Write stage: put planned files into a fresh folder, then swap it in atomically.

A build that fails, or is killed, never touches the previous output: files
go into a staging folder beside it, and the two folders are exchanged in one
step (renameat2 RENAME_EXCHANGE on Linux; two renames elsewhere). A marker
file says a folder was written by errpages, so we never replace a folder the
user made.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import hashlib
import os
import posixpath
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from generator.diagnostics import Diagnostic, Position, error
from generator.outputs import OutputFile

MARKER = ".errpages-site"
MARKER_TEXT = b"This folder is written by errpages; a build replaces it whole.\n"
RENAME_EXCHANGE = 2
AT_FDCWD = -100


def is_safe_site_path(path: str) -> bool:
    """A site path is relative, '/'-separated and stays inside the output folder."""
    if not path or path.startswith("/") or "\\" in path or "\x00" in path:
        return False
    normal = posixpath.normpath(path)
    return normal == path and not normal.startswith("../") and normal != ".."


def check_output_folder(out_dir: Path) -> list[Diagnostic]:
    """Refuse an output folder that holds anything errpages did not write."""
    if out_dir.is_symlink() or (out_dir.exists() and not out_dir.is_dir()):
        return [error(Position(str(out_dir)), "--out", "exists and is not a folder")]
    if out_dir.is_dir() and any(out_dir.iterdir()) and not (out_dir / MARKER).is_file():
        return [
            error(
                Position(str(out_dir)),
                "--out",
                "folder is not empty and was not written by errpages; refusing to replace it",
                "choose an empty or new folder, or delete this one yourself",
            )
        ]
    return []


def check_collisions(files: list[OutputFile]) -> list[Diagnostic]:
    """Two outputs that want the same path (or paths equal but for case) are an error."""
    seen: dict[str, OutputFile] = {}
    diagnostics = []
    for file in files:
        if not is_safe_site_path(file.path):
            diagnostics.append(
                error(Position(file.origin), "", f"unsafe output path {file.path!r}")
            )
            continue
        key = file.path.lower()
        if key in seen:
            diagnostics.append(
                error(
                    Position(file.origin),
                    "",
                    f"output path {file.path} is also written by {seen[key].origin}",
                    "paths that differ only in case collide on many file systems",
                )
            )
        else:
            seen[key] = file
    return diagnostics


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swap two folders; False when the system cannot."""
    if not sys.platform.startswith("linux"):
        return False
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    renameat2 = getattr(libc, "renameat2", None)
    if renameat2 is None:
        return False
    result = renameat2(AT_FDCWD, os.fsencode(a), AT_FDCWD, os.fsencode(b), RENAME_EXCHANGE)
    return bool(result == 0)


def remove_leftovers(out_dir: Path) -> None:
    """Delete staging folders left by builds that were killed.

    They are ours by name: the output's name after a dot, `.new-` or `.old-`,
    and mkdtemp's eight random characters. A kill while the replaced site was
    being deleted can leave one without its marker, so the name is what counts.
    """
    name = re.escape(out_dir.name)
    ours = re.compile(rf"\.{name}\.(new|old)-[A-Za-z0-9_]{{8}}")
    for leftover in out_dir.parent.iterdir():
        if ours.fullmatch(leftover.name) and leftover.is_dir() and not leftover.is_symlink():
            shutil.rmtree(leftover, ignore_errors=True)


class Staging:
    """A fresh folder beside the output that becomes the output in one swap.

    A file whose bytes equal the previous build's is hard-linked from the
    previous output instead of written: it keeps its inode and mtime, so
    upload tools see only what changed, and the old site stays whole until
    the swap.
    """

    def __init__(self, out_dir: Path, previous: dict[str, str]) -> None:
        self.out_dir = out_dir.absolute()
        self.out_dir.parent.mkdir(parents=True, exist_ok=True)
        remove_leftovers(self.out_dir)
        self.root = Path(
            tempfile.mkdtemp(prefix=f".{self.out_dir.name}.new-", dir=self.out_dir.parent)
        )
        os.chmod(self.root, 0o755)
        (self.root / MARKER).write_bytes(MARKER_TEXT)
        ours = (self.out_dir / MARKER).is_file()
        self.previous = previous if ours else {}
        self.made: set[str] = set()

    def _target(self, path: str) -> Path:
        if not is_safe_site_path(path):
            raise ValueError(f"unsafe output path {path!r}")
        target = self.root / path
        parent = str(target.parent)
        if parent not in self.made:
            target.parent.mkdir(parents=True, exist_ok=True)
            self.made.add(parent)
        return target

    def keep(self, path: str) -> bool:
        """Carry a file over from the previous output unchanged; False if it is not there."""
        if path not in self.previous:
            return False
        try:
            os.link(self.out_dir / path, self._target(path))
        except OSError:
            return False
        return True

    def put(self, path: str, data: bytes) -> str:
        """Stage a file (linked from the previous output when the bytes are the same); its hash."""
        sha = hashlib.sha256(data).hexdigest()
        if self.previous.get(path) == sha and self.keep(path):
            return sha
        target = self._target(path)
        # Never write through a hard link: that would change the previous site's file too.
        target.unlink(missing_ok=True)
        target.write_bytes(data)
        return sha

    def read(self, path: str) -> str | None:
        try:
            return (self.root / path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None

    def read_previous(self, path: str) -> str | None:
        """A file of the previous output, when that output is one we wrote."""
        if path not in self.previous:
            return None
        try:
            return (self.out_dir / path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None

    def discard(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    def commit(self) -> None:
        """Swap the staged folder in for the output (atomically where the system can)."""
        out_dir = self.out_dir
        if not out_dir.exists():
            os.rename(self.root, out_dir)
            return
        if _exchange(self.root, out_dir):
            remove_later(self.root)
            return
        old = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.old-", dir=out_dir.parent))
        os.rmdir(old)
        os.rename(out_dir, old)
        os.rename(self.root, out_dir)
        remove_later(old)


def remove_later(folder: Path) -> None:
    """Delete the replaced site without making the build wait for it.

    Deleting tens of thousands of files took longer than an incremental build,
    so a detached `rm -rf` does it after the swap; if it never runs to the
    end, the next build removes what is left (the folder's name is ours).
    """
    rm = shutil.which("rm")
    if rm is None:
        shutil.rmtree(folder, ignore_errors=True)
        return
    subprocess.Popen(
        [rm, "-rf", "--", str(folder)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
