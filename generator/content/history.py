"""content/history/OWNER/NAME.json: in which releases each error of a repository is raised.

`errpages history` writes it (a build never does) and builds read it like a record: one
JSON value per line for each release and each run of releases raising an error the same
way (`from` its first release, `until` the first after it that does not, null while the
latest does; `"kind": "warning"` where those releases issue it with `warnings.warn`), so a diff
reads as what a release changed; and where its raise was looked for in
a file this Python could not parse (`unread`), so that no page says those releases do not
raise it. It may come from a pull request: every value is checked before it is shown.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

from errpages.content.schema import COMMIT_RE, KINDS, REPO_RE, is_repo_path
from errpages.diagnostics import Diagnostic, Position, error
from errpages.site.history import history_face
from errpages.site.model import (
    ErrorHistory,
    Found,
    Release,
    RepositoryHistory,
    Run,
    Unparsed,
    UnreadRun,
)

HISTORY_FOLDER = "history"
FORMAT = 1  # how the file is written: a build reads this format only
# How the raises were found and followed: `errpages history` starts over when it changed.
MATCHER = 24
MAX_HISTORY_BYTES = 64 * 1024 * 1024
PINNED_KEYS = ("commit", "path", "line", "exception", "message")
EXCEPTION_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")


class Pinned(NamedTuple):
    """What a record's history was found from: a change to any of it finds it again."""

    commit: str
    path: str
    line: int
    exception: str
    message: str


@dataclass
class StoredHistory:
    """A history file's contents: the releases, and each record's runs of releases."""

    repo: str = ""
    releases: list[Release] = field(default_factory=list)
    pinned: dict[str, Pinned] = field(default_factory=dict)
    runs: dict[str, tuple[Run, ...]] = field(default_factory=dict)  # by record id
    unread: dict[str, tuple[UnreadRun, ...]] = field(default_factory=dict)  # by id, when any
    # site.yaml's settings of what a message is, as found with: `message_arguments` (always)
    # and `gettext_functions` (when any)
    settings: dict[str, list[Any]] = field(default_factory=dict)
    matcher: int = MATCHER  # the matching it was found with


class HistoryFileError(ValueError):
    """What is wrong in a history file, and the record entry it is in ("" for the top)."""

    def __init__(self, message: str, record_id: str = "") -> None:
        super().__init__(message)
        self.record_id = record_id


def history_path(content_root: Path, repo: str) -> Path:
    owner, name = repo.split("/")
    return content_root / HISTORY_FOLDER / owner / f"{name}.json"


def parse_history(text: str) -> StoredHistory:
    """A history file's text as StoredHistory; HistoryFileError where it is not one."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise HistoryFileError(f"not JSON ({exc})") from None
    if not isinstance(data, dict) or data.get("errpages_history") != FORMAT:
        raise HistoryFileError(f"not a history file of this errpages (errpages_history: {FORMAT})")
    repo, matcher = data.get("repo"), data.get("matcher")
    settings = {key: data.get(key, []) for key in ("message_arguments", "gettext_functions")}
    if not isinstance(repo, str) or not REPO_RE.fullmatch(repo):
        raise HistoryFileError("repo: expected owner/name")
    for key, value in settings.items():
        if not isinstance(value, list):
            raise HistoryFileError(f"{key}: expected a list")
    if not isinstance(matcher, int) or isinstance(matcher, bool):
        raise HistoryFileError("matcher: expected a number")
    releases = releases_of(data.get("releases"))
    stored = StoredHistory(repo, releases, settings=settings, matcher=matcher)
    index: dict[str | None, int] = {r.name: number for number, r in enumerate(stored.releases)}
    index[None] = len(stored.releases)  # `until` null: raised in the latest
    records = data.get("records")
    if not isinstance(records, dict):
        raise HistoryFileError("records: expected an object of record ids")
    for record_id, entry in records.items():
        try:
            stored.pinned[record_id] = pinned_of(entry["pinned"])
            stored.runs[record_id] = runs_read(entry["raised"], index)
            if "unread" in entry:
                stored.unread[record_id] = unread_read(entry["unread"], index)
        except (HistoryFileError, KeyError, TypeError, ValueError) as exc:
            raise HistoryFileError(f"record {record_id}: {exc}", record_id) from None
    return stored


def releases_of(value: Any) -> list[Release]:
    if not isinstance(value, list):
        raise HistoryFileError("releases: expected a list")
    found: list[Release] = []
    names: set[str] = set()
    for item in value:
        name, commit = (item.get("name"), item.get("commit")) if isinstance(item, dict) else ("", "")
        if not isinstance(name, str) or not name.isprintable() or not 0 < len(name) <= 200:
            raise HistoryFileError(f"releases: a name is not a tag name: {name!r}")
        if not isinstance(commit, str) or not COMMIT_RE.fullmatch(commit) or len(commit) != 40:
            raise HistoryFileError(f"releases: {name}: commit: expected 40 hex digits")
        if name in names:
            raise HistoryFileError(f"releases: {name} is there twice")
        names.add(name)
        found.append(Release(name, commit))
    return found


def pinned_of(value: Any) -> Pinned:
    pinned = Pinned(*(value[key] for key in PINNED_KEYS))
    if not all(isinstance(v, int if k == "line" else str) for k, v in zip(PINNED_KEYS, pinned)):
        raise HistoryFileError("pinned: expected commit, path, line, exception and message")
    return pinned


def runs_read(value: list[Any], index: dict[str | None, int]) -> tuple[Run, ...]:
    """A record's runs as the file lists them, each checked: in order, not overlapping, of
    known releases, with a message, an exception class, a plain path and a line."""
    runs: list[Run] = []
    end, plain = 0, ("", "")  # the last exception and path checked (a record's runs share most)
    for run in value:
        first, until = index[run["from"]], index[run["until"]]
        message, exception, path, line = run["message"], run["exception"], run["path"], run["line"]
        if not end <= first < until:
            raise HistoryFileError(f"raised: {run['from']} – {run['until']} is out of order")
        if (exception, path) != plain and not (
            isinstance(exception, str)
            and EXCEPTION_RE.fullmatch(exception)
            and isinstance(path, str)
            and is_repo_path(path)
        ):
            raise HistoryFileError(f"raised: {run['from']}: expected an exception and a path")
        if not (isinstance(message, str) and type(line) is int and line >= 1):
            raise HistoryFileError(f"raised: {run['from']}: expected a message and a line")
        conditions = run.get("conditions", [])
        if not (isinstance(conditions, list) and all(isinstance(c, str) for c in conditions)):
            raise HistoryFileError(f"raised: {run['from']}: expected conditions as a list of text")
        kind = run.get("kind", "error")
        if kind not in KINDS:
            raise HistoryFileError(f"raised: {run['from']}: expected kind 'error' or 'warning'")
        found = Found(message, exception, path, line, tuple(conditions), kind)
        runs.append(Run(first, until, found))
        end, plain = until, (exception, path)
    return tuple(runs)


def unread_read(value: list[Any], index: dict[str | None, int]) -> tuple[UnreadRun, ...]:
    """A record's runs of unread releases, each checked: in order, of known releases, with a
    plain path and what the parser said."""
    runs: list[UnreadRun] = []
    end = 0
    for run in value:
        first, until = index[run["from"]], index[run["until"]]
        path, problem = run["path"], run["problem"]
        if not end <= first < until:
            raise HistoryFileError(f"unread: {run['from']} – {run['until']} is out of order")
        if not (isinstance(path, str) and is_repo_path(path) and isinstance(problem, str) and problem):
            raise HistoryFileError(f"unread: {run['from']}: expected a path and a problem")
        runs.append(UnreadRun(first, until, Unparsed(path, problem)))
        end = until
    return tuple(runs)


Kind = TypeVar("Kind", Found, Unparsed)


def grouped(
    by_release: Mapping[str, Found | Unparsed | None], releases: list[Release], kind: type[Kind]
) -> list[tuple[int, int, Kind]]:
    """Consecutive releases with the same finding of one kind, as (first, until, finding)."""
    runs: list[tuple[int, int, Kind]] = []
    previous: Found | Unparsed | None = None
    for number, release in enumerate(releases):
        found = by_release.get(release.name)
        if found != previous and runs and runs[-1][1] == len(releases):
            runs[-1] = (runs[-1][0], number, runs[-1][2])
        if isinstance(found, kind) and found != previous:
            runs.append((number, len(releases), found))
        previous = found
    return runs


def runs_of(by_release: Mapping[str, Found | Unparsed | None], releases: list[Release]) -> tuple[Run, ...]:
    """Consecutive releases that raise an error the same way, as one run each."""
    return tuple(Run(*run) for run in grouped(by_release, releases, Found))


def unread_of(
    by_release: Mapping[str, Found | Unparsed | None], releases: list[Release]
) -> tuple[UnreadRun, ...]:
    """Consecutive releases whose file looked in could not be parsed the same way."""
    return tuple(UnreadRun(*run) for run in grouped(by_release, releases, Unparsed))


def found_by_release(
    runs: tuple[Run, ...], unread: tuple[UnreadRun, ...], releases: list[Release]
) -> dict[str, Found | Unparsed | None]:
    """How each release raises the error (None: not at all; Unparsed: not known)."""
    by_release: dict[str, Found | Unparsed | None] = {release.name: None for release in releases}
    for run in runs:
        by_release.update(dict.fromkeys((r.name for r in releases[run.first : run.until]), run.found))
    for unread_run in unread:
        names = (r.name for r in releases[unread_run.first : unread_run.until])
        by_release.update(dict.fromkeys(names, unread_run.file))
    return by_release


def found_data(found: Found) -> dict[str, Any]:
    """A raise found as the file and `history --json` give it: conditions when any, the kind
    when it is a warning issued."""
    defaults = Found._field_defaults
    return {k: v for k, v in found._asdict().items() if k not in defaults or v != defaults[k]}


def history_text(stored: StoredHistory) -> str:
    """The file's text: the releases, then each record's runs, records by id."""

    def line(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False, sort_keys=True)

    names = [release.name for release in stored.releases]
    entries = []
    for record_id in sorted(stored.runs):
        rows = [
            line(
                {
                    "from": names[run.first],
                    "until": names[run.until] if run.until < len(names) else None,
                    **found_data(run.found),
                }
            )
            for run in stored.runs[record_id]
        ]
        unread = [
            line(
                {
                    "from": names[run.first],
                    "until": names[run.until] if run.until < len(names) else None,
                    **run.file._asdict(),
                }
            )
            for run in stored.unread.get(record_id, ())
        ]
        raised = "[\n        " + ",\n        ".join(rows) + "\n      ]" if rows else "[]"
        unread_text = ',\n      "unread": [\n        ' + ",\n        ".join(unread) + "\n      ]"
        entries.append(
            f"    {line(record_id)}: {{\n"
            f'      "pinned": {line(stored.pinned[record_id]._asdict())},\n'
            f'      "raised": {raised}' + (unread_text if unread else "") + "\n"
            "    }"
        )
    releases = ",\n".join(f"    {line({'name': r.name, 'commit': r.commit})}" for r in stored.releases)
    records = '  "records": {\n' + ",\n".join(entries) + "\n  }\n" if entries else '  "records": {}\n'
    settings = {"message_arguments": [], **{k: v for k, v in stored.settings.items() if v}}
    return (
        "{\n"
        f'  "errpages_history": {FORMAT},\n'
        f'  "matcher": {MATCHER},\n'
        f'  "repo": {line(stored.repo)},\n'
        + "".join(f"  {line(key)}: {line(value)},\n" for key, value in settings.items())
        + f'  "releases": [\n{releases}\n  ],\n' + records + "}\n"
    )


def error_histories(stored: StoredHistory) -> dict[str, ErrorHistory]:
    """Each record's history, as pages show it (the releases shared, digested once)."""
    releases = tuple(stored.releases)
    key = hashlib.sha256(repr(releases).encode()).hexdigest()
    return {
        record_id: ErrorHistory(runs, key, releases, stored.unread.get(record_id, ()))
        for record_id, runs in stored.runs.items()
    }


def repository_history(stored: StoredHistory, full: dict[str, ErrorHistory]) -> RepositoryHistory:
    """What every build reads of a history file (`RepositoryHistory`)."""
    faces = {record_id: history_face(history) for record_id, history in full.items()}
    return RepositoryHistory(stored.repo, tuple(stored.releases), faces)


def read_history_file(path: Path, shown: str, text: str) -> tuple[StoredHistory | None, list[Diagnostic]]:
    """A history file read for a build: its contents, or an error naming the line."""
    try:
        stored = parse_history(text)
    except HistoryFileError as exc:
        line = 1
        if exc.record_id:
            at = text.find(json.dumps(exc.record_id) + ":")
            line = text.count("\n", 0, at) + 1 if at >= 0 else 1
        hint = "run `errpages history` again, or delete the file"
        return None, [error(Position(shown, line), "", f"unreadable history file: {exc}", hint)]
    if not stored.releases:
        return None, [error(Position(shown), "releases", "expected at least one release")]
    expected = f"{HISTORY_FOLDER}/{stored.repo}.json"
    if not path.as_posix().endswith(expected):
        problem = f"holds the history of {stored.repo}, so it must be content/{expected}"
        return None, [error(Position(shown), "repo", problem)]
    return stored, []
