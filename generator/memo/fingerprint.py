"""What a build is made from, fingerprinted, and whether the last build saw just that.

Answered from file stats, the options, errpages' code and the small summary
the last build saved beside its cache, with no renderer imported: a build
with nothing to do (`up_to_date`) ends before it would load them.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from errpages import __version__
from errpages.content.listing import ContentFiles, list_content, shown_records_folder
from errpages.memo.folder import read_file
from errpages.outputs.write import MARKER

CACHE_FORMAT = 19
GENERATOR_DIR = Path(__file__).resolve().parent.parent


DEFAULT_CACHE_DIR = Path(".errpages-cache")
SUMMARY_LIMIT = 1 << 20  # the summary beside a cache is a few hundred bytes


Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class BuildOptions:
    """How to build; everything here is part of the cache key."""

    base_url: str | None = None
    strict: bool = False
    include_drafts: bool = False
    jobs: int = 0  # 0: one process per core
    cache_dir: Path | None = DEFAULT_CACHE_DIR  # None: no cache (a clean build)
    shard: tuple[int, int] = (1, 1)  # K of N
    progress: Progress | None = field(default=None, compare=False)  # told (done, total) pages

    def key(self) -> str:
        epoch = os.environ.get("SOURCE_DATE_EPOCH")
        return repr((self.base_url, self.include_drafts, self.strict, self.shard, epoch))


def inputs_fingerprint(
    content_root: Path,
    options: BuildOptions,
    content_digest: str,
    themes: list[Path],
) -> str:
    """What a build is made from, hashed: the content folder's files (their digest), the
    theme's, the options, and how record files are named in messages (a build run from
    another working folder names them otherwise, so it does not repeat the last one's
    warnings as they were)."""
    extra = f"{options.key()}\n{shown_records_folder(content_root)}"
    return tree_fingerprint(themes, extra, content_digest)


def up_to_date(
    content_root: Path, out_dir: Path, options: BuildOptions
) -> tuple[bool, ContentFiles]:
    """Whether the last build into out_dir saw these very inputs and warned of nothing (then
    there is nothing to do), and the content folder's listing, which a build goes on with.
    The theme's files are those the last build fingerprinted: which theme is used is set in
    site.yaml, and a changed site.yaml changes the listing."""
    listing = list_content(content_root)
    if options.cache_dir is None:
        return False, listing
    path = cache_file(options.cache_dir, out_dir, options.key())
    summary = cache_summary(path)
    themes = summary.get("themes") if summary else None
    if not isinstance(themes, list) or not all(isinstance(theme, str) for theme in themes):
        return False, listing
    inputs = inputs_fingerprint(content_root, options, listing.digest, list(map(Path, themes)))
    return unchanged_since(summary, code_version(), inputs, live_site(out_dir)), listing


def cache_summary(path: Path | None) -> dict[str, Any] | None:
    """The small summary the last build saved beside the cache; None when there is none (or
    the cache folder is a link, whose caches are not used)."""
    if path is None or path.parent.is_symlink():
        return None
    try:
        summary = json.loads(read_file(path.with_suffix(".head"), SUMMARY_LIMIT))
    except (OSError, ValueError, RecursionError):
        return None
    return summary if isinstance(summary, dict) else None


def unchanged_since(
    summary: dict[str, Any] | None, code: str, inputs: str, site: LiveSite | None
) -> bool:
    """True when the last build (by its summary) saw these very inputs, left this very output
    folder as it is now (`live_site`) and warned of nothing."""
    if summary is None or site is None:
        return False
    return bool(
        summary.get("format") == CACHE_FORMAT
        and summary.get("code") == code
        and summary.get("inputs") == inputs
        and summary.get("site") == list(site)
        and summary.get("warnings") == 0
    )


# The libraries whose output ends up in the pages: another version may render differently.
RENDERING_LIBRARIES = ("markdown_it", "jinja2", "pygments", "yaml")


def code_version() -> str:
    """A hash of errpages' version and source, Python's version and the rendering libraries
    as installed: a change to any of them invalidates the cache.

    A library is known by its package file's path, size, mtime and inode (an
    upgrade or a reinstall writes it anew), not by its version number: asking
    the installed packages' metadata is slow, and every no-op build asks. It
    is found, not imported (a no-op build imports none of them).
    """
    digest = hashlib.sha256(f"{__version__}\n{sys.version}\n".encode())
    for name in RENDERING_LIBRARIES:
        spec = importlib.util.find_spec(name)
        where = (spec.origin if spec else None) or name
        st = os.stat(where)
        digest.update(f"{where} {st.st_size} {st.st_mtime_ns} {st.st_ino}\n".encode())
    for path in sorted(GENERATOR_DIR.rglob("*.py")):
        digest.update(path.read_bytes())
    return digest.hexdigest()


def cache_file(cache_dir: Path, out_dir: Path | None, options: str) -> Path:
    key = hashlib.sha256(os.fsencode(f"{out_dir.resolve() if out_dir else '-'}\n{options}"))
    return cache_dir / f"build-{key.hexdigest()[:20]}.sqlite"


def folder_identity(path: Path) -> tuple[int, int, int] | None:
    """Which output folder this is: its device and inode, and its marker file's inode.

    Every build that writes the output swaps in another folder, so a cache
    that saw another identity describes a different set of files.
    """
    live = live_site(path)
    return None if live is None else live[:3]


LiveSite = tuple[int, int, int, int]  # folder_identity, and the folder's mtime


def live_site(path: Path) -> LiveSite | None:
    """The output folder as a build with nothing to do must find it: the very folder the last
    build left (`folder_identity`), with nothing put into it or taken from its top since
    (its mtime: a tool that cleans the folder and writes its own pages there changes it)."""
    try:
        st = path.stat()
        marker = (path / MARKER).stat()
    except OSError:
        return None
    return st.st_dev, st.st_ino, marker.st_ino, st.st_mtime_ns


def tree_fingerprint(folders: list[Path], extra: str, listed: str = "") -> str:
    """Every file's path, size, mtime and inode under the folders, plus extra and the digest
    of the files already `listed` (the content folder's: `ContentFiles.digest`), hashed."""
    lines = [extra, listed]
    for folder in folders:
        if folder.is_file():
            st = folder.stat()
            lines.append(f"{folder}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ino}")
            continue
        pending = [str(folder)]
        while pending:
            try:
                entries = sorted(os.scandir(pending.pop()), key=lambda entry: entry.name)
            except OSError:
                continue
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    pending.append(entry.path)
                    continue
                try:
                    st = entry.stat()
                except OSError:
                    continue
                lines.append(f"{entry.path}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ino}")
    return hashlib.sha256(os.fsencode("\n".join(lines))).hexdigest()
