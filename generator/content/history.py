"""content/history/OWNER/NAME.json: in which releases each error of a repository is raised.

`errpages history` writes it (a build never does) and builds read it like a record: one
JSON value per line for each release and each run of releases raising an error the same
way (`from` its first release, `until` the first after it that does not, null while the
latest does), so a diff reads as what a release changed. It may come from a pull request:
every value is checked before it is shown.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from generator.content.schema import COMMIT_RE, REPO_RE, is_repo_path
from generator.diagnostics import Diagnostic, Position, error
from generator.site.model import ErrorHistory, RaisedRun, Release

HISTORY_FOLDER = "history"
UNRELEASED = "unreleased"
# The format and the matching it was found with: a change to either makes it stale.
MATCHER = 1
MAX_HISTORY_BYTES = 64 * 1024 * 1024
PINNED_KEYS = ("commit", "path", "line", "exception", "message")
EXCEPTION_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")


@dataclass(frozen=True)
class Found:
    """How one release raises an error."""

    message: str  # the template, as the record writes it when the message is the record's
    exception: str
    path: str
    line: int


@dataclass(frozen=True)
class Pinned:
    """What a record's history was found from: a change to any of it finds it again."""

    commit: str
    path: str
    line: int
    exception: str
    message: str


@dataclass
class StoredHistory:
    """A history file's contents: the releases, and each record's raise in each of them."""

    repo: str = ""
    releases: list[Release] = field(default_factory=list)
    pinned: dict[str, Pinned] = field(default_factory=dict)
    found: dict[str, dict[str, Found | None]] = field(default_factory=dict)  # id -> release
    arguments: list[list[Any]] = field(default_factory=list)  # site.yaml's message_arguments


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
    if not isinstance(data, dict) or data.get("errpages_history") != MATCHER:
        raise HistoryFileError(f"not a history file of this errpages (errpages_history: {MATCHER})")
    repo, arguments = data.get("repo"), data.get("message_arguments")
    if not isinstance(repo, str) or not REPO_RE.fullmatch(repo):
        raise HistoryFileError("repo: expected owner/name")
    if not isinstance(arguments, list):
        raise HistoryFileError("message_arguments: expected a list")
    stored = StoredHistory(repo, releases_of(data.get("releases")), arguments=arguments)
    names = [release.name for release in stored.releases]
    records = data.get("records")
    if not isinstance(records, dict):
        raise HistoryFileError("records: expected an object of record ids")
    for record_id, entry in records.items():
        try:
            stored.pinned[record_id], stored.found[record_id] = record_entry(entry, names)
        except (HistoryFileError, KeyError, TypeError, ValueError) as exc:
            raise HistoryFileError(f"record {record_id}: {exc}", record_id) from None
    return stored


def releases_of(value: Any) -> list[Release]:
    if not isinstance(value, list):
        raise HistoryFileError("releases: expected a list")
    found: list[Release] = []
    for item in value:
        name, commit = item.get("name") if isinstance(item, dict) else None, None
        commit = item.get("commit") if isinstance(item, dict) else None
        if not isinstance(name, str) or not name.isprintable() or not 0 < len(name) <= 200:
            raise HistoryFileError(f"releases: a name is not a tag name: {name!r}")
        if not isinstance(commit, str) or not COMMIT_RE.fullmatch(commit) or len(commit) != 40:
            raise HistoryFileError(f"releases: {name}: commit: expected 40 hex digits")
        if any(release.name == name for release in found):
            raise HistoryFileError(f"releases: {name} is there twice")
        found.append(Release(name, commit))
    return found


def record_entry(entry: Any, names: list[str]) -> tuple[Pinned, dict[str, Found | None]]:
    """One record's entry: what it was pinned to, and its raise in each release."""
    pinned = entry["pinned"]
    values = [pinned[key] for key in PINNED_KEYS]
    if not all(isinstance(v, int if k == "line" else str) for k, v in zip(PINNED_KEYS, values)):
        raise HistoryFileError("pinned: expected commit, path, line, exception and message")
    by_release: dict[str, Found | None] = dict.fromkeys(names)
    end = 0
    for run in entry["raised"]:
        first = names.index(run["from"])
        until = len(names) if run["until"] is None else names.index(run["until"])
        found = Found(run["message"], run["exception"], run["path"], run["line"])
        if not end <= first < until:
            raise HistoryFileError(f"raised: {run['from']} – {run['until']} is out of order")
        if not (
            isinstance(found.message, str)
            and isinstance(found.exception, str)
            and EXCEPTION_RE.fullmatch(found.exception)
            and isinstance(found.path, str)
            and is_repo_path(found.path)
            and isinstance(found.line, int)
            and found.line >= 1
        ):
            raise HistoryFileError(f"raised: {run['from']}: expected message, exception, path, line")
        for name in names[first:until]:
            by_release[name] = found
        end = until
    return Pinned(*values), by_release


def history_text(stored: StoredHistory) -> str:
    """The file's text: the releases, then each record's runs, records by id."""

    def line(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False, sort_keys=True)

    entries = []
    for record_id in sorted(stored.found):
        rows = [
            line({"from": run.first.name, "until": run.after.name if run.after else None,
                  **vars(found)})
            for run, found in raised_runs(stored.found[record_id], stored.releases)
        ]
        raised = "[\n        " + ",\n        ".join(rows) + "\n      ]" if rows else "[]"
        entries.append(
            f"    {line(record_id)}: {{\n"
            f'      "pinned": {line(vars(stored.pinned[record_id]))},\n'
            f'      "raised": {raised}\n'
            "    }"
        )
    releases = ",\n".join(f"    {line({'name': r.name, 'commit': r.commit})}" for r in stored.releases)
    return (
        "{\n"
        f'  "errpages_history": {MATCHER},\n'
        f'  "repo": {line(stored.repo)},\n'
        f'  "message_arguments": {line(stored.arguments)},\n'
        f'  "releases": [\n{releases}\n  ],\n'
        + ('  "records": {\n' + ",\n".join(entries) + "\n  }\n" if entries else '  "records": {}\n')
        + "}\n"
    )


def raised_runs(
    by_release: dict[str, Found | None], releases: list[Release]
) -> list[tuple[RaisedRun, Found]]:
    """Consecutive releases that raise an error the same way, as one run each."""
    runs: list[tuple[RaisedRun, Found]] = []
    start = 0
    for index, release in enumerate(releases):
        found = by_release.get(release.name)
        following = by_release.get(releases[index + 1].name) if index + 1 < len(releases) else None
        if found is None or found == following:
            if found is None:
                start = index + 1
            continue
        after = releases[index + 1] if index + 1 < len(releases) else None
        run = RaisedRun(
            releases[start], release, after, start, index, found.message, found.exception,
            found.path, found.line,
        )
        runs.append((run, found))
        start = index + 1
    return runs


def error_histories(stored: StoredHistory) -> dict[str, ErrorHistory]:
    """Each record's history, as pages show it."""
    latest = stored.releases[-1]
    return {
        record_id: ErrorHistory(tuple(run for run, _ in raised_runs(by_release, stored.releases)), latest)
        for record_id, by_release in stored.found.items()
    }


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
