"""Load stage: read content/ into memory (site.yaml, record YAML, snippet files).

Only this module and `listing` touch the content folder. It lists every file below
`errors/`, `snippets/` and `history/` up front, so later stages look snippet and history
files up by name and no path written in a record ever reaches the file system.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from errpages.diagnostics import Diagnostic, Position, error, warning
from errpages.content.listing import (
    RECORD_SUFFIXES,
    ContentChanged,
    ContentFiles,
    FoundFile,
    display_path,
    file_stat,
    list_content,
    shown_records_folder,
)
from errpages.content.history import (
    HISTORY_FOLDER,
    MAX_HISTORY_BYTES,
    StoredHistory,
    error_histories,
    read_history_file,
    repository_history,
)
from errpages.site.model import (
    DriftNote,
    ErrorHistory,
    Histories,
    RecordSummary,
    RepositoryHistory,
    StatKey,
    TextFile,
)
from errpages.content.published import MANIFEST, Manifest, parse_manifest
from errpages.content.yamldoc import YamlDocument, parse_yaml

MAX_RECORD_BYTES = 2 * 1024 * 1024
MAX_SNIPPET_BYTES = 2 * 1024 * 1024
DRIFT_FILE = "drift.json"


@dataclass(frozen=True)
class LoadedContent:
    """Everything read from content/, parsed as far as YAML goes."""

    root: Path
    config: YamlDocument | None
    records: Iterable[YamlDocument]  # parsed one at a time as they are consumed (once)
    snippets: SnippetFiles
    texts: SourceLines  # display path -> lines, for showing offending lines
    drift: dict[str, DriftNote] = field(default_factory=dict)
    manifest: Manifest | None = None
    histories: Histories = field(default_factory=Histories)
    reused: tuple[RecordSummary, ...] = ()  # records unchanged since the cached build
    record_stats: dict[str, StatKey] = field(default_factory=dict)
    problems: list[Diagnostic] = field(default_factory=list)  # found while records are read
    pending: tuple[tuple[Path, str], ...] = ()  # record files to read: (path, display path)


def read_text(
    path: Path, limit: int, exact: bool = False
) -> tuple[str | None, list[Diagnostic]]:
    """Read a UTF-8 file (BOM allowed, CRLF normalised), refusing oversized or undecodable ones;
    `exact`: its text as it is, BOM and line breaks kept (for a file that is edited)."""
    shown = display_path(path)
    try:
        size = path.stat().st_size
        if size > limit:
            return None, [
                error(Position(shown), "", f"file is {size} bytes; the limit is {limit} bytes")
            ]
        data = path.read_bytes()
    except OSError as exc:
        return None, [error(Position(shown), "", f"cannot read file: {exc.strerror}")]
    try:
        text = data.decode("utf-8" if exact else "utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        return None, [
            error(Position(shown, line, col), "", "file is not valid UTF-8", "save it as UTF-8")
        ]
    return text if exact else text.replace("\r\n", "\n").replace("\r", "\n"), []


class SourceLines:
    """Lines of content files, read again only for the few that a diagnostic points into."""

    def __init__(self) -> None:
        self.known: dict[str, list[str]] = {}

    def __setitem__(self, path: str, lines: list[str]) -> None:
        self.known[path] = lines

    def get(self, path: str) -> list[str] | None:
        if path not in self.known:
            try:  # a regular file of a record's size only: a FIFO named in a message blocks
                if (
                    not stat.S_ISREG(os.stat(path).st_mode)
                    or os.stat(path).st_size > MAX_RECORD_BYTES
                ):
                    return None
                data = Path(path).read_bytes()
            except OSError:
                return None
            text = data.decode("utf-8-sig", errors="replace").replace("\r\n", "\n")
            self.known[path] = text.split("\n")
        return self.known[path]


class SnippetFiles(Mapping[str, TextFile]):
    """The files under content/snippets/ by name, read only when a record asks for one."""

    def __init__(self, folder: Path, found: list[FoundFile], cut: int, texts: SourceLines) -> None:
        """`found`: its files, named from content/; `cut`: how much of a name is "snippets/"."""
        self.folder = folder
        self.paths = {file.name[cut:]: file.path for file in found}  # a Path made only if read
        self.stats = {file.name[cut:]: file.stat for file in found}
        self.texts = texts
        self.read: dict[str, TextFile | None] = {}
        self.diagnostics: list[Diagnostic] = []

    def stat(self, name: str) -> StatKey | None:
        return self.stats.get(name)

    def __getitem__(self, name: str) -> TextFile:
        if name not in self.read:
            self.read[name] = self._read(name) if name in self.paths else None
        file = self.read[name]
        if file is None:
            raise KeyError(name)
        return file

    def _read(self, name: str) -> TextFile | None:
        path = Path(self.paths[name])
        text, problems = read_text(path, MAX_SNIPPET_BYTES)
        self.diagnostics += problems
        if text is None:
            return None
        return TextFile(display_path(path), name, text)

    def __iter__(self) -> Iterator[str]:
        return iter(self.paths)

    def __len__(self) -> int:
        return len(self.paths)


# Given a record file's display path and stat, the record from an earlier build if still valid.
Reuse = Callable[[str, StatKey, SnippetFiles], RecordSummary | None]
# History files read before, by path: the file's stat then, and what every build reads of it.
HistoryRead = tuple[StatKey, RepositoryHistory]
HistoriesRead = dict[str, HistoryRead]
# History files parsed whole, by path: the file's stat then, and each error's history.
HistoriesParsed = dict[str, tuple[StatKey, dict[str, ErrorHistory]]]


def load_content(
    content_root: Path,
    reuse: Reuse | None = None,
    listing: ContentFiles | None = None,
    histories: tuple[HistoriesRead, HistoriesParsed] | None = None,
) -> tuple[LoadedContent, list[Diagnostic]]:
    """Read site.yaml and every record under errors/; snippet files are read when asked for.

    With `reuse`, a record file unchanged since an earlier build is not read:
    its validated record's summary comes back in `reused`; with `histories`
    (what was read and parsed of history files before: `load_histories`), a
    history file unchanged since is not either. `listing`: the content folder as listed moments ago (for the
    build's fingerprint).
    """
    diagnostics: list[Diagnostic] = []
    texts = SourceLines()

    config_doc = None
    config_path = content_root / "site.yaml"
    if config_path.exists() and not config_path.is_file():
        kind = "a folder" if config_path.is_dir() else "a special file"
        diagnostics.append(
            error(Position(display_path(config_path)), "", f"expected a YAML file, found {kind}")
        )
    elif config_path.is_file():
        text, problems = read_text(config_path, MAX_RECORD_BYTES)
        diagnostics += problems
        if text is not None:
            config_doc, problems = parse_yaml(text, display_path(config_path))
            diagnostics += problems

    listing = listing or list_content(content_root)
    diagnostics += [error(Position(shown), "", problem) for shown, problem in listing.problems]
    snippets = SnippetFiles(content_root / "snippets", *listing.under("snippets"), texts)

    reused: list[RecordSummary] = []
    record_stats: dict[str, StatKey] = {}
    to_read: list[tuple[Path, str]] = []
    shown_folder = shown_records_folder(content_root)
    record_files, cut = listing.under("errors")
    for found in record_files:
        if not found.name.endswith(RECORD_SUFFIXES):
            continue
        shown = shown_folder + found.name[cut:]  # what display_path() says, asked once
        record_stats[shown] = found.stat
        earlier = reuse(shown, found.stat, snippets) if reuse else None
        if earlier is not None:
            reused.append(earlier)
        else:
            to_read.append((Path(found.path), shown))

    drift, problems = load_drift(content_root / DRIFT_FILE)
    diagnostics += problems
    manifest, problems = load_manifest(content_root / MANIFEST)
    diagnostics += problems
    read, parsed = histories or ({}, {})
    found_histories, problems = load_histories(listing.under(HISTORY_FOLDER)[0], read, parsed)
    diagnostics += problems
    late: list[Diagnostic] = []
    loaded = LoadedContent(
        content_root,
        config_doc,
        read_records(to_read, late),
        snippets,
        texts,
        drift,
        manifest,
        found_histories,
        tuple(reused),
        record_stats,
        late,
        tuple(to_read),
    )
    return loaded, diagnostics


def parse_files(
    files: Iterable[tuple[Path, str]],
) -> Iterator[tuple[YamlDocument | None, list[Diagnostic]]]:
    """Read and parse record files one by one, so only one parsed file is held at a time."""
    for path, shown in files:
        text, problems = read_text(path, MAX_RECORD_BYTES)
        if text is None:
            yield None, problems
            continue
        document, found = parse_yaml(text, shown)
        yield document, problems + found


def read_records(
    files: list[tuple[Path, str]], problems: list[Diagnostic]
) -> Iterator[YamlDocument]:
    """The parsed documents of record files; their problems go to `problems`."""
    for document, found in parse_files(files):
        problems += found
        if document is not None:
            yield document


def load_manifest(path: Path) -> tuple[Manifest | None, list[Diagnostic]]:
    """Read content/published-ids.txt, if it is there (see `published`)."""
    if not path.exists():
        return None, []
    shown = display_path(path)
    if not path.is_file():
        found = "a folder" if path.is_dir() else "a special file"
        return None, [error(Position(shown), "", f"expected a text file of ids, found {found}")]
    text, problems = read_text(path, MAX_RECORD_BYTES, exact=True)
    if text is None:
        return None, problems
    return parse_manifest(path, shown, text)


def load_histories(
    files: list[FoundFile], read: HistoriesRead, parsed: HistoriesParsed
) -> tuple[Histories, list[Diagnostic]]:
    """Read content/history/OWNER/NAME.json, written by `errpages history`. A file whose
    stat is the one in `read` (the build cache's) is not read: what every build needs of it
    is there, and its errors' whole histories are read when a page shows one. `read` is
    left holding the files now there that had no problem, `parsed` those parsed whole."""
    repositories: dict[str, RepositoryHistory] = {}
    paths: dict[str, tuple[Path, StatKey]] = {}
    diagnostics: list[Diagnostic] = []
    now: HistoriesRead = {}
    for found in files:
        if not found.name.endswith(".json"):
            continue
        earlier = read.get(found.path)
        if earlier is None or earlier[0] != found.stat:
            stored, problems = parse_history_file(Path(found.path))
            diagnostics += problems
            if stored is None:
                continue
            full = error_histories(stored)
            parsed[found.path] = found.stat, full
            earlier = found.stat, repository_history(stored, full)
        repository = earlier[1]
        repositories[repository.repo] = repository
        paths[repository.repo] = Path(found.path), found.stat
        now[found.path] = earlier
    read.clear()
    read.update(now)
    for path in parsed.keys() - now.keys():
        del parsed[path]
    return Histories(repositories, HistoryFiles(paths, parsed)), diagnostics


def parse_history_file(path: Path) -> tuple[StoredHistory | None, list[Diagnostic]]:
    """A history file read whole, or what is wrong with it."""
    text, problems = read_text(path, MAX_HISTORY_BYTES)
    if text is None:
        return None, problems
    return read_history_file(path, display_path(path), text)


@dataclass(frozen=True)
class HistoryFiles:
    """Each repository's errors' whole histories, its file parsed the first time a page shows
    one (kept in `parsed`: serve keeps them between saves)."""

    paths: dict[str, tuple[Path, StatKey]]  # each repository's file, and its stat as listed
    parsed: HistoriesParsed

    def __call__(self, repo: str) -> dict[str, ErrorHistory]:
        path, stat = self.paths[repo]
        held = self.parsed.get(str(path))
        if held is None or held[0] != stat:
            if file_stat(path) != stat:
                raise ContentChanged(display_path(path))
            stored, _ = parse_history_file(path)
            held = self.parsed[str(path)] = stat, error_histories(stored) if stored else {}
        return held[1]


def load_drift(path: Path) -> tuple[dict[str, DriftNote], list[Diagnostic]]:
    """Read content/drift.json, written by `errpages drift --save`, if it is there."""
    if not path.is_file():
        return {}, []
    text, problems = read_text(path, MAX_RECORD_BYTES)
    if text is None:
        return {}, problems
    shown = display_path(path)
    try:
        data = json.loads(text)
        checked = str(data["checked_at"])
        notes = {
            str(record_id): DriftNote(
                status=str(entry["status"]),
                pinned_commit=str(entry["pinned_commit"]),
                checked_commit=checked,
                now=str(entry.get("now", "")),
            )
            for record_id, entry in data["records"].items()
        }
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        hint = "run `errpages drift --save` again, or delete the file"
        return {}, [warning(Position(shown), "", f"unreadable drift file ({exc}); ignored", hint)]
    return notes, []
