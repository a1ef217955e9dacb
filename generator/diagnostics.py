"""Diagnostics: every problem found in the content, with where it was found.

Stages never raise on bad content; they return diagnostics so that one run
reports every problem at once, each as `path:line:col: field: message`.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum
from typing import NamedTuple, Protocol

from errpages.reveal import reveal_text


class Level(str, Enum):
    WARNING = "warning"
    ERROR = "error"


class Position(NamedTuple):
    """A place in a content file: 1-based line and column.

    A named tuple rather than a dataclass: every validated record keeps a
    few, and the build cache loads tens of thousands of them at once.
    """

    path: str
    line: int = 0
    col: int = 0

    @property
    def shown_line(self) -> int | None:
        """The line as every output format shows it: None for the file as a whole."""
        return self.line if self.line > 0 else None

    @property
    def shown_col(self) -> int | None:
        """The column as shown: 1 for a line as a whole, None for the file as a whole."""
        return max(self.col, 1) if self.line > 0 else None

    def __str__(self) -> str:
        if self.shown_line is None:
            return self.path
        return f"{self.path}:{self.shown_line}:{self.shown_col}"


@dataclass(frozen=True)
class Diagnostic:
    """One problem: where, which field, what is wrong and what was expected."""

    level: Level
    position: Position
    field: str
    message: str
    hint: str = ""
    source_line: str = ""

    def format(self) -> str:
        """Render as `path:line:col: field: message`, the hint and the offending line below
        (every piece printable: see `printable`)."""
        head = f"{printable(str(self.position))}: "
        if self.level is Level.WARNING:
            head += "warning: "
        if self.field:
            head += f"{printable(self.field)}: "
        lines = [head + printable(self.message)]
        if self.source_line.strip():
            lines.append(f"    {printable(self.source_line.rstrip())}")
            if self.position.col > 0:
                lines.append("    " + " " * (self.position.col - 1) + "^")
        if self.hint:
            lines.append(f"    hint: {printable(self.hint)}")
        return "\n".join(lines)


# Control characters (C0 but tab, DEL, C1), the Unicode line separators, and lone surrogates
# (a file name's bytes that are not UTF-8), which no terminal could be sent.
CONTROL_RE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\u0085\ud800-\udfff]")


def printable(text: str) -> str:
    """Text from content or a commit as it may be printed: control characters as escapes
    (`\\x1b`, `\\n`), hidden and direction-changing ones as `[U+202E]`, so nothing shown
    can move the cursor, retitle the terminal, or begin a line of its own (a forged
    `::error` workflow command on GitHub Actions)."""
    if text.isprintable():
        return text
    return reveal_text(CONTROL_RE.sub(lambda m: ascii(m.group())[1:-1], text))


def plural(count: int, noun: str) -> str:
    """`1 warning`, `2 warnings`, `0 errors`: counts as every message shows them."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def error(position: Position, field: str, message: str, hint: str = "") -> Diagnostic:
    return Diagnostic(Level.ERROR, position, field, message, hint)


def warning(position: Position, field: str, message: str, hint: str = "") -> Diagnostic:
    return Diagnostic(Level.WARNING, position, field, message, hint)


def closest(word: str, choices: Iterable[str]) -> str | None:
    """The choice that word most likely misspells, if any is close."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return close[0] if close else None


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """Return a "did you mean …?" hint for the closest choice, or an empty string."""
    meant = closest(word, choices)
    return f"did you mean '{meant}'?" if meant else ""


def has_errors(diagnostics: Iterable[Diagnostic], strict: bool = False) -> bool:
    """Tell whether these diagnostics fail a build (warnings too when strict)."""
    return any(d.level is Level.ERROR or strict for d in diagnostics)


def sorted_diagnostics(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """Order diagnostics by file, line and column so reports read top to bottom."""
    return sorted(
        diagnostics,
        key=lambda d: (d.position.path, d.position.line, d.position.col, d.field, d.message),
    )


class LineReader(Protocol):
    def get(self, path: str) -> list[str] | None: ...


def with_source_lines(diagnostics: Iterable[Diagnostic], read_line: LineReader) -> list[Diagnostic]:
    """Attach the offending source line to each diagnostic whose file text is known."""
    result = []
    for d in diagnostics:
        lines = read_line.get(d.position.path)
        # Column 0 means "somewhere in the file" (a missing field): no line to show.
        if lines and 0 < d.position.line <= len(lines) and d.position.col > 0 and not d.source_line:
            d = Diagnostic(
                d.level, d.position, d.field, d.message, d.hint, lines[d.position.line - 1]
            )
        result.append(d)
    return result


def diagnostic_data(diagnostic: Diagnostic) -> dict[str, object]:
    """A problem as `errpages check --format json` gives it."""
    return {
        "level": diagnostic.level.value,
        "path": diagnostic.position.path,
        "line": diagnostic.position.shown_line,
        "column": diagnostic.position.shown_col,
        "field": diagnostic.field,
        "message": diagnostic.message,
        "hint": diagnostic.hint,
    }


def github_annotation(diagnostic: Diagnostic) -> str:
    """A GitHub Actions workflow command: `::error file=…,line=…,col=…,title=…::message`."""

    def data(text: str) -> str:
        return printable(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")

    def prop(text: str) -> str:
        return data(text).replace(":", "%3A").replace(",", "%2C")

    position = diagnostic.position
    props = [f"file={prop(position.path)}"]
    if position.shown_line is not None:
        props.append(f"line={position.shown_line}")
        props.append(f"col={position.shown_col}")
    if diagnostic.field:
        props.append(f"title={prop(diagnostic.field)}")
    message = diagnostic.message + (f" (hint: {diagnostic.hint})" if diagnostic.hint else "")
    return f"::{diagnostic.level.value} {','.join(props)}::{data(message)}"
