"""What a build is made from, fingerprinted, and whether the last build saw just that.

Answered from file stats, the options, errpages' code and the small summary
the last build saved beside its cache, with no renderer imported: a build
with nothing to do ends before it would load them.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import NamedTuple

from errpages import __version__, plaindata
from errpages.cachefiles import read_file
from errpages.content.listing import shown_records_folder
from errpages.diagnostics import Diagnostic

CACHE_FORMAT = 20
GENERATOR_DIR = Path(__file__).resolve().parent.parent


DEFAULT_CACHE_DIR = Path(".errpages-cache")
HEAD_LIMIT = 1 << 30  # a head file larger than this is not read


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

    def without_cache(self) -> BuildOptions:
        return replace(self, cache_dir=None)

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


class Summary(NamedTuple):
    """What the last build saw, saved beside its cache to answer "did anything change?"
    without loading the cache."""

    format: int
    code: str
    inputs: str
    warnings: tuple[Diagnostic, ...]
    themes: tuple[str, ...]  # the theme folders whose files `inputs` fingerprints


def read_summary(path: Path | None) -> Summary | None:
    """The summary the last build saved beside the cache; None when there is none (or the
    cache folder is a link, whose caches are not used)."""
    if path is None or path.parent.is_symlink():
        return None
    try:
        summary: Summary = plaindata.loads(
            read_file(path.with_suffix(".head"), HEAD_LIMIT), Summary
        )
    except (OSError, ValueError):
        return None
    return summary


def saw(summary: Summary | None, content_root: Path, options: BuildOptions, listed: str) -> bool:
    """Whether the last build (by its summary) was of these very inputs."""
    if summary is None or summary.format != CACHE_FORMAT or summary.code != code_version():
        return False
    themes = list(map(Path, summary.themes))
    return summary.inputs == inputs_fingerprint(content_root, options, listed, themes)


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
