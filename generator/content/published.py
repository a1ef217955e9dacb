"""The registry of published ids, so that no link that went live can break.

`content/published-ids.txt` lists one id per line (`#` starts a comment). A
build only reads it: an id listed there that has no page any more (no record
has it, none lists it in `aliases`) fails the build. Ids are added by
`errpages ids record`, run once a site has been deployed, so the registry holds
only what really went live; `errpages ids forget` takes back an id recorded by
mistake that never was. Neither ever touches a line it was not asked about: the
file is kept byte for byte (a BOM, CRLF line ends), and only CR, LF and CRLF
end a line (a form feed or U+0085 in a comment does not).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from errpages.diagnostics import Diagnostic, Position, error
from errpages.content.schema import ID_RE
from errpages.site.model import RecordSummary

MANIFEST = "published-ids.txt"
HEADER = (
    "# Every error id this site has published, one per line. A build fails when one of\n"
    "# them has no page: keep its record (mark it `retired` when no longer raised), or\n"
    "# list the id in the `aliases` of the record that replaced it. Add ids after each\n"
    "# deploy with `errpages ids record`, and commit this file with the content.\n"
)
# The header the first versions wrote, when every build added ids; replaced by HEADER.
OLD_HEADER = (
    "# Every error id this site has published, one per line, kept by `errpages build`.\n"
    "# Never remove a line: a published id must keep a page (its record, an alias, or\n"
    "# a record marked retired). Commit this file with the content.\n"
)


@dataclass(frozen=True)
class Manifest:
    path: Path
    ids: dict[str, int]  # id -> line number
    text: str = ""  # exactly as read, so that adding or taking back ids keeps every other line


LINE_RE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
LINE_END_RE = re.compile(r"\r\n|\r|\n")


def lines(text: str) -> list[str]:
    """The text's lines, each with its own line end (the last may have none)."""
    return LINE_RE.findall(text)


def entry(line: str) -> str:
    """What a line lists: its text before any `#`, without spaces, line end or BOM."""
    return line.lstrip("\ufeff").split("#", 1)[0].strip()


def parse_manifest(path: Path, shown: str, text: str) -> tuple[Manifest, list[Diagnostic]]:
    """Read the registry's text; a line that is not an id (or a comment) is an error."""
    ids: dict[str, int] = {}
    diagnostics = []
    for number, line in enumerate(lines(text), start=1):
        listed = entry(line)
        if not listed:
            continue
        if not ID_RE.fullmatch(listed):
            diagnostics.append(
                error(
                    Position(shown, number, 1),
                    "",
                    f"{listed!r} is not an id (16 lowercase hex digits)",
                )
            )
            continue
        ids.setdefault(listed, number)
    return Manifest(path, ids, text), diagnostics


def check_published(
    manifest: Manifest, shown: str, pages: set[str], drafts: set[str]
) -> list[Diagnostic]:
    """Every published id must still have a page: a record or an alias redirect."""
    diagnostics = []
    for error_id, line in sorted(manifest.ids.items(), key=lambda item: item[1]):
        if error_id in pages:
            continue
        why = "is now a draft, which is not published" if error_id in drafts else "has no page"
        diagnostics.append(
            error(
                Position(shown, line, 1),
                "",
                f"published id {error_id} {why}",
                "restore its record, list it in the `aliases` of the record that replaced it, "
                "or keep the record and mark it `retired`; if it never went live, "
                f"take it back with `errpages ids forget {error_id}`",
            )
        )
    return diagnostics


def with_recorded(manifest: Manifest, published: Iterable[str]) -> tuple[str, list[str]]:
    """The registry's text with the ids not yet listed added at its end (ending as its lines
    end), and those ids; the first versions' header is replaced."""
    new = sorted(set(published) - manifest.ids.keys())
    text = manifest.text or HEADER
    first_end = LINE_END_RE.search(text)
    end = first_end.group() if first_end else "\n"
    found = lines(text)
    old = len(lines(OLD_HEADER))
    if "".join(found[:old]).lstrip("\ufeff").replace(end, "\n") == OLD_HEADER:
        bom = "\ufeff" if text.startswith("\ufeff") else ""
        found = [bom + HEADER.replace("\n", end), *found[old:]]
    if not found[-1].endswith(("\n", "\r")):
        found[-1] += end
    return "".join(found) + "".join(error_id + end for error_id in new), new


def without(manifest: Manifest, forgotten: Iterable[str]) -> str:
    """The registry's text without the lines that list these ids (every other line kept as it
    is, byte for byte)."""
    gone = set(forgotten)
    return "".join(line for line in lines(manifest.text) if entry(line) not in gone)


def published_ids(records: Iterable[RecordSummary]) -> set[str]:
    """Every id these errors are published under: their own and their former ones."""
    return {name for record in records for name in (record.id, *record.aliases)}
