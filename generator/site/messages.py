"""Message templates: exact text with `{placeholders}` for the parts that vary at run time.

The syntax follows Python's format strings, which is how most messages are
built: `{name}`, `{name!r}`, `{obj.attr}`, `{0}`, `{value:.2f}`; `{{` and `}}`
stand for literal braces. Names and attributes are ASCII (letters, digits, `_`),
as the browser's matcher reads them the same way: `{obj.größe}` is literal text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

TOKEN_RE = re.compile(
    r"\{\{|\}\}|\{([A-Za-z0-9_]+)((?:\.[A-Za-z_][A-Za-z0-9_]*|\[[^\]{}]*\])*)(![rsa])?(:[^{}]*)?\}"
)


@dataclass(frozen=True)
class MessagePart:
    """A run of literal text, or a placeholder (`name` is its leading identifier, `conversion`
    its `!r`, `!s` or `!a` without the `!`)."""

    text: str
    name: str = ""
    conversion: str = ""

    @property
    def is_placeholder(self) -> bool:
        return bool(self.name)


def message_parts(template: str) -> list[MessagePart]:
    """Split a message template into literal runs and placeholders."""
    parts: list[MessagePart] = []
    literal = ""
    last = 0
    for match in TOKEN_RE.finditer(template):
        literal += template[last : match.start()]
        last = match.end()
        if match.group(0) in ("{{", "}}"):
            literal += match.group(0)[0]
            continue
        if literal:
            parts.append(MessagePart(literal))
            literal = ""
        parts.append(MessagePart(match.group(0), match.group(1), (match.group(3) or "")[1:]))
    literal += template[last:]
    if literal:
        parts.append(MessagePart(literal))
    return parts


def placeholder_names(template: str) -> list[str]:
    """The distinct placeholder names of a template, in order of first use."""
    names: list[str] = []
    for part in message_parts(template):
        if part.is_placeholder and part.name not in names:
            names.append(part.name)
    return names


def canonical(template: str) -> str:
    """A template with placeholder names dropped and white space folded, for comparing."""
    parts = []
    for part in message_parts(template):
        parts.append(
            "{}" if part.is_placeholder else part.text.replace("{", "{{").replace("}", "}}")
        )
    return " ".join("".join(parts).split())
