"""The record format as a JSON Schema, for editors that validate and complete YAML.

`schema/record.schema.json` in the repository is this, written by
`errpages schema --write`; a test keeps the two equal. The checks in
schema.py are the authority; this describes the same rules for editors.
"""

from __future__ import annotations

import re
from typing import Any

from errpages.content.schema import COMMIT_RE, DATE_RE, ID_RE, KINDS, MAX_TAG_LENGTH, REPO_RE

SCHEMA_ID = "https://errpages.dev/schema/record.schema.json"


def whole(pattern: re.Pattern[str]) -> str:
    """A pattern errpages matches whole, as JSON Schema writes that (it searches otherwise)."""
    return f"^{pattern.pattern}$"


ID = {"type": "string", "pattern": whole(ID_RE), "description": "16 lowercase hex digits"}
MARKDOWN = {"type": "string", "minLength": 1, "description": "Markdown (raw HTML is not allowed)"}
TEXT = {"type": "string", "minLength": 1}


def record_schema() -> dict[str, Any]:
    """Return the JSON Schema (draft 2020-12) of one error record."""
    source_common = {
        "path": {**TEXT, "description": "The raising file's path inside the repository."},
        "line": {"type": "integer", "minimum": 1, "description": "The line that raises."},
        "commit": {
            "type": "string",
            "pattern": whole(COMMIT_RE),
            "description": "The commit everything is pinned to (7 to 40 hex digits).",
        },
        "language": {**TEXT, "description": "Pygments language; defaults from the path."},
        "function": {**TEXT, "description": "The class and function that raise: `Parser.parse`."},
        "conditions": {
            "type": "array",
            "items": TEXT,
            "description": "What holds when the raise runs, as the code says it, outermost "
            "first: a test (`x is None`), `for x in xs`, `while c`, `except KeyError`, "
            "`match x: case P`. Written by `errpages scan`; `drift` reports when they change.",
        },
        "through": {
            "type": "array",
            "items": TEXT,
            "description": "The functions the message goes through from the line: the raise "
            "helper that raises it (`ParamType.fail`), the function that makes it "
            "(`Choice.invalid_message`). Written by `errpages scan`; `check` takes a line that "
            "calls one of them as the raise.",
        },
        "also_raised_at": {
            "type": "array",
            "description": "The other places of the pinned commit that raise the same error. "
            "Written by `errpages scan`, kept true by `drift --update`.",
            "items": {
                "type": "object",
                "required": ["path", "line"],
                "additionalProperties": False,
                "properties": {"path": TEXT, "line": {"type": "integer", "minimum": 1}},
            },
        },
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "errpages error record",
        "description": "One error a project raises, with a source snippet pinned to a commit.",
        "type": "object",
        "$defs": {"history": history_schema()},
        "additionalProperties": False,
        "required": ["repo", "exception", "message", "meaning", "source", "solutions"],
        "properties": {
            "id": {
                **ID,
                "description": "Permanent id and URL. Derived when absent: the first 16 hex "
                "digits of SHA-256 over 'repo\\nexception\\nmessage'.",
            },
            "repo": {
                "type": "string",
                "pattern": whole(REPO_RE),
                "description": "owner/name of the project that raises the error.",
            },
            "kind": {"enum": list(KINDS), "default": "error"},
            "exception": {**TEXT, "description": "The exception type, e.g. ValueError."},
            "message": {
                **TEXT,
                "description": "The exact message; run-time parts as {name} placeholders.",
            },
            "title": {**TEXT, "description": "Defaults to the message."},
            "meaning": {**MARKDOWN, "description": "What it means (Markdown)."},
            "source": {
                "type": "object",
                "required": ["line"],
                "oneOf": [
                    {
                        "required": ["path", "commit", "snippet", "start_line"],
                        "not": {"required": ["snippet_file"]},
                    },
                    {
                        "required": ["snippet_file"],
                        "not": {"anyOf": [{"required": ["snippet"]}, {"required": ["start_line"]}]},
                    },
                ],
                "additionalProperties": False,
                "properties": {
                    **source_common,
                    "snippet": {**TEXT, "description": "The code around the raising line."},
                    "start_line": {
                        "type": "integer",
                        "minimum": 1,
                        "description": "The file's own number of the snippet's first line.",
                    },
                    "snippet_file": {
                        **TEXT,
                        "description": "A file under content/snippets/ with its own pin header.",
                    },
                },
            },
            "solutions": {"type": "array", "minItems": 1, "items": MARKDOWN},
            "example_fix": {
                "type": "object",
                "required": ["before", "after"],
                "additionalProperties": False,
                "properties": {
                    "before": TEXT,
                    "after": TEXT,
                    "language": {**TEXT, "default": "bash"},
                    "notes": MARKDOWN,
                },
            },
            "when": {
                "type": "object",
                "additionalProperties": False,
                "properties": {
                    "trigger": MARKDOWN,
                    "situations": {"type": "array", "items": MARKDOWN},
                },
            },
            "related": {"type": "array", "items": ID, "description": "Ids of related errors."},
            "tags": {"type": "array", "items": {**TEXT, "maxLength": MAX_TAG_LENGTH}},
            "aliases": {"type": "array", "items": ID, "description": "Former ids of this error."},
            "draft": {
                "type": "boolean",
                "default": False,
                "description": "A scaffold still to be written; left out of the site unless "
                "the build is given --drafts.",
            },
            "retired": {
                "type": "object",
                "required": ["since"],
                "additionalProperties": False,
                "description": "The code no longer raises this error; its page stays, marked.",
                "properties": {
                    "since": {**TEXT, "description": "The commit or version that stopped it."},
                    "note": MARKDOWN,
                },
            },
            "analysis": {
                "type": "object",
                "additionalProperties": False,
                "properties": {
                    "by": {**TEXT, "description": "Who analysed it, e.g. AI-assisted."},
                    "date": {"type": "string", "pattern": whole(DATE_RE)},
                },
            },
        },
    }


def history_schema() -> dict[str, Any]:
    """The JSON API's `resolved.history` of an error: in which releases it is raised."""
    release = {**TEXT, "description": "A release (version tag), or 'unreleased'."}
    run = {
        "type": "object",
        "additionalProperties": False,
        "required": ["from", "to", "message", "exception", "path", "line", "commit"],
        "properties": {
            "from": {**release, "description": "The first release of the run."},
            "to": {**release, "description": "The last release of the run."},
            "message": {**TEXT, "description": "The message as those releases raise it."},
            "exception": TEXT,
            "path": TEXT,
            "line": {"type": "integer", "minimum": 1},
            "commit": {
                "type": "string",
                "pattern": whole(COMMIT_RE),
                "description": "The commit of the run's first release.",
            },
            "conditions": {
                "type": "array",
                "items": TEXT,
                "description": "What holds when the raise runs in those releases (as in a "
                "record's source.conditions); absent when nothing around it is tested.",
            },
            "kind": {
                "enum": ["warning"],
                "description": "Present when those releases issue it as a warning "
                "(`warnings.warn`) rather than raise it.",
            },
        },
    }
    unread = {
        "type": "object",
        "additionalProperties": False,
        "required": ["from", "to", "path", "problem"],
        "description": "Consecutive releases where the file the raise was looked for in could "
        "not be parsed (syntax newer than the Python that read it, say): whether they raise "
        "the error is not known.",
        "properties": {
            "from": release,
            "to": release,
            "path": TEXT,
            "problem": {**TEXT, "description": "What the Python parser said of the file."},
        },
    }
    return {
        "type": "object",
        "description": "Found by `errpages history`: each run of consecutive releases that "
        "raise the error the same way, oldest first.",
        "additionalProperties": False,
        "required": ["raised", "unread", "latest_release", "not_raised_since"],
        "properties": {
            "raised": {"type": "array", "items": run},
            "unread": {"type": "array", "items": unread},
            "latest_release": release,
            "not_raised_since": {
                "anyOf": [release, {"type": "null"}],
                "description": "The first release after the last one that raises it, when "
                "the latest does not (null too when a release from there on is unread).",
            },
        },
    }
