"""The build cache: what the last build read and wrote, so the next one redoes only what changed.

It lives in one folder (`.errpages-cache/` by default, `--cache-dir` to move
it), one file per output folder and set of options. `--no-cache` ignores and
rewrites it. Anything that could change the output is part of a key: record
and snippet files (by size, mtime and inode), site settings, every theme file,
and errpages' own code, so a change to any of them shows up.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
from dataclasses import dataclass, field
from pathlib import Path

from generator import __version__
from generator.diagnostics import Diagnostic
from generator.loader import SnippetFiles, StatKey
from generator.model import DriftNote, ErrorLinks, Record
from generator.outputs.hosting import Layout
from generator.outputs.pages import Rendered
from generator.outputs.write import MARKER, Spare

CACHE_FORMAT = 2
GENERATOR_DIR = Path(__file__).resolve().parent


@dataclass(frozen=True)
class RecordEntry:
    """A validated record and the files it was read from, as they were."""

    stat: StatKey
    snippet_name: str | None
    snippet_stat: StatKey | None
    record: Record


@dataclass(frozen=True)
class UnitEntry:
    """What rendering one record produced, and what it was rendered from.

    The record is the very object in `records` (pickled once), so keeping
    it here costs nothing; comparing it, its links and drift note with this
    build's says whether the outputs still hold, without hashing anything.
    """

    record: Record
    links: ErrorLinks
    drift: DriftNote | None
    files: tuple[tuple[str, str], ...]  # (site path, sha256)
    meaning_words: str  # space-separated, for the search index
    cross_links: tuple[tuple[str, str, str, str], ...]  # (page, target, fragment, url)


@dataclass
class BuildCache:
    path: Path | None
    code: str = ""
    inputs: str = ""  # fingerprint of every input, for the no-op check
    site_identity: tuple[int, int, int] | None = None  # (device, inode) of the output we wrote
    records: dict[str, RecordEntry] = field(default_factory=dict)
    shared_key: str = ""  # what every page depends on: settings, theme files, code
    units: dict[str, UnitEntry] = field(default_factory=dict)
    pages: dict[str, Rendered] = field(default_factory=dict)  # site-wide pages, their inputs
    outputs: dict[str, str] = field(default_factory=dict)  # site path -> sha256
    dump_layout: Layout = field(default_factory=dict)  # where each line is in errors.ndjson
    spare: Spare | None = None  # the previous site kept beside the output, and what it holds
    warnings: tuple[Diagnostic, ...] = ()  # what the last build reported, repeated on a no-op

    def reuse(self, shown: str, stat: StatKey, snippets: SnippetFiles) -> Record | None:
        """The cached record for a file unchanged since (with its snippet file unchanged)."""
        entry = self.records.get(shown)
        if entry is None or entry.stat != stat:
            return None
        if (
            entry.snippet_name is not None
            and snippets.stat(entry.snippet_name) != entry.snippet_stat
        ):
            return None
        return entry.record

    def save(self) -> None:
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temp = self.path.with_suffix(".tmp")
        with open(temp, "wb") as stream:
            pickle.dump((CACHE_FORMAT, self), stream, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(temp, self.path)
        # A small summary beside it answers "did anything change?" without loading it all.
        head = json.dumps(
            {
                "format": CACHE_FORMAT,
                "code": self.code,
                "inputs": self.inputs,
                "site": list(self.site_identity or ()),
                "warnings": len(self.warnings),
            }
        )
        head_path = self.path.with_suffix(".head")
        head_path.with_suffix(".headtmp").write_text(head)
        os.replace(head_path.with_suffix(".headtmp"), head_path)


def unchanged_since(
    path: Path | None, code: str, inputs: str, site: tuple[int, int, int] | None
) -> bool:
    """True when the last build saw these very inputs and wrote this very output folder."""
    if path is None or site is None:
        return False
    try:
        head = json.loads(path.with_suffix(".head").read_text())
    except (OSError, ValueError):
        return False
    return bool(
        head.get("format") == CACHE_FORMAT
        and head.get("code") == code
        and head.get("inputs") == inputs
        and tuple(head.get("site", ())) == site
        and head.get("warnings") == 0
    )


def code_version() -> str:
    """errpages' version and a hash of its own source: a code change invalidates the cache."""
    digest = hashlib.sha256(__version__.encode())
    for path in sorted(GENERATOR_DIR.rglob("*.py")):
        digest.update(path.read_bytes())
    return digest.hexdigest()


def cache_file(cache_dir: Path, out_dir: Path | None, options: str) -> Path:
    key = hashlib.sha256(f"{out_dir.resolve() if out_dir else '-'}\n{options}".encode()).hexdigest()
    return cache_dir / f"build-{key[:20]}.pickle"


def load_cache(path: Path | None, code: str) -> BuildCache:
    """The cache for this output and options; empty when missing, unreadable or from other code."""
    if path is None or not path.is_file():
        return BuildCache(path, code)
    try:
        with open(path, "rb") as stream:
            version, cache = pickle.load(stream)
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ValueError, TypeError):
        return BuildCache(path, code)
    if version != CACHE_FORMAT or not isinstance(cache, BuildCache) or cache.code != code:
        return BuildCache(path, code)
    cache.path = path
    return cache


def folder_identity(path: Path) -> tuple[int, int, int] | None:
    """Which output folder this is: its device and inode, and its marker file's inode.

    Every build that writes the output swaps in another folder, so a cache
    that saw another identity describes a different set of files.
    """
    try:
        st = path.stat()
        marker = (path / MARKER).stat()
    except OSError:
        return None
    return st.st_dev, st.st_ino, marker.st_ino


def tree_fingerprint(folders: list[Path], extra: str) -> str:
    """Every file's path, size, mtime and inode under the folders, plus extra, hashed."""
    digest = hashlib.sha256(extra.encode())
    for folder in folders:
        if folder.is_file():
            st = folder.stat()
            digest.update(f"{folder}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ino}\n".encode())
            continue
        for root, dirs, files in os.walk(folder):
            dirs.sort()
            for name in sorted(files):
                path = os.path.join(root, name)
                try:
                    st = os.stat(path)
                except OSError:
                    continue
                digest.update(f"{path}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ino}\n".encode())
    return digest.hexdigest()
