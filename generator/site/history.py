"""How an error's history reads: at a glance under its title, change by change below, and
as data in the JSON API."""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from errpages.diagnostics import Diagnostic, Position, warning
from errpages.site import urls
from errpages.site.messages import canonical
from errpages.site.model import (
    UNRELEASED,
    VERBS,
    ErrorHistory,
    Histories,
    HistoryFace,
    RaisedRun,
    RecordSummary,
    RepositoryHistory,
    Run,
    SiteConfig,
    UnreadRun,
    Wording,
)

GLANCE_CHANGES = 3  # the latest changes shown at a glance (the History section lists all)


def release_label(name: str) -> str:
    """A release's name as a reader reads it."""
    return "unreleased code" if name == UNRELEASED else name


def glance(history: ErrorHistory) -> list[str]:
    """The line under the title: "Raised in 7.0 – 8.1.3", "reworded in 8.0.0", "not raised
    since 8.2.0" (or "Unreleased"), and which releases could not be read; "issued" for a
    warning."""
    runs = history.raised()
    if not runs:
        return []
    first, last, since = runs[0].first, runs[-1].last, history.not_raised_since
    verb = VERBS[runs[0].kind].capitalize()
    if first.name == UNRELEASED:
        parts = ["Unreleased: in no release yet"]
    elif since is None:
        parts = [f"{verb} since {first.name}"]
    else:
        span = first.name if first == last else f"{first.name} – {release_label(last.name)}"
        parts = [f"{verb} in {span}"]
    parts += [f"{span_label(history, *span)} could not be read" for span in spans(history.unread)]
    shown = [
        f"{change} in {after.first.name}"
        for before, after in itertools.pairwise(runs)
        for change in changes(history, before, after, moves=False)  # the History section's
    ]
    parts += shown[-GLANCE_CHANGES:]
    if since is not None:
        parts.append(f"not {VERBS[runs[-1].kind]} since {since.name}")
    return parts


def span_label(history: ErrorHistory, first: int, until: int) -> str:
    """Releases side by side, as a reader reads them: "1.0", "1.0 – 1.4"."""
    start, end = (release_label(history.releases[i].name) for i in (first, until - 1))
    return start if until - first == 1 else f"{start} – {end}"


def gone_between(history: ErrorHistory, before: RaisedRun, after: RaisedRun) -> bool:
    """Whether some release between two runs was read and does not raise the error."""
    return before.until < after.first_index and not history.unread_between(
        before.until, after.first_index
    )


def changes(
    history: ErrorHistory, before: RaisedRun, after: RaisedRun, moves: bool = True
) -> list[str]:
    """What changed from one run to the next, in words (a line moved is no change; another
    file is, and other conditions around the raise, with `moves`: the History section's)."""
    if gone_between(history, before, after):
        return [f"gone after {before.last.name}, back"]
    found = []
    if before.message != after.message and canonical(before.message) != canonical(after.message):
        found.append("reworded")
    if (
        before.exception.rsplit(".", 1)[-1] != after.exception.rsplit(".", 1)[-1]
        or before.kind != after.kind
    ):
        found.append(f"{VERBS[after.kind]} as {after.exception}")
    if moves and before.path != after.path:
        found.append(f"moved to {after.path}")
    if moves and before.conditions != after.conditions:
        found.append("conditions changed")
    return found


@dataclass(frozen=True)
class Change:
    """One row of the History section."""

    release: str
    what: str
    former: str  # the message before, when it was reworded
    message: str  # the message from this release on
    exception: str
    where: str  # path:line in that release
    url: str  # that line in that release, on the source host
    # When the conditions changed: what held around the raise before, and from this release on
    former_conditions: tuple[str, ...] | None = None
    conditions: tuple[str, ...] = ()


def history_changes(history: ErrorHistory, repo: str, config: SiteConfig) -> list[Change]:
    """Each release where something changed, oldest first; each links to the raise in that
    release (for one that no longer raises it, in the last that did), or to the file that
    could not be read."""
    releases = history.releases

    def read(index: int) -> bool:
        return not history.unread_between(index, index + 1)

    def row(index: int, run: RaisedRun, what: str, former: str = "") -> tuple[int, Change]:
        shown = run.last if index >= run.until else releases[index]
        url = urls.line_url(config, repo, shown.commit, run.path, run.line, run.line, run.line)
        where, label = f"{run.path}:{run.line}", release_label(releases[index].name)
        return index, Change(label, what, former, run.message, run.exception, where, url)

    rows: list[tuple[int, Change]] = []
    runs = history.raised()
    for previous, run, following in zip((None, *runs), runs, (*runs[1:], None), strict=False):
        if previous is None:
            before = run.first_index > 0 and read(run.first_index - 1)
            verb = VERBS[run.kind]
            rows.append(row(run.first_index, run, f"first {verb}" if before else verb))
        elif gone_between(history, previous, run):
            rows.append(row(run.first_index, run, f"{VERBS[run.kind]} again"))
        elif found := changes(history, previous, run):
            index, change = row(run.first_index, run, ", ".join(found))
            if "reworded" in found:
                change = dataclasses.replace(change, former=previous.message)
            if "conditions changed" in found:
                change = dataclasses.replace(
                    change, former_conditions=previous.conditions, conditions=run.conditions
                )
            rows.append((index, change))
        end = following.first_index if following else len(releases)
        if (gone := next((i for i in range(run.until, end) if read(i)), None)) is not None:
            rows.append(row(gone, run, f"no longer {VERBS[run.kind]}"))
    for first, until, (path, problem) in unread_files(history):
        url = urls.line_url(config, repo, releases[first].commit, path, 1, 1, 1)
        label = span_label(history, first, until)
        what = f"could not be read (does not parse: {problem})"
        rows.append((first, Change(label, what, "", "", "", path, url)))
    return [change for _, change in sorted(rows, key=lambda item: item[0])]


def unread_files(history: ErrorHistory) -> list[UnreadRun]:
    """The releases that could not be read, one run per file looked in (what the parser said
    of it in the first)."""
    found: list[UnreadRun] = []
    for run in history.unread:
        if found and found[-1].until == run.first and found[-1].file.path == run.file.path:
            found[-1] = found[-1]._replace(until=run.until)
        else:
            found.append(run)
    return found


def spans(runs: Iterable[Run | UnreadRun]) -> list[tuple[int, int]]:
    """Runs side by side as one span of release indexes: (first, one past the last)."""
    found: list[tuple[int, int]] = []
    for run in runs:
        if found and found[-1][1] == run.first:
            found[-1] = (found[-1][0], run.until)
        else:
            found.append((run.first, run.until))
    return found


def history_face(history: ErrorHistory) -> HistoryFace:
    """What the plan, the listings and the search index need of a history (`HistoryFace`)."""
    since = history.not_raised_since
    return HistoryFace(
        hashlib.sha256(repr(history).encode()).hexdigest(),
        tuple(spans(history.runs)),
        since.name if since is not None else "",
        wordings(history),
        tuple(spans(history.unread)),
    )


def wordings(history: ErrorHistory) -> tuple[Wording, ...]:
    """Each message releases raised the error with, with the releases that did; oldest
    first."""
    by_message: dict[str, list[Run]] = {}
    for run in history.runs:
        by_message.setdefault(run.found.message, []).append(run)
    return tuple(
        Wording(
            message,
            runs[-1].found.exception,
            ", ".join(span_label(history, *span) for span in spans(runs)),
        )
        for message, runs in by_message.items()
    )


def site_wordings(
    records: Iterable[RecordSummary], histories: Histories
) -> dict[str, tuple[Wording, ...]]:
    """Each error's former wordings, by id, for those that have some: the messages other than
    its record's that releases raised it with (for lookup to know a traceback from an older
    release). Compared as strings: `errpages history` stores a raise whose message reads as
    the record's (`canonical`) with the record's own text."""
    found = {}
    for summary in records:
        face = histories.face(summary)
        former = tuple(w for w in face.wordings if w.message != summary.message) if face else ()
        if former:
            found[summary.id] = former
    return found


def listed(face: HistoryFace | None) -> tuple[str, str] | None:
    """What a listing shows of an error's history: the releases raising it, as ranges of
    release indexes ("0-4 6-9": first, and one past the last, for the listings' release
    filter), and the release since which none does ("" while the latest does)."""
    if face is None:
        return None
    return " ".join(f"{first}-{until}" for first, until in face.spans), release_label(face.since)


@dataclass(frozen=True)
class ReleaseCount:
    """One release of a repository as the listings' release filter offers it: what the
    repository's line reads when narrowed to that release."""

    index: int
    name: str
    label: str
    errors: int
    warnings: int
    exceptions: int
    unread: int  # errors not known to be raised there or not: their file could not be read


def release_counts(
    records: Iterable[RecordSummary], repository: RepositoryHistory | None
) -> tuple[ReleaseCount, ...]:
    """For each release of one repository, newest first, how many of its errors it raises
    (none when no history was taken of any of them)."""
    faces = repository.faces if repository else {}
    faced = [(record, faces[record.id]) for record in records if record.id in faces]
    if repository is None or not faced:
        return ()
    releases = repository.releases
    kinds = {kind: [0] * (len(releases) + 1) for kind in ("error", "warning", "unread")}
    exceptions: dict[str, list[int]] = {}
    for summary, face in faced:
        by_exception = exceptions.setdefault(summary.exception, [0] * (len(releases) + 1))
        for first, until in face.spans:  # counted as differences: +1 at the first, -1 after
            for counts in (kinds[summary.kind], by_exception):
                counts[first] += 1
                counts[until] -= 1
        for first, until in face.unread:
            kinds["unread"][first] += 1
            kinds["unread"][until] -= 1
    totals = {key: list(itertools.accumulate(counts)) for key, counts in kinds.items()}
    raised = [list(itertools.accumulate(counts)) for counts in exceptions.values()]
    return tuple(
        ReleaseCount(
            index,
            release.name,
            release_label(release.name),
            totals["error"][index],
            totals["warning"][index],
            sum(1 for counts in raised if counts[index] > 0),
            totals["unread"][index],
        )
        for index, release in reversed(list(enumerate(releases)))
    )


def history_data(history: ErrorHistory) -> dict[str, Any]:
    """The error's history in the JSON API: each run of releases raising it one way."""
    since = history.not_raised_since
    return {
        "raised": [
            {
                "from": run.first.name,
                "to": run.last.name,
                "message": run.message,
                "exception": run.exception,
                "path": run.path,
                "line": run.line,
                "commit": run.first.commit,
                **({"conditions": list(run.conditions)} if run.conditions else {}),
                **({"kind": run.kind} if run.kind != "error" else {}),
            }
            for run in history.raised()
        ],
        "unread": [
            {
                "from": history.releases[run.first].name,
                "to": history.releases[run.until - 1].name,
                "path": run.file.path,
                "problem": run.file.problem,
            }
            for run in history.unread
        ],
        "latest_release": history.latest.name,
        "not_raised_since": since.name if since else None,
    }


def unmarked_retired(records: Iterable[RecordSummary], histories: Histories) -> list[Diagnostic]:
    """A warning for each record that the latest release no longer raises but that does not
    say `retired:` (its page reads as retired all the same)."""
    found = []
    for summary in records:
        face = histories.face(summary)
        if face is not None and face.since and not summary.retired:
            latest = release_label(histories.repositories[summary.repo].releases[-1].name)
            found.append(
                warning(
                    Position(summary.file),
                    "retired",
                    f"this {summary.kind} is not {VERBS[summary.kind]} in the latest release "
                    f"({latest}), nor in any since {release_label(face.since)}",
                    f"mark it `retired:` with `since: {face.since}`",
                )
            )
    return found
