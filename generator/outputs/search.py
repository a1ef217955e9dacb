"""The offline search index, shipped as a script so it loads from file:// too.

Browsers refuse fetch() on file:// pages, but they run <script src>; so the
index is `assets/search-index.js`, which sets `window.ERRPAGES_SEARCH`. Each
document is a short array (field names once, in `fields`) to keep the file
small at tens of thousands of errors. The meaning is shipped as its distinct
words only, by number: enough to find an error by it, a fraction of the size.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from errpages.outputs import OutputFile
from errpages.render.markdown import text_of_html
from errpages.site import urls
from errpages.site.model import Record, RecordSummary, Wording

FIELDS = ("id", "repo", "kind", "exception", "message", "title", "path", "tags", "words", "retired")
# With histories, each error's former wordings: [[message, exception, releases], ...].
FORMER_FIELD = "former"
# Fields whose values repeat across errors: shipped once in `strings`, referred to by number.
SHARED_FIELDS = ("repo", "kind", "exception", "path")
# Words as the browser splits them: runs of letters, digits and underscores.
WORD_RE = re.compile(r"\w+")
STOP_WORDS = frozenset(
    "a an and are as at be but by for from has have if in into is it its no not of on or so "
    "such that the their then there these this to was were when which while will with".split()
)


def meaning_words(record: Record, rendered: list[str]) -> list[str]:
    """Distinct lowercase words of the rendered meaning, solutions and trigger (not the message)."""
    seen = {w.lower() for w in WORD_RE.findall(record.message)}
    result: list[str] = []
    for html in rendered:
        for word in WORD_RE.findall(text_of_html(html).lower()):
            if word not in seen and word not in STOP_WORDS and len(word) > 1:
                seen.add(word)
                result.append(word)
    return result


class Table:
    """Number distinct strings in order of first use."""

    def __init__(self) -> None:
        self.numbers: dict[str, int] = {}

    def number(self, text: str) -> int:
        return self.numbers.setdefault(text, len(self.numbers))

    def values(self) -> list[str]:
        return list(self.numbers)


def search_index(
    records: tuple[RecordSummary, ...],
    words_by_id: dict[str, str],
    labels: dict[str, str],
    wordings: dict[str, tuple[Wording, ...]],
) -> dict[str, Any]:
    """The index: one short array per error; repeated strings and meaning words numbered.

    `words` holds the numbers of the error's meaning words in `vocabulary`,
    written in base 36 and separated by spaces; the vocabulary is sorted so
    the browser can find every word that starts with what was typed. When
    some error has former wordings (`site.history.site_wordings`), every
    array ends with its own (or 0), for the traceback lookup.
    """
    strings = Table()
    per_record = [words_by_id[record.id].split() for record in records]
    vocabulary = sorted(set().union(*per_record))
    word_number = numbering(vocabulary)
    number = strings.number
    docs: list[list[Any]] = [
        [
            record.id,
            number(record.repo),
            number(record.kind),
            number(record.exception),
            record.message,
            labels[record.id] if labels[record.id] != record.message else "",
            number(record.source_path),
            list(record.tags),
            " ".join(map(word_number, words)),
            1 if record.retired else 0,
        ]
        for record, words in zip(records, per_record, strict=True)
    ]
    if wordings:
        for doc, record in zip(docs, records, strict=True):
            former = wordings.get(record.id)
            doc.append([list(wording) for wording in former] if former else 0)
    return {**index_head(strings.values(), vocabulary, bool(wordings)), "docs": docs}


def index_head(strings: list[str], vocabulary: list[str], former: bool) -> dict[str, Any]:
    """The index's fields before its docs."""
    return {
        "version": 2,
        "fields": [*FIELDS, FORMER_FIELD] if former else list(FIELDS),
        "shared": list(SHARED_FIELDS),
        "strings": strings,
        "vocabulary": vocabulary,
    }


def numbering(vocabulary: list[str]) -> Callable[[str], str]:
    """A word's number in the (sorted) vocabulary, in base 36."""
    return dict(zip(vocabulary, map(base36, range(len(vocabulary))), strict=True)).__getitem__


def base36(number: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    text = ""
    while True:
        number, rest = divmod(number, 36)
        text = digits[rest] + text
        if not number:
            return text


def script_json(data: Any) -> str:
    """JSON safe to embed in a script: no `</script>`, no raw line separators."""
    return escaped(json_text(data))


def json_text(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def escaped(text: str) -> str:
    """JSON text made safe to embed in a script."""
    return (
        text.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def literal(text: str) -> str:
    """Text made safe in a single-quoted JavaScript string (character by character)."""
    return text.replace("\\", "\\\\").replace("'", "\\'")


def script(text: str) -> str:
    """The index script around its JSON text, escaped (`script_json`, then `literal`).

    JSON.parse of a string literal parses faster than the same data as a JS literal.
    """
    return f"window.ERRPAGES_SEARCH = JSON.parse('{text}');\n"


def search_files(
    records: tuple[RecordSummary, ...],
    words_by_id: dict[str, str],
    labels: dict[str, str],
    wordings: dict[str, tuple[Wording, ...]],
) -> list[OutputFile]:
    """Plan the search index script (meaning words per record come from the record units;
    `labels`: each error's label, shown in the results, where it is not the message)."""
    body = script(literal(script_json(search_index(records, words_by_id, labels, wordings))))
    return [OutputFile(urls.SEARCH_INDEX_JS, body.encode(), "search index")]
