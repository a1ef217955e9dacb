"""The output folder's own concerns: held for one build, staged beside, swapped in whole.

A build that fails, or is killed, never touches the previous output: files
go into a staging folder beside it, and the two folders are exchanged in one
step (renameat2 RENAME_EXCHANGE on Linux; two renames elsewhere). A marker
file says a folder was written by errpages, so we never replace a folder the
user made. The `Publisher` keeps, in a state file of its own, what it put in
the output: every file's hash, the folders' times, the spare it keeps
beside it and where each line of the dump is, so the next build stages only
what changed, and finds anything put into the output by hand since.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import re
import secrets
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Collection, Iterable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import BinaryIO, NamedTuple

from errpages import plaindata
from errpages.cachefiles import read_file, read_first_line, replace_file
from errpages.content.listing import display_path, file_stat
from errpages.diagnostics import Diagnostic, Position, error
from errpages.site.model import StatKey

if sys.platform != "win32":
    import fcntl

MARKER = ".errpages-site"
MARKER_TEXT = b"This folder is written by errpages; a build replaces it whole.\n"
SPARE_MARKER = ".errpages-spare"  # in the spare folder only: the token the cache remembers
RENAME_EXCHANGE = 2
AT_FDCWD = -100


PLAIN_SITE_PATH_RE = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]*(/[A-Za-z0-9_-][A-Za-z0-9_.-]*)*")


def is_safe_site_path(path: str) -> bool:
    """A site path is relative, '/'-separated and stays inside the output folder."""
    if PLAIN_SITE_PATH_RE.fullmatch(path):
        return True  # no empty, dot or dot-dot segment, nothing to normalise: the usual case
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


def check_collisions(files: Iterable[tuple[str, str]]) -> list[Diagnostic]:
    """Two outputs (path, origin) that want the same path, or paths equal but for case, clash."""
    seen: dict[str, str] = {}
    diagnostics = []
    for path, origin in files:
        if not is_safe_site_path(path):
            diagnostics.append(error(Position(origin), "", f"unsafe output path {path!r}"))
            continue
        key = path.lower()
        if key in seen:
            diagnostics.append(
                error(
                    Position(origin),
                    "",
                    f"output path {path} is also written by {seen[key]}",
                    "paths that differ only in case collide on many file systems",
                )
            )
        else:
            seen[key] = origin
    return diagnostics


def exchange_folders(a: Path, b: Path) -> bool:
    """Atomically swap two folders; False when the system cannot."""
    if not sys.platform.startswith("linux"):
        return False
    # Imported here: only a build that writes swaps, and importing ctypes slows every start.
    # The C library is already loaded: looked up in this process (find_library would run
    # `ldconfig -p` to name it).
    import ctypes

    renameat2 = getattr(ctypes.CDLL(None, use_errno=True), "renameat2", None)
    if renameat2 is None:
        return False
    result = renameat2(AT_FDCWD, os.fsencode(a), AT_FDCWD, os.fsencode(b), RENAME_EXCHANGE)
    return bool(result == 0)


class OutputBusy(Exception):
    """Another build holds the output folder, and this one was told not to wait."""


def lock_file(out_dir: Path) -> Path:
    """Beside the output, never deleted: a lock file deleted and made again would let two
    builds each hold a lock of their own."""
    return out_dir.absolute().parent / f".{out_dir.name}.lock"


@contextmanager
def output_lock(
    out_dir: Path, wait: bool = True, waiting: Callable[[str], None] | None = None
) -> Iterator[None]:
    """Hold the output folder, its spare and its cache for one build, from start to end.

    Another build into the same folder (a second `build`) waits for
    this one, told through `waiting`; with wait=False it raises OutputBusy at once.
    """
    path = lock_file(out_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if not wait:
                raise OutputBusy(f"another build is writing {display_path(out_dir)}") from None
            if waiting is not None:
                waiting(f"Waiting for another build of {display_path(out_dir)} to finish…")
            fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    finally:
        os.close(handle)


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


# Site folder ("" for the root) -> its mtime in ns when its build left it, and whether that
# was so recent that a change by hand within the same clock tick would leave it the same
# (a "racy" folder, as git calls it: listed again next time instead of trusted).
FolderTimes = dict[str, tuple[int, bool]]
RACY_NS = 200_000_000


@dataclass(frozen=True)
class Spare:
    """What the spare folder holds, as the cache remembers it: a token, every file's hash,
    and its folders' mtimes (a file added or removed by hand changes its folder's mtime)."""

    token: str
    outputs: dict[str, str]
    folders: FolderTimes


class FolderCheck(NamedTuple):
    """The output's folders now, against the times recorded when the build before left them."""

    gone: frozenset[str]
    moved: frozenset[str]  # mtime not as recorded, or gone: someone else wrote there
    racy: frozenset[str]  # recorded as racy: a change within the same clock tick would not show


def check_folders(root: Path, recorded: FolderTimes) -> FolderCheck:
    """Take every recorded folder's mtime, and see which changed since they were recorded."""
    prefix = f"{root}/"
    gone, moved, racy = set(), set(), set()
    for folder, (mtime, was_racy) in recorded.items():
        try:
            now = os.stat(prefix + folder).st_mtime_ns
        except OSError:
            gone.add(folder)
            moved.add(folder)
            continue
        if now != mtime:
            moved.add(folder)
        elif was_racy:
            racy.add(folder)
    return FolderCheck(frozenset(gone), frozenset(moved), frozenset(racy))


class LiveCheck(NamedTuple):
    """What was done to the output by hand since the build that wrote it."""

    foreign: list[str]  # put there, or put in the place of a file of the build: site paths
    missing: set[str]  # files of the build's that are gone


def check_live(out_dir: Path, outputs: dict[str, str], recorded: FolderTimes) -> LiveCheck:
    """Compare the output with what the build that wrote it put there (`outputs`, its
    folders' `recorded` mtimes): the paths put there since (a folder's with a final `/`), in
    name order, and the files gone.

    Only folders whose mtime moved since are read (an unchanged folder holds what it
    held), and those recorded as racy; a file of the build's is read and hashed only in a
    folder that moved (a file put there in its place).
    """
    check = check_folders(out_dir, recorded)
    look = ({""} | check.moved | check.racy) - check.gone
    expected = names_inside(look, outputs, set(recorded) or site_folders(outputs))
    expected[""].add(MARKER)
    foreign, present = [], set()
    for folder in look:
        prefix = f"{folder}/" if folder else ""
        try:
            entries = list(os.scandir(os.path.join(out_dir, folder)))
        except OSError:
            entries = []
        for entry in entries:
            path = prefix + entry.name
            present.add(path)
            if entry.name not in expected[folder]:
                foreign.append(path + "/" if entry.is_dir(follow_symlinks=False) else path)
            elif (
                path in outputs
                and folder in check.moved
                and (
                    not entry.is_file(follow_symlinks=False)
                    or file_sha(entry.path) != outputs[path]
                )
            ):
                foreign.append(path)
    gone = {f"{folder}/{name}".lstrip("/") for folder in look for name in expected[folder]}
    gone = {*(gone - present - {MARKER}), *check.gone}
    missing = {path for path in outputs if path in gone or any_parent_in(path, gone)}
    return LiveCheck(sorted(foreign), missing)


def any_parent_in(path: str, folders: set[str]) -> bool:
    folder = path.rpartition("/")[0]
    while folder:
        if folder in folders:
            return True
        folder = folder.rpartition("/")[0]
    return False


def names_inside(
    look: Collection[str], files: Collection[str], folders: Collection[str]
) -> dict[str, set[str]]:
    """The names of the files and folders (site paths) directly inside each folder looked at."""
    inside: dict[str, set[str]] = {folder: set() for folder in look}
    for path in [*files, *folders]:
        folder, _, name = path.rpartition("/")
        if path and folder in inside:
            inside[folder].add(name)
    return inside


def spare_folder(out_dir: Path) -> Path:
    """The previous site, kept beside the output so the next build edits it instead of copying."""
    return out_dir.parent / f".{out_dir.name}.spare"


def spare_token(folder: Path) -> str | None:
    try:
        return (folder / SPARE_MARKER).read_text()
    except OSError:
        return None


def site_folders(paths: Iterable[str]) -> set[str]:
    """Every folder the files at these site paths are in, with their parents and the root."""
    folders = {""}
    for path in paths:
        folder = path.rpartition("/")[0]
        while folder not in folders:
            folders.add(folder)
            folder = folder.rpartition("/")[0]
    return folders


def file_sha(path: str | Path) -> str | None:
    """A file's sha256, or None when it cannot be read."""
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as stream:
            while chunk := stream.read(1 << 20):
                digest.update(chunk)
    except OSError:
        return None
    return digest.hexdigest()


def files_not_in(folder: Path, outputs: Collection[str]) -> list[str]:
    """The files under folder (as site paths, in name order) that are not `outputs` or the
    markers."""
    found = []
    for where, _folders, names in os.walk(folder):
        prefix = os.path.relpath(where, folder).replace(os.sep, "/")
        for name in names:
            path = name if prefix == "." else f"{prefix}/{name}"
            if path not in outputs and path not in (MARKER, SPARE_MARKER):
                found.append(path)
    return sorted(found)


def parent_of(folder: str) -> str:
    return folder.rpartition("/")[0]


class Staging:
    """A folder beside the output that becomes the output in one swap.

    A file whose bytes equal the previous build's is hard-linked from the
    previous output instead of written: it keeps its inode and mtime, so
    upload tools see only what changed, and the old site stays whole until
    the swap.

    Building that folder from nothing costs a link per file and a folder per
    error, so the site a swap replaced is kept as the spare: the next build
    stages into it. It holds exactly the files of the site the build before
    wrote, and only what changed since is linked or written, and what is
    gone removed, before the two are swapped again. A token file, removed
    before the spare is touched and written again after the swap, says the
    spare is exactly what the publisher's state says; anything else and it is
    thrown away and the folder built from nothing. Files put into the site
    by hand (or deleted from it) while it was live are found (`check_live`) by the mtimes
    of its folders, without listing ten thousand folders.
    """

    def __init__(
        self,
        out_dir: Path,
        previous: dict[str, str],
        spare: Spare | None = None,
        live_folders: FolderTimes | None = None,
    ) -> None:
        self.out_dir = out_dir.absolute()
        self.out_dir.parent.mkdir(parents=True, exist_ok=True)
        remove_leftovers(self.out_dir)
        ours = (self.out_dir / MARKER).is_file()
        self.previous = previous if ours else {}
        self.live_folders = live_folders or {}  # of the output folder, as its build left it
        self.spare = spare_folder(self.out_dir)
        self.holds: dict[str, str] = {}  # what the folder held before this build touched it
        self.made: set[str] = {""}  # site folders known to exist in it
        self.touched: set[str] = set()  # site folders this build changed
        self.found: FolderTimes = {}  # the spare's folder mtimes, as recorded when it was live
        self.dropped: list[str] = []  # files of a replaced site not known to be errpages'
        usable = (
            ours
            and spare is not None
            and not self.spare.is_symlink()
            and spare_token(self.spare) == spare.token
            and (self.spare / MARKER).is_file()
        )
        if usable and spare is not None:
            self.root = self.spare
            (self.root / SPARE_MARKER).unlink()  # from here on it is being changed
            self.touched.add("")
            self.holds = dict(spare.outputs)
            self.made = site_folders(self.holds)
            self.found = spare.folders
            return
        self.drop_spare()
        self.root = Path(
            tempfile.mkdtemp(prefix=f".{self.out_dir.name}.new-", dir=self.out_dir.parent)
        )
        os.chmod(self.root, 0o755)
        (self.root / MARKER).write_bytes(MARKER_TEXT)

    def drop_spare(self) -> None:
        """Throw the spare away (only a folder errpages wrote: it has the site marker)."""
        if self.spare.is_dir() and not self.spare.is_symlink() and (self.spare / MARKER).is_file():
            self.throw_away(self.spare)

    def throw_away(self, path: Path) -> None:
        """Move a file or folder into a leftover folder of ours beside the output and delete it
        (a kill meanwhile leaves the folder to the next build, by its name)."""
        doomed = Path(
            tempfile.mkdtemp(prefix=f".{self.out_dir.name}.old-", dir=self.out_dir.parent)
        )
        os.rename(path, doomed / path.name)
        shutil.rmtree(doomed, ignore_errors=True)

    def _target(self, path: str) -> Path:
        if not is_safe_site_path(path):
            raise ValueError(f"unsafe output path {path!r}")
        target = self.root / path
        folder = path.rpartition("/")[0]
        self.touched.add(folder)
        if folder not in self.made:
            target.parent.mkdir(parents=True, exist_ok=True)
            while folder not in self.made:  # each new folder, and the one it was made in
                self.made.add(folder)
                self.touched.add(folder)
                folder = parent_of(folder)
            self.touched.add(folder)
        return target

    def keep(self, path: str, sha: str | None = None) -> bool:
        """Carry a file over from the previous output unchanged; False if it is not there."""
        live = self.previous.get(path)
        if live is None or (sha is not None and sha != live):
            return False
        if self.holds.get(path) == live:
            return True  # the spare has it already: the same file, linked by an earlier build
        if file_sha(self.out_dir / path) != live:
            return False  # changed by hand since the last build wrote it: not linked
        return self.link_from_live(path)

    def link_from_live(self, path: str) -> bool:
        try:
            target = self._target(path)
            # Never write through a hard link: that would change the previous site's file too.
            target.unlink(missing_ok=True)
            os.link(self.out_dir / path, target)
        except OSError:
            return False
        return True

    def put(self, path: str, data: bytes, sha: str | None = None) -> str:
        """Stage a file (linked from the previous output when the bytes are the same); its hash
        (`sha`, when the caller knows it already)."""
        sha = sha or hashlib.sha256(data).hexdigest()
        if self.previous.get(path) == sha and self.keep(path):
            return sha
        if self.holds.get(path) == sha:
            return sha
        target = self._target(path)
        target.unlink(missing_ok=True)
        target.write_bytes(data)
        return sha

    def put_written(
        self,
        path: str,
        write: Callable[[BinaryIO], None],
        sha: str,
        live_intact: bool,
    ) -> str:
        """Stage a large file that `write` writes (into an unbuffered file), known by `sha`.

        `sha` identifies the content without reading it (the caller knows what
        it is made of); the previous output's copy is linked when it has the
        same and is `live_intact` (untouched since it was written).
        """
        if self.holds.get(path) == sha:
            return sha  # the spare has it already
        if live_intact and self.previous.get(path) == sha and self.link_from_live(path):
            return sha
        target = self._target(path)
        temp = target.with_name(f".{target.name}.part")
        with open(temp, "wb", buffering=0) as stream:
            write(stream)
        os.replace(temp, target)
        return sha

    def read(self, path: str) -> str | None:
        try:
            return (self.root / path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None

    def read_bytes(self, path: str) -> bytes:
        return (self.root / path).read_bytes()

    def size(self, path: str) -> int:
        return (self.root / path).stat().st_size

    def discard(self) -> None:
        """Give up: the output stays as it was; a half-changed spare is thrown away."""
        if self.root == self.spare:
            self.drop_spare()
        else:
            shutil.rmtree(self.root, ignore_errors=True)

    def remove_gone(self, paths: Collection[str]) -> None:
        """In a reused spare, delete every file the new site does not have, and emptied folders."""
        if self.root != self.spare:
            return  # a fresh folder holds only what this build put there
        emptied = set()
        for path in self.holds:
            if path not in paths:
                folder = path.rpartition("/")[0]
                (self.root / path).unlink(missing_ok=True)
                self.touched.add(folder)
                emptied.add(folder)
        for folder in sorted(emptied, key=lambda f: -f.count("/")):
            while folder:
                try:
                    os.rmdir(self.root / folder)
                except OSError:
                    break  # not empty
                self.made.discard(folder)
                folder = parent_of(folder)
                self.touched.add(folder)

    def note_written(self, path: str) -> None:
        """A file was written at path by another process (a render worker)."""
        folder = path.rpartition("/")[0]
        self.touched.add(folder)
        while folder not in self.made:  # made by the worker, in a folder it changed
            self.made.add(folder)
            folder = parent_of(folder)
            self.touched.add(folder)

    def folder_times(self, outputs: Collection[str]) -> FolderTimes:
        """The staged folder's mtimes: as found for folders this build left alone, else read now."""
        now = time.time_ns()
        times: FolderTimes = {}
        for folder in site_folders(outputs):
            if folder not in self.touched and folder in self.found:
                times[folder] = self.found[folder]
                continue
            try:
                mtime = os.stat(os.path.join(self.root, folder)).st_mtime_ns
            except OSError:
                mtime = -1
            times[folder] = (mtime, now - mtime < RACY_NS)
        return times

    def commit(self, outputs: dict[str, str], keep_spare: bool) -> tuple[Spare | None, FolderTimes]:
        """Swap the staged folder in for the output (atomically where the system can).

        `outputs` is every file of the new site with its hash. With keep_spare,
        the replaced site stays as the spare and what it holds is returned, for
        the cache to remember, with the new output's folder mtimes. Once the new
        site is in, nothing fails the build: a spare that cannot be kept is not.
        """
        self.remove_gone(outputs)
        live = self.folder_times(outputs) if keep_spare else {}
        out_dir = self.out_dir
        if not out_dir.exists():
            os.rename(self.root, out_dir)
            if keep_spare and not os.path.lexists(self.spare):
                return self.make_spare(outputs), live
            return None, live
        if exchange_folders(self.root, out_dir):
            replaced = self.root
        else:
            replaced = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.old-", dir=out_dir.parent))
            os.rmdir(replaced)
            os.rename(out_dir, replaced)
            os.rename(self.root, out_dir)
        if not self.previous:  # what the replaced site held is not known: say what goes
            self.dropped = files_not_in(replaced, outputs)
        try:
            return self.keep_replaced(replaced, outputs, keep_spare), live
        except OSError:
            shutil.rmtree(replaced, ignore_errors=True)
            return None, live

    def keep_replaced(
        self, replaced: Path, outputs: dict[str, str], keep_spare: bool
    ) -> Spare | None:
        """Keep the site a swap replaced as the spare, or throw it away (without keep_spare);
        what the spare holds."""
        if not keep_spare:
            shutil.rmtree(replaced, ignore_errors=True)
            return None
        # The replaced site is the previous output: what it holds is known when the cache knew it.
        if self.previous and (replaced == self.spare or not os.path.lexists(self.spare)):
            if replaced != self.spare:
                os.rename(replaced, self.spare)
            return self.seal_spare(self.previous, self.live_folders)
        # Otherwise the cache did not know the replaced folder (new errpages code, or an output
        # changed behind its back): a spare from the new site, so the next build is incremental.
        if replaced != self.spare:
            shutil.rmtree(replaced, ignore_errors=True)
        self.drop_spare()
        return None if os.path.lexists(self.spare) else self.make_spare(outputs)

    def make_spare(self, outputs: dict[str, str]) -> Spare | None:
        """A first build replaced nothing: link every file of the new site into a spare.

        The new site holds what this build staged: its folders and files are
        known (`outputs`, and the marker), so they are made and linked from
        that list, not found by walking the site. None when it cannot be made
        (the next build makes one, or does without).
        """
        temp = tempfile.mkdtemp(prefix=f".{self.out_dir.name}.new-", dir=self.out_dir.parent)
        folders = site_folders(outputs)
        live = str(self.out_dir)
        try:
            os.chmod(temp, 0o755)
            for folder in sorted(folders):  # a folder's name sorts before those of folders in it
                if folder:
                    os.mkdir(os.path.join(temp, folder))
            for path in [MARKER, *outputs]:
                os.link(os.path.join(live, path), os.path.join(temp, path))
            os.rename(temp, self.spare)
        except OSError:
            shutil.rmtree(Path(temp), ignore_errors=True)
            return None
        # Nobody but errpages writes into the hidden spare: its folders' times can be trusted.
        spare = str(self.spare)
        times = {
            folder: (os.stat(os.path.join(spare, folder)).st_mtime_ns, False) for folder in folders
        }
        return self.seal_spare(outputs, times)

    def seal_spare(self, outputs: dict[str, str], folders: FolderTimes) -> Spare:
        token = secrets.token_hex(16)
        (self.spare / SPARE_MARKER).write_text(token)
        return Spare(token, outputs, folders)


LiveSite = tuple[int, int, int, int]  # the output's device and inode, its marker's inode, mtime
Layout = dict[str, tuple[int, int]]  # a dump line's file (site path) -> its (offset, length)


def live_site(out_dir: Path) -> LiveSite | None:
    """The output folder as found now: which folder it is (a build swaps in another) and its
    mtime (a tool that cleans the folder and writes its own pages there changes it)."""
    try:
        st = out_dir.stat()
        marker = (out_dir / MARKER).stat()
    except OSError:
        return None
    return st.st_dev, st.st_ino, marker.st_ino, st.st_mtime_ns


@dataclass(frozen=True)
class Published:
    """What the publisher put in the output folder the last time, as its state file keeps it."""

    live: LiveSite | None = None  # the output folder as it left it
    outputs: dict[str, str] = field(default_factory=dict)  # site path -> sha256
    folders: FolderTimes = field(default_factory=dict)  # the output's folders' mtimes
    spare: Spare | None = None  # the site kept beside the output, and what it holds
    dump: tuple[str, Layout, StatKey | None] | None = None  # its path, lines and stats


class DumpLine(NamedTuple):
    """A line of a dump: the bytes of the file at `path` (a JSON file of the site, or, for an
    error another shard writes, bytes of its own)."""

    path: str
    sha: str
    size: Callable[[], int]
    read: Callable[[], bytes]


class Publisher:
    """The output folder, held for one build (`held`), with what it last put there (its
    state file, None: no state kept, each build stages anew)."""

    def __init__(self, out_dir: Path, state_file: Path | None) -> None:
        self.out_dir = out_dir
        self.state_file = state_file
        self.before = Published()  # what the last build published, when it is what is live
        self.staging: Staging | None = None
        self.dump: tuple[str, Layout, StatKey | None] | None = None
        self.dropped: list[str] = []  # files of a replaced site not known to be errpages'

    @classmethod
    @contextmanager
    def held(
        cls,
        out_dir: Path,
        state_file: Path | None,
        wait: bool = True,
        waiting: Callable[[str], None] | None = None,
    ) -> Iterator[Publisher]:
        """The publisher of out_dir, holding its lock from start to end (`output_lock`)."""
        with output_lock(out_dir, wait, waiting):
            yield cls(out_dir, state_file)

    def intact(self) -> bool:
        """Whether the output folder is the very one this publisher left, untouched at its
        top, without reading more than the state file's first line."""
        live = live_site(self.out_dir)
        return live is not None and read_state_head(self.state_file) == live

    def start(self) -> list[str]:
        """Read what the last build published and stage the new site beside the output; the
        files put into the output by hand since (then nothing is staged)."""
        before = read_state(self.state_file)
        live = live_site(self.out_dir)
        if before.live is not None and live is not None and before.live[:3] == live[:3]:
            check = check_live(self.out_dir, before.outputs, before.folders)
            if check.foreign:
                return check.foreign
            outputs = {
                path: sha for path, sha in before.outputs.items() if path not in check.missing
            }
            self.before = replace(before, outputs=outputs)
        spare = self.before.spare
        self.staging = Staging(self.out_dir, self.before.outputs, spare, self.before.folders)
        return []

    def put_dump(self, path: str, lines: list[DumpLine]) -> str:
        """Stage a dump of these lines; its sha. A line the last dump held is copied from it
        by the kernel when that is still the very file written, not read again."""
        assert self.staging is not None
        staging, previous = self.staging, self.staging.previous
        old = self.before.dump
        intact = old is not None and old[0] == path and old[2] == file_stat(self.out_dir / path)
        old_layout = old[1] if old is not None and intact else {}
        pieces: list[range | DumpLine] = []  # runs of the old dump, and lines to write
        layout: Layout = {}
        offset = 0
        for line in lines:
            where = old_layout.get(line.path)
            if where is not None and previous.get(line.path) == line.sha:
                start, length = where
                last = pieces[-1] if pieces else None
                if isinstance(last, range) and last.stop == start:
                    pieces[-1] = range(last.start, start + length)
                else:
                    pieces.append(range(start, start + length))
            else:
                length = line.size()
                pieces.append(line)
            layout[line.path] = (offset, length)
            offset += length
        identity = hashlib.sha256(" ".join(line.sha for line in lines).encode()).hexdigest()

        def write(stream: BinaryIO) -> None:
            with ExitStack() as stack:
                source = (
                    stack.enter_context(open(self.out_dir / path, "rb")) if old_layout else None
                )
                for piece in pieces:
                    if isinstance(piece, range):
                        copy_range(source, stream, piece.start, piece.stop)
                    else:
                        stream.write(piece.read())

        sha = staging.put_written(path, write, identity, live_intact=intact)
        self.dump = (path, layout, None)
        return sha

    def staged(self) -> Staging:
        """The staging folder (`start` made it)."""
        assert self.staging is not None
        return self.staging

    def holds(self, path: str, sha: str) -> bool:
        """Whether the staged site has the file the last build wrote at path (or links it)."""
        return self.staged().keep(path, sha)

    def put(self, path: str, content: bytes) -> str:
        """Stage a file; its sha256."""
        return self.staged().put(path, content)

    def note_written(self, *paths: str) -> None:
        """Files were staged at these paths by another process (a worker)."""
        for path in paths:
            self.staged().note_written(path)

    def read(self, path: str) -> str | None:
        """A staged file's text (None: not there, or not text)."""
        assert self.staging is not None
        return self.staging.read(path)

    def publish(self, outputs: dict[str, str]) -> str | None:
        """Swap the staged site in; keep the state of what is now live (when kept), or say
        why it could not be kept (the next build then stages the site anew)."""
        staging = self.staged()
        keep = self.state_file is not None
        spare, folders = staging.commit(outputs, keep)
        self.dropped, self.staging = staging.dropped, None
        if self.state_file is None:
            return None
        dump = self.dump and (self.dump[0], self.dump[1], file_stat(self.out_dir / self.dump[0]))
        published = Published(live_site(self.out_dir), outputs, folders, spare, dump)
        try:
            write_state(self.state_file, published)
        except OSError as exc:
            return str(exc)
        return None

    def discard(self) -> None:
        """Give up: the output stays as it was."""
        if self.staging is not None:
            self.staging.discard()
            self.staging = None


def copy_range(source: BinaryIO | None, target: BinaryIO, start: int, end: int) -> None:
    """Copy bytes start..end of one file to the end of another (an unbuffered one)."""
    if source is None:
        raise OSError("no previous dump to copy from")
    while start < end and hasattr(os, "copy_file_range"):
        try:
            copied = os.copy_file_range(source.fileno(), target.fileno(), end - start, start)
        except OSError:
            break  # not between these files (another file system, say): copy it by hand
        if copied <= 0:
            break
        start += copied
    source.seek(start)
    while start < end:
        chunk = source.read(min(1 << 20, end - start))
        if not chunk:
            raise OSError("the previous dump is shorter than the publisher's state says")
        start += len(chunk)
        target.write(chunk)


# The state file: a first line that says which output folder it describes (all a build with
# nothing to do reads), then the rest, each as plain JSON read back as its declared type.
STATE_FORMAT = 1
STATE_LIMIT = 1 << 30


def read_state_head(state_file: Path | None) -> LiveSite | None:
    if state_file is None:
        return None
    try:
        head = read_first_line(state_file, 4096)
        version, live = plaindata.loads(head, tuple[int, LiveSite | None])
    except (OSError, ValueError):
        return None
    return live if version == STATE_FORMAT else None


def read_state(state_file: Path | None) -> Published:
    """What the last build published, as its state file says; nothing when it cannot be read."""
    if state_file is None or state_file.parent.is_symlink():
        return Published()
    try:
        head, _, rest = read_file(state_file, STATE_LIMIT).partition(b"\n")
        version, live = plaindata.loads(head, tuple[int, LiveSite | None])
        if version != STATE_FORMAT:
            return Published()
        outputs, folders, spare, dump = plaindata.loads(rest, StateTables)
    except (OSError, ValueError):
        return Published()
    return Published(live, outputs, folders, spare_from_difference(spare, outputs), dump)


StateTables = tuple[
    dict[str, str],
    FolderTimes,
    tuple[str, dict[str, str | None], FolderTimes] | None,
    tuple[str, Layout, StatKey | None] | None,
]


def write_state(state_file: Path, published: Published) -> None:
    if state_file.parent.is_symlink():
        return
    outputs, spare = published.outputs, published.spare
    difference = None if spare is None else spare_difference(spare, outputs)
    head = plaindata.dumps((STATE_FORMAT, published.live))
    rest = plaindata.dumps((outputs, published.folders, difference, published.dump))
    replace_file(state_file, head + b"\n" + rest)


def spare_difference(
    spare: Spare, outputs: dict[str, str]
) -> tuple[str, dict[str, str | None], FolderTimes]:
    """The spare as the few files where it differs from the output (None: it lacks one)."""
    difference: dict[str, str | None] = {
        path: sha for path, sha in spare.outputs.items() if outputs.get(path) != sha
    }
    difference.update((path, None) for path in outputs.keys() - spare.outputs.keys())
    return spare.token, difference, spare.folders


def spare_from_difference(
    record: tuple[str, dict[str, str | None], FolderTimes] | None, outputs: dict[str, str]
) -> Spare | None:
    if record is None:
        return None
    token, difference, folders = record
    held = dict(outputs)
    for path, sha in difference.items():
        if sha is None:
            held.pop(path, None)
        else:
            held[path] = sha
    return Spare(token, held, folders)


def not_ours(out_dir: Path, files: list[str]) -> Diagnostic:
    """The output holds files its last build did not write: the build would drop them."""
    shown = display_path(out_dir)
    named = ", ".join(files[:5]) + (f" and {len(files) - 5} more" if len(files) > 5 else "")
    return error(
        Position(shown),
        "--out",
        f"holds files errpages did not write there, or changed since: {named}",
        f"a build replaces {shown} whole: move them out of it (or delete {shown} to have it "
        "written anew), or build into another folder with --out",
    )
