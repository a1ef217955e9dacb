"""The registry of published ids, so that no link that went live can break.

`content/published-ids.txt` lists one id per line (`#` starts a comment). A
build only reads it: an id listed there that has no page any more (no record
has it, none lists it in `aliases`) fails the build. Ids are added by
`errpages ids record`, run once a site has been deployed, so the registry holds
only what really went live; `errpages ids forget` takes back an id recorded by
mistake that never was. Neither ever touches a line it was not asked about.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from generator.diagnostics import Diagnostic, Position, error
from generator.content.schema import ID_RE

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
    text: str = ""  # as read, so that adding or taking back ids keeps every other line


def parse_manifest(path: Path, shown: str, text: str) -> tuple[Manifest, list[Diagnostic]]:
    """Read the registry's text; a line that is not an id (or a comment) is an error."""
    ids: dict[str, int] = {}
    diagnostics = []
    for number, line in enumerate(text.splitlines(), start=1):
        entry = line.split("#", 1)[0].strip()
        if not entry:
            continue
        if not ID_RE.fullmatch(entry):
            diagnostics.append(
                error(
                    Position(shown, number, 1),
                    "",
                    f"{entry!r} is not an id (16 lowercase hex digits)",
                )
            )
            continue
        ids.setdefault(entry, number)
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
    """The registry's text with the ids not yet listed added at its end, and those ids."""
    new = sorted(set(published) - manifest.ids.keys())
    text = manifest.text or HEADER
    if text.startswith(OLD_HEADER):
        text = HEADER + text[len(OLD_HEADER) :]
    if text and not text.endswith("\n"):
        text += "\n"
    return text + "".join(f"{error_id}\n" for error_id in new), new


def without(manifest: Manifest, forgotten: Iterable[str]) -> str:
    """The registry's text without the lines that list these ids (comments and all else kept)."""
    gone = set(forgotten)
    kept = [
        line
        for line in manifest.text.splitlines(keepends=True)
        if line.split("#", 1)[0].strip() not in gone
    ]
    return "".join(kept)
