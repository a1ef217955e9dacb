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
from errpages.render.markdown import CODE, TerminalBlock, terminal_blocks
from errpages.reveal import reveal_text
from errpages.site import conditions
from errpages.site.history import site_wordings
from errpages.site.lookup import compile_matcher
from errpages.site.model import Record, Site

RUNTIME = r'''
import json
import sys
import warnings
from urllib.parse import urlencode

__all__ = [
    "url_for", "install_excepthook", "install_showwarning", "add_note", "BASE_URL", "SITE_TITLE"
]

# Line breaks are \n and \r; these are the other white space characters (as errpages reads them).
_SPACES = {ord(c): " " for c in "\t\v\f\u00a0\u1680\u2028\u2029\u202f\u205f\u3000"}
_SPACES.update((c, " ") for c in range(0x2000, 0x200B))


def _index():
    """The errors by exception class, then by how their message begins."""
    index = {}
    for order, (error_id, exception, literals, names, conversions, *former) in enumerate(
        json.loads(_DATA)
    ):
        entry = (error_id, literals, names, conversions, former[0] if former else "", order)
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
    literals, names, conversions = entry[1:4]
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


def _find(kind, message):
    """The error of this class whose template the whole message is, the one that pins down
    the most literal text when several are (as errpages lookup ranks them; then by id, its
    message before former wordings): (id, url, former)."""
    lined = _lined(message)
    flat = lined.replace("\n", " ")
    prefixed, others = _INDEX.get(kind, ({}, []))
    candidates = [e for size, heads in prefixed.items() for e in heads.get(flat[:size], ())]
    best = None
    for entry in candidates + others:
        values = _match(entry, lined, flat)
        if values is not None:
            rank = (-sum(len(literal.replace(" ", "")) for literal in entry[1]), entry[5])
            if best is None or rank < best[0]:
                best = (rank, entry, values)
    if best is None:
        return None
    _, entry, values = best
    query = "?" + _query(values) if values else ""
    return entry[0], BASE_URL + "errors/" + entry[0] + "/" + query, entry[4]


def _page(exc):
    message = str(exc)
    if isinstance(exc, KeyError) and len(exc.args) == 1 and isinstance(exc.args[0], str):
        message = exc.args[0]  # str() of a KeyError is its message quoted
    for kind in type(exc).__mro__:
        found = _find(kind.__name__, message) if kind.__name__ in _INDEX else None
        if found is not None:
            return found[1], found[2]
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


def install_showwarning():
    """After a warning that has a page is shown, print `See <its URL>` under it, where it was
    shown. The function in place is kept and called first; installing twice changes
    nothing."""
    previous = warnings.showwarning
    if getattr(previous, "errpages_links", False):
        return

    def show(message, category, filename, lineno, file=None, line=None):
        previous(message, category, filename, lineno, file, line)
        try:
            see = _see(message if isinstance(message, Warning) else category(message))
            if see:
                (sys.stderr if file is None else file).write(see + "\n")
        except Exception:  # a category that cannot be made, or a file that cannot write
            pass

    show.errpages_links = True
    warnings.showwarning = show


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
EXPLAIN = r'''
import re

_CONTROL = {c: "\\x%02x" % c for c in list(range(32)) + list(range(127, 160)) if c != 10}
_LINE_RE = re.compile(r"(?:^| )((?:[A-Za-z_][A-Za-z0-9_]*\.)*[A-Za-z_][A-Za-z0-9_]*): (.+)$", re.M)


def _explained(text):
    """The errors a traceback or log shows, the raised one (the last) first: [(id, url,
    the releases of a former wording or "")]."""
    lined = _lined(text[-4000000:])
    found = []
    lines = _LINE_RE.findall(lined)
    for number, (exception, message) in enumerate(reversed(lines)):
        kind = exception.rsplit(".", 1)[-1]
        tries = [message]
        if number == 0:  # the last one's message may run over several lines
            tail = lined[lined.rfind(exception + ": " + message) + len(exception) + 2 :]
            tries += [tail] if "\n" in tail else []
        for attempt in tries:
            if kind == "KeyError" and "\n" not in attempt:
                attempt = _unquoted(attempt) or attempt
            hit = _find(kind, attempt)
            if hit and hit[0] not in [f[0] for f in found]:
                found.append(hit)
                break
    return found


def _wrapped(blocks, width, indent):
    """Blocks of text as lines: wrapped to the width, code as it is, lists marked."""
    import textwrap

    out = []
    for depth, marker, text in blocks:
        lead = indent + "  " * depth
        if marker == "code":
            out.extend((lead + "    " + line).rstrip() for line in text.split("\n"))
            continue
        for number, paragraph in enumerate(text.split("\n")):
            first = lead + (marker if number == 0 else " " * len(marker))
            filled = textwrap.fill(
                paragraph,
                width=max(width, len(first) + 20),
                initial_indent=first,
                subsequent_indent=lead + " " * len(marker),
                break_long_words=False,
                break_on_hyphens=False,
            )
            out.append(filled or first.rstrip())
    return out


def explain(error_id, url=None, former="", width=None):
    """An error's page as text for a terminal (its message, its URL, then each section),
    wrapped to the terminal's width; None for an id no error has."""
    import shutil

    texts, aliases = json.loads(_TEXT)
    error_id = aliases.get(error_id, error_id)
    if error_id not in texts:
        return None
    exception, message, title, sections = texts[error_id]
    if width is None:
        width = min(shutil.get_terminal_size((80, 24)).columns, 100) - 1
    lines = [exception + ": " + message]
    if title != message:
        lines.append(title)
    lines.append(url or BASE_URL + "errors/" + error_id + "/")
    if former:
        lines.append("(the message as " + former + " worded it)")
    for heading, blocks in sections:
        lines += ["", heading] + _wrapped(blocks, width, "  ")
    return "\n".join(lines).translate(_CONTROL) + "\n"


def main(argv=None):
    """`python -m <this module> explain [ID | --text TEXT]`: the page of the error an id
    names, or of each error a traceback shows (standard input by default); exit 1 when none."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m " + (__spec__.name if __spec__ else "errors"),
        description="The errors of " + SITE_TITLE + " (" + BASE_URL + "), offline.",
    )
    commands = parser.add_subparsers(dest="command")
    command = commands.add_parser("explain", help="print the page of an error")
    command.add_argument("id", nargs="?", help="the error's id (default: read a traceback)")
    command.add_argument("--text", help="a traceback or message (default: standard input)")
    arguments = parser.parse_args(argv)
    if arguments.command is None:
        parser.error("say what to do: explain")
    if arguments.id is not None and arguments.text is not None:
        parser.error("give an id or --text, not both")
    if arguments.id is not None:
        pages = [explain(arguments.id)]
        missing = "no error has the id " + repr(arguments.id)
    else:
        text = arguments.text if arguments.text is not None else sys.stdin.read()
        pages = [explain(found, url, former) for found, url, former in _explained(text)]
        missing = "no error of " + SITE_TITLE + " matches that text"
    pages = [page for page in pages if page]
    if not pages:
        sys.stderr.write((missing + "\n").translate(_CONTROL))
        return 1
    sys.stdout.write("\n".join(pages))
    return 0


if __name__ == "__main__":
    sys.exit(main())
'''
HEAD = 16  # how much of a message's first literal run the index keys on


def python_module(site: Site, explain: bool = False) -> tuple[bytes, int]:
    """The module's bytes, and how many errors it links: the published ones (no drafts, no
    retired ones) of a site that has a base URL, sorted by id. With `explain`, each error's
    text too, and the `explain` command that prints it in a terminal."""
    entries: list[list[object]] = []
    texts: dict[str, list[object]] = {}
    aliases: dict[str, str] = {}
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
        if explain:
            texts[record.id] = explanation(site.record(record))
            aliases.update(dict.fromkeys(record.aliases, record.id))
    data = json.dumps(entries, ensure_ascii=True, separators=(",", ":"))
    # Everything taken from the content goes into the module through repr() only: a title
    # or a message is data, never code.
    head = (
        '"""Links from raised errors to their pages: url_for(exc), install_excepthook(),\n'
        "add_note(exc)."
        + (" `python -m <this module> explain` prints an error's page." if explain else "")
        + "\nMade by `errpages export python`; do not edit: export it again.\n"
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
    module = head + constants + RUNTIME
    if explain:
        text = json.dumps([texts, aliases], ensure_ascii=True, separators=(",", ":"))
        module += (
            "# [{id: [exception, message, title, [[heading, [[depth, marker, text], ...]],\n"
            "#  ...]]}, {alias: id}]: each error's page as text\n"
            f"_TEXT = {text!r}\n" + EXPLAIN
        )
    return module.encode(), len({entry[0] for entry in entries})


def explanation(record: Record) -> list[object]:
    """An error's page as the terminal shows it: its sections, in the page's order."""
    meaning = terminal_blocks(record.meaning)
    if raised := conditions.beside_code(record):
        meaning += terminal_blocks(conditions.markdown(raised))
    sections: list[list[object]] = [["What it means", meaning]]
    solutions: list[TerminalBlock] = []
    for number, solution in enumerate(record.solutions, 1):
        blocks = terminal_blocks(solution)
        if blocks and blocks[0][1] != CODE:
            blocks[0][1] = f"{number}. "
        else:
            blocks.insert(0, [0, f"{number}. ", ""])
        solutions += [
            [depth + 1 if index else depth, *rest] for index, (depth, *rest) in enumerate(blocks)
        ]
    sections.append(["Solutions", solutions])
    if record.example_fix is not None:
        fix = record.example_fix
        blocks = [[0, "", "Before:"], [0, CODE, shown(fix.before)]]
        blocks += [[0, "", "After:"], [0, CODE, shown(fix.after)]]
        sections.append(["Example fix", blocks + terminal_blocks(fix.notes)])
    if record.when is not None and (record.when.trigger or record.when.situations):
        when = terminal_blocks(record.when.trigger) if record.when.trigger else []
        for situation in record.when.situations:
            when += [
                [depth, marker or "- ", text] for depth, marker, text in terminal_blocks(situation)
            ]
        sections.append(["When it happens", when])
    return [shown(record.exception), shown(record.message), shown(record.title), sections]


def shown(text: str) -> str:
    """Plain text as a terminal may print it: hidden and control characters as markers."""
    return reveal_text(text.replace("\r\n", "\n").replace("\r", "\n").replace("\t", "    "))
