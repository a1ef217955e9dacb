"""The manifest of every id ever published, so that no published link can break.

`content/published-ids.txt` lists one id per line. A build adds the ids it
publishes; a build in which a listed id has no page (it is neither a record's
id, nor one of a record's aliases) fails and names the id. Commit the file
with the content: it is how the next build knows what was promised.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from generator.diagnostics import Diagnostic, Position, error
from generator.files import atomic_write_text
from generator.schema import ID_RE

MANIFEST = "published-ids.txt"
HEADER = (
    "# Every error id this site has published, one per line, kept by `errpages build`.\n"
    "# Never remove a line: a published id must keep a page (its record, an alias, or\n"
    "# a record marked retired). Commit this file with the content.\n"
)


@dataclass(frozen=True)
class Manifest:
    path: Path
    ids: dict[str, int]  # id -> line number


def read_manifest(path: Path, shown: str) -> tuple[Manifest, list[Diagnostic]]:
    """Read the manifest (missing: empty); malformed lines are errors."""
    ids: dict[str, int] = {}
    diagnostics = []
    if not path.is_file():
        return Manifest(path, ids), []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        if not ID_RE.match(text):
            diagnostics.append(
                error(
                    Position(shown, number, 1),
                    "",
                    f"{text!r} is not an id (16 lowercase hex digits)",
                )
            )
            continue
        ids.setdefault(text, number)
    return Manifest(path, ids), diagnostics


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
                "or keep the record and mark it `retired`",
            )
        )
    return diagnostics


def update_manifest(manifest: Manifest, published: set[str]) -> bool:
    """Add newly published ids (never remove one); True when the file changed."""
    new = published - manifest.ids.keys()
    if not new and manifest.path.is_file():
        return False
    if not manifest.ids and not published:
        return False
    text = HEADER + "".join(f"{error_id}\n" for error_id in sorted(manifest.ids.keys() | new))
    if manifest.path.is_file() and manifest.path.read_text(encoding="utf-8") == text:
        return False
    atomic_write_text(manifest.path, text)
    return True
