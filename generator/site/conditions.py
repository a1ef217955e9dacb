"""What holds when a raise runs, said as a sentence: for the page and for a draft's trigger.

A condition is a string as `errpages scan` writes it (errpages.git.pyraises): a Python
test (`cfg.backend is None`), or a place in the code: `for x in xs`, `while c`,
`after for x in xs without a break`, `except KeyError`, `except` (any exception),
`match x: case P`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from errpages.site.model import VERBS, Record

BACKTICKS_RE = re.compile("`+")
AFTER_LOOP = " without a break"  # `after for x in xs without a break`: a loop's `else`
Piece = tuple[str, bool]  # text, and whether it is code


def raised_when(function: str, conditions: Sequence[str], kind: str) -> tuple[Piece, ...]:
    """`Raised in f, in the loop for x in xs, when a and b.` ("Issued" for a warning), in
    pieces of text and code."""
    pieces: list[Piece] = [(VERBS[kind].capitalize(), False)]
    pieces += [(" in ", False), (function, True)] if function else [(" at import", False)]
    tests = []
    for condition in conditions:
        if condition.startswith(("for ", "while ")):
            pieces += [(", in the loop ", False), (condition, True)]
        elif condition.startswith("after ") and condition.endswith(AFTER_LOOP):
            loop = condition.removeprefix("after ").removesuffix(AFTER_LOOP)
            pieces += [(", after the loop ", False), (loop, True)]
            pieces += [(" ended without a ", False), ("break", True)]
        elif condition == "except":
            pieces += [(", while handling any exception", False)]
        elif condition.startswith("except "):
            pieces += [(", while handling ", False), (condition.removeprefix("except "), True)]
        elif condition.startswith("match ") and ": case " in condition:
            subject, case = condition.removeprefix("match ").split(": case ", 1)
            pieces += [(", in ", False), (f"case {case}", True), (" of ", False)]
            pieces += [(f"match {subject}", True)]
        else:
            tests.append(condition)
    if tests:
        pieces.append((" when ", False))
        for number, test in enumerate(tests):
            if number:
                pieces.append((" and " if number == len(tests) - 1 else ", ", False))
            pieces.append((test, True))
    elif not conditions and function:
        pieces.append((" whenever the code gets there", False))
    pieces.append((".", False))
    return tuple(pieces)


def beside_code(record: Record) -> tuple[Piece, ...]:
    """What the code says holds when the record's raise runs, for its page: nothing when the
    record does not say, or when its trigger already reads so (a draft's, as scan wrote it)."""
    source = record.source
    if not (source.function or source.conditions):
        return ()
    pieces = raised_when(source.function, source.conditions, record.kind)
    trigger = record.when.trigger if record.when is not None else ""
    return () if " ".join(markdown(pieces).split()) in " ".join(trigger.split()) else pieces


def markdown(pieces: Sequence[Piece]) -> str:
    """The pieces as Markdown: code in code spans (fenced longer than any backticks in it)."""
    return "".join(code_span(text) if code else text for text, code in pieces)


def code_span(text: str) -> str:
    fence = "`" * (max(map(len, BACKTICKS_RE.findall(text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"
