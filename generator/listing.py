"""List stage: every file under content/, stat'ed once, for the fingerprint and the loader.

At tens of thousands of records, listing the content folder is much of a
build that changes one record, and so is starting Python and importing the
rendering libraries (0.15 s). Neither needs the other, so `errpages build`
starts the listing in a child process before anything else is imported
(`start_early_listing`, called by the entry point) and the build takes it
when it gets there (`early_listing`). This module imports only light parts
of the standard library, so the child is forked at once and lists from a
small process; what is wrong in the folder comes back as plain text
(`ContentFiles.problems`) for the loader to report.
"""

from __future__ import annotations

import bisect
import gc
import marshal
import os
import signal
from array import array
from contextlib import suppress
from itertools import repeat
from operator import attrgetter
from pathlib import Path
from typing import NamedTuple

RECORD_SUFFIXES = (".yaml", ".yml")


def display_path(path: str | Path) -> str:
    """Name a file as the user would type it: relative to the working folder when inside it."""
    text = os.path.abspath(path)
    cwd = os.getcwd()
    if text.startswith(cwd + os.sep):
        return text[len(cwd) + 1 :]
    return str(path)


def shown_records_folder(content_root: str | Path) -> str:
    """How record files' names begin in messages (`content/errors/`, as display_path says).

    A record file is known in messages by that name, which depends on the
    working folder; the build cache knows it by its name under errors/ alone.
    """
    return display_path(Path(content_root) / "errors") + "/"


StatKey = tuple[int, int, int]  # size, mtime in ns, inode: enough to tell a file changed
Problem = tuple[str, str]  # a path as shown, what is wrong with it


class FoundFile(NamedTuple):
    """A regular file below a folder: its path, its name under the folder, and its stat."""

    path: str
    name: str  # relative to the folder, with forward slashes
    stat: StatKey


# The folders whose files are read as records and snippets: a link from them out of content/
# is refused (elsewhere, as for site.yaml, the file is read where the link points).
READ_FOLDERS = ("errors/", "snippets/")


class ContentFiles(NamedTuple):
    """Every regular file under the content folder, each stat'ed once, in name order.

    The build's fingerprint is made from it and the loader reads from it: at
    tens of thousands of records, listing the folder is much of a build that
    changes one, so it is listed once.
    """

    files: list[FoundFile]  # names relative to the content folder
    problems: list[Problem]  # links refused, folders named like records
    digest: str  # every file's path and stat, hashed: the content's part of the fingerprint

    def under(self, folder: str) -> tuple[list[FoundFile], int]:
        """The files below one folder of content/ (still named from content/), and how many
        characters of their names to skip to name them from that folder."""
        prefix = folder + "/"
        name = attrgetter("name")  # the files are in name order: the folder's are a run
        first = bisect.bisect_left(self.files, prefix, key=name)
        last = bisect.bisect_left(self.files, folder + chr(ord("/") + 1), first, key=name)
        return self.files[first:last], len(prefix)


def misnamed_record(name: str) -> bool:
    """`A.YAML`, `b.Yml`: meant as a record, but only lowercase suffixes are read."""
    return name.lower().endswith(RECORD_SUFFIXES) and not name.endswith(RECORD_SUFFIXES)


def list_content(content_root: Path) -> ContentFiles:
    """List and stat every regular file under content/, refusing links that leave it.

    Links inside content/ are followed (a link to a folder that holds it is
    refused: it would list forever). A folder under errors/ named like a
    record file is reported.
    """
    files: list[FoundFile] = []
    problems: list[Problem] = []
    root = os.path.realpath(content_root)
    # A folder to list, its name under content/, and the folders links led to on the way there.
    pending: list[tuple[str, str, tuple[str, ...]]] = [(str(content_root), "", ())]
    while pending:
        where, prefix, through = pending.pop()
        try:
            entries = list(os.scandir(where))
        except OSError:
            continue
        for entry in entries:
            name = prefix + entry.name
            into = through
            if entry.is_symlink():
                target = linked_within(entry.path, name, root, through, problems)
                if target is None:
                    continue
                into = (*through, target)
            if entry.is_dir():
                pending.append((entry.path, name + "/", into))
                if name.startswith("errors/") and entry.name.endswith(RECORD_SUFFIXES):
                    problems.append(
                        (display_path(entry.path), "a folder is named like a record file")
                    )
            elif entry.is_file():
                try:
                    st = entry.stat()
                except OSError:
                    continue
                files.append(FoundFile(entry.path, name, (st.st_size, st.st_mtime_ns, st.st_ino)))
                if name.startswith("errors/") and misnamed_record(entry.name):
                    problems.append(
                        (
                            display_path(entry.path),
                            "record files end in '.yaml' or '.yml', "
                            "in lowercase: rename it, or it is not read",
                        )
                    )
            elif name.startswith(("errors/", "snippets/")):  # site.yaml: see the loader
                problems.append(
                    (display_path(entry.path), "not a regular file (a FIFO, socket or device)")
                )
    files.sort(key=lambda found: found.name)
    return ContentFiles(files, problems, files_digest(files))


def files_digest(files: list[FoundFile]) -> str:
    """The files' paths, sizes, mtimes and inodes, hashed: any change to one changes it."""
    import hashlib  # here, not above: the early child is forked before it would be imported

    lines = [f"{path}\0{size}\0{mtime}\0{inode}" for path, _, (size, mtime, inode) in files]
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def linked_within(
    path: str, name: str, root: str, through: tuple[str, ...], problems: list[Problem]
) -> str | None:
    """Where a link leads, if the walk may follow it: not out of content/ from the folders read
    as records and snippets (said so), nor back to a folder it came through (a loop: it would
    never end). Paths are resolved strings, as the walk keeps them."""
    target = os.path.realpath(path)
    if not is_within(target, root):
        if (name + "/").startswith(READ_FOLDERS):
            message = "symbolic link points outside the content folder; refusing to read it"
            problems.append((display_path(path), message))
            return None
        return None if os.path.isdir(target) else target  # a file is read where it is
    if os.path.isdir(target) and (
        target in through or is_within(os.path.realpath(os.path.dirname(path)), target)
    ):
        problems.append((display_path(path), "symbolic link loops back to a folder that holds it"))
        return None
    return target


def is_within(path: str, folder: str) -> bool:
    """Whether a resolved path is the folder or below it."""
    return os.path.commonpath([path, folder]) == folder


# The listing started when the process did: the folder named as the build will name it,
# and the child listing it. Taken once, by the build it was started for.
_early: tuple[str, EarlyChild] | None = None


def start_early_listing(args: list[str]) -> None:
    """For `errpages build`, start listing the content folder in a child now, before the
    rendering libraries are imported: the two run side by side.

    The folder is read from the arguments as the command line will read them;
    the build uses the listing only if it names the very same folder.
    """
    global _early
    if args[:1] != ["build"] or not hasattr(os, "fork") or not hasattr(os, "memfd_create"):
        return
    root = str(Path(content_argument(args[1:])))
    _early = (root, EarlyChild(root))


def content_argument(args: list[str]) -> str:
    """The `--content` folder among a build's arguments (the last one given, as click takes
    it), or the default."""
    root = "content"
    for index, arg in enumerate(args):
        if arg == "--":
            break
        if arg == "--content" and index + 1 < len(args):
            root = args[index + 1]
        elif arg.startswith("--content="):
            root = arg.removeprefix("--content=")
    return root


def early_listing(content_root: Path) -> ContentFiles | None:
    """The listing started with the process, if it was of this folder (named the same way);
    None if there is none, it was of another folder, or the child failed. Given once."""
    global _early
    if _early is None:
        return None
    root, child = _early
    _early = None
    if root != str(content_root):
        child.stop()
        return None
    return child.result()


def packed_files(files: list[FoundFile]) -> tuple[str, bytes, bytes, bytes]:
    """The files as their names in one string and their stats in three arrays: a child's
    listing of 200,000 files went to the parent as tuples in 0.37 s, these take a few ms."""
    names = "\0".join(found.name for found in files)  # no file name holds a NUL
    sizes, mtimes, inodes = (array("q"), array("q"), array("Q"))
    for _, _, (size, mtime, inode) in files:
        sizes.append(size)
        mtimes.append(mtime)
        inodes.append(inode)
    return names, sizes.tobytes(), mtimes.tobytes(), inodes.tobytes()


def unpacked_files(
    content_root: str, names: str, sizes: bytes, mtimes: bytes, inodes: bytes
) -> list[FoundFile]:
    """The files `packed_files` packed; each one's path is the folder's and its name, as
    `list_content` makes it. Raises ValueError if the parts do not fit together."""
    listed = names.split("\0") if names else []
    stats = zip(array("q", sizes), array("q", mtimes), array("Q", inodes), strict=True)
    folder = os.path.join(content_root, "")
    paths = [folder + name for name in listed]
    # tuple.__new__ makes each named tuple without a Python call (a tenth of a second at 200,000).
    return list(map(tuple.__new__, repeat(FoundFile), zip(paths, listed, stats, strict=True)))


def stop_early_listing() -> None:
    """End a listing child the build never took (it failed before listing, or another command
    ran): the process is ending, and a child listing a large folder would go on alone."""
    global _early
    if _early is not None:
        _early[1].stop()
        _early = None


class EarlyChild:
    """A child process listing the content folder; the listing comes back in an anonymous
    in-memory file, marshalled (names, stats and problems: quick to write and to read).

    `parallel.Helper` does this for any work, but importing it (with
    multiprocessing and tempfile) would hold the fork back by 25 ms, a fifth
    of the time the listing has. Files are sent by name and stat: each one's
    path is the folder's path and its name, as `list_content` makes it.
    """

    def __init__(self, content_root: str) -> None:
        self.content_root = content_root
        self.fd = os.memfd_create("errpages-listing")
        self.pid = os.fork()
        if self.pid == 0:  # the child: list, send, and leave at once (no cleanup of the parent's)
            try:
                gc.disable()  # it frees nothing before it ends; collections only walk the listing
                listing = list_content(Path(content_root))
                data = marshal.dumps(
                    (*packed_files(listing.files), listing.problems, listing.digest)
                )
                while data:
                    data = data[os.write(self.fd, data) :]
            finally:
                os._exit(0)

    def result(self) -> ContentFiles | None:
        """The listing, or None if the child ended without sending all of it."""
        try:
            os.waitpid(self.pid, 0)
            with open(self.fd, "rb") as stream:  # the same open file: read from its start
                stream.seek(0)
                data = stream.read()
        except OSError:
            return None
        try:
            names, sizes, mtimes, inodes, problems, digest = marshal.loads(data)
            files = unpacked_files(self.content_root, names, sizes, mtimes, inodes)
        except (EOFError, ValueError, TypeError):
            return None
        return ContentFiles(files, problems, digest)

    def stop(self) -> None:
        """Not wanted after all: end the child and leave nothing behind."""
        with suppress(OSError):
            os.kill(self.pid, signal.SIGKILL)
        with suppress(OSError):
            os.waitpid(self.pid, 0)
        os.close(self.fd)
