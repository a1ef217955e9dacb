"""`errpages export python`: a module a library vendors, to link its raised errors to their pages.

The module is the site's message templates as the lookup matcher reads them
(`site.lookup.compile_matcher`: literal runs and the placeholder gaps between
them), written as one JSON string, and the code that matches a raised
exception's class and message against them, in the standard library only
(Python 3.8 and later). The same site gives the same bytes. The module stands
alone (nothing of errpages is imported where it runs): its reading of white space
and of quoted values is lookup.py's, written again for it, and the tests hold
the two to the same values.
"""

from __future__ import annotations

import json

from errpages import __version__
from errpages.site.history import site_wordings
from errpages.site.lookup import compile_matcher
from errpages.site.model import Site

RUNTIME = r'''
import json
import sys
from urllib.parse import urlencode

__all__ = ["url_for", "install_excepthook", "add_note", "BASE_URL", "SITE_TITLE"]

# Line breaks are \n and \r; these are the other white space characters (as errpages reads them).
_SPACES = {ord(c): " " for c in "\t\v\f\u00a0\u1680\u2028\u2029\u202f\u205f\u3000"}
_SPACES.update((c, " ") for c in range(0x2000, 0x200B))


def _index():
    """The errors by exception class, then by how their message begins."""
    index = {}
    for error_id, exception, literals, names, conversions, *former in json.loads(_DATA):
        entry = (error_id, literals, names, conversions, former[0] if former else "")
        by_start = index.setdefault(exception, ({}, []))
        if names[0]:  # the message begins with a placeholder
            by_start[1].append(entry)
        else:
            head = literals[0][:_HEAD]
            by_start[0].setdefault(len(head), {}).setdefault(head, []).append(entry)
    return index


def _lined(text):
    """Runs of white space as one space, or one line break when they hold one."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").translate(_SPACES)
    while "  " in text:
        text = text.replace("  ", " ")
    text = text.replace(" \n", "\n").replace("\n ", "\n")
    while "\n\n" in text:
        text = text.replace("\n\n", "\n")
    return text.strip(" \n")


def _unquoted(text):
    """The string a quoted Python string literal stands for; None for other text."""
    if len(text) < 2 or text[0] not in "'\"" or text[-1] != text[0]:
        return None
    result, index, end = [], 1, len(text) - 1
    while index < end:
        if text[index] == "\\" and index + 1 < end and text[index + 1] in "\\'\"":
            index += 1
        result.append(text[index])
        index += 1
    return "".join(result)


def _match(entry, lined, flat):
    """The placeholders' values when the whole message is this template, else None: each
    literal run at its first place after the one before (the last one at the end, unless a
    placeholder ends the template), at least one character between two, never a line break
    in a value."""
    error_id, literals, names, conversions, _ = entry
    position, starts = 0, []
    last = len(literals) - 1
    for index, literal in enumerate(literals):
        need = 1 if names[index] else 0
        if index == last and not names[-1]:
            found = len(flat) - len(literal)
            ok = found >= position + need and flat.endswith(literal)
        else:
            found = flat.find(literal, position + need)
            ok = found >= 0
        if not ok or (index == 0 and not need and found != 0):
            return None
        if need and "\n" in lined[position:found]:
            return None
        starts.append(found)
        position = found + len(literal)
    if names[-1] and (position >= len(flat) or "\n" in lined[position:]):
        return None
    values = {}
    ends = [start + len(literal) for start, literal in zip(starts, literals)]
    for name, conversion, begin, end in zip(names, conversions, [0] + ends, starts + [len(flat)]):
        if name and name not in values:
            value = flat[begin:end].strip(" ")
            string = _unquoted(value) if conversion == "r" else None
            values[name] = value if string is None else string
    return values


def _query(values):
    """The values as a query string. Text holding a lone surrogate (a file name that is not
    UTF-8, an argument from sys.argv) goes as the bytes it was read from, percent-escaped;
    one that no bytes stand for, with "?" in its place."""
    pairs = []
    for name, value in values.items():
        try:
            data = value.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:
            data = value.encode("utf-8", "replace")
        pairs.append((name, data))
    return urlencode(pairs)


def url_for(exc):
    """The page of a raised exception, with the values found in its message, or None. Never
    raises: an exception whose message cannot be had (its __str__ raises, or gives no
    string) has no page."""
    return _found(exc)[0]


def _found(exc):
    """The page of a raised exception and, when its message is as older releases worded
    it, which ones; (None, "") when it has no page."""
    try:
        return _page(exc)
    except Exception:
        return None, ""


def _see(exc):
    """The line that points a reader at the exception's page, or None."""
    url, former = _found(exc)
    if not url:
        return None
    return "See " + url + (" (the message as " + former + " worded it)" if former else "")


def _page(exc):
    message = str(exc)
    if isinstance(exc, KeyError) and len(exc.args) == 1 and isinstance(exc.args[0], str):
        message = exc.args[0]  # str() of a KeyError is its message quoted
    lined = _lined(message)
    flat = lined.replace("\n", " ")
    for kind in type(exc).__mro__:
        by_start = _INDEX.get(kind.__name__)
        if by_start is None:
            continue
        prefixed, others = by_start
        candidates = [e for size, heads in prefixed.items() for e in heads.get(flat[:size], ())]
        for entry in candidates + others:
            values = _match(entry, lined, flat)
            if values is not None:
                query = "?" + _query(values) if values else ""
                return BASE_URL + "errors/" + entry[0] + "/" + query, entry[4]
    return None, ""


def install_excepthook():
    """After the traceback of an uncaught exception that has a page, print `See <its URL>`.
    The hook in place is kept and called first; installing twice changes nothing."""
    previous = sys.excepthook
    if getattr(previous, "errpages_links", False):
        return

    def hook(kind, value, traceback):
        previous(kind, value, traceback)
        see = _see(value) if value is not None else None
        if see:
            try:
                sys.stderr.write(see + "\n")
            except Exception:  # no stderr, or one that cannot write the base URL
                pass

    hook.errpages_links = True
    sys.excepthook = hook


def add_note(exc):
    """On Python 3.11 and later, add `See <its URL>` to the exception's notes (shown with its
    traceback wherever it is printed or logged); the exception, for `raise add_note(…)`.
    Never raises: notes that cannot be added are left as they are."""
    try:
        note = _see(exc)
        if note and note not in getattr(exc, "__notes__", ()):
            exc.add_note(note)
    except Exception:
        pass
    return exc


_INDEX = _index()
'''
HEAD = 16  # how much of a message's first literal run the index keys on


def python_module(site: Site) -> tuple[bytes, int]:
    """The module's bytes, and how many errors it links: the published ones (no drafts, no
    retired ones) of a site that has a base URL, sorted by id."""
    entries: list[list[object]] = []
    wordings = site_wordings(site.records, site.histories)
    for record in site.records:
        if record.draft or record.retired:
            continue
        for wording in (None, *wordings.get(record.id, ())):
            matcher = compile_matcher(record, wording)
            if not matcher.literals:
                continue  # a template of placeholders only matches any message
            names = [gap[0] if gap else "" for gap in matcher.gaps]
            literals, conversions = matcher.literals, matcher.conversions
            entry: list[object] = [record.id, matcher.exception, literals, names, conversions]
            entries.append(entry if wording is None else [*entry, wording.releases])
    data = json.dumps(entries, ensure_ascii=True, separators=(",", ":"))
    # Everything taken from the content goes into the module through repr() only: a title
    # or a message is data, never code.
    head = (
        '"""Links from raised errors to their pages: url_for(exc), install_excepthook(),\n'
        "add_note(exc). Made by `errpages export python`; do not edit: export it again.\n"
        '"""\n'
    )
    constants = (
        f"\nSITE_TITLE = {site.config.title!r}\n"
        f"BASE_URL = {site.config.base_url!r}\n"
        f"ERRPAGES_VERSION = {__version__!r}\n"
        f"_HEAD = {HEAD}\n"
        "# [id, exception, literal runs, the placeholder before each run and after the last,\n"
        "#  and its !conversion (and, for a former wording, the releases that raised it)],\n"
        "#  as errpages lookup reads each message template\n"
        f"_DATA = {data!r}\n"
    )
    return (head + constants + RUNTIME).encode(), len({entry[0] for entry in entries})
