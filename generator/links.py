"""Link stage: ids, aliases, related errors and the backlinks computed from them."""

from __future__ import annotations

from collections import defaultdict

from generator.diagnostics import Diagnostic, did_you_mean, error, warning
from generator.model import ErrorLinks, LinkRef, Record

SHORT_TITLE_LENGTH = 60


def short_text(text: str, limit: int = SHORT_TITLE_LENGTH) -> str:
    """Cut text on a word boundary near `limit` characters, marking the cut with an ellipsis."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit + 1)
    if cut < limit // 2:
        cut = limit
    return text[:cut].rstrip(" ,;:.-") + "…"


def link_ref(record: Record) -> LinkRef:
    return LinkRef(
        id=record.id,
        title=short_text(record.message),
        message=record.message,
        exception=record.exception,
        repo=record.repo,
    )


def index_ids(records: list[Record]) -> tuple[dict[str, Record], list[Diagnostic]]:
    """Map each id to its record, reporting duplicate ids with both files."""
    by_id: dict[str, Record] = {}
    diagnostics: list[Diagnostic] = []
    for record in sorted(records, key=lambda r: r.file):
        first = by_id.get(record.id)
        if first is not None:
            how = " (derived from repo, exception and message)" if record.id_derived else ""
            diagnostics.append(
                error(
                    record.position("id"),
                    "id",
                    f"duplicate id {record.id}{how}: also used by {first.position('id')}",
                    "every record needs its own id; merge the two records or give one a new id",
                )
            )
            continue
        by_id[record.id] = record
    return by_id, diagnostics


def index_aliases(by_id: dict[str, Record]) -> tuple[dict[str, str], list[Diagnostic]]:
    """Map each former id to the record that now carries it."""
    alias_to_id: dict[str, str] = {}
    diagnostics: list[Diagnostic] = []
    for record in by_id.values():
        for index, alias in enumerate(record.aliases):
            where = record.position(f"aliases[{index}]")
            if alias == record.id:
                diagnostics.append(error(where, "aliases", f"{alias} is this record's own id"))
            elif alias in by_id:
                other = by_id[alias]
                diagnostics.append(
                    error(
                        where,
                        "aliases",
                        f"alias {alias} is the id of another record ({other.position('id')})",
                        "an alias is a former id; it cannot belong to a live record",
                    )
                )
            elif alias in alias_to_id:
                other = by_id[alias_to_id[alias]]
                diagnostics.append(
                    error(where, "aliases", f"alias {alias} is also claimed by {other.file}")
                )
            else:
                alias_to_id[alias] = record.id
    return alias_to_id, diagnostics


def resolve_related(
    record: Record,
    by_id: dict[str, Record],
    alias_to_id: dict[str, str],
    drafts: frozenset[str] = frozenset(),
) -> tuple[list[str], list[Diagnostic]]:
    """Return the ids this record's `related` list points at, reporting unknown ones."""
    resolved: list[str] = []
    diagnostics: list[Diagnostic] = []
    for index, related_id in enumerate(record.related):
        target = related_id if related_id in by_id else alias_to_id.get(related_id)
        if target == related_id and target != record.id and target not in resolved:
            resolved.append(target)  # the usual case, checked without looking up positions
            continue
        where = record.position(f"related[{index}]")
        if target is None and related_id in drafts:
            diagnostics.append(
                error(
                    where,
                    f"related[{index}]",
                    f"{related_id} is a draft, which is not published",
                    "finish it and remove 'draft: true', or build with --drafts",
                )
            )
            continue
        if target is None:
            diagnostics.append(
                error(
                    where,
                    f"related[{index}]",
                    f"unknown error id {related_id}",
                    did_you_mean(related_id, by_id) or "no record has this id or alias",
                )
            )
            continue
        if target != related_id:
            diagnostics.append(
                warning(
                    where,
                    f"related[{index}]",
                    f"{related_id} is a former id of {target}",
                    f"write {target}",
                )
            )
        if target == record.id:
            diagnostics.append(
                error(where, f"related[{index}]", "an error cannot relate to itself")
            )
        elif target in resolved:
            diagnostics.append(warning(where, f"related[{index}]", f"{target} is listed twice"))
        else:
            resolved.append(target)
    return resolved, diagnostics


def link_records(
    records: list[Record], include_drafts: bool = False
) -> tuple[list[Record], dict[str, ErrorLinks], list[Diagnostic]]:
    """Resolve ids, aliases, related lists and backlinks; return the published records by id.

    Drafts take part in the id checks (a draft's id is taken) but are left
    out of the site unless include_drafts.
    """
    all_ids, diagnostics = index_ids(records)
    drafts = frozenset(i for i, r in all_ids.items() if r.draft and not include_drafts)
    by_id = {i: r for i, r in all_ids.items() if i not in drafts}
    alias_to_id, problems = index_aliases(by_id)
    diagnostics += problems
    related: dict[str, list[str]] = {}
    backlinks: dict[str, set[str]] = defaultdict(set)
    for record in by_id.values():
        related[record.id], problems = resolve_related(record, by_id, alias_to_id, drafts)
        diagnostics += problems
        for target in related[record.id]:
            backlinks[target].add(record.id)
    refs = {record_id: link_ref(record) for record_id, record in by_id.items()}
    links = {
        record_id: ErrorLinks(
            related=tuple(refs[i] for i in related[record_id]),
            backlinks=tuple(refs[i] for i in sorted(backlinks[record_id])),
        )
        for record_id in by_id
    }
    ordered = [by_id[i] for i in sorted(by_id)]
    return ordered, links, diagnostics
