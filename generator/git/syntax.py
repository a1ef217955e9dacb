"""Python code this Python's parser cannot read as it is, rewritten token by token so that
it can, each token kept on its line, so that its raises are found at their own lines with
their own messages. An old release's file in Python 2 (`except ValueError, e:`, `raise
KeyError, "no such key"`, `print "…"`) or from before `async` and `await` were keywords
(`asyncio.async(coro)`); a file in syntax newer than this Python (`type Alias = …` and type
parameters, `def first[T](items: list[T])`, of 3.12; `except KeyError, IndexError:` of
3.14); Python 2's indentation that mixes tabs and spaces. Only what keeps such a file from
parsing is rewritten; what the code means otherwise may not be kept (`print >>f, x` reads
as `print(f, x)`, a type parameter is left out)."""

from __future__ import annotations

import io
import itertools
import tokenize
from collections.abc import Iterator
from tokenize import (
    COMMENT,
    DEDENT,
    ERRORTOKEN,
    INDENT,
    NAME,
    NEWLINE,
    NL,
    NUMBER,
    OP,
    STRING,
    TokenInfo,
)

Position = tuple[int, int]  # (line, column), as tokenize gives them
Edit = tuple[Position, Position, str]  # replace from start to end with the text

LONG = ("l", "L")  # the suffix of a long integer (`10L`)
KEYWORDS_NOW = ("async", "await")  # names before Python 3.7
ASYNC_STATEMENTS = ("def", "for", "with")  # what `async` is followed by as a keyword
# Statements whose `:` at the top level ends a header a statement may follow on its line
# (`if not ok: raise ValueError, "bad"`)
HEADERS = frozenset(
    {"if", "elif", "else", "while", "for", "try", "except", "finally", "with", "def", "class"}
)


def readable_source(source: str) -> str | None:
    """The source rewritten so that this Python may parse it (an edit that would join two
    lines left out: its file stays unread), or None when its tokens cannot be read."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return None
    edits = literal_edits(tokens)
    tuples = itertools.count()
    for statement in statements(tokens):
        edits += statement_edits(statement)
        edits += tuple_parameter_edits(statement, tuples)
        edits += type_parameter_edits(statement)
    edits = [(start, end, text) for start, end, text in edits if start[0] == end[0]]
    lines = source.splitlines(keepends=True)
    # the lines of code indented with a tab (not those inside a string)
    code_rows = {
        token.start[0]
        for token in tokens
        if token.start[0] <= len(lines)
        and "\t" in (indent := indentation(lines[token.start[0] - 1]))
        and token.start[1] == len(indent)
    }
    for row, on_line in itertools.groupby(sorted(edits), key=lambda edit: edit[0][0]):
        line, parts, at = lines[row - 1], [], 0
        for (_, column), (_, end_column), text in on_line:
            if column >= at:  # of two edits of one token (a traceback left out), the first
                parts += [line[at:column], text]
                at = end_column
        lines[row - 1] = "".join([*parts, line[at:]])
    for row in code_rows:  # Python 2 took a tab to the next multiple of eight columns
        line = lines[row - 1]
        indent = indentation(line)
        lines[row - 1] = indent.expandtabs(8) + line[len(indent) :]
    return "".join(lines)


def indentation(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def literal_edits(tokens: list[TokenInfo]) -> list[Edit]:
    """`0755` → `0o755`, `10L` → `10`, `ur"…"` → `r"…"`, `` `x` `` → `repr(x)`, `<>` → `!=`,
    `asyncio.async(…)` → `asyncio.async_(…)`."""
    edits: list[Edit] = []
    backticks = 0
    following = [*tokens[2:], tokens[-1]]  # each token's next but one (the last: itself)
    for before, token, after in zip(tokens, tokens[1:], following, strict=False):
        joined, pair = before.end == token.start, (before.string, token.string)
        if joined and before.type == NUMBER and token.type == NUMBER and before.string == "0":
            edits.append((before.start, before.end, "0o"))
        elif joined and before.type == NUMBER and token.type == NAME and token.string in LONG:
            edits.append((token.start, token.end, ""))
        elif joined and token.type == STRING and before.string.lower() == "ur":
            edits.append((before.start, before.end, "r"))
        elif joined and pair == ("<", ">"):
            edits.append((before.start, token.end, "!="))
        elif (
            token.type == NAME
            and token.string in KEYWORDS_NOW
            and (
                before.string == "."
                or (token.string == "async" and after.string not in ASYNC_STATEMENTS)
            )
        ):
            edits.append((token.end, token.end, "_"))
        elif token.type == ERRORTOKEN and token.string == "`":
            edits.append((token.start, token.end, ")" if backticks % 2 else "repr("))
            backticks += 1
    return edits


def statements(tokens: list[TokenInfo]) -> Iterator[list[TokenInfo]]:
    """Each simple statement's tokens (a header's too, up to its `:`), comments left out."""
    current: list[TokenInfo] = []
    depth = 0
    for token in tokens:
        if token.type in (NL, COMMENT, INDENT, DEDENT):
            continue
        top = depth == 0 and token.type == OP
        header_end = top and token.string == ":" and bool(current) and current[0].string in HEADERS
        if token.type == NEWLINE or (top and token.string == ";") or header_end:
            if current:
                yield current
            current = []
            continue
        if token.type == OP and token.string in "([{":
            depth += 1
        elif token.type == OP and token.string in ")]}":
            depth = max(0, depth - 1)
        current.append(token)
    if current:
        yield current


def top_level(statement: list[TokenInfo], text: str) -> list[int]:
    """Where a token is in the statement outside any bracket."""
    depth, found = 0, []
    for index, token in enumerate(statement):
        if token.type == OP and token.string in "([{":
            depth += 1
        elif token.type == OP and token.string in ")]}":
            depth -= 1
        elif depth == 0 and token.string == text and token.type in (OP, NAME):
            found.append(index)
    return found


def statement_edits(statement: list[TokenInfo]) -> list[Edit]:
    """`except E, e` → `except E as e`, but `except KeyError, IndexError` → `except (KeyError,
    IndexError)`; `raise E, V[, tb]` → `raise E(V)`; `print x` →
    `print(x)`; `exec code in ns` → `exec(code, ns)`."""
    head, end = statement[0], statement[-1].end
    following = statement[1].string if len(statement) > 1 else ""
    commas = top_level(statement, ",")
    if head.string == "except" and commas:
        named = statement[commas[-1] + 1 :]  # Python 2's `except E, e:` names what it caught
        if len(commas) == 1 and len(named) == 1 and not named[0].string[:1].isupper():
            comma = statement[commas[0]]
            return [(comma.start, comma.end, " as ")]  # `except KeyError,e:` too
        caught = statement[2] if following == "*" else statement[1]
        return [(caught.start, caught.start, "("), (end, end, ")")]
    if head.string == "raise" and commas:
        value = statement[commas[0] + 1 : commas[1] if len(commas) > 1 else None]
        if [token.string for token in value] == ["None"]:  # `raise E(…), None, tb`: E(…)
            return [(token.start, token.end, "") for token in statement[commas[0] :]]
        raised = [token.string for token in statement[1 : commas[0]]]
        if [token.string for token in value[: len(raised) + 1]] == [*raised, "("]:
            # `raise E, E("…"), tb`: the instance given is what is raised
            gone = statement[1 : commas[0] + 1] + (statement[commas[1] :] if commas[1:] else [])
            return [(token.start, token.end, "") for token in gone]
        first = statement[commas[0]]
        edits = [(first.start, first.end, "(")]
        if len(commas) > 1:  # the traceback: left out
            end = statement[commas[1] - 1].end
            edits += [(token.start, token.end, "") for token in statement[commas[1] :]]
        return [*edits, (end, end, ")")]
    if head.string in ("print", "exec") and following not in ("(", "=", ".", "[", ","):
        edits = [(head.start, head.end, head.string + "("), (end, end, ")")]
        if following == ">>":
            edits.append((statement[1].start, statement[1].end, ""))
        if head.string == "exec":
            edits += [
                (statement[i].start, statement[i].end, ",") for i in top_level(statement, "in")
            ]
        return edits
    return []


def tuple_parameter_edits(statement: list[TokenInfo], names: Iterator[int]) -> list[Edit]:
    """`def f(self, (key, value)):` and `lambda (key, value): …`: each unpacked parameter
    becomes one name. One pass, each token looked at once."""
    closes = matching_brackets(statement)
    edits: list[Edit] = []
    parameters: list[int] = []  # the depths at which parameter lists are open, innermost last
    depth, index = 0, 0
    while index < len(statement):
        token, previous = statement[index], statement[index - 1].string if index else ""
        in_parameters = bool(parameters) and parameters[-1] == depth
        if token.type == NAME and token.string == "lambda":
            parameters.append(depth)
        elif in_parameters and token.string == ":":
            parameters.pop()
        elif in_parameters and token.string == "(" and previous in ("(", ",", "lambda"):
            close = closes.get(index, index)
            edits.append((token.start, token.end, f"_unpacked_{next(names)}"))
            edits += [(t.start, t.end, "") for t in statement[index + 1 : close + 1]]
            index = close + 1
            continue
        if token.type == OP and token.string in "([{":
            if index == 2 and statement[0].string == "def":
                parameters.append(depth + 1)
            depth += 1
        elif token.type == OP and token.string in ")]}":
            depth -= 1
            while parameters and parameters[-1] > depth:
                parameters.pop()
        index += 1
    return edits


def type_parameter_edits(statement: list[TokenInfo]) -> list[Edit]:
    """`type Alias[T] = …` → `Alias = …`; `def first[T](…)` and `class Box[T](…)` without
    their `[T]`."""
    tokens = statement[1:] if statement[0].string == "async" else statement
    if len(tokens) < 3:
        return []
    head, name, after = tokens[:3]
    if head.string == "type" and name.type == NAME and after.string in ("=", "["):
        edits = [(head.start, name.start, "")]
    elif head.string in ("def", "class") and after.string == "[":
        edits = []
    else:
        return []
    close = matching_brackets(tokens[2:]).get(0) if after.string == "[" else None
    if close is not None:
        edits.append((after.start, tokens[2 + close].end, ""))
    return edits


def matching_brackets(statement: list[TokenInfo]) -> dict[int, int]:
    """Where each bracket of the statement that closes is closed, by where it opens."""
    found, opened = {}, []
    for index, token in enumerate(statement):
        if token.type == OP and token.string in "([{":
            opened.append(index)
        elif token.type == OP and token.string in ")]}" and opened:
            found[opened.pop()] = index
    return found
