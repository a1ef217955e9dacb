"""List stage: every file under content/, stat'ed once, for the fingerprint and the loader.

What is wrong in the folder comes back as plain text (`ContentFiles.problems`)
for the loader to report.
"""

from __future__ import annotations

import bisect
import hashlib
import os
import stat
from operator import attrgetter
from pathlib import Path
from typing import NamedTuple

from errpages.diagnostics import Diagnostic, Position, error
from errpages.site.model import StatKey

RECORD_SUFFIXES = (".yaml", ".yml")


def display_path(path: str | Path) -> str:
    """Name a file as the user would type it: relative to the working folder when inside it,
    a byte of its name that is not UTF-8 written as `\\xff`."""
    text = os.path.abspath(path)
    cwd = os.getcwd()
    shown = text[len(cwd) + 1 :] if text.startswith(cwd + os.sep) else str(path)
    return shown if shown.isprintable() else printable_name(shown)


def printable_name(name: str) -> str:
    """A file name as text that can be printed: bytes that are not UTF-8 (read by Python as
    lone surrogates) as `\\xff`."""
    return os.fsencode(name).decode("utf-8", "backslashreplace")


def is_utf8_name(name: str) -> bool:
    """Whether a name as Python read it from the file system was UTF-8 (no lone surrogates)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def shown_records_folder(content_root: str | Path) -> str:
    """How record files' names begin in messages (`content/errors/`, as display_path says).

    A record file is known in messages by that name, which depends on the
    working folder; the build cache knows it by its name under errors/ alone.
    """
    return display_path(Path(content_root) / "errors") + "/"


Problem = tuple[str, str]  # a path as shown, what is wrong with it


class FoundFile(NamedTuple):
    """A regular file below a folder: its path, its name under the folder, and its stat."""

    path: str
    name: str  # relative to the folder, with forward slashes
    stat: StatKey


# The folders whose files are read as records, snippets and histories: a link from them out
# of content/ is refused (elsewhere, as for site.yaml, the file is read where the link points).
READ_FOLDERS = ("errors/", "snippets/", "history/")


class ContentFiles(NamedTuple):
    """Every regular file under the content folder, each stat'ed once, in name order.

    The build's fingerprint is made from it and the loader reads from it: at
    tens of thousands of records, listing the folder is much of a build that
    changes one, so it is listed once.
    """

    files: list[FoundFile]  # names relative to the content folder
    problems: list[Problem]  # links refused, folders named like records
    digest: str  # every file's path and stat, hashed: the content's part of the fingerprint
    links: bool = False  # whether a symbolic link was followed (its stat is its target's)

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
    links = False
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
            if not is_utf8_name(entry.name):
                if name.startswith(READ_FOLDERS):  # elsewhere: never read, so not listed
                    message = "the name is not UTF-8; rename it, or it is not read"
                    problems.append((display_path(entry.path), message))
                continue
            into = through
            if entry.is_symlink():
                target = linked_within(entry.path, name, root, through, problems)
                if target is None:
                    continue
                into, links = (*through, target), True
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
    return ContentFiles(files, problems, files_digest(files), links)


def refreshed(
    listing: ContentFiles, content_root: Path, changed: set[str]
) -> ContentFiles | None:
    """The listing after these paths changed (as a watcher names them), when every one is a
    file it lists that is still a regular file, or one it never listed that is gone again (an
    editor's temporary file); None when any is not (a file added or deleted, a folder, a
    link): then the folder must be listed again (as it must when the listing followed a
    link, whose target a watcher names by another path)."""
    if listing.links:
        return None
    root = os.path.abspath(content_root)
    found = {file.name: index for index, file in enumerate(listing.files)}
    files = list(listing.files)
    for path in changed:
        absolute = os.path.abspath(path)
        if not is_within(absolute, root):
            continue  # the theme's: fingerprinted apart
        name = os.path.relpath(absolute, root).replace(os.sep, "/")
        try:
            st = os.lstat(absolute)
        except FileNotFoundError:
            if name in found:
                return None
            continue
        except OSError:
            return None
        if name not in found or not stat.S_ISREG(st.st_mode):
            return None
        index = found[name]
        files[index] = files[index]._replace(stat=(st.st_size, st.st_mtime_ns, st.st_ino))
    return ContentFiles(files, listing.problems, files_digest(files))


class ContentChanged(Exception):
    """A content file changed while the site was made from it (its path, as shown)."""

    def diagnostic(self, hint: str) -> Diagnostic:
        return error(Position(str(self)), "", "changed while the site was made from it", hint)


def file_stat(path: Path) -> StatKey | None:
    """A file's size, mtime and inode (following a link), or None when it cannot be read."""
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns, st.st_ino


def files_digest(files: list[FoundFile]) -> str:
    """The files' paths, sizes, mtimes and inodes, hashed: any change to one changes it."""
    lines = [f"{path}\0{size}\0{mtime}\0{inode}" for path, _, (size, mtime, inode) in files]
    return hashlib.sha256(os.fsencode("\n".join(lines))).hexdigest()


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


def content_folder_missing(content_root: Path) -> Diagnostic:
    """The message for a --content folder that is not there, pointing to `errpages init`."""
    return error(
        Position(os.path.abspath(content_root)),
        "",
        "no such content folder",
        "start a site there with `errpages init`, or name the content folder with --content DIR",
    )
