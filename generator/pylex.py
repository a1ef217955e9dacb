"""A fast lexer for Python snippets: the standard tokenizer, mapped to Pygments token types.

Pygments' PythonLexer tries its regular expressions one by one at every
position and was half the time of a build; Python's own tokenizer is several
times faster. The tokens come out as Pygments types, so Pygments' formatter
and styles still do the rest. Code the tokenizer cannot finish (a snippet cut
inside a bracket) keeps what it read, and the rest stays plain text; code it
rejects outright goes back to Pygments.
"""

from __future__ import annotations

import builtins
import io
import keyword
import tokenize
from collections.abc import Iterator

from pygments.token import (
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
PUNCTUATION = frozenset("()[]{},:;")  # Pygments calls "." an operator
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
STRING_PREFIX = "rRbBuUfF"

Token = tuple[_TokenType, str]


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
    if previous == "@":
        return Name.Decorator
    if previous == ".":
        return Name
    if text in PSEUDO:
        return Name.Builtin.Pseudo
    if text in EXCEPTIONS:
        return Name.Exception
    if text in BUILTINS:
        return Name.Builtin
    return Name


def string_tokens(text: str) -> Iterator[Token]:
    prefix = len(text) - len(text.lstrip(STRING_PREFIX))
    if prefix:
        yield String.Affix, text[:prefix]
    body = text[prefix:]
    yield (String.Double if body.startswith('"') else String.Single), body


def number_type(text: str) -> _TokenType:
    lowered = text.lower()
    if lowered.startswith("0x"):
        return Number.Hex
    if lowered.startswith(("0o", "0b")):
        return Number.Oct if lowered.startswith("0o") else Number.Bin
    if "." in lowered or "e" in lowered or lowered.endswith("j"):
        return Number.Float
    return Number.Integer


def python_tokens(code: str) -> list[Token] | None:
    """The Pygments tokens of a Python snippet, or None when the tokenizer rejects it.

    A snippet usually starts inside a block, so it can dedent below its first
    line; the tokenizer calls that an error. Indentation does not change how
    anything is coloured, so tokenizing simply starts again at that line.
    """
    tokens: list[Token] = []
    at = 0
    while at < len(code):
        restart = _tokenize_from(code, at, tokens)
        if restart is None:
            return None
        if restart <= at:
            break
        at = restart
    emitted = sum(len(text) for _, text in tokens)
    if emitted < len(code):
        tokens.append((Text, code[emitted:]))
    return tokens


def _tokenize_from(code: str, offset: int, tokens: list[Token]) -> int | None:
    """Tokenize code[offset:] into tokens; the offset to start again from, or None to give up."""
    part = code[offset:]
    starts = [0]
    for line in part.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    at = 0
    previous = ""
    try:
        for kind, text, (row, col), (end_row, end_col), _ in tokenize.generate_tokens(
            io.StringIO(part).readline
        ):
            if kind in (tokenize.ENDMARKER, tokenize.INDENT, tokenize.DEDENT) or not text:
                continue
            start = starts[row - 1] + col if row - 1 < len(starts) else len(part)
            end = starts[end_row - 1] + end_col if end_row - 1 < len(starts) else len(part)
            if start < at:
                continue
            if start > at:
                tokens.append((Text, part[at:start]))
            tokens.extend(token_of(kind, part[start:end], previous))
            at = end
            if kind not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT):
                previous = text
    except IndentationError as exc:
        line_start = starts[(exc.lineno or 1) - 1] if exc.lineno else at
        if line_start > at:
            tokens.append((Text, part[at:line_start]))
            at = line_start
        return offset + at if at > 0 else None
    except tokenize.TokenError:
        pass  # cut inside a bracket or string: what was read stands, the rest is plain
    except SyntaxError:
        return None
    return len(code)


def token_of(kind: int, text: str, previous: str) -> Iterator[Token]:
    if kind == tokenize.NAME:
        yield name_type(text, previous), text
    elif kind == tokenize.STRING:
        yield from string_tokens(text)
    elif kind == tokenize.NUMBER:
        yield number_type(text), text
    elif kind == tokenize.COMMENT:
        yield Comment.Single, text
    elif kind == tokenize.OP:
        if text == "@" and previous in ("", "\n"):
            yield Name.Decorator, text
        else:
            yield (Punctuation if text in PUNCTUATION else Operator), text
    elif kind in (tokenize.NEWLINE, tokenize.NL):
        yield Text.Whitespace, text
    else:  # f-string parts (3.12+), error tokens and the rest
        yield (String.Double if "FSTRING" in tokenize.tok_name.get(kind, "") else Text), text
