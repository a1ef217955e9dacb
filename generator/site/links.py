"""Link stage: ids, aliases, related errors and the backlinks computed from them."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping
from itertools import pairwise
from operator import attrgetter

from errpages.diagnostics import Diagnostic, Position, did_you_mean, error, warning
from errpages.site.model import ErrorLinks, LinkRef, RecordSummary

SHORT_TITLE_LENGTH = 60

# Where a field of a record was written; asked only when there is a problem to report,
# as it needs the full record.
Where = Callable[[RecordSummary, str], Position]


def short_text(text: str, limit: int = SHORT_TITLE_LENGTH) -> str:
    """Cut text on a word boundary near `limit` characters, marking the cut with an ellipsis."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit + 1)
    if cut < limit // 2:
        cut = limit
    return text[:cut].rstrip(" ,;:.-") + "…"


def link_ref(record: RecordSummary, label: str) -> LinkRef:
    return LinkRef(
        id=record.id,
        title=label,
        message=record.message,
        exception=record.exception,
        repo=record.repo,
    )


def distinct_labels(records: Iterable[RecordSummary]) -> dict[str, str]:
    """Each error's label, in every listing and as its page's title: its `title` when the
    record has one, else its message cut near SHORT_TITLE_LENGTH characters, or later, at the
    end of the first word where it differs from the other messages cut the same way. Labels
    still equal (equal titles, or equal messages) get the exception, then the repository,
    then the id in brackets: two errors never show the same label."""
    records = list(records)
    texts = {r.id: " ".join(r.message.split()) for r in records}
    labels: dict[str, str] = {}
    by_cut: dict[str, list[str]] = defaultdict(list)
    for record in records:
        if record.title != record.message:
            labels[record.id] = " ".join(record.title.split())
        else:
            by_cut[short_text(texts[record.id])].append(record.id)
    for cut, ids in by_cut.items():
        apart = where_apart({texts[error_id] for error_id in ids})
        for error_id in ids:
            text = texts[error_id]
            labels[error_id] = cut_after(text, apart[text]) if len(apart) > 1 else cut
    by_id = {record.id: record for record in records}
    for extra in (attrgetter("exception"), attrgetter("repo"), attrgetter("id")):
        shown: dict[str, list[str]] = defaultdict(list)
        for error_id, label in labels.items():
            shown[label].append(error_id)
        same = [i for ids in shown.values() if len(ids) > 1 for i in ids]
        if not same:
            break
        for error_id in same:
            labels[error_id] += f" ({extra(by_id[error_id])})"
    return labels


def where_apart(texts: set[str]) -> dict[str, int]:
    """For each text, where it differs from the one that begins most like it. In sorted order
    that one is a neighbour, so the work grows with the number of texts, not its square."""
    ordered = sorted(texts)
    apart = dict.fromkeys(ordered, -1)
    for before, after in pairwise(ordered):
        shared = first_difference(before, after)
        apart[before] = max(apart[before], shared)
        apart[after] = max(apart[after], shared)
    return apart


def first_difference(a: str, b: str) -> int:
    """Where two texts first differ (the shorter one's length when it begins the other)."""
    for index, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return index
    return min(len(a), len(b))


def cut_after(text: str, position: int) -> str:
    """The text up to the end of the word at `position` (an ellipsis where it is cut)."""
    end = text.find(" ", position + 1)
    if end < 0:
        return text
    return text[:end].rstrip(" ,;:.-") + "…"


def index_ids(
    records: list[RecordSummary], where: Where
) -> tuple[dict[str, RecordSummary], list[Diagnostic]]:
    """Map each id to its record, reporting duplicate ids with both files."""
    by_id: dict[str, RecordSummary] = {}
    diagnostics: list[Diagnostic] = []
    for record in sorted(records, key=attrgetter("file")):
        first = by_id.get(record.id)
        if first is not None:
            how = " (derived from repo, exception and message)" if record.id_derived else ""
            diagnostics.append(
                error(
                    where(record, "id"),
                    "id",
                    f"duplicate id {record.id}{how}: also used by {where(first, 'id')}",
                    "every record needs its own id; merge the two records or give one a new id",
                )
            )
            continue
        by_id[record.id] = record
    return by_id, diagnostics


def index_aliases(
    by_id: dict[str, RecordSummary], where: Where
) -> tuple[dict[str, str], list[Diagnostic]]:
    """Map each former id to the record that now carries it."""
    alias_to_id: dict[str, str] = {}
    diagnostics: list[Diagnostic] = []
    for record in by_id.values():
        for index, alias in enumerate(record.aliases):
            if alias != record.id and alias not in by_id and alias not in alias_to_id:
                alias_to_id[alias] = record.id  # the usual case, checked without positions
                continue
            at = where(record, f"aliases[{index}]")
            if alias == record.id:
                diagnostics.append(error(at, "aliases", f"{alias} is this record's own id"))
            elif alias in by_id:
                other = by_id[alias]
                diagnostics.append(
                    error(
                        at,
                        "aliases",
                        f"alias {alias} is the id of another record ({where(other, 'id')})",
                        "an alias is a former id; it cannot belong to a live record",
                    )
                )
            else:
                other = by_id[alias_to_id[alias]]
                diagnostics.append(
                    error(at, "aliases", f"alias {alias} is also claimed by {other.file}")
                )
    return alias_to_id, diagnostics


def resolve_related(
    record: RecordSummary,
    by_id: dict[str, RecordSummary],
    alias_to_id: dict[str, str],
    where: Where,
    drafts: frozenset[str] = frozenset(),
    suggest: Callable[[str], str] = lambda _: "",
) -> tuple[list[str], list[Diagnostic]]:
    """Return the ids this record's `related` list points at, reporting unknown ones
    (with `suggest`'s did-you-mean)."""
    resolved: list[str] = []
    diagnostics: list[Diagnostic] = []
    for index, related_id in enumerate(record.related):
        target = related_id if related_id in by_id else alias_to_id.get(related_id)
        if target == related_id and target != record.id and target not in resolved:
            resolved.append(target)  # the usual case, checked without looking up positions
            continue
        at = where(record, f"related[{index}]")
        if target is None and related_id in drafts:
            diagnostics.append(
                error(
                    at,
                    f"related[{index}]",
                    f"{related_id} is a draft, which is not published",
                    "finish it and remove 'draft: true', or build with --drafts",
                )
            )
            continue
        if target is None:
            # A draft is still being written (scan suggests its related errors, and a draft
            # it names may be deleted as junk): a warning until it is published.
            report = warning if record.draft else error
            diagnostics.append(
                report(
                    at,
                    f"related[{index}]",
                    f"unknown error id {related_id}",
                    suggest(related_id) or "no record has this id or alias",
                )
            )
            continue
        if target != related_id:
            diagnostics.append(
                warning(
                    at,
                    f"related[{index}]",
                    f"{related_id} is a former id of {target}",
                    f"write {target}",
                )
            )
        if target == record.id:
            diagnostics.append(error(at, f"related[{index}]", "an error cannot relate to itself"))
        elif target in resolved:
            diagnostics.append(warning(at, f"related[{index}]", f"{target} is listed twice"))
        else:
            resolved.append(target)
    return resolved, diagnostics


NEAR_IDS = 50  # the most ids a did-you-mean compares an unknown id with


class IdSuggestions:
    """ "Did you mean" for a mistyped id, comparing it only with the ids that share its first
    or last four digits (a typo keeps most of them), at most NEAR_IDS of them: the work per
    unknown id stays bounded however many ids the site has."""

    def __init__(self, ids: Iterable[str]) -> None:
        self.ids = ids
        self.near: dict[str, list[str]] | None = None  # made at the first unknown id

    def __call__(self, unknown: str) -> str:
        if self.near is None:
            self.near = defaultdict(list)
            for known in self.ids:
                for key in (known[:4], "~" + known[-4:]):
                    if len(self.near[key]) < NEAR_IDS:
                        self.near[key].append(known)
        near = self.near.get(unknown[:4], []) + self.near.get("~" + unknown[-4:], [])
        return did_you_mean(unknown, near)


def link_records(
    records: list[RecordSummary], where: Where, include_drafts: bool = False
) -> tuple[list[RecordSummary], LinkGraph, list[Diagnostic]]:
    """Resolve ids, aliases, related lists and backlinks; return the published records by id.

    Drafts take part in the id checks (a draft's id is taken) but are left
    out of the site unless include_drafts.
    """
    all_ids, diagnostics = index_ids(records, where)
    drafts = frozenset(i for i, r in all_ids.items() if r.draft and not include_drafts)
    by_id = {i: r for i, r in all_ids.items() if i not in drafts}
    alias_to_id, problems = index_aliases(by_id, where)
    diagnostics += problems
    related: dict[str, tuple[str, ...]] = {}
    backlinks: dict[str, list[str]] = defaultdict(list)
    ordered = [by_id[i] for i in sorted(by_id)]
    known = by_id.keys()
    suggest = IdSuggestions(known)
    for record in ordered:  # in id order, so each error's backlinks come out sorted
        targets = record.related
        unique = set(targets)
        if not (known >= unique and record.id not in unique and len(unique) == len(targets)):
            # (else each is the id of another published error, once: the usual case)
            resolved, problems = resolve_related(record, by_id, alias_to_id, where, drafts, suggest)
            targets = tuple(resolved)
            diagnostics += problems
        related[record.id] = targets
        for target in targets:
            backlinks[target].append(record.id)
    sorted_backlinks = {target: tuple(ids) for target, ids in backlinks.items()}
    graph = LinkGraph(
        by_id, related, sorted_backlinks, distinct_labels(ordered), neighbours(ordered)
    )
    return ordered, graph, diagnostics


def neighbours(records: Iterable[RecordSummary]) -> dict[str, tuple[str, str]]:
    """Each error's neighbours in its source file: the ids of the errors raised just before
    and just after it ('' where there is none), by line."""
    files: dict[tuple[str, str], list[RecordSummary]] = defaultdict(list)
    for record in records:
        files[record.repo, record.source_path].append(record)
    found = {}
    for in_file in files.values():
        in_file.sort(key=attrgetter("source_line", "id"))
        ids = ["", *(record.id for record in in_file), ""]
        for index in range(1, len(ids) - 1):
            found[ids[index]] = (ids[index - 1], ids[index + 1])
    return found


LinkIds = tuple[tuple[str, ...], tuple[str, ...]]  # related, then backlinks


class LinkGraph(Mapping[str, ErrorLinks]):
    """Each published error's related errors and backlinks, by id.

    A build that changed one record compares ids only; the titled links
    (`graph[id]`) are made for the pages being rendered.
    """

    def __init__(
        self,
        by_id: dict[str, RecordSummary],
        related: dict[str, tuple[str, ...]],
        backlinks: dict[str, tuple[str, ...]],
        labels: dict[str, str],
        neighbours: dict[str, tuple[str, str]],
    ) -> None:
        self.by_id = by_id
        self.related = related
        self.backlinks = backlinks
        self.labels = labels  # each error's label (`distinct_labels`)
        self.neighbours = neighbours  # each error's (`neighbours`)
        self.refs: dict[str, LinkRef] = {}

    def ids(self, error_id: str) -> LinkIds:
        return self.related[error_id], self.backlinks.get(error_id, ())

    def ref(self, error_id: str) -> LinkRef:
        ref = self.refs.get(error_id)
        if ref is None:
            ref = self.refs[error_id] = link_ref(self.by_id[error_id], self.labels[error_id])
        return ref

    def __getitem__(self, error_id: str) -> ErrorLinks:
        related, backlinks = self.ids(error_id)
        refs = tuple(map(self.ref, related)), tuple(map(self.ref, backlinks))
        before, after = self.neighbours[error_id]
        return ErrorLinks(
            *refs,
            self.labels[error_id],
            self.ref(before) if before else None,
            self.ref(after) if after else None,
        )

    def __iter__(self) -> Iterator[str]:
        return iter(self.related)

    def __len__(self) -> int:
        return len(self.related)
