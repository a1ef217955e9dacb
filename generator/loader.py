"""Load stage: read content/ into memory (site.yaml, record YAML, snippet files).

Only this module touches the content folder. It reads every file below
`errors/` and `snippets/` up front, so later stages look snippet files up by
name in memory and no path written in a record ever reaches the file system.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from generator.diagnostics import Diagnostic, Position, error, warning
from generator.model import DriftNote, TextFile
from generator.published import MANIFEST, Manifest, read_manifest
from generator.yamldoc import YamlDocument, parse_yaml

MAX_RECORD_BYTES = 2 * 1024 * 1024
MAX_SNIPPET_BYTES = 2 * 1024 * 1024
RECORD_SUFFIXES = (".yaml", ".yml")
DRIFT_FILE = "drift.json"


@dataclass(frozen=True)
class LoadedContent:
    """Everything read from content/, parsed as far as YAML goes."""

    root: Path
    config: YamlDocument | None
    records: tuple[YamlDocument, ...]
    snippets: dict[str, TextFile]
    texts: dict[str, list[str]]  # display path -> lines, for showing offending lines
    drift: dict[str, DriftNote] = field(default_factory=dict)
    manifest: Manifest | None = None


def display_path(path: Path) -> str:
    """Name a file as the user would type it: relative to the working folder when inside it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def read_text(path: Path, limit: int) -> tuple[str | None, list[Diagnostic]]:
    """Read a UTF-8 file (BOM allowed, CRLF normalised), refusing oversized or undecodable ones."""
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
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        return None, [
            error(Position(shown, line, col), "", "file is not valid UTF-8", "save it as UTF-8")
        ]
    return text.replace("\r\n", "\n").replace("\r", "\n"), []


def walk_files(folder: Path, content_root: Path) -> tuple[list[Path], list[Diagnostic]]:
    """List regular files below folder in a stable order, refusing links that leave content/."""
    files: list[Path] = []
    diagnostics: list[Diagnostic] = []
    if not folder.is_dir():
        return files, diagnostics
    root = content_root.resolve()
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames.sort()
        for name in [*sorted(filenames), *dirnames]:
            path = Path(dirpath) / name
            if path.is_symlink():
                target = path.resolve()
                if not target.is_relative_to(root):
                    diagnostics.append(
                        error(
                            Position(display_path(path)),
                            "",
                            "symbolic link points outside the content folder; refusing to read it",
                        )
                    )
                    continue
            if name in filenames and path.is_file():
                files.append(path)
    return sorted(files), diagnostics


def load_content(content_root: Path) -> tuple[LoadedContent, list[Diagnostic]]:
    """Read site.yaml, every record under errors/ and every file under snippets/."""
    diagnostics: list[Diagnostic] = []
    texts: dict[str, list[str]] = {}

    config_doc = None
    config_path = content_root / "site.yaml"
    if config_path.is_file():
        text, problems = read_text(config_path, MAX_RECORD_BYTES)
        diagnostics += problems
        if text is not None:
            texts[display_path(config_path)] = text.split("\n")
            config_doc, problems = parse_yaml(text, display_path(config_path))
            diagnostics += problems

    records: list[YamlDocument] = []
    errors_dir = content_root / "errors"
    record_files, problems = walk_files(errors_dir, content_root)
    diagnostics += problems
    for path in record_files:
        if not path.name.endswith(RECORD_SUFFIXES):
            continue
        shown = display_path(path)
        text, problems = read_text(path, MAX_RECORD_BYTES)
        diagnostics += problems
        if text is None:
            continue
        texts[shown] = text.split("\n")
        document, problems = parse_yaml(text, shown)
        diagnostics += problems
        if document is not None:
            records.append(document)
    for path in sorted(errors_dir.rglob("*")) if errors_dir.is_dir() else []:
        if path.is_dir() and path.name.endswith(RECORD_SUFFIXES):
            diagnostics.append(
                error(Position(display_path(path)), "", "a folder is named like a record file")
            )

    snippets: dict[str, TextFile] = {}
    snippets_dir = content_root / "snippets"
    snippet_files, problems = walk_files(snippets_dir, content_root)
    diagnostics += problems
    for path in snippet_files:
        text, problems = read_text(path, MAX_SNIPPET_BYTES)
        diagnostics += problems
        if text is None:
            continue
        name = path.relative_to(snippets_dir).as_posix()
        shown = display_path(path)
        texts[shown] = text.split("\n")
        snippets[name] = TextFile(shown, name, text)

    drift, problems = load_drift(content_root / DRIFT_FILE)
    diagnostics += problems
    manifest_path = content_root / MANIFEST
    manifest, problems = read_manifest(manifest_path, display_path(manifest_path))
    diagnostics += problems
    loaded = LoadedContent(
        content_root, config_doc, tuple(records), snippets, texts, drift, manifest
    )
    return loaded, diagnostics


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
