"""A fast highlighter for Python snippets: one regular expression, straight to HTML lines.

Pygments' PythonLexer tries its regular expressions one by one at every
position, and Python's own tokenizer is pure Python too; between them they
were most of a build's time. Here a single compiled pattern finds every
token, each gets the Pygments token type PythonLexer would give it, and the
HTML is written line by line the way Pygments' HtmlFormatter writes it
(same CSS classes, same escaping, neighbouring tokens of one class merged), so
Pygments' styles colour it. It never fails: a snippet cut inside a bracket
or a string still comes out whole, every character in place.
"""

from __future__ import annotations

import builtins
import keyword
import re
from typing import NamedTuple

from pygments.token import (
    STANDARD_TYPES,
    Comment,
    Keyword,
    Name,
    Number,
    Operator,
    Punctuation,
    String,
    Text,
    _TokenType,
)

PYTHON_LANGUAGES = frozenset({"python", "py", "python3", "py3", "sage", "bazel", "starlark"})
# Calls that raise the exception they are given, there or where a future is awaited: a
# future's `set_exception`, six's (or future's) `raise_from` and `reraise`, and the compat
# layer of SQLAlchemy, Alembic and Mako: `util.raise_(…)` and `compat.raise_from_cause(…)`.
RAISING_CALLS = frozenset({"set_exception", "raise_from", "reraise", "raise_", "raise_from_cause"})
WORD_OPERATORS = frozenset({"and", "or", "not", "in", "is"})
CONSTANTS = frozenset({"True", "False", "None"})
NAMESPACE = frozenset({"import", "from"})
PSEUDO = frozenset({"self", "cls"})
EXCEPTIONS = frozenset(
    name
    for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, BaseException)
)
BUILTINS = frozenset(name for name in vars(builtins) if not name.startswith("_")) - EXCEPTIONS

_DIGITS = r"[0-9](?:_?[0-9])*"
_EXPONENT = rf"[eE][-+]?{_DIGITS}"
_FLOAT = rf"(?:{_DIGITS}\.(?:{_DIGITS})?|\.{_DIGITS})(?:{_EXPONENT})?|{_DIGITS}{_EXPONENT}"
_INT = r"0[xX](?:_?[0-9a-fA-F])+|0[bB](?:_?[01])+|0[oO](?:_?[0-7])+|[0-9](?:_?[0-9])*"
TOKEN_RE = re.compile(
    rf"""
      (?P<decorator>^(?P<indent>[ \t\f]*)@[^\W\d][\w.]*)
    | (?P<space>(?:[ \t\f\r]|\\\r?\n)+)
    | (?P<newline>\n)
    | (?P<comment>\#[^\n]*)
    | (?P<string>
        (?P<prefix>[rRbBuUfF]{{1,2}})?
        (?: \"\"\"(?:[^"\\]|\\.|"(?!""))*(?:\"\"\"|\Z)
          | '''(?:[^'\\]|\\.|'(?!''))*(?:'''|\Z)
          | "(?:[^"\\\n]|\\.)*"?
          | '(?:[^'\\\n]|\\.)*'?
        ))
    | (?P<number>(?:{_FLOAT}|{_DIGITS})[jJ]|{_FLOAT}|{_INT})
    | (?P<name>[^\W\d]\w*)
    | (?P<walrus>:=)
    | (?P<punctuation>[()\[\]{{}},:;])
    | (?P<operator>[-+*/%@&|^~<>=!.]+)
    | (?P<other>.)
    """,
    re.VERBOSE | re.DOTALL | re.MULTILINE,
)

ESCAPES = str.maketrans(
    {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
)  # html.escape(quote=False), as Pygments


def css_class(token_type: _TokenType) -> str:
    """The class Pygments' HtmlFormatter gives a (standard) token type."""
    return str(STANDARD_TYPES[token_type])


def name_type(text: str, previous: str) -> _TokenType:
    if keyword.iskeyword(text):
        if text in CONSTANTS:
            return Keyword.Constant
        if text in WORD_OPERATORS:
            return Operator.Word
        if text in NAMESPACE:
            return Keyword.Namespace
        return Keyword
    if previous == "def":
        return Name.Function
    if previous == "class":
        return Name.Class
    if previous == ".":
        return Name
    if text in PSEUDO:
        return Name.Builtin.Pseudo
    if text in EXCEPTIONS:
        return Name.Exception
    if text in BUILTINS:
        return Name.Builtin
    return Name


def number_type(text: str) -> _TokenType:
    lowered = text.lower()
    if lowered.startswith("0x"):
        return Number.Hex
    if lowered.startswith("0o"):
        return Number.Oct
    if lowered.startswith("0b"):
        return Number.Bin
    if "." in lowered or "e" in lowered or lowered.endswith("j"):
        return Number.Float
    return Number.Integer


FIXED_CLASSES = {
    "comment": css_class(Comment.Single),
    "punctuation": css_class(Punctuation),
    "operator": css_class(Operator),
    "walrus": css_class(Operator),
    "space": "",
    "other": "",
}
WHITESPACE = css_class(Text.Whitespace)
DECORATOR = css_class(Name.Decorator)
AFFIX = css_class(String.Affix)
DOUBLE = css_class(String.Double)
SINGLE = css_class(String.Single)


def python_html_lines(code: str) -> list[str]:
    """Highlighted HTML for each line of a Python snippet (one entry per line of code).

    Written the way Pygments' HtmlFormatter writes lines: a span per run of
    one class, closed at the end of each line. This loop is most of a
    build's time, so it is written flat.
    """
    lines: list[str] = []
    parts: list[str] = []
    open_class = ""  # the class of the span open on the current line ("" for none)
    previous = ""  # the last token that was not space, newline or comment
    for match in TOKEN_RE.finditer(code):
        kind = match.lastgroup
        text = match.group()
        if kind == "newline":
            if open_class:
                parts.append("</span>")
                open_class = ""
            lines.append("".join(parts))
            parts = []
            continue
        if kind == "name":
            css = css_class(name_type(text, previous))
            previous = text
        elif kind == "space":
            css = WHITESPACE if previous in ("def", "class") else ""  # as PythonLexer does
        elif kind == "string":
            prefix = match.group("prefix")
            if prefix:
                if open_class:
                    parts.append("</span>")
                parts.append(f'<span class="{AFFIX}">{prefix}')
                open_class = AFFIX
                text = text[len(prefix) :]
            css = DOUBLE if text[0] == '"' else SINGLE
            previous = text
        elif kind == "number":
            css = css_class(number_type(text))
            previous = text
        elif kind == "decorator":  # indentation, then @name
            indent = match.group("indent")
            if indent:
                if open_class:
                    parts.append("</span>")
                    open_class = ""
                parts.append(indent)
                text = text[len(indent) :]
            css = DECORATOR
            previous = text
        else:
            css = FIXED_CLASSES[kind or "other"]
            if kind != "comment":
                previous = text
        if "\n" in text or "&" in text or "<" in text or ">" in text:
            parts, open_class = _add_escaped(text, css, open_class, parts, lines)
            continue
        if css != open_class:
            if open_class:
                parts.append("</span>")
            if css:
                parts.append(f'<span class="{css}">')
            open_class = css
        parts.append(text)
    if open_class:
        parts.append("</span>")
    lines.append("".join(parts))
    return lines


def _add_escaped(
    text: str, css: str, open_class: str, parts: list[str], lines: list[str]
) -> tuple[list[str], str]:
    """The slow path: a token that needs escaping or spans lines. Returns the line state."""
    for index, piece in enumerate(text.translate(ESCAPES).split("\n")):
        if index:
            if open_class:
                parts.append("</span>")
                open_class = ""
            lines.append("".join(parts))
            parts = []
        if piece and css != open_class:
            if open_class:
                parts.append("</span>")
            if css:
                parts.append(f'<span class="{css}">')
            open_class = css
        if piece:
            parts.append(piece)
    return parts, open_class


OPENING = frozenset("([{")
CLOSING = frozenset(")]}")


class Statement(NamedTuple):
    """A statement (logical line) of a snippet."""

    first: int  # its first and last line, 1-based
    last: int
    words: frozenset[str]  # its names and keywords
    strings: str  # its string literals as written, one after another


def logical_line(code: str, line: int) -> Statement | None:
    """The statement that holds `line` (1-based, of `code`), or None when that line holds
    no code (blank, or only a comment).

    A bracket the snippet closes without opening it (a snippet may begin inside a call)
    counts as opened before the snippet.
    """
    depth, current = 0, 1
    start: int | None = None  # the line of the current statement's first token
    words: set[str] = set()
    strings: list[str] = []
    for match in TOKEN_RE.finditer(code):
        kind, text = match.lastgroup, match.group()
        if kind == "newline" and depth == 0:
            if start is not None and start <= line <= current:
                return Statement(start, current, frozenset(words), " ".join(strings))
            if current >= line:
                return None
            start, words, strings = None, set(), []
        elif kind not in ("space", "newline", "comment"):
            start = current if start is None else start
            if kind == "name":
                words.add(text)
            elif kind == "string":
                strings.append(text)
            elif text in OPENING:
                depth += 1
            elif text in CLOSING:
                depth = max(depth - 1, 0)
        current += text.count("\n")
    if start is not None and start <= line:
        return Statement(start, current, frozenset(words), " ".join(strings))
    return None
