"""`errpages drift`: check pinned records against the code, then and now.

For each record of a repository:
- `corrupt`: the stored snippet is not the file at the pinned commit;
- `mismatch`: the pinned line does not raise the record's message;
- at REV: `same`, `moved` (new path or line, renames followed), `changed`
  (the raise is there but its message differs) or `removed`;
- `unknown-commit`: the pinned commit is not in this repository.
"""

from __future__ import annotations

import dataclasses
import datetime
import difflib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from generator.content.files import FileChanged, atomic_write_text
from generator.content.loader import DRIFT_FILE, load_content
from generator.content.schema import validate_records
from generator.diagnostics import printable
from generator.git.pin import apply_pin
from generator.git.pinning import (
    Pin,
    PinError,
    decode_source,
    matching_sites,
    snippet_span,
    source_lines,
)
from generator.git.pyraises import RaiseSite, canonical, scan_source
from generator.git.repo import (
    GitError,
    Repository,
    open_repository,
    read_file,
    renamed_path,
    resolve_commit,
)
from generator.site.model import Record

CHANGED_SIMILARITY = 0.6


@dataclass(frozen=True)
class DriftRow:
    id: str
    file: str
    status: str
    pinned: str  # path:line@commit as recorded
    pinned_commit: str = ""
    now: str = ""  # path:line@commit at REV, when found
    detail: str = ""
    message: str = ""
    new_message: str = ""


@dataclass(frozen=True)
class Located:
    path: str
    site: RaiseSite
    lines: list[str]


def file_lines(repository: Repository, commit: str, path: str) -> tuple[str, list[str]]:
    source = decode_source(read_file(repository, commit, path), path)
    return source, source_lines(source)


def sites_in(source: str, path: str) -> list[RaiseSite]:
    if not path.endswith((".py", ".pyi")):
        return []
    try:
        return scan_source(source)[0]
    except SyntaxError:
        return []


def check_pinned(repository: Repository, record: Record, commit: str) -> str:
    """'' when the snippet is the file at the pinned commit and raises there, else a status."""
    source_path = record.source.path
    try:
        source, lines = file_lines(repository, commit, source_path)
    except (GitError, PinError) as exc:
        return f"corrupt: {exc}"
    snippet = record.source.snippet
    if lines[snippet.start_line - 1 : snippet.end_line] != snippet.lines:
        return "corrupt: the stored snippet differs from the file at the pinned commit"
    if source_path.endswith((".py", ".pyi")):
        here = [
            site
            for site in matching_sites(
                sites_in(source, source_path), record.exception, record.message
            )
            if site.line <= record.source.line <= site.end_line
        ]
        if not here:
            return "mismatch: the pinned line does not raise this message"
    return ""


def locate_now(
    repository: Repository, record: Record, pinned: str, target: str
) -> tuple[str, Located | None, RaiseSite | None]:
    """Find the raise at the target commit: (path now, exact match, changed candidate)."""
    path = record.source.path
    try:
        source, lines = file_lines(repository, target, path)
    except (GitError, PinError):
        moved_to = renamed_path(repository, pinned, target, path)
        if moved_to is None:
            return path, None, None
        path = moved_to
        source, lines = file_lines(repository, target, path)
    sites = sites_in(source, path)
    found = matching_sites(sites, record.exception, record.message)
    if found:
        best = min(found, key=lambda s: abs(s.line - record.source.line))
        return path, Located(path, best, lines), None
    wanted = canonical(record.message)
    similar = [
        (difflib.SequenceMatcher(None, wanted, canonical(s.template)).ratio(), s) for s in sites
    ]
    similar = [(r, s) for r, s in similar if r >= CHANGED_SIMILARITY]
    if not similar:
        return path, None, None
    changed = max(similar, key=lambda item: (item[0], -abs(item[1].line - record.source.line)))
    return path, None, changed[1]


def drift_record(
    repository: Repository, record: Record, target: str
) -> tuple[DriftRow, Located | None]:
    source = record.source
    pinned = f"{source.path}:{source.line}@{source.short_commit}"
    row = DriftRow(record.id, record.file, "", pinned, source.commit, message=record.message)
    try:
        commit = resolve_commit(repository, source.commit)
    except GitError:
        return replace_row(row, "unknown-commit", detail="the pinned commit is not here"), None
    problem = check_pinned(repository, record, commit)
    if problem:
        status, detail = problem.split(": ", 1)
        return replace_row(row, status, detail=detail), None
    path, located, changed = locate_now(repository, record, commit, target)
    if located is not None:
        now = f"{located.path}:{located.site.line}@{target[:10]}"
        same = located.path == source.path and located.site.line == source.line
        detail = "" if same else ("renamed" if located.path != source.path else "line moved")
        return replace_row(row, "same" if same else "moved", now=now, detail=detail), located
    if changed is not None:
        return replace_row(
            row,
            "changed",
            now=f"{path}:{changed.line}@{target[:10]}",
            detail="the raise is there with another message",
            new_message=changed.template,
        ), None
    return replace_row(row, "removed", detail=f"no raise of this message in {path}"), None


def replace_row(row: DriftRow, status: str, **changes: str) -> DriftRow:
    return dataclasses.replace(row, status=status, **changes)


@dataclass
class DriftReport:
    target: str
    rows: list[DriftRow]
    updated: list[str]
    problems: list[str]


def run_drift(
    content_root: Path,
    repo_dir: Path,
    rev: str = "HEAD",
    repo: str | None = None,
    update: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> DriftReport:
    """Check every record of the repository; re-pin `same` and `moved` ones when updating."""
    repository = open_repository(repo_dir)
    target = resolve_commit(repository, rev)
    loaded, _ = load_content(content_root)
    records, diagnostics = validate_records(loaded.records, loaded.snippets)
    diagnostics += loaded.problems
    problems = [d.format().splitlines()[0] for d in diagnostics if d.level.value == "error"]
    rows: list[DriftRow] = []
    updated: list[str] = []
    ordered = sorted(records, key=lambda r: r.id)
    for done, record in enumerate(ordered, start=1):
        if progress:
            progress(done, len(ordered))
        if repo is not None and record.repo != repo:
            continue
        row, located = drift_record(repository, record, target)
        if repo is None and row.status == "unknown-commit":
            continue  # another repository's record
        rows.append(row)
        if update and located is not None and row.status in ("same", "moved"):
            start, end = snippet_span(located.lines, located.site, None)
            text = "\n".join(located.lines[start - 1 : end])
            pin = Pin(record.repo, located.path, target, located.site.line, start, text)
            if pin.commit != record.source.commit or row.status == "moved":
                try:
                    apply_pin(content_root, Path(record.file), pin, force=True)
                except FileChanged:
                    problems.append(
                        f"{record.file}: changed while drift ran, so it was not re-pinned "
                        "(run `errpages drift --update` again)"
                    )
                    continue
                updated.append(record.id)
    return DriftReport(target, rows, updated, problems)


def save_drift(content_root: Path, report: DriftReport) -> Path:
    """Record the statuses in content/drift.json, for the build's "code has moved" notes."""
    data = {
        "checked_at": report.target,
        "date": datetime.date.today().isoformat(),
        "records": {
            row.id: {
                "status": row.status,
                "pinned_commit": row.pinned_commit,
                "now": row.now,
                "detail": row.detail,
            }
            for row in report.rows
        },
    }
    target = content_root / DRIFT_FILE
    atomic_write_text(target, json.dumps(data, indent=2) + "\n")
    return target


def drift_table(report: DriftReport) -> str:
    """The rows as an aligned table."""
    header = ("STATUS", "ID", "PINNED", "NOW", "DETAIL")
    rows = [
        tuple(map(printable, (r.status, r.id, r.pinned, r.now or "-", r.detail)))
        for r in report.rows
    ]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(4)]
    lines = [
        "  ".join(cell.ljust(widths[i]) if i < 4 else cell for i, cell in enumerate(row)).rstrip()
        for row in [header, *rows]
    ]
    for row in report.rows:
        if row.status == "changed":
            was, now = printable(row.message), printable(row.new_message)
            lines.append(f"\n{row.id} changed:\n  was: {was}\n  now: {now}")
    return "\n".join(lines)
