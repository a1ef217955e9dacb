"""`errpages scan`: find every raise with a message in a commit and scaffold draft records."""

from __future__ import annotations

import builtins
import json
import keyword
import platform
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from errpages.content.files import atomic_write_text
from errpages.content.listing import RECORD_SUFFIXES
from errpages.content.loader import load_content
from errpages.content.scaffold import slug
from errpages.content.schema import TO_WRITE, derive_id, is_repo_path
from errpages.content.yamldoc import YamlDocument
from errpages.diagnostics import plural, printable
from errpages.git.code import LEFT_OUT, PYTHON_SUFFIXES, Code, left_out_kind, read_problem
from errpages.git.pinning import (
    Pin,
    PinError,
    scan_settings,
    site_pin,
    snippet_span,
    source_lines,
)
from errpages.git.pyraises.library import resolved
from errpages.git.pyraises.model import ModuleScan, RaiseSite
from errpages.git.repo import (
    GitError,
    ObjectReader,
    list_files,
    open_repository,
    path_exists,
    resolve_commit,
)
from errpages.site.conditions import code_span, markdown, raised_when
from errpages.site.messages import canonical


@dataclass
class ScanSummary:
    """What a scan found and did; printed as text or JSON."""

    repo: str
    commit: str
    files_scanned: int = 0
    raise_sites: int = 0
    warning_sites: int = 0  # of the raise sites, those that issue a warning
    created: list[dict[str, Any]] = field(default_factory=list)
    already_covered: int = 0  # raises of a message a record written before covers
    repeated: int = 0  # raises of an error a draft of this scan is pinned to another raise of
    skipped: list[dict[str, Any]] = field(default_factory=list)
    left_out: dict[str, int] = field(default_factory=dict)  # files not scanned, by kind

    def as_json(self) -> str:
        return json.dumps(
            {
                "repo": self.repo,
                "commit": self.commit,
                "files_scanned": self.files_scanned,
                "raise_sites": self.raise_sites,
                "warning_sites": self.warning_sites,
                "records_created": len(self.created),
                "already_covered": self.already_covered,
                "repeated": self.repeated,
                "skipped": len(self.skipped),
                "left_out": self.left_out,
                "created": self.created,
                "skipped_sites": self.skipped,
            },
            indent=2,
        )

    def as_text(self) -> str:
        lines = [
            f"Scanned {self.repo} at {self.commit[:12]}: "
            f"{plural(self.files_scanned, 'Python file')}, "
            f"{plural(self.raise_sites, 'raise site')} with a message"
            + (f" ({self.warning_sites} of them warnings)." if self.warning_sites else "."),
            f"  records created:  {len(self.created)}",
            f"  already covered:  {self.already_covered} (a record written before has the message)",
            f"  raised again:     {self.repeated} (elsewhere: listed in the draft of the error)",
            f"  skipped:          {len(self.skipped)}",
        ]
        reasons: dict[str, int] = {}
        for item in self.skipped:
            reasons[item["reason"]] = reasons.get(item["reason"], 0) + 1
        lines += [f"    {count:5}  {reason}" for reason, count in sorted(reasons.items())]
        for kind, count in sorted(self.left_out.items()):
            lines.append(
                f"  left out:         {plural(count, LEFT_OUT[kind])}"
                + (" (--include-tests scans them)" if kind == "tests" else "")
            )
        unparsed = [item for item in self.skipped if item["reason"] == UNPARSED]
        if unparsed:
            lines.append(
                f"note: {plural(len(unparsed), 'file')} did not parse as Python"
                f" {platform.python_version()}, the Python errpages runs on, so their raises"
                " were not looked for:"
            )
            lines += [f"  {item['path']}: {printable(item['problem'])}" for item in unparsed]
        return "\n".join(lines)


def identity_key(repo: str, exception: str, message: str) -> tuple[str, str, str]:
    """What makes two raise sites the same error: repo, exception, message template."""
    return repo, exception.rsplit(".", 1)[-1], canonical(message)


def covered_records(documents: tuple[YamlDocument, ...]) -> dict[tuple[str, str, str], str]:
    """The identity of every record already written (drafts included), with its id."""
    found = {}
    for document in documents:
        data = document.data
        if isinstance(data, dict):
            repo, exception, message = data.get("repo"), data.get("exception"), data.get("message")
            if isinstance(repo, str) and isinstance(exception, str) and isinstance(message, str):
                record_id = data.get("id") or derive_id(repo, exception, message)
                found[identity_key(repo, exception, message)] = str(record_id)
    return found


def taken_ids(records: tuple[YamlDocument, ...]) -> set[str]:
    return {str(d.data["id"]) for d in records if isinstance(d.data, dict) and "id" in d.data}


def quoted(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


MEANING = {  # what a draft's meaning is to say, by kind
    "error": "what this error means and why the check exists.",
    "warning": "what this warning means and why the code issues it.",
}
HANDED_ON = {  # what the trigger adds for an exception made, not raised, where it is pinned
    "warn": " The warnings filters decide whether it is shown, hidden or raised.",
    "deprecated": " Its `@deprecated` decorator issues it each time the function is called;"
    " the warnings filters decide whether it is shown, hidden or raised.",
    "deprecated class": " Its `@deprecated` decorator issues it each time the class is"
    " instantiated or subclassed; the warnings filters decide whether it is shown, hidden or"
    " raised.",
    "yield": " It is yielded there, for the code that iterates over it to raise or report.",
    "set_exception": " It is set on a future there, and raised where that future is awaited.",
}


def skeleton(
    pin: Pin, site: RaiseSite, record_id: str, related: list[str], places: list[Found]
) -> str:
    """A draft record for one raise site: what the code says filled in (identity, pin, the
    function, the conditions as the trigger, the raises that share them as related), what
    only its author knows (meaning, solutions) to be written."""
    kind = site.kind
    source = [
        f"  snippet_file: {quoted(pin.file_name())}",
        f"  path: {quoted(pin.path)}",
        f"  line: {pin.line}",
        f'  commit: "{pin.commit}"',
    ]
    if site.raised_in:
        source.append(f"  function: {quoted(site.raised_in)}")
    if site.conditions:
        source += ["  conditions:", *(f"    - {quoted(c)}" for c in site.conditions)]
    if site.through:
        source += ["  through:", *(f"    - {quoted(name)}" for name in site.through)]
    if places:
        source.append("  also_raised_at:")
        for place in places:
            source += [f"    - path: {quoted(place.path)}", f"      line: {place.site.line}"]
    if site.table_entry:
        entry = code_span(site.table_entry)
        trigger = f"Its message is {entry}: raised where the class reports that key."
    else:
        trigger = markdown(raised_when(site.raised_in, site.conditions, site.kind))
        if site.made_by:
            trigger += f" Its message comes from {code_span(site.made_by)}."
        if site.helper:
            verb = "issues" if site.kind == "warning" else "raises"
            trigger += f" It goes through {code_span(site.helper)}, which {verb} it."
        trigger += HANDED_ON.get(site.handed, "")
    related_lines = ["related:", *(f'  - "{other}"' for other in related)] if related else []
    return (
        "\n".join(
            [
                f"# Scaffolded by `errpages scan` from {pin.path}:{pin.line} at {pin.commit[:12]}.",
                f"# Write the fields marked {TO_WRITE}, check the trigger (read from the code",
                "# around the raise) and the related errors (raises under the same conditions),",
                "# then remove `draft: true` to publish it.",
                f'id: "{record_id}"',
                f"repo: {pin.repo}",
                *([f"kind: {kind}"] if kind != "error" else []),
                f"exception: {quoted(site.exception)}",
                f"message: {quoted(site.template)}",
                "draft: true",
                f'meaning: "{TO_WRITE}: {MEANING[kind]}"',
                "source:",
                *source,
                "solutions:",
                f'  - "{TO_WRITE}: the first thing to try."',
                "when:",
                f"  trigger: {quoted(trigger)}",
                *related_lines,
            ]
        )
        + "\n"
    )


@dataclass(frozen=True)
class Found:
    """A raise site of the scan, and the record that covers its message (its id, when any)."""

    path: str
    site: RaiseSite
    key: tuple[str, str, str]


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
    folder or file `under`; tests, examples, docs and benchmarks left out, test files scanned
    with include_tests)."""
    repository = open_repository(repo_dir)
    commit = resolve_commit(repository, rev)
    summary = ScanSummary(repo, commit)
    if under and not path_exists(repository, commit, under):
        raise GitError(f"--path {under!r} names nothing at commit {commit[:12]}")
    loaded, _ = load_content(content_root)
    documents = tuple(loaded.records)
    covered = covered_records(documents)
    ids = taken_ids(documents)
    out_dir = out_dir or content_root / "errors" / repo
    found: list[Found] = []
    files: dict[str, list[str]] = {}
    with ObjectReader(repository) as objects:
        code = Code(repository, objects, scan_settings(loaded))
        paths = []
        for path in list_files(repository, commit, under):
            kind = left_out_kind(path.removeprefix(under.rstrip("/") + "/") if under else path)
            if not path.endswith(PYTHON_SUFFIXES):
                continue
            if kind is not None and not (kind == "tests" and include_tests):
                summary.left_out[kind] = summary.left_out.get(kind, 0) + 1
            elif not is_repo_path(path):  # a tree may hold `..` entries: nothing is read for them
                summary.skipped.append({"path": path, "line": None, "reason": UNSAFE_PATH})
            elif code.exists(commit, path):  # not a link or a submodule
                paths.append(path)
        modules: dict[str, ModuleScan] = {}
        for done, path in enumerate(paths, start=1):
            if progress:
                progress(done, len(paths))
            try:
                module, unparsed = code.module(commit, path)
            except (PinError, GitError) as exc:
                summary.skipped.append(
                    {"path": path, "line": None, "reason": read_problem(exc, path)}
                )
                continue
            if module is None:
                summary.skipped.append(
                    {"path": path, "line": None, "reason": UNPARSED, "problem": unparsed}
                )
                continue
            modules[path] = module
            files[path] = source_lines(code.text(commit, path) or "")
        # The classes and helpers, of the commit's files, that the modules scanned use.
        needs = frozenset().union(*(module.needs() for module in modules.values()))
        library = code.library(commit, needs)
        for path, module in modules.items():
            summary.files_scanned += 1
            sites, skipped = resolved(module, library)
            summary.skipped += [{"path": path, "line": s.line, "reason": s.reason} for s in skipped]
            found += [Found(path, s, identity_key(repo, s.exception, s.template)) for s in sites]
    summary.raise_sites = len(found)
    summary.warning_sites = sum(item.site.kind == "warning" for item in found)
    drafts: list[Found] = []
    drafted: dict[tuple[str, str, str], str] = {}
    places: dict[tuple[str, str, str], list[Found]] = {}  # the other raises of a draft's error
    for item in found:
        path, site = item.path, item.site
        if item.key in covered:
            summary.already_covered += 1
        elif item.key in drafted:
            summary.repeated += 1
            places.setdefault(item.key, []).append(item)
        else:
            record_id = derive_id(repo, site.exception, site.template)
            reason = "id already taken" if record_id in ids else ""
            if not reason and draft_path(out_dir, path, site, record_id).exists():
                reason = "record file exists"
            if reason:
                summary.skipped.append({"path": path, "line": site.line, "reason": reason})
                continue
            drafted[item.key] = record_id
            ids.add(record_id)
            drafts.append(item)
    record_of = {**covered, **drafted}
    by_path: dict[str, list[Found]] = {}
    for item in found:
        by_path.setdefault(item.path, []).append(item)
    for item in drafts:
        path, site = item.path, item.site
        lines = files[path]
        pin = site_pin(repo, path, commit, lines, site, snippet_span(lines, site, None))
        record_id = drafted[item.key]
        snippet_file = content_root / "snippets" / pin.file_name()
        if not snippet_file.exists():
            atomic_write_text(snippet_file, pin.file_text())
        related = related_ids(item, by_path[item.path], record_of)
        target = draft_path(out_dir, path, site, record_id)
        elsewhere = {(p.path, p.site.line): p for p in places.get(item.key, [])}
        elsewhere.pop((path, site.line), None)  # its own statement, raising another form
        text = skeleton(pin, site, record_id, related, list(elsewhere.values()))
        atomic_write_text(target, text)
        summary.created.append(
            {"id": record_id, "file": str(target), "path": path, "line": site.line}
        )
    return summary


def draft_path(out_dir: Path, path: str, site: RaiseSite, record_id: str) -> Path:
    """A draft's file: in a folder named after its module (`pkg.sub.mod`), or after the
    module's file where the module's name would read as a record's (`mkdocs.utils.yaml.py`)."""
    folder = posixpath.splitext(path)[0].replace("/", ".")
    if folder.endswith(RECORD_SUFFIXES):
        folder = path.replace("/", ".")
    return out_dir / folder / f"{slug(site.template, 6)}-{record_id[:6]}.yaml"


MAX_RELATED = 5


def related_ids(
    item: Found, in_file: list[Found], record_of: dict[tuple[str, str, str], str]
) -> list[str]:
    """The records of the raises in the same file (`in_file`) that share a condition with
    this one (best first), or a name it tests: at most five."""
    own = record_of[item.key]
    conditions = set(item.site.conditions)
    names = tested_names(item.site.conditions)
    scored: dict[str, tuple[int, int]] = {}
    for other in in_file:
        other_id = record_of.get(other.key)
        if other_id is None or other_id == own:
            continue
        shared = len(conditions.intersection(other.site.conditions))
        score = 3 * shared + len(names & tested_names(other.site.conditions))
        if score:
            rank = (-score, abs(other.site.line - item.site.line))
            scored[other_id] = min(scored.get(other_id, rank), rank)
    return sorted(scored, key=lambda other_id: (scored[other_id], other_id))[:MAX_RELATED]


STRING_RE = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")
NAME_RE = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
NOT_NAMES = frozenset([*keyword.kwlist, *keyword.softkwlist, *dir(builtins), "self", "cls"])


def tested_names(conditions: tuple[str, ...]) -> set[str]:
    """The names conditions test (`cfg.mode`, `value`), without Python's own (`len`, `None`)."""
    names = set()
    for condition in conditions:
        names.update(NAME_RE.findall(STRING_RE.sub(" ", condition)))
    return names - NOT_NAMES


UNSAFE_PATH = "not a plain path (a '..' or '.' part, a backslash or a control character)"


UNPARSED = "does not parse as Python"
