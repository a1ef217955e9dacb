"""The files `errpages init` starts a site with: settings, one example record and its snippet."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from errpages.content.files import atomic_write_text
from errpages.content.listing import display_path
from errpages.content.record_schema import record_schema
from errpages.content.schema import derive_id
from errpages.git.pinning import Pin

SCHEMA_FILE = Path("schema") / "record.schema.json"
GITIGNORE_LINES = ("/site/", "/.site.*", "/.errpages-cache/")
IGNORE_COMMENT = "# errpages: the built site, its spare and lock, and the build cache"

EXAMPLE_REPO = "example-org/example-project"
EXAMPLE_EXCEPTION = "ValueError"
EXAMPLE_MESSAGE = "Unknown storage backend {name!r}; expected one of: {choices}."
EXAMPLE_PIN = Pin(
    repo=EXAMPLE_REPO,
    path="src/example_project/storage.py",
    commit="1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b",
    line=18,
    start_line=12,
    text='''\
def open_storage(name: str, **options: object) -> Storage:
    """Open the storage backend called `name`."""
    try:
        backend = BACKENDS[name]
    except KeyError:
        choices = ", ".join(sorted(BACKENDS))
        raise ValueError(
            f"Unknown storage backend {name!r}; expected one of: {choices}."
        ) from None
    return backend(**options)''',
)

SITE_YAML = """\
# Site settings for errpages. Every key is optional; the README's "Site settings"
# describes them all.
title: {title}
description: What each error of example-project means, and how to fix it.

# The public address of the site's root. Set it before publishing: pages then get a
# canonical link, and the build writes sitemap.xml, robots.txt and feed.xml.
# base_url: https://example.org/errors/

# Where "View on …" links go: github (the default), gitlab, bitbucket, codeberg, or a
# URL template with {{repo}}, {{commit}}, {{path}} and {{line}}.
# source_url: github

# A built-in theme name, or a folder beside content/ (`errpages theme eject` starts one).
# theme: default

# For `errpages scan`, `pin` and `drift`: exception classes whose message is not their
# first argument, and the argument that holds it (a position from 0, or a keyword). For
# PydanticCustomError('predicate_failed', 'Predicate {{predicate_name}} failed', …):
# message_arguments:
#   PydanticCustomError: 1
"""

RECORD_YAML = """\
# yaml-language-server: $schema={schema}
# An example record, to show the format: replace it with your project's own errors.
# `errpages new` writes a new record; `errpages scan REPO_DIR --repo OWNER/NAME` writes a
# draft for every raise in a repository, with its snippet pinned to a commit.
id: "{id}"  # permanent: the page's URL. Keep it when the message is reworded.
repo: {repo}
exception: {exception}
message: {message}
title: Unknown storage backend
meaning: |
  `open_storage()` looks the backend up by its name, and no installed backend has
  that name. The message lists the names it knows.
source:
  snippet_file: {snippet}
  line: {line}  # the line that raises, as numbered in the file
solutions:
  - Use one of the names the message lists; they are case-sensitive.
  - Install the package that provides the backend, then try again.
when:
  trigger: Calling `open_storage()` with a name that no installed backend has.
  situations:
    - A typo in the `storage:` setting of a configuration file.
tags: [configuration]
"""


@dataclass(frozen=True)
class Started:
    """What `init` wrote, and what it left alone."""

    written: list[Path]
    kept: list[Path]


class NotStarted(Exception):
    """What stops `init` before it writes anything."""


def init_site(folder: Path) -> Started:
    """Write a new site's content/ into folder; NotStarted, before anything is written, when a
    file it would write is not free to write (see `free_to_start`)."""
    content = folder / "content"
    schema = folder / SCHEMA_FILE
    ignore = folder / ".gitignore"
    before = free_to_start(content, schema, ignore)
    record = content / "errors" / EXAMPLE_REPO / "unknown-storage-backend.yaml"
    snippet = content / "snippets" / EXAMPLE_PIN.file_name()
    record_id = derive_id(EXAMPLE_REPO, EXAMPLE_EXCEPTION, EXAMPLE_MESSAGE)
    # A folder named in bytes that are not UTF-8 still gives a title the loader reads.
    name = os.fsencode(folder.resolve().name).decode("utf-8", "replace")
    title = json.dumps(f"{name or 'Project'} error reference")
    written = [content / "site.yaml", record, snippet]
    atomic_write_text(written[0], SITE_YAML.format(title=title))
    atomic_write_text(
        record,
        RECORD_YAML.format(
            schema=Path("../" * 4, SCHEMA_FILE).as_posix(),
            id=record_id,
            repo=EXAMPLE_REPO,
            exception=EXAMPLE_EXCEPTION,
            message=json.dumps(EXAMPLE_MESSAGE),
            snippet=EXAMPLE_PIN.file_name(),
            line=EXAMPLE_PIN.line,
        ),
    )
    atomic_write_text(snippet, EXAMPLE_PIN.file_text())
    kept = []
    if schema.exists():
        kept.append(schema)
    else:
        atomic_write_text(schema, json.dumps(record_schema(), indent=2, ensure_ascii=False) + "\n")
        written.append(schema)
    missing = [line for line in GITIGNORE_LINES if line not in before.splitlines()]
    if missing:
        if before and not before.endswith("\n"):
            before += "\n"
        added = "\n".join(missing)
        atomic_write_text(ignore, f"{before}{IGNORE_COMMENT}\n{added}\n")
        written.append(ignore)
    else:
        kept.append(ignore)
    return Started(written, kept)


def free_to_start(content: Path, schema: Path, ignore: Path) -> str:
    """The .gitignore's text (empty when there is none), once every file init writes is free
    to write: content/ new or empty, no link on the way to any of them, the schema and the
    .gitignore files where they are, the .gitignore UTF-8. NotStarted says what is not."""
    for path in (content, schema.parent, schema, ignore):
        if path.is_symlink():
            shown = display_path(path)
            raise NotStarted(f"{shown} is a symbolic link; errpages init writes through no link")
    if content.exists() and (not content.is_dir() or any(content.iterdir())):
        raise NotStarted(f"{display_path(content)} already holds files")
    for path, kind in ((schema.parent, "folder"), (schema, "file"), (ignore, "file")):
        if path.exists() and not (path.is_dir() if kind == "folder" else path.is_file()):
            raise NotStarted(f"{display_path(path)} is there and is not a {kind}")
    try:
        return ignore.read_text(encoding="utf-8") if ignore.exists() else ""
    except UnicodeDecodeError:
        raise NotStarted(f"{display_path(ignore)} is not UTF-8 text") from None
    except OSError as exc:
        raise NotStarted(f"cannot read {display_path(ignore)}: {exc.strerror}") from None
