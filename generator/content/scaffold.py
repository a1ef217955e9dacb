"""Write new record files (`errpages new`)."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from pathlib import Path

from errpages.content.files import atomic_write_text
from errpages.site.messages import message_parts
from errpages.content.schema import derive_id
from errpages.site.model import RecordSummary


def slug(template: str, words: int = 8) -> str:
    """A file name from a message template: its first words, lowercase, joined by hyphens
    (a placeholder counts as its name: `got {size!r}` gives `got-size`)."""
    text = " ".join(
        part.name if part.is_placeholder else part.text for part in message_parts(template)
    )
    found = re.findall(r"[a-z0-9]+", text.lower())
    return "-".join(found[:words]) or "error"


def quoted(text: str) -> str:
    """A YAML double-quoted scalar (JSON strings are valid YAML)."""
    return json.dumps(text, ensure_ascii=False)


def schema_reference(record_path: Path, content_root: Path, base_url: str) -> str:
    """Where editors find the record schema: the repository's copy, else the published one."""
    local = content_root.resolve().parent / "schema" / "record.schema.json"
    if local.is_file():
        return os.path.relpath(local, record_path.resolve().parent)
    return f"{base_url}api/schema.json" if base_url else ""


def record_text(repo: str, exception: str, message: str, record_id: str, schema: str = "") -> str:
    """The text of a new record: identity filled in, the rest ready to write."""
    editor_line = f"# yaml-language-server: $schema={schema}\n" if schema else ""
    return (
        editor_line
        + f"""\
# Error record: see the record format in the README.
id: "{record_id}"  # permanent: the page's URL. Keep it when the message changes.
repo: {quoted(repo)}
kind: error
exception: {quoted(exception)}
message: {quoted(message)}
meaning: |
  TO BE WRITTEN: in a few sentences, what the check rejects and why.
source:
  path: path/to/file.py  # the raising file inside the repository
  line: 1  # the line that raises
  commit: "0000000"  # the commit the snippet is taken from (7 to 40 hex digits)
  start_line: 1  # the file's own number of the snippet's first line
  snippet: |2  # the code as it is in the file, indented 4 more spaces here
    raise {exception}("...")
solutions:
  - "TO BE WRITTEN: the first thing to try."
when:
  trigger: "TO BE WRITTEN: what the user did that made it happen."
  situations:
    - "TO BE WRITTEN: a common situation in which it happens."
related: []
tags: []
"""
    )


def new_record_path(content_root: Path, repo: str, message: str, record_id: str) -> Path:
    """`errors/OWNER/NAME/<slug>.yaml`, or, when another file has that name,
    `<slug>-<id>.yaml` (the id's first 6 digits, else all 16): never another error's file."""
    folder = content_root / "errors" / repo
    name = slug(message)
    for candidate in (name, f"{name}-{record_id[:6]}", f"{name}-{record_id}"):
        if not (folder / f"{candidate}.yaml").exists():
            break
    return folder / f"{candidate}.yaml"


def write_new_record(path: Path, text: str, force: bool) -> None:
    """Write atomically; never replace an existing file unless forced."""
    if path.exists() and not force:
        raise FileExistsError(str(path))
    atomic_write_text(path, text)


def fresh_id(repo: str, exception: str, message: str, taken: set[str]) -> str:
    """Derive the id from the record's identity; fall back to a salted one if it is taken."""
    record_id = derive_id(repo, exception, message)
    salt = 0
    while record_id in taken:
        salt += 1
        record_id = derive_id(repo, exception, f"{message}\n{salt}")
    return record_id


def place_new_record(
    content_root: Path,
    records: Sequence[RecordSummary],
    repo: str,
    exception: str,
    message: str,
) -> tuple[Path, str, bool]:
    """Where the record of this error goes and its id, and whether it has one already (then
    it is written anew where it is, under the id it was published with)."""
    for record in records:
        if (record.repo, record.exception, record.message) == (repo, exception, message):
            return Path(record.file), record.id, True
    record_id = fresh_id(repo, exception, message, {record.id for record in records})
    return new_record_path(content_root, repo, message, record_id), record_id, False
