"""The offline search index, shipped as a script so it loads from file:// too.

Browsers refuse fetch() on file:// pages, but they run <script src>; so the
index is `assets/search-index.js`, which sets `window.ERRPAGES_SEARCH`. Each
document is a short array (field names once, in `fields`) to keep the file
small at tens of thousands of errors. The meaning is shipped as its distinct
words only: enough to find an error by it, a fraction of the text's size.
"""

from __future__ import annotations

import json
import re
from typing import Any

from generator import urls
from generator.markdown import plain_text
from generator.model import Record, Site
from generator.outputs import OutputFile

FIELDS = ("id", "repo", "kind", "exception", "message", "title", "path", "tags", "words")
WORD_RE = re.compile(r"[\w][\w.-]*[\w]|\w", re.UNICODE)
STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "for",
        "from",
        "has",
        "have",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "no",
        "not",
        "of",
        "on",
        "or",
        "so",
        "such",
        "that",
        "the",
        "their",
        "then",
        "there",
        "these",
        "this",
        "to",
        "was",
        "were",
        "when",
        "which",
        "while",
        "will",
        "with",
    ]
)


def meaning_words(record: Record) -> str:
    """Distinct lowercase words of the meaning, solutions and trigger not already in the message."""
    seen = {w.lower() for w in WORD_RE.findall(record.message)}
    texts = [record.meaning, *record.solutions]
    if record.when is not None:
        texts.append(record.when.trigger)
    result: list[str] = []
    for text in texts:
        for word in WORD_RE.findall(plain_text(text).lower()):
            if word not in seen and word not in STOP_WORDS and len(word) > 1:
                seen.add(word)
                result.append(word)
    return " ".join(result)


def search_document(record: Record) -> list[Any]:
    return [
        record.id,
        record.repo,
        record.kind,
        record.exception,
        record.message,
        record.title if record.title != record.message else "",
        record.source.path,
        list(record.tags),
        meaning_words(record),
    ]


def script_json(data: Any) -> str:
    """JSON safe to embed in a script: no `</script>`, no raw line separators."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return (
        text.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def search_files(site: Site) -> list[OutputFile]:
    """Plan the search index script."""
    index = {
        "version": 1,
        "fields": list(FIELDS),
        "docs": [search_document(record) for record in site.records],
    }
    body = f"window.ERRPAGES_SEARCH = {script_json(index)};\n"
    return [OutputFile(urls.SEARCH_INDEX_JS, body.encode(), "search index")]
