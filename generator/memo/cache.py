"""The build cache: what the last build read and made, so the next one redoes only what changed.

It lives in one folder (`.errpages-cache/` by default, `--cache-dir` to move
it): per output folder and set of options, a SQLite database (`.sqlite`) and
a small summary beside it (`.head`, see `fingerprint.Summary`); the
publisher keeps its own state there too (`.site`). Nothing in it is marshal
or pickle, and everything read back is checked against the types it is
declared with (`plaindata.conform`): a cache folder a pull request added, or
one damaged, is not used rather than trusted. Its files are read and written
as `cachefiles` says (no link followed, sizes bounded); the database is
opened only when it is a regular file holding just the tables errpages makes
(a trigger or a view would run code of the file's choosing on every build),
and every statement runs under a time limit. A database that is not
errpages' own is not used, said once (`BuildCache.refused`), and replaced.
`--no-cache` neither reads nor writes it. Anything that could change the
output is part of a key: record and snippet files (by size, mtime and
inode), site settings, every theme file, and errpages' own code.

The database holds a head (what concerns the whole build: errpages' code,
the settings and theme files every output shares, the warnings), per record
file a small entry (its stats and summary) and the full record, and per
output what it was made from and came to (the memo), and per history file
what every build reads of it. Every build reads the entries, the outputs and
the history files' rows; a full record is read back only when an output that
shows it is made again; an edit rewrites only the rows that changed, all in
one transaction.
"""

from __future__ import annotations

import os
import sqlite3
import time
from contextlib import suppress
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NamedTuple, get_type_hints
from urllib.parse import quote

from errpages import plaindata
from errpages.cachefiles import create_file, own_file_problem, replace_file
from errpages.content.listing import display_path
from errpages.content.loader import HistoriesParsed, HistoriesRead, HistoryRead, SnippetFiles
from errpages.diagnostics import Diagnostic
from errpages.memo.fingerprint import CACHE_FORMAT, HEAD_LIMIT, Summary
from errpages.memo.memo import Made
from errpages.outputs.linkcheck import CrossLink
from errpages.site.model import Record, RecordSummary, StatKey


class RecordEntry(NamedTuple):
    """A validated record's summary and the files it was read from, as they were."""

    stat: StatKey
    snippet_name: str | None
    snippet_stat: StatKey | None
    summary: RecordSummary


@dataclass
class BuildCache:
    """What the last build read (`records`) and made (`outputs`), and what it was of; kept in
    a head file, a row per record file and a row per output."""

    path: Path | None
    code: str = ""
    inputs: str = ""  # fingerprint of every input, for the no-op check
    shared_key: str = ""  # what every output depends on: settings, theme files, code
    warnings: tuple[Diagnostic, ...] = ()  # what the last build reported, repeated on a no-op
    records_folder: str = ""  # how record files' names begin, as shown (`content/errors/`)
    themes: tuple[str, ...] = ()  # the theme folders whose files `inputs` fingerprints
    records: dict[str, RecordEntry] = field(default_factory=dict)  # by record file, as shown
    fresh: dict[str, Record] = field(default_factory=dict)  # validated since saved, to save
    outputs: dict[str, Made] = field(default_factory=dict)  # the memo, by site path
    # the rows as read: entries, outputs, history files
    saved: tuple[dict[str, RecordEntry], dict[str, Made], HistoriesRead] | None = None
    rows_renamed: bool = False  # read as saved by a build run from another working folder
    refused: str | None = None  # why the cache found was not used, when it was not errpages' own
    # What every build reads of each history file, by its stat (a row per file), and the
    # files parsed whole (serve keeps them between saves)
    histories_read: HistoriesRead = field(default_factory=dict)
    histories_parsed: HistoriesParsed = field(default_factory=dict)
    db: sqlite3.Connection | None = field(default=None, compare=False)

    def reuse(self, shown: str, stat: StatKey, snippets: SnippetFiles) -> RecordSummary | None:
        """The cached record for a file unchanged since (with its snippet file unchanged)."""
        entry = self.records.get(shown)
        if entry is None or entry.stat != stat:
            return None
        if (
            entry.snippet_name is not None
            and snippets.stat(entry.snippet_name) != entry.snippet_stat
        ):
            return None
        return entry.summary

    def made_with(self, shared_key: str) -> dict[str, Made]:
        """The outputs the last build made, when made with what every output shares now."""
        return self.outputs if self.shared_key == shared_key else {}

    def remember(
        self,
        records: dict[str, RecordEntry],
        fresh: list[Record],
        outputs: dict[str, Made],
        shared_key: str,
        inputs: str,
        themes: tuple[str, ...],
        warnings: tuple[Diagnostic, ...],
    ) -> None:
        """Take what a build read and made, for the next build (saved by `save`)."""
        self.records, self.outputs, self.shared_key = records, outputs, shared_key
        self.fresh.update((record.file, record) for record in fresh)
        self.inputs, self.themes, self.warnings = inputs, themes, warnings

    def read_record(self, record_file: str) -> Record | None:
        """A full record the build did not validate, from its row; None when the cache holds
        no usable copy (damaged, or not of errpages' making)."""
        record = self.fresh.get(record_file)
        if record is not None:
            return record
        if self.db is None:
            return None
        try:
            time_limit(self.db, READ_SECONDS)
            row = self.db.execute(
                "SELECT CASE WHEN length(data) > ? THEN NULL ELSE data END FROM records "
                "WHERE file = ?",
                (ROW_LIMIT, record_file[len(self.records_folder) :]),
            ).fetchone()
            loaded: Record = plaindata.loads(row[0], Record)
        except (sqlite3.Error, TypeError, ValueError):  # TypeError: no such row
            return None
        return loaded if loaded.file == record_file else renamed(loaded, record_file)

    def save(self) -> str | None:
        """Write the rows that changed and the head; drop the rows of what is now gone.

        Returns what went wrong when the cache could not be saved (the site is
        built all the same; the next build then starts from scratch).
        """
        if self.path is None:
            return None
        try:
            self.write(self.path)
        except (OSError, sqlite3.Error) as exc:
            with suppress(OSError):  # no "nothing changed" from a cache that was not saved
                self.path.with_suffix(".head").unlink(missing_ok=True)
            return str(exc)
        return None

    def write(self, path: Path) -> None:
        kept = {name: getattr(self, name) for name in HEAD_FIELDS}
        head = plaindata.dumps((CACHE_FORMAT, kept))
        entries, outputs, histories = self.saved or ({}, {}, {})
        cut = len(self.records_folder)  # rows are saved under the record's name under errors/
        db = self.db or open_database(path)[0]
        time_limit(db, WRITE_SECONDS)
        with db:
            if self.saved is None:  # rows under an unknown (older or damaged) head
                for table, _ in TABLES[1:]:
                    db.execute(f"DELETE FROM {table}")
            gone = [(name[cut:],) for name in entries.keys() - self.records.keys()]
            db.executemany("DELETE FROM entries WHERE file = ?", gone)
            db.executemany("DELETE FROM records WHERE file = ?", gone)
            db.executemany(
                "INSERT OR REPLACE INTO entries (file, meta) VALUES (?, ?)",
                (
                    (name[cut:], plaindata.dumps(entry))
                    for name, entry in self.records.items()
                    if self.rows_renamed or entries.get(name) is not entry
                ),
            )
            db.executemany(
                "INSERT OR REPLACE INTO records (file, data) VALUES (?, ?)",
                (
                    (name[cut:], plaindata.dumps(record))
                    for name, record in self.fresh.items()
                    if name in self.records
                ),
            )
            db.executemany(
                "DELETE FROM outputs WHERE path = ?",
                ((path,) for path in outputs.keys() - self.outputs.keys()),
            )
            db.executemany(
                "INSERT OR REPLACE INTO outputs (path, inputs, sha, links, words) "
                "VALUES (?, ?, ?, ?, ?)",
                (
                    (path, made.inputs, made.sha, links_data(made.links), made.words)
                    for path, made in self.outputs.items()
                    if outputs.get(path) != made
                ),
            )
            db.executemany(
                "DELETE FROM histories WHERE file = ?",
                ((path,) for path in histories.keys() - self.histories_read.keys()),
            )
            db.executemany(
                "INSERT OR REPLACE INTO histories (file, data) VALUES (?, ?)",
                (
                    (path, plaindata.dumps(read))
                    for path, read in self.histories_read.items()
                    if histories.get(path) is not read
                ),
            )
            db.execute("INSERT OR REPLACE INTO head (id, data) VALUES (1, ?)", (head,))
        self.db, self.fresh = db, {}
        self.saved = self.records, self.outputs, dict(self.histories_read)
        self.rows_renamed = False
        # A small summary beside it answers "did anything change?" without loading it all.
        summary = plaindata.dumps(
            Summary(CACHE_FORMAT, self.code, self.inputs, self.warnings, self.themes)
        )
        replace_file(path.with_suffix(".head"), summary)

    def close(self) -> None:
        if self.db is not None:
            self.db.close()
            self.db = None


def links_data(links: tuple[CrossLink, ...] | None) -> bytes | None:
    return None if links is None else plaindata.dumps(links)


def renamed(record: Record, record_file: str) -> Record:
    """A record saved by a build run from another working folder, named as this one names it
    (in its positions too, which messages about it show)."""
    positions = {
        key: where._replace(path=record_file) if where.path == record.file else where
        for key, where in record.positions.items()
    }
    return replace(record, file=record_file, positions=positions)


# The tables errpages makes, as SQLite keeps them: a database holding anything else (a
# trigger, a view, another table) is not one errpages made, and is never written to.
TABLES = (
    ("head", "CREATE TABLE head (id INTEGER PRIMARY KEY, data TEXT)"),
    # What every build reads (small), apart from the full records (read rarely).
    ("entries", "CREATE TABLE entries (file TEXT PRIMARY KEY, meta BLOB)"),
    ("records", "CREATE TABLE records (file TEXT PRIMARY KEY, data BLOB)"),
    # What each output was made from and came to, by site path (the memo).
    (
        "outputs",
        "CREATE TABLE outputs (path TEXT PRIMARY KEY, inputs TEXT, sha TEXT, links BLOB, "
        "words TEXT)",
    ),
    # What every build reads of each history file, by its path (`HistoriesRead`).
    ("histories", "CREATE TABLE histories (file TEXT PRIMARY KEY, data BLOB)"),
)
SCHEMA = {("table", name, sql) for name, sql in TABLES} | {
    ("index", f"sqlite_autoindex_{name}_1", None) for name, _ in TABLES[1:]
}
READ_SECONDS = WRITE_SECONDS = 60.0  # far beyond what a cache of 100,000 records takes
ROW_LIMIT = 64 << 20  # a row larger than this is read as missing


def time_limit(db: sqlite3.Connection, seconds: float) -> None:
    """Interrupt any statement still running `seconds` from now (sqlite3.OperationalError)."""
    deadline = time.monotonic() + seconds
    db.set_progress_handler(lambda: time.monotonic() > deadline, 10_000)


def open_database(path: Path) -> tuple[sqlite3.Connection, str | None]:
    """The cache database errpages made at path, or a new one in place of what is there, and
    why that was not used (None: there was nothing, or a database of errpages' own).

    What is there is opened only when it is a regular file, and used only when it holds
    errpages' tables and nothing else; otherwise it is removed (a link, not what it leads
    to), with its journals, and the new database made exclusively under its name.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    journals = [path.with_name(f"{path.name}-{end}") for end in ("wal", "shm", "journal")]
    for journal in journals:  # SQLite would write through a link there
        if own_file_problem(journal):
            os.unlink(journal)
    refused = own_file_problem(path)
    if refused is None and os.path.lexists(path):
        try:
            db = connect(path)
        except sqlite3.Error:
            refused = "it is not a database"
        else:
            try:
                refused = start_tables(db)
            except sqlite3.Error as exc:
                refused = f"it cannot be read ({exc})"
            if refused is None:
                return db, None
            db.close()
    for stale in [path, *journals]:
        with suppress(FileNotFoundError):
            os.unlink(stale)
    create_file(path)
    db = connect(path)
    start_tables(db)
    return db, refused


def connect(path: Path) -> sqlite3.Connection:
    """Open the existing file at path as a database, its statements under a time limit."""
    db = sqlite3.connect(f"file:{quote(os.fsencode(path))}?mode=rw", uri=True, timeout=30)
    time_limit(db, READ_SECONDS)
    return db


def start_tables(db: sqlite3.Connection) -> str | None:
    """Make errpages' tables in an empty database, or in one an earlier errpages made (some
    of the same tables), and empty them in one of another version; why the database is not
    errpages' own, when it holds anything else (then nothing of it is read and nothing
    written)."""
    found = set(db.execute("SELECT type, name, sql FROM sqlite_master"))
    if not found <= SCHEMA:
        return "it holds tables, views or triggers that errpages does not make"
    # A cache need not survive a power cut, only stay whole: no fsync on each save.
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = NORMAL")
    if found != SCHEMA or db.execute("PRAGMA user_version").fetchone()[0] != CACHE_FORMAT:
        with db:  # another errpages' rows: start again
            for name, sql in TABLES:
                db.execute(f"DELETE FROM {name}" if ("table", name, sql) in found else sql)
            db.execute(f"PRAGMA user_version = {CACHE_FORMAT}")
    return None


def load_cache(path: Path | None, code: str, records_folder: str) -> BuildCache:
    """The cache for this output and options; empty when missing, unreadable or from other code.

    The head and every record's row are read; full records only when asked for.
    Record files are named as this build shows them: `records_folder` (what
    `shown_records_folder` says) and their name under it. A cache folder that is a
    symbolic link is not used (nor written: the cache's path is then None).
    """
    if path is not None and path.parent.is_symlink():
        linked = f"{display_path(path.parent)} is a symbolic link"
        return BuildCache(None, code, records_folder=records_folder, refused=linked)
    if path is None or not os.path.lexists(path):
        return BuildCache(path, code, records_folder=records_folder)
    try:
        db, refused = open_database(path)
    except (OSError, sqlite3.Error):
        return BuildCache(path, code, records_folder=records_folder)
    if refused:
        said = f"{display_path(path)}: {refused}; it was replaced"
        return BuildCache(path, code, records_folder=records_folder, refused=said, db=db)
    try:
        cache = read_head_and_rows(db, path, code, records_folder)
    except READ_ERRORS:
        cache = None
    return cache or BuildCache(path, code, records_folder=records_folder, db=db)


# What reading a cache that is damaged, of another version or being replaced can raise.
READ_ERRORS = (OSError, sqlite3.Error, EOFError, AttributeError, ValueError, TypeError)


def read_head_and_rows(
    db: sqlite3.Connection, path: Path, code: str, records_folder: str
) -> BuildCache | None:
    """The cache the head and the rows hold; None when they are of other code. Raises what
    READ_ERRORS names."""
    row = db.execute(
        "SELECT CASE WHEN length(data) > ? THEN NULL ELSE data END FROM head WHERE id = 1",
        (HEAD_LIMIT,),
    ).fetchone()
    version, kept = plaindata.loads(row[0], tuple[int, dict[str, Any]])
    if not set(kept) <= set(HEAD_FIELDS):
        raise ValueError("not a cache head")
    kept = {name: plaindata.conform(value, CACHE_HINTS[name]) for name, value in kept.items()}
    if version != CACHE_FORMAT or kept.get("code") != code:
        return None
    entries: dict[str, RecordEntry] = {
        records_folder + name: plaindata.loads(meta, RecordEntry)
        for name, meta in db.execute(
            "SELECT file, CASE WHEN length(meta) > ? THEN NULL ELSE meta END FROM entries",
            (ROW_LIMIT,),
        )
    }
    # Saved by a build run from another working folder, the summaries name the record files
    # as it showed them: named as this build shows them, and all saved again.
    rows_renamed = kept.get("records_folder") != records_folder
    if rows_renamed:
        entries = {
            name: entry._replace(summary=entry.summary._replace(file=name))
            for name, entry in entries.items()
        }
    outputs = {
        output: made_row(inputs, sha, links, words)
        for output, inputs, sha, links, words in db.execute(
            "SELECT path, inputs, sha, CASE WHEN length(links) > ? THEN NULL ELSE links END, "
            "words FROM outputs",
            (ROW_LIMIT,),
        )
    }
    histories: HistoriesRead = {
        file: plaindata.loads(data, HistoryRead)
        for file, data in db.execute(
            "SELECT file, CASE WHEN length(data) > ? THEN NULL ELSE data END FROM histories",
            (ROW_LIMIT,),
        )
    }
    return BuildCache(
        path,
        **(kept | {"records_folder": records_folder}),
        records=entries,
        outputs=outputs,
        histories_read=dict(histories),
        saved=(entries, outputs, histories),
        rows_renamed=rows_renamed,
        db=db,
    )


def made_row(inputs: object, sha: object, links: bytes | None, words: object) -> Made:
    """An output's row, checked: ValueError when it is not what errpages writes."""
    if not (type(inputs) is type(sha) is type(words) is str):
        raise ValueError("not an output's row")
    found = None if links is None else plaindata.loads(links, tuple[CrossLink, ...])
    return Made(inputs, sha, found, words)


# What the head file keeps of a BuildCache (the rest is in the rows, or made by each build).
HEAD_FIELDS = ("code", "inputs", "shared_key", "warnings", "records_folder", "themes")
CACHE_HINTS = get_type_hints(BuildCache)
