"""`errpages scan`: find every raise with a message in a commit and scaffold draft records."""

from __future__ import annotations

import json
import posixpath
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from generator.content.files import atomic_write_text
from generator.content.loader import load_content
from generator.content.scaffold import slug
from generator.content.schema import TO_WRITE, derive_id, is_repo_path
from generator.content.yamldoc import YamlDocument
from generator.diagnostics import plural
from generator.git.pinning import (
    Pin,
    PinError,
    decode_source,
    message_arguments,
    snippet_span,
    source_lines,
)
from generator.git.pyraises import RaiseSite, canonical, scan_source
from generator.git.repo import (
    GitError,
    ObjectReader,
    list_files,
    open_repository,
    path_exists,
    resolve_commit,
)

PYTHON_SUFFIXES = (".py", ".pyi")


@dataclass
class ScanSummary:
    """What a scan found and did; printed as text or JSON."""

    repo: str
    commit: str
    files_scanned: int = 0
    raise_sites: int = 0
    created: list[dict[str, str]] = field(default_factory=list)
    already_covered: int = 0
    skipped: list[dict[str, str]] = field(default_factory=list)
    tests_left_out: int = 0  # test files not scanned (without --include-tests)

    def as_json(self) -> str:
        return json.dumps(
            {
                "repo": self.repo,
                "commit": self.commit,
                "files_scanned": self.files_scanned,
                "raise_sites": self.raise_sites,
                "records_created": len(self.created),
                "already_covered": self.already_covered,
                "skipped": len(self.skipped),
                "tests_left_out": self.tests_left_out,
                "created": self.created,
                "skipped_sites": self.skipped,
            },
            indent=2,
        )

    def as_text(self) -> str:
        lines = [
            f"Scanned {self.repo} at {self.commit[:12]}: "
            f"{plural(self.files_scanned, 'Python file')}, "
            f"{plural(self.raise_sites, 'raise site')} with a message.",
            f"  records created:  {len(self.created)}",
            f"  already covered:  {self.already_covered}",
            f"  skipped:          {len(self.skipped)}",
        ]
        reasons: dict[str, int] = {}
        for item in self.skipped:
            reasons[item["reason"]] = reasons.get(item["reason"], 0) + 1
        lines += [f"    {count:5}  {reason}" for reason, count in sorted(reasons.items())]
        if self.tests_left_out:
            lines.append(
                f"  left out:         {plural(self.tests_left_out, 'test file')} "
                "(--include-tests scans them)"
            )
        return "\n".join(lines)


def identity_key(repo: str, exception: str, message: str) -> tuple[str, str, str]:
    """What makes two raise sites the same error: repo, exception, message template."""
    return repo, exception.rsplit(".", 1)[-1], canonical(message)


def covered_keys(documents: tuple[YamlDocument, ...]) -> set[tuple[str, str, str]]:
    """The identities of every record already written (drafts included)."""
    keys = set()
    for document in documents:
        data = document.data
        if isinstance(data, dict):
            repo, exception, message = data.get("repo"), data.get("exception"), data.get("message")
            if isinstance(repo, str) and isinstance(exception, str) and isinstance(message, str):
                keys.add(identity_key(repo, exception, message))
    return keys


def taken_ids(records: tuple[YamlDocument, ...]) -> set[str]:
    return {str(d.data["id"]) for d in records if isinstance(d.data, dict) and "id" in d.data}


def quoted(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def skeleton(pin: Pin, site: RaiseSite, record_id: str, snippet_file: str) -> str:
    """A draft record for one raise site: identity and pin filled in, prose to be written."""
    return f"""\
# Scaffolded by `errpages scan` from {pin.path}:{pin.line} at {pin.commit[:12]}.
# Write the fields marked {TO_WRITE}, then remove `draft: true` to publish it.
id: "{record_id}"
repo: {pin.repo}
exception: {quoted(site.exception)}
message: {quoted(site.template)}
draft: true
meaning: "{TO_WRITE}: what this error means and why the check exists."
source:
  snippet_file: {quoted(snippet_file)}
  path: {quoted(pin.path)}
  line: {pin.line}
  commit: "{pin.commit}"
solutions:
  - "{TO_WRITE}: the first thing to try."
when:
  trigger: "{TO_WRITE}: what the user did that made it happen."
"""


def site_pin(repo: str, path: str, commit: str, lines: list[str], site: RaiseSite) -> Pin:
    start, end = snippet_span(lines, site, None)
    return Pin(repo, path, commit, site.line, start, "\n".join(lines[start - 1 : end]))


def record_path(out_dir: Path, pin: Pin, site: RaiseSite, record_id: str) -> Path:
    folder = posixpath.splitext(pin.path)[0].replace("/", ".")
    return out_dir / folder / f"{slug(site.template, 6)}-{record_id[:6]}.yaml"


def scan_repository(
    content_root: Path,
    repo_dir: Path,
    repo: str,
    rev: str = "HEAD",
    under: str = "",
    out_dir: Path | None = None,
    progress: Callable[[int, int], None] | None = None,
    include_tests: bool = False,
) -> ScanSummary:
    """Scaffold a draft record for every raise site in REV that no record covers yet (in the
    folder or file `under`, test files only with include_tests)."""
    repository = open_repository(repo_dir)
    commit = resolve_commit(repository, rev)
    summary = ScanSummary(repo, commit)
    if under and not path_exists(repository, commit, under):
        raise GitError(f"--path {under!r} names nothing at commit {commit[:12]}")
    loaded, _ = load_content(content_root)
    arguments = message_arguments(loaded)
    documents = tuple(loaded.records)
    covered = covered_keys(documents)
    ids = taken_ids(documents)
    out_dir = out_dir or content_root / "errors" / repo
    paths = [p for p in list_files(repository, commit, under) if p.endswith(PYTHON_SUFFIXES)]
    if not include_tests:
        tests = [path for path in paths if is_test_path(path)]
        summary.tests_left_out = len(tests)
        paths = [path for path in paths if not is_test_path(path)]
    # A tree may hold `..` entries (git lists them): nothing is read or written for them.
    summary.skipped += [
        {"path": path, "line": "", "reason": UNSAFE_PATH}
        for path in paths
        if not is_repo_path(path)
    ]
    paths = [path for path in paths if is_repo_path(path)]
    with ObjectReader(repository) as objects:
        for done, path in enumerate(paths, start=1):
            if progress:
                progress(done, len(paths))
            try:
                source = decode_source(objects.blob(commit, path)[1], path)
                sites, skipped = scan_source(source, arguments)
            except (PinError, SyntaxError, GitError) as exc:
                summary.skipped.append({"path": path, "line": "", "reason": skip_reason(exc, path)})
                continue
            summary.files_scanned += 1
            summary.skipped += [
                {"path": path, "line": str(s.line), "reason": s.reason} for s in skipped
            ]
            lines = source_lines(source)
            for site in sites:
                summary.raise_sites += 1
                key = identity_key(repo, site.exception, site.template)
                if key in covered:
                    summary.already_covered += 1
                    continue
                record_id = derive_id(repo, site.exception, site.template)
                if record_id in ids:
                    summary.skipped.append(
                        {"path": path, "line": str(site.line), "reason": "id already taken"}
                    )
                    continue
                pin = site_pin(repo, path, commit, lines, site)
                target = record_path(out_dir, pin, site, record_id)
                if target.exists():
                    summary.skipped.append(
                        {"path": path, "line": str(site.line), "reason": "record file exists"}
                    )
                    continue
                snippet_file = content_root / "snippets" / pin.file_name()
                if not snippet_file.exists():
                    atomic_write_text(snippet_file, pin.file_text())
                atomic_write_text(target, skeleton(pin, site, record_id, pin.file_name()))
                covered.add(key)
                ids.add(record_id)
                summary.created.append(
                    {"id": record_id, "file": str(target), "site": f"{path}:{site.line}"}
                )
    return summary


def is_test_path(path: str) -> bool:
    """A project's tests: in a `tests` folder, or named test_*.py, *_test.py or conftest.py."""
    *folders, name = path.split("/")
    stem = name.rsplit(".", 1)[0]
    return (
        "tests" in folders
        or stem.startswith("test_")
        or stem.endswith("_test")
        or stem == "conftest"
    )


UNSAFE_PATH = "not a plain path (a '..' or '.' part, a backslash or a control character)"


def skip_reason(exc: Exception, path: str) -> str:
    if isinstance(exc, SyntaxError):
        return "does not parse as Python"
    return str(exc).replace(path, "file", 1)
