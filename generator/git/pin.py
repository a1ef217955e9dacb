"""`errpages pin`: take a record's snippet straight from a commit of the project's repository."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from errpages.content.files import atomic_write_text, refuse_link
from errpages.content.loader import LoadedContent, load_content
from errpages.content.recordfile import update_source
from errpages.content.schema import FieldReader, normalise_snippet_name, parse_snippet_file
from errpages.content.yamldoc import YamlDocument
from errpages.git.code import PYTHON_SUFFIXES, Code
from errpages.git.pinning import Pin, PinError, cut_pin, scan_settings
from errpages.git.repo import GitError, ObjectReader, open_repository, resolve_commit
from errpages.site.model import TextFile


@dataclass(frozen=True)
class PinRequest:
    """What pinning needs from a record: who raises what, and where it last was."""

    file: Path
    repo: str
    exception: str
    message: str
    path: str
    line: int | None


@dataclass(frozen=True)
class PinResult:
    record_file: Path
    snippet_file: Path
    pin: Pin
    record_changed: bool


def find_document(loaded: LoadedContent, record: str) -> YamlDocument:
    """The record named by a path to its file, or by its id."""
    wanted = Path(record).resolve() if Path(record).suffix in (".yaml", ".yml") else None
    for document in loaded.records:
        if wanted is not None and Path(document.path).resolve() == wanted:
            return document
        data = document.data
        if wanted is None and isinstance(data, dict) and data.get("id") == record:
            return document
    raise PinError(f"no record {record!r} under {loaded.root / 'errors'}")


def pin_request(document: YamlDocument, snippets: Mapping[str, TextFile]) -> PinRequest:
    """Read the fields pinning needs, however broken the rest of the record is."""
    reader = FieldReader(document)
    repo = reader.string(("repo",), True, expected="owner/name")
    exception = reader.string(("exception",), True, expected="an exception name")
    message = reader.string(("message",), True, expected="the exact error message")
    path = reader.string(("source", "path"), False, expected="the source file's path")
    line = reader.integer(("source", "line"), False)
    snippet_name = reader.string(("source", "snippet_file"), False, expected="a snippet file")
    if path is None and snippet_name is not None and snippet_name in snippets:
        header, _, _, _ = parse_snippet_file(snippets[snippet_name])
        path = str(header["path"]) if header else None
    if reader.diagnostics or repo is None or exception is None or message is None:
        problems = "; ".join(d.format().splitlines()[0] for d in reader.diagnostics)
        raise PinError(f"cannot pin {document.path}: {problems or 'fields missing'}")
    if path is None:
        raise PinError(f"{document.path}: source.path is needed to know which file to read")
    return PinRequest(Path(document.path), repo, exception, message, path, line)


def write_snippet(content_root: Path, pin: Pin, force: bool) -> Path:
    """Write the pinned snippet file; an existing different file is kept unless forced."""
    target = content_root / "snippets" / pin.file_name()
    text = pin.file_text()
    if target.exists() and target.read_text(encoding="utf-8") != text and not force:
        raise PinError(f"{target} exists with other text; use --force to replace it")
    if not target.exists() or target.read_text(encoding="utf-8") != text:
        atomic_write_text(target, text)
    return target


# The first line of a record `errpages scan` made, which says where the raise was.
SCAFFOLDED_RE = re.compile(
    r"^(# Scaffolded by `errpages scan` from )\S+:\d+ at [0-9a-f]+\.$", re.MULTILINE
)
# A snippet file `pin`, `scan` or `drift` wrote: named after its path, lines and commit.
PINNED_NAME_RE = re.compile(r".+\.L\d+-\d+@[0-9a-f]{7,40}(\.[A-Za-z0-9]+)?")


def apply_pin(content_root: Path, record_file: Path, pin: Pin, force: bool) -> PinResult:
    """Write the snippet file and point the record at it, keeping the record's layout (and
    its scaffolding comment true)."""
    refuse_link(record_file)
    before = record_file.read_text(encoding="utf-8")
    snippet_path = write_snippet(content_root, pin, force)
    code_says = {
        "function": pin.function,
        "conditions": list(pin.conditions),
        "through": list(pin.through),
        "also_raised_at": [place._asdict() for place in pin.also_raised_at],
    }
    after = update_source(before, pin.file_name(), pin.path, pin.line, pin.commit, code_says)
    where = f"{pin.path}:{pin.line} at {pin.commit[:12]}."
    after = SCAFFOLDED_RE.sub(lambda found: found[1] + where, after, count=1)
    if after != before:  # unless the record was saved meanwhile: then FileChanged
        atomic_write_text(record_file, after, expected=before)
    return PinResult(record_file, snippet_path, pin, after != before)


def remove_unused_snippets(content_root: Path, repos: set[str]) -> list[str]:
    """Delete the snippet files of these repositories that no record uses any more and that
    errpages wrote (named and headed as a pin is, not a link); the names deleted."""
    folder = content_root / "snippets"
    if not repos or not folder.is_dir():
        return []
    loaded, _ = load_content(content_root)
    used = set()
    for document in loaded.records:
        source = document.data.get("source") if isinstance(document.data, dict) else None
        name = source.get("snippet_file") if isinstance(source, dict) else None
        if isinstance(name, str):
            used.add(normalise_snippet_name(name))
    heads = tuple(f"---\nrepo: {repo}\n" for repo in sorted(repos))
    removed = []
    for path in sorted(folder.rglob("*")):
        name = path.relative_to(folder).as_posix()
        if name in used or not PINNED_NAME_RE.fullmatch(path.name) or path.is_symlink():
            continue
        try:
            if not path.is_file() or not path.read_text(encoding="utf-8").startswith(heads):
                continue
            path.unlink()
        except (OSError, UnicodeDecodeError):
            continue
        removed.append(name)
    return removed


def pin_record(
    content_root: Path,
    record: str,
    repo_dir: Path,
    rev: str = "HEAD",
    context: int | None = None,
    force: bool = False,
) -> PinResult:
    """Pin one record to REV of the repository at repo_dir."""
    loaded, _ = load_content(content_root)
    request = pin_request(find_document(loaded, record), loaded.snippets)
    repository = open_repository(repo_dir)
    commit = resolve_commit(repository, rev)
    with ObjectReader(repository) as objects:
        code = Code(repository, objects, scan_settings(loaded))
        try:
            parsed = code.file(commit, request.path)
            lines = code.lines(commit, request.path)
        except GitError as exc:
            raise PinError(str(exc)) from exc
    if parsed.unparsed:
        raise PinError(f"{request.path} does not parse as Python: {parsed.unparsed}")
    python = request.path.endswith(PYTHON_SUFFIXES)
    pin = cut_pin(
        request.repo,
        commit,
        request.path,
        lines,
        parsed.sites if python else None,
        request.exception,
        request.message,
        request.line,
        context,
    )
    return apply_pin(content_root, request.file, pin, force)
