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
from collections import Counter
from collections.abc import Callable, Iterable
from itertools import chain
from json.encoder import encode_basestring
from typing import Any, NamedTuple

from generator import urls
from generator.markdown import text_of_html
from generator.model import Record, RecordSummary
from generator.outputs import OutputFile

FIELDS = ("id", "repo", "kind", "exception", "message", "title", "path", "tags", "words", "retired")
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


def search_index(records: tuple[RecordSummary, ...], words_by_id: dict[str, str]) -> dict[str, Any]:
    """The index: one short array per error; repeated strings and meaning words numbered.

    `words` holds the numbers of the error's meaning words in `vocabulary`,
    written in base 36 and separated by spaces; the vocabulary is sorted so
    the browser can find every word that starts with what was typed.
    """
    strings = Table()
    per_record = [words_by_id[record.id].split() for record in records]
    vocabulary = sorted(set().union(*per_record))
    word_number = numbering(vocabulary)
    number = strings.number
    docs = [
        [
            record.id,
            number(record.repo),
            number(record.kind),
            number(record.exception),
            record.message,
            record.title if record.title != record.message else "",
            number(record.source_path),
            list(record.tags),
            " ".join(map(word_number, words)),
            1 if record.retired else 0,
        ]
        for record, words in zip(records, per_record, strict=True)
    ]
    return {**index_head(strings.values(), vocabulary), "docs": docs}


def index_head(strings: list[str], vocabulary: list[str]) -> dict[str, Any]:
    """The index's fields before its docs (which come last: `index_file` relies on it)."""
    return {
        "version": 2,
        "fields": list(FIELDS),
        "shared": list(SHARED_FIELDS),
        "strings": strings,
        "vocabulary": vocabulary,
    }


def numbering(vocabulary: list[str]) -> Callable[[str], str]:
    """A word's number in the (sorted) vocabulary, in base 36."""
    return dict(zip(vocabulary, map(base36, range(len(vocabulary))), strict=True)).__getitem__


def shared_of(record: RecordSummary) -> tuple[str, str, str, str]:
    """An error's values of SHARED_FIELDS, in that order."""
    return record.repo, record.kind, record.exception, record.source_path


def shared_strings(shared: Iterable[tuple[str, str, str, str]]) -> list[str]:
    """The shared strings in the order the index numbers them: by first use."""
    return list(dict.fromkeys(chain.from_iterable(shared)))


class IndexParts(NamedTuple):
    """The search index in parts, each error's entry by its record file, as the index script
    writes it (`index_file` joins them).

    When the vocabulary and the shared strings stay as they were, an edit
    makes the index again from the last build's parts, redoing only the
    entries of the errors read afresh (`updated_parts`): every other entry's
    numbers still hold. (The index made whole renumbers every entry.)
    """

    files: list[str]  # the errors' record files, in the index's order
    shared: dict[str, tuple[str, str, str, str]]  # each error's shared strings, by file
    strings: list[str]
    vocabulary: list[str]
    counts: dict[str, int]  # how many errors have each word
    docs: dict[str, str]  # each error's entry as the index script writes it, by file


def index_parts(records: list[RecordSummary], words_by_file: dict[str, str]) -> IndexParts:
    """The index of these errors, in this order (each one's meaning words by its file)."""
    per_record = [words_by_file[record.file].split() for record in records]
    counts = dict(Counter(chain.from_iterable(per_record)))
    vocabulary = sorted(counts)
    shared = {record.file: shared_of(record) for record in records}
    strings = shared_strings(shared.values())
    number = dict(zip(strings, range(len(strings)), strict=True)).__getitem__
    word_number = numbering(vocabulary)
    docs = {
        record.file: doc_text(record, words, number, word_number)
        for record, words in zip(records, per_record, strict=True)
    }
    return IndexParts([r.file for r in records], shared, strings, vocabulary, counts, docs)


def updated_parts(
    parts: IndexParts,
    files: list[str],
    redo: dict[str, tuple[RecordSummary, str]],
    words_before: Callable[[str], str],
) -> IndexParts | None:
    """The parts of the index of the errors of these record files (in this order), those in
    `redo` (their summaries and meaning words) made again and every other one as it is in
    `parts`; None when that cannot be (a word or a shared string came or went: every
    entry's numbers may move). `words_before`: the meaning words the parts counted for a
    file of theirs."""
    now = set(files)
    counts = dict(parts.counts)
    for file in (parts.docs.keys() - now) | (redo.keys() & parts.docs.keys()):
        for word in words_before(file).split():
            counts[word] -= 1
    new_words = {file: words.split() for file, (_, words) in redo.items()}
    for words in new_words.values():
        for word in words:
            counts[word] = counts.get(word, 0) + 1
    if len(counts) != len(parts.vocabulary) or 0 in counts.values():
        return None
    same = files == parts.files
    if same and all(shared_of(summary) == parts.shared.get(f) for f, (summary, _) in redo.items()):
        shared = parts.shared  # (the usual edit: the same errors, their shared strings kept)
    else:
        shared = {
            file: shared_of(redo[file][0]) if file in redo else parts.shared[file] for file in files
        }
        if shared_strings(shared.values()) != parts.strings:
            return None
    number = dict(zip(parts.strings, range(len(parts.strings)), strict=True)).__getitem__
    word_number = numbering(parts.vocabulary)
    remade = {
        file: doc_text(summary, new_words[file], number, word_number)
        for file, (summary, _) in redo.items()
    }
    docs = parts.docs | remade if same else {f: remade.get(f) or parts.docs[f] for f in files}
    return IndexParts(files, shared, parts.strings, parts.vocabulary, counts, docs)


def index_file(parts: IndexParts) -> OutputFile:
    """The index script, from its parts: as `search_files` writes it from the whole index."""
    head = script_text(json_text(index_head(parts.strings, parts.vocabulary)))
    text = head[:-1] + ',"docs":[' + ",".join([parts.docs[file] for file in parts.files]) + "]}"
    return OutputFile(urls.SEARCH_INDEX_JS, script(text).encode(), "search index")


def doc_text(
    record: RecordSummary,
    words: list[str],
    number: Callable[[str], int],
    word_number: Callable[[str], str],
) -> str:
    """An error's entry (as `search_index` makes it) as the index script writes it: its JSON
    text as json.dumps writes it (compact, not ASCII-only), escaped (`script_text`)."""
    quote = encode_basestring
    title = record.title if record.title != record.message else ""
    text = (
        f"[{quote(record.id)},{number(record.repo)},{number(record.kind)},"
        f"{number(record.exception)},{quote(record.message)},{quote(title)},"
        f"{number(record.source_path)},[{','.join(map(quote, record.tags))}],"
        f"{quote(' '.join(map(word_number, words)))},{1 if record.retired else 0}]"
    )
    return script_text(text)


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
    """JSON text made safe to embed in a script (character by character, so the parts of a
    text can be escaped apart)."""
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


# What `escaped` or `literal` changes: a text with none of these is written as it is.
SCRIPT_UNSAFE = re.compile("[<>&\u2028\u2029\\\\']")


def script_text(text: str) -> str:
    """JSON text as the index script writes it: `escaped`, then `literal`."""
    return literal(escaped(text)) if SCRIPT_UNSAFE.search(text) else text


def script(text: str) -> str:
    """The index script around its JSON text, escaped (`script_text`).

    JSON.parse of a string literal parses faster than the same data as a JS literal.
    """
    return f"window.ERRPAGES_SEARCH = JSON.parse('{text}');\n"


def search_files(
    records: tuple[RecordSummary, ...], words_by_id: dict[str, str]
) -> list[OutputFile]:
    """Plan the search index script (meaning words per record come from the record units)."""
    body = script(literal(script_json(search_index(records, words_by_id))))
    return [OutputFile(urls.SEARCH_INDEX_JS, body.encode(), "search index")]
