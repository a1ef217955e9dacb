"""Read the reference pages (tests/fixtures/seeds/*.txt) into their sections."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

SEEDS = Path(__file__).resolve().parent / "fixtures" / "seeds"
HEADINGS = (
    "Error message",
    "What it means",
    "Source",
    "Solutions",
    "Example fix",
    "When it happens",
    "Related errors",
)


@dataclass(frozen=True)
class ReferencePage:
    error_id: str
    title_line: str
    short_title: str
    message: str
    meaning: str
    thrown_at: str
    snippet: list[str]
    pinned_commit: str
    solutions: list[str]
    fix_before: str
    fix_after: str
    fix_notes_code: str
    trigger: str
    situations: list[str]
    related_prefixes: list[str]
    footer: str


def split_sections(text: str) -> dict[str, str]:
    pattern = "^(" + "|".join(re.escape(h) for h in HEADINGS) + ")$"
    parts = re.split(pattern, text, flags=re.M)
    sections = {"head": parts[0]}
    for name, body in zip(parts[1::2], parts[2::2], strict=True):
        sections[name] = body.strip("\n")
    return sections


def read_reference(path: Path) -> ReferencePage:
    text = path.read_text(encoding="utf-8")
    s = split_sections(text)
    head = [line for line in s["head"].splitlines() if line.strip()]
    source = s["Source"].split("\n")
    thrown_at = source[0].removeprefix("Thrown at ")
    view = next(i for i, line in enumerate(source) if line.startswith("View on GitHub"))
    snippet = source[2 : view - 1] if source[view - 1] == "" else source[2:view]
    pinned = re.search(r"pinned to (\w+)", source[view])
    fix_lines = s["Example fix"].split("\n")
    notes_start = fix_lines.index("", 3)
    when = s["When it happens"]
    trigger = re.search(r"Trigger: (.*)", when)
    situations = re.search(r"Common situations: (.*)", when)
    related, footer = s["Related errors"].split("\n\n", 1)
    error_id = re.search(r"/api/errors/([0-9a-f]{16})", footer)
    assert pinned and trigger and situations and error_id
    return ReferencePage(
        error_id=error_id.group(1),
        title_line=head[0],
        short_title=head[1],
        message=s["Error message"],
        meaning=s["What it means"],
        thrown_at=thrown_at,
        snippet=snippet,
        pinned_commit=pinned.group(1),
        solutions=[re.sub(r"^\d+\. ", "", line) for line in s["Solutions"].splitlines()],
        fix_before=fix_lines[1],
        fix_after=fix_lines[3],
        fix_notes_code="\n".join(fix_lines[notes_start + 1 :]).strip("\n"),
        trigger=trigger.group(1),
        situations=[item.rstrip(".") for item in situations.group(1).split("; ")],
        related_prefixes=[line.removeprefix("• ") for line in related.splitlines()],
        footer=footer.strip(),
    )


def reference_pages() -> list[ReferencePage]:
    return [read_reference(path) for path in sorted(SEEDS.glob("*.txt"))]
