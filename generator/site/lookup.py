"""Find the errors a traceback or log excerpt shows, treating `{placeholders}` as wildcards.

The same rules run in the browser (themes/default/static/lookup.js), and the
cases of tests/lookup_cases.yaml hold both to them. Matching never backtracks:

- The text is seen as lines: CR LF and CR end a line like LF, every other run of
  white space (WHITESPACE, the same set in both languages) is one space, and a
  run that holds a line break is one line break. Only the last MAX_TEXT
  characters are looked at, from the first line that starts within them.
- A template's literal runs must appear in order, each at its first place after
  the one before (plain string search, one pass). The placeholders are the gaps
  between them: at least one character each, never across a line break. A
  leading gap holds no colon (so it does not swallow `Exception: `), a trailing
  one runs to the end of its line. Placeholders side by side are one gap: the
  first takes it, the others get no value. A template with no literal text
  matches nothing in full. Values are stripped of spaces; the value of a `!r`
  placeholder that is a quoted string (`'mori'`) is the string (`mori`), as
  `{name}` would show it, and the page shows it quoted again where the
  template says `!r`.
- Python prints a KeyError's message quoted (`KeyError: 'no item x'`): on a
  line with `KeyError: ` (at its start or after a space or a dot), a quoted
  rest of the line is read unquoted.
- A full match scores by how much literal text it pinned down, more when
  `Exception:` stands right before it and more the later it appears (the last
  exception of a chained traceback is the one raised). It is weak when it
  pinned down fewer than MIN_EXACT_LITERAL characters of literal text and is
  not the whole message of an `Exception: message` line naming the record's
  exception: a template like `error` is in many texts by chance. A weak match
  is not offered as exact, and ranks by its literal text alone, after the
  partial matches.
- Records with no full match can still match partly: most of their words
  appear in one `Exception: message` line (one of the last MAX_EXCEPTION_LINES
  different ones).
- A record whose error earlier releases raised with other messages (its
  history) is matched by each of those wordings too, with the exception class
  each was raised as; a record is found once, by its best match, which says
  which releases worded it so when it is a former wording.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from errpages.site import urls
from errpages.site.messages import message_parts
from errpages.site.model import RecordSummary, SiteConfig, Wording

# Line breaks are \n and \r; these are the other white space characters.
WHITESPACE = (
    "\t\v\f \u00a0\u1680"
    + "".join(map(chr, range(0x2000, 0x200B)))
    + ("\u2028\u2029\u202f\u205f\u3000")
)
TO_SPACE = str.maketrans(dict.fromkeys(WHITESPACE, " "))
SPACES_RE = re.compile(" {2,}")
LINE_BREAKS_RE = re.compile("\n{2,}")
WORD_RE = re.compile(r"[A-Za-z0-9_]{2,}")
# `ValueError: message`, `pkg.mod.CustomError: message`, `WARNING: message`, on lined text.
EXCEPTION_LINE_RE = re.compile(
    r"(?:^| )((?:[A-Za-z_][A-Za-z0-9_]*\.)*[A-Za-z_][A-Za-z0-9_]*): (.+)$", re.M
)
MAX_TEXT = 4_000_000
MAX_EXCEPTION_LINES = 100
PARTIAL_THRESHOLD = 0.6
EXACT_BASE = 1000.0
MIN_EXACT_LITERAL = 10
KEY_ERROR = "KeyError: "


@dataclass(frozen=True)
class Matcher:
    """A record's message template as its literal runs and the placeholder gaps around them.

    `gaps` has one more entry than `literals`: the names before the first literal,
    between each two, and after the last.
    """

    record: RecordSummary
    literals: tuple[str, ...]
    gaps: tuple[tuple[str, ...], ...]
    conversions: tuple[str, ...]  # of each gap's first placeholder
    literal_length: int
    required_words: frozenset[str]
    words: frozenset[str]
    exception: str  # as the wording was raised
    former: Wording | None = None  # when it is a former wording


@dataclass(frozen=True)
class LookupMatch:
    record: RecordSummary
    score: float
    exact: bool
    values: dict[str, str] = field(default_factory=dict)
    matched_text: str = ""
    weak: bool = False  # a full match of little literal text (see the module's docstring)
    former: Wording | None = None  # the former wording it matched

    @property
    def kind(self) -> str:
        """How good a match it is, as `errpages lookup` says it."""
        if self.exact:
            return "match"
        if self.weak:
            return "weak match (little of this message is fixed text)"
        return "close match (the message may have changed)"


@dataclass(frozen=True)
class Text:
    """A text as the matcher reads it: `lined` keeps its line breaks, `flat` has them as spaces."""

    lined: str
    flat: str
    stops: str  # `lined` with colons as line breaks: where a leading placeholder stops
    words: frozenset[str]  # as written, not lowercased: a template's required words are

    @classmethod
    def read(cls, text: str) -> Text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        if len(text) > MAX_TEXT:
            start = len(text) - MAX_TEXT
            if text[start - 1] != "\n":
                start = text.find("\n", start) + 1 or start
            text = text[start:]
        lined = unquoted_key_errors(lined_text(text))
        flat = lined.replace("\n", " ")
        return cls(lined, flat, lined.replace(":", "\n"), frozenset(WORD_RE.findall(lined)))


def lined_text(text: str) -> str:
    """Every run of white space as one space, or one line break when it holds one."""
    text = SPACES_RE.sub(" ", text.translate(TO_SPACE))
    return LINE_BREAKS_RE.sub("\n", text.replace(" \n", "\n").replace("\n ", "\n"))


def unquoted_key_errors(lined: str) -> str:
    """Each line's `KeyError: '…'` as `KeyError: …`: the message as the record has it."""
    if KEY_ERROR not in lined:
        return lined
    lines = lined.split("\n")
    for index, line in enumerate(lines):
        at = line.find(KEY_ERROR)
        if at < 0 or (at > 0 and line[at - 1] not in " ."):
            continue
        head = at + len(KEY_ERROR)
        inner = unquoted(line[head:])
        if inner is not None:
            lines[index] = line[:head] + inner
    return "\n".join(lines)


def unquoted(text: str) -> str | None:
    """The string a quoted Python string literal (`'a\\'b'`) stands for; None for other text.
    Only the escapes of a quote and of a backslash are read; others stay as they are."""
    if len(text) < 2 or text[0] not in "'\"" or text[-1] != text[0]:
        return None
    result, index, end = [], 1, len(text) - 1
    while index < end:
        if text[index] == "\\" and index + 1 < end and text[index + 1] in "\\'\"":
            index += 1
        result.append(text[index])
        index += 1
    return "".join(result)


def words(text: str) -> frozenset[str]:
    return frozenset(w.lower() for w in WORD_RE.findall(text))


def compile_matcher(record: RecordSummary, wording: Wording | None = None) -> Matcher:
    """Split a record's message template (or one of its former wordings) into literal runs
    and the gaps between them."""
    literals: list[str] = []
    gaps: list[tuple[str, ...]] = []
    conversions: list[str] = []
    gap: list[str] = []
    conversion = ""
    required: set[str] = set()
    message = record.message if wording is None else wording.message
    template = lined_text(message.replace("\r", "\n")).replace("\n", " ").strip(" ")
    for part in message_parts(template):
        if part.is_placeholder:
            conversion = conversion if gap else part.conversion
            gap.append(part.name)
            continue
        literal = part.text
        literals.append(literal)
        gaps.append(tuple(gap))
        conversions.append(conversion)
        gap, conversion = [], ""
        # A word inside the run (not at its edge, where text of a placeholder may join
        # it) is a whole word of any text the template matches.
        required.update(
            m.group() for m in WORD_RE.finditer(literal) if m.start() > 0 and m.end() < len(literal)
        )
    gaps.append(tuple(gap))
    conversions.append(conversion)
    return Matcher(
        record=record,
        literals=tuple(literals),
        gaps=tuple(gaps),
        conversions=tuple(conversions),
        literal_length=sum(len(literal.replace(" ", "")) for literal in literals),
        required_words=frozenset(required),
        words=words(" ".join(literals)),
        # The class's own name: a record may write it dotted (`starlette.routing.NoMatchFound`),
        # a traceback prints either; `named_before` takes `pkg.` before it.
        exception=(record.exception if wording is None else wording.exception).rsplit(".", 1)[-1],
        former=wording,
    )


def compile_matchers(
    records: Sequence[RecordSummary], wordings: Mapping[str, tuple[Wording, ...]] | None = None
) -> list[Matcher]:
    """A matcher for each record's message, and one for each of its former wordings."""
    formers = wordings or {}
    return [
        compile_matcher(record, wording)
        for record in records
        for wording in (None, *formers.get(record.id, ()))
    ]


class Finder:
    """The first place of `needle` at or after a position, for positions that only grow:
    a search is made again only past the place found last, so each finder reads the
    text once however many times it is asked."""

    def __init__(self, text: str, needle: str) -> None:
        self.text = text
        self.needle = needle
        self.since = len(text) + 1
        self.found = -1

    def at(self, position: int) -> int:
        if not (self.since <= position and (self.found < 0 or position <= self.found)):
            self.since = position
            self.found = self.text.find(self.needle, position)
        return self.found


def exact_match(matcher: Matcher, text: Text) -> LookupMatch | None:
    """The best full match of one template in the text, or None: one pass, no backtracking."""
    literals, gaps = matcher.literals, matcher.gaps
    if not literals or not matcher.required_words <= text.words:
        return None
    flat, lined = text.flat, text.lined
    places = [Finder(flat, literal) for literal in literals]
    line_ends = [Finder(lined, "\n") for _ in gaps]
    last = len(literals) - 1
    floor = 0  # matches do not overlap: the next one starts after the last one ends
    search = need(gaps[0])
    best: LookupMatch | None = None
    while (first := places[0].at(search)) >= 0:
        search = first + 1
        starts = [first]
        for index in range(1, last + 1):
            gap_start = starts[-1] + len(literals[index - 1])
            found = places[index].at(gap_start + need(gaps[index]))
            if found < 0:
                return best  # and no later try can find it either
            if 0 <= line_ends[index].at(gap_start) < found:
                break
            starts.append(found)
        if len(starts) <= last:
            continue
        end = starts[-1] + len(literals[-1])
        if gaps[-1]:
            tail = end
            end = line_ends[-1].at(tail)
            end = len(flat) if end < 0 else end
            if end == tail:
                continue
        begin = first
        if gaps[0]:
            begin = max(floor, text.stops.rfind("\n", floor, first) + 1)
            while begin < first and flat[begin] == " ":
                begin += 1
            if begin == first:
                continue
        named = named_before(flat, begin, matcher.exception)
        whole_line = named and (end == len(lined) or lined[end] == "\n")
        weak = matcher.literal_length < MIN_EXACT_LITERAL and not whole_line
        score = float(matcher.literal_length) if weak else EXACT_BASE + matcher.literal_length
        score += 200 if named and not weak else 0
        score += begin / max(len(flat), 1)  # later wins ties: the raised one is last
        if best is None or score > best.score:
            values = placeholder_values(matcher, flat, begin, starts, end)
            best = LookupMatch(
                matcher.record, score, not weak, values, flat[begin:end], weak, matcher.former
            )
        floor = end
        search = max(search, end + need(gaps[0]))
    return best


def need(gap: tuple[str, ...]) -> int:
    """The characters a gap takes at least: one when it holds a placeholder."""
    return 1 if gap else 0


def named_before(flat: str, start: int, exception: str) -> bool:
    """Whether `Exception:` (or `pkg.Exception:`) stands right before this place."""
    colon = start - 2 if flat[start - 1 : start] == " " else start - 1
    if colon < 0 or flat[colon] != ":":
        return False
    head = colon - len(exception)
    return (
        head >= 0 and flat.startswith(exception, head) and flat[head - 1 : head] in ("", " ", ".")
    )


def placeholder_values(
    matcher: Matcher, flat: str, begin: int, starts: list[int], end: int
) -> dict[str, str]:
    """What each gap's first placeholder stood for (a `!r` one's quoted string unquoted); a
    name used twice keeps its first value."""
    ends = [start + len(literal) for start, literal in zip(starts, matcher.literals, strict=True)]
    values: dict[str, str] = {}
    gaps = zip(matcher.gaps, matcher.conversions, [begin, *ends], [*starts, end], strict=True)
    for names, conversion, gap_start, gap_end in gaps:
        if names and names[0] not in values:
            value = flat[gap_start:gap_end].strip(" ")
            string = unquoted(value) if conversion == "r" else None
            values[names[0]] = value if string is None else string
    return values


def exception_lines(text: Text) -> list[tuple[str, frozenset[str], str]]:
    """The last MAX_EXCEPTION_LINES different `Exception: message` lines (the same exception
    and words count once, where last seen), in the text's order: the exception, the
    message's words, the line. Each is compared with every template, so their number is
    what bounds that work."""
    found: dict[tuple[str, frozenset[str]], str] = {}
    for exception, message in reversed(EXCEPTION_LINE_RE.findall(text.lined)):
        found.setdefault((exception, words(message)), f"{exception}: {message}")
        if len(found) == MAX_EXCEPTION_LINES:
            break
    return [(exception, seen, line) for (exception, seen), line in reversed(found.items())]


def partial_match(
    matcher: Matcher, lines: list[tuple[str, frozenset[str], str]]
) -> LookupMatch | None:
    """Most of the template's words in one exception line: a likely match for a changed message."""
    if not matcher.words:
        return None
    best: LookupMatch | None = None
    for exception, line_words, line in lines:
        shared = len(matcher.words & line_words) / len(matcher.words)
        if shared < PARTIAL_THRESHOLD:
            continue
        same_type = exception.rsplit(".", 1)[-1] == matcher.exception
        score = shared * 100 + (20 if same_type else 0)
        if best is None or score > best.score:
            best = LookupMatch(matcher.record, score, False, {}, line, former=matcher.former)
    return best


def lookup(text: str, matchers: list[Matcher], limit: int = 5) -> list[LookupMatch]:
    """Rank the records a traceback or log shows: full matches first, then partial ones; each
    record once, by its best match (its message first among equals)."""
    seen = Text.read(text)
    lines = exception_lines(seen)
    matches = []
    for order, matcher in enumerate(matchers):
        match = exact_match(matcher, seen) or partial_match(matcher, lines)
        if match is not None:
            matches.append((order, match))
    matches.sort(key=lambda pair: (-pair[1].score, pair[1].record.id, pair[0]))
    found: dict[str, LookupMatch] = {}
    for _, match in matches:
        found.setdefault(match.record.id, match)
    return list(found.values())[:limit]


def match_data(match: LookupMatch, config: SiteConfig, out: Path) -> dict[str, Any]:
    """One match as data: the record's identity, where its page is, the values found.

    The page is its public URL when base_url is set, else the file in the built site
    (a file:// URL, which a browser opens with the values as they are given to it).
    """
    record = match.record
    path = urls.error_page(record.id)
    query = urlencode(match.values)
    url = urls.canonical_url(config, path) or (out.absolute() / path).as_uri()
    return {
        "id": record.id,
        "repo": record.repo,
        "exception": record.exception,
        "message": record.message,
        "exact": match.exact,
        "weak": match.weak,
        "score": round(match.score, 3),
        "values": match.values,
        "url": url + (f"?{query}" if query else ""),
        "matched_text": match.matched_text,
        # the former wording the text matched (an older release's), when not the message
        "former": match.former._asdict() if match.former else None,
    }
