"""Edit record files in place, keeping the author's comments, key order and layout.

ruamel.yaml's round-trip mode loads a record into objects that remember
comments and formatting and dumps them back; only the keys we change move.
Every write goes to a temporary file beside the target and is renamed over
it, so a crash never leaves half a record.
"""

from __future__ import annotations

import io
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap
from ruamel.yaml.scalarstring import DoubleQuotedScalarString


def round_trip() -> YAML:
    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 4096  # never re-wrap the author's long lines
    yaml.indent(mapping=2, sequence=4, offset=2)
    return yaml


def update_source(
    text: str,
    snippet_file: str,
    source_path: str,
    line: int,
    commit: str,
    code_says: dict[str, Any],
) -> str:
    """Point a record's source at a pinned snippet file, and set the fields the code says
    (`function`, `conditions`, `also_raised_at`) where the record has them (a `function` the
    code no longer names removed), and `through` wherever the code has one (and nowhere
    else), as `check` needs it to take a call for the raise; return the new text (not yet
    written)."""
    yaml = round_trip()
    data: Any = yaml.load(text)
    source = data.get("source")
    if not isinstance(source, CommentedMap):
        source = CommentedMap()
        data["source"] = source
    for stale in ("snippet", "start_line"):
        if stale in source:
            del source[stale]
    values = {
        "snippet_file": snippet_file,
        "path": source_path,
        "line": line,
        "commit": DoubleQuotedScalarString(commit),
    }
    values |= {key: value for key, value in code_says.items() if key in source}
    values["through"] = code_says.get("through") or ""
    for key, value in values.items():
        if value == "":  # the code names none now: the one named before goes
            source.pop(key, None)
        elif key in source:
            source[key] = value
        else:
            source.insert(len(source), key, value)
    out = io.StringIO()
    yaml.dump(data, out)
    # A removed block scalar can leave its trailing blank line behind.
    return out.getvalue().rstrip("\n") + "\n"
