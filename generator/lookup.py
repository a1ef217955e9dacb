"""Find the errors a traceback or log excerpt shows, treating `{placeholders}` as wildcards.

The same rules run in the browser (themes/default/static/search.js); keep the
two in step. For each record, its message template becomes a pattern: literal
text must appear as written (any run of white space matches any other, since
logs re-wrap), each placeholder matches a run of text on one line (the last
one runs to the end of its line). A full match scores by how much literal text
it pinned down, more when `Exception:` stands right before it and more the
later it appears (the last exception of a chained traceback is the one raised).
Records with no full match can still match partly: most of their words appear
in one exception line of the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from generator.messages import message_parts
from generator.model import RecordSummary

WORD_RE = re.compile(r"[A-Za-z0-9_]{2,}")
# `ValueError: message`, `pkg.mod.CustomError: message`, `WARNING: message`.
EXCEPTION_LINE_RE = re.compile(r"(?:^|\s)((?:[A-Za-z_][\w]*\.)*[A-Za-z_]\w*): (.+)$", re.M)
PARTIAL_THRESHOLD = 0.6
EXACT_BASE = 1000.0


@dataclass(frozen=True)
class Matcher:
    """A record's message template compiled for matching."""

    record: RecordSummary
    pattern: re.Pattern[str]
    names: tuple[str, ...]
    literal_length: int
    longest_literal: str
    words: frozenset[str]


@dataclass(frozen=True)
class LookupMatch:
    record: RecordSummary
    score: float
    exact: bool
    values: dict[str, str] = field(default_factory=dict)
    matched_text: str = ""


def words(text: str) -> set[str]:
    return {w.lower() for w in WORD_RE.findall(text)}


def placeholder_pattern(index: int, count: int) -> str:
    """A wildcard for the placeholder at this place in the template.

    The last one runs to the end of its line. A leading one takes no colon, so
    it does not swallow the `Exception: ` before the message.
    """
    if index == count - 1:
        return "(.+)"
    if index == 0:
        return r"([^\s:]+(?: [^\s:]+)*?)"
    return "(.+?)"


def compile_matcher(record: RecordSummary) -> Matcher:
    """Turn a record's message template into a regular expression with one group a placeholder."""
    parts = message_parts(record.message.strip())
    pieces: list[str] = []
    names: list[str] = []
    literal = ""
    for index, part in enumerate(parts):
        if part.is_placeholder:
            pieces.append(placeholder_pattern(index, len(parts)))
            names.append(part.name)
        else:
            chunks = part.text.split()
            escaped = r"\s+".join(re.escape(chunk) for chunk in chunks)
            if part.text[:1].isspace():
                escaped = r"\s+" + escaped if chunks else r"\s+"
            if part.text[-1:].isspace() and chunks:
                escaped += r"\s+"
            pieces.append(escaped)
            literal += part.text
    literal_chunks = [p.text.strip() for p in parts if not p.is_placeholder]
    return Matcher(
        record=record,
        pattern=re.compile("".join(pieces)),
        names=tuple(names),
        literal_length=len("".join(literal.split())),
        longest_literal=max(literal_chunks, key=len, default="").split("\n")[0][:40],
        words=frozenset(words(literal)),
    )


def compile_matchers(records: tuple[RecordSummary, ...] | list[RecordSummary]) -> list[Matcher]:
    return [compile_matcher(record) for record in records]


def exact_match(matcher: Matcher, text: str) -> LookupMatch | None:
    """The best full match of one template in the text, or None."""
    first_word = matcher.longest_literal.split()[0] if matcher.longest_literal.split() else ""
    if first_word and first_word not in text:
        return None
    best: LookupMatch | None = None
    for found in matcher.pattern.finditer(text):
        before = text[: found.start()]
        exception = matcher.record.exception
        named = re.search(r"(?:^|[\s.])" + re.escape(exception) + r":\s*$", before)
        score = EXACT_BASE + matcher.literal_length + (200 if named else 0)
        score += found.start() / max(len(text), 1)  # later wins ties: the raised one is last
        values: dict[str, str] = {}
        for name, value in zip(matcher.names, found.groups(), strict=True):
            values.setdefault(name, value.strip())
        match = LookupMatch(matcher.record, score, True, values, found.group(0))
        if best is None or match.score > best.score:
            best = match
    return best


def partial_match(
    matcher: Matcher, exception_lines: list[tuple[str, str, set[str]]]
) -> LookupMatch | None:
    """Most of the template's words in one exception line: a likely match for a changed message."""
    if not matcher.words:
        return None
    best: LookupMatch | None = None
    for exception, message, line_words in exception_lines:
        shared = len(matcher.words & line_words) / len(matcher.words)
        if shared < PARTIAL_THRESHOLD:
            continue
        same_type = exception.rsplit(".", 1)[-1] == matcher.record.exception
        score = shared * 100 + (20 if same_type else 0)
        if best is None or score > best.score:
            best = LookupMatch(matcher.record, score, False, {}, f"{exception}: {message}")
    return best


def lookup(text: str, matchers: list[Matcher], limit: int = 5) -> list[LookupMatch]:
    """Rank the records a traceback or log shows: full matches first, then partial ones."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    exception_lines = [
        (m.group(1), m.group(2), words(m.group(2))) for m in EXCEPTION_LINE_RE.finditer(text)
    ]
    matches = []
    for matcher in matchers:
        match = exact_match(matcher, text) or partial_match(matcher, exception_lines)
        if match is not None:
            matches.append(match)
    matches.sort(key=lambda m: (-m.score, m.record.id))
    return matches[:limit]
