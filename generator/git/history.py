"""`errpages history`: in which releases each error is raised, and how.

Releases are the repository's tags that read as versions (PEP 440: `1.2`, `v1.2.3`,
`2.0.0.post1`; `1_4_2`), ordered as versions; pre-releases and tags that are not
versions (`1.x`) are left out unless `--tags` names them. The commit documented (REV),
when no release has it yet, comes last, as `unreleased`.

Each record is followed from its pinned commit release by release, outwards both ways,
with drift's matching (one raise to one record, in each release): what is looked for in a
release is the raise found in the one next to it, so a message reworded a little at a
time, a file renamed and a raise moved are followed. A release that does not raise it
keeps the last raise found to look for, so an error gone and back is found again. Where the
file looked in could not be parsed (a merge conflict committed, say), the release is
unread: not known to raise the error or not.

What it finds lives in content/history/OWNER/NAME.json, written here only, one line per
release and one per run of releases raising an error the same way: a pull request shows
what a release changed, and a run after a new tag reads it back and looks at that tag.
"""

from __future__ import annotations

import fnmatch
import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

from errpages.content.files import atomic_write_text, refuse_link
from errpages.content.history import (
    FORMAT,
    MATCHER,
    Pinned,
    StoredHistory,
    error_histories,
    found_by_release,
    found_data,
    history_path,
    history_text,
    parse_history,
    runs_of,
    unread_of,
)
from errpages.content.loader import load_content
from errpages.content.schema import validate_records
from errpages.diagnostics import plural, printable
from errpages.git.code import Code, read_problem
from errpages.git.drift import Wanted, check_pinned, match_raises
from errpages.git.pinning import PinError, same_exception, scan_settings
from errpages.git.pyraises.model import RaiseSite
from errpages.git.repo import GitError, ObjectReader, Repository, open_repository, resolve_commit
from errpages.site.history import glance
from errpages.site.messages import canonical
from errpages.site.model import UNRELEASED, Found, Record, Release, Unparsed

# How one release raises a record's error: a raise found, not at all, or not known.
Finding = Found | Unparsed | None


@dataclass(frozen=True)
class HistoryReport:
    saved: StoredHistory  # what the history file now says
    path: Path  # the history file
    problems: list[str]
    looked_at: int  # releases looked at in this run (the others were known)
    # (release, path) where a record's raise was looked for in a file this Python cannot
    # parse (a merge conflict committed, say), so that a raise there is not seen: why, for each
    unparsed: dict[tuple[str, str], str]
    hint: str = ""  # when no tag was read as a release, how some could be


class HistoryError(Exception):
    """`errpages history` cannot run: no repository, no release, an unreadable history file."""


DIGITS_APART_RE = re.compile(r"(?<=\d)_(?=\d)")  # `1_4_2`: SQLAlchemy's and Alembic's 1.4.2


def release_version(tag: str, prefix: str = "") -> Version | None:
    """The version a tag names (`v1.2.3`, `1_4_2`, or `pkg-v1.2` and `rel_1_4_2` under the
    prefixes `pkg-` and `rel_`), if any."""
    named = tag[len(prefix) :] if tag.startswith(prefix) else tag
    try:
        return Version(DIGITS_APART_RE.sub(".", named))
    except InvalidVersion:
        return None


def tags_hint(repository: Repository, patterns: Sequence[str] = ()) -> str:
    """When no tag reads as a version (or none the globs given take does): how many tags
    there are, and the `--tags` glob that would take them, read from the last in name order
    that one takes (`rel_1_9_4` → `rel_*`)."""
    names = sorted(repository.run("tag", "--list").decode("utf-8", "replace").split())
    if not names:
        return ""
    taken = " ".join(f"--tags {glob!r}" for glob in patterns)
    none = (
        f"no tag that {taken} takes reads as a version" if patterns else "no tag reads as a version"
    )
    said = f"{none} ({plural(len(names), 'tag')}, such as {names[-1]})"
    for name in reversed(names):
        prefix = re.sub(r"\d.*", "", name)  # what comes before its first digit
        version = release_version(name, prefix) if prefix else None
        if version is not None:
            return f"{said}; --tags '{prefix}*' reads {name} as {version}"
    return f"{said}; --tags GLOB takes the tags a glob matches, its literal start taken off"


def glob_prefix(pattern: str) -> str:
    """The literal text a tag glob begins with (`pkg-v*` → `pkg-`, its `v` read as a
    version's): what is taken off a tag before it is read as a version."""
    head = next((i for i, c in enumerate(pattern) if c in "*?["), len(pattern))
    return pattern[:head].rstrip("vV") if head < len(pattern) else ""


def release_tags(repository: Repository, patterns: Sequence[str] = ()) -> list[Release]:
    """The tags that read as versions, oldest version first (one tag per version): without a
    pattern, final releases only; with some, the tags any matches, pre-releases too, each
    read after the literal start of the first it matches (pyparsing's `pyparsing_2.4.7`
    and `3.1.0`: `--tags 'pyparsing_*' --tags '[0-9]*'`)."""
    out = repository.run(
        "for-each-ref",
        "--format=%(refname:strip=2)%00%(objecttype)%00%(objectname)%00%(*objecttype)%00%(*objectname)",
        "refs/tags",
    )
    versions: dict[Version, Release] = {}
    for line in out.decode("utf-8", "surrogateescape").splitlines():
        name, kind, sha, peeled_kind, peeled = (line.split("\0") + [""] * 5)[:5]
        commit = sha if kind == "commit" else peeled if peeled_kind == "commit" else ""
        if not commit or "\n" in name or not name.isprintable():
            continue
        matched = next((p for p in patterns if fnmatch.fnmatchcase(name, p)), None)
        if patterns and matched is None:
            continue
        version = release_version(name, glob_prefix(matched) if matched else "")
        if version is None or (not patterns and (version.is_prerelease or version.local)):
            continue
        if version not in versions or name < versions[version].name:
            versions[version] = Release(name, commit)
    return [versions[version] for version in sorted(versions)]


def containing(repository: Repository, commit: str) -> set[str]:
    """The tags whose history has the commit."""
    out = repository.run(
        "for-each-ref", f"--contains={commit}", "--format=%(refname:strip=2)", "refs/tags"
    )
    return set(out.decode("utf-8", "surrogateescape").splitlines())


def is_ancestor(repository: Repository, commit: str, descendant: str) -> bool:
    try:
        repository.run("merge-base", "--is-ancestor", commit, descendant)
    except GitError:
        return False
    return True


@dataclass(frozen=True)
class Seen:
    """The last raise found of a record on a walk: what is looked for in the next release."""

    found: Found
    commit: str  # where it was found
    site: RaiseSite | None  # its raise, when parsed in this run


@dataclass
class Followed:
    """A record followed through the releases: where its walks start (the index of the first
    release that has its pinned commit), and the last raise seen on the walk at hand."""

    record: Record
    anchor: int
    start: Seen
    last: Seen
    at: str  # the commit of the last step of the walk at hand


def run_history(
    content_root: Path,
    repo_dir: Path,
    repo: str | None = None,
    patterns: Sequence[str] = (),
    rev: str = "HEAD",
    progress: Callable[[int, int], None] | None = None,
) -> HistoryReport:
    """Find in which releases every record of the repository is raised, and save it."""
    repository = open_repository(repo_dir)
    target = resolve_commit(repository, rev)
    loaded, _ = load_content(content_root)
    records, diagnostics = validate_records(loaded.records, loaded.snippets)
    problems = [d.format().splitlines()[0] for d in diagnostics if d.level.value == "error"]
    found_releases = release_tags(repository, patterns)
    hint = tags_hint(repository, patterns) if not found_releases else ""
    if not containing(repository, target) & {release.name for release in found_releases}:
        found_releases.append(Release(UNRELEASED, target))
    with ObjectReader(repository) as objects:
        code = Code(repository, objects, scan_settings(loaded))
        chosen = records_of(records, repo, objects)
        if not chosen:
            where = f"no record of {repo}" if repo else "no record"
            raise HistoryError(f"{where} is pinned to a commit of {repo_dir}")
        repo = chosen[0].repo
        path = history_path(content_root, repo)
        settings: dict[str, list[Any]] = {
            "message_arguments": sorted(
                [name, where] for name, where in code.settings.arguments.items()
            ),
            "gettext_functions": sorted(code.settings.gettext_functions),
        }
        stored = read_history(path, settings) if path.exists() else StoredHistory()
        followed = start(code, repository, chosen, found_releases, problems)
        known = known_findings(stored, followed, found_releases)
        found, looked_at = walk(code, found_releases, followed, known, progress)
    pinned = {item.record.id: pinned_of(item.record) for item in followed}
    runs = {
        record_id: runs_of(by_release, found_releases) for record_id, by_release in found.items()
    }
    unread = {
        record_id: unread
        for record_id, by_release in found.items()
        if (unread := unread_of(by_release, found_releases))
    }
    saved = StoredHistory(repo, found_releases, pinned, runs, unread, settings)
    unparsed = {
        (release, file.path): file.problem
        for by_release in found.values()
        for release, file in by_release.items()
        if isinstance(file, Unparsed)
    }
    for folder in (path.parent.parent, path.parent):
        refuse_link(folder)
    atomic_write_text(path, history_text(saved))
    return HistoryReport(saved, path, problems, looked_at, unparsed, hint)


def records_of(records: Iterable[Record], repo: str | None, objects: ObjectReader) -> list[Record]:
    """The records (drafts too) of the repository, by id; by default, of the one whose
    records are pinned to its commits."""
    chosen = sorted(
        (r for r in records if repo is None or r.repo == repo),
        key=lambda r: r.id,
    )
    if repo is None:
        here = {r.repo for r in chosen if objects.commit(r.source.commit) is not None}
        if len(here) > 1:
            raise HistoryError(
                f"records of {len(here)} repositories are pinned here; choose one with --repo"
            )
        chosen = [r for r in chosen if r.repo in here]
    return chosen


def start(
    code: Code,
    repository: Repository,
    records: list[Record],
    found_releases: list[Release],
    problems: list[str],
) -> list[Followed]:
    """Each record that raises at its pinned commit, and where its walks start; the others
    are problems (and have no history)."""
    followed: list[Followed] = []
    anchors: dict[str, int] = {}
    for record in records:
        commit = code.objects.commit(record.source.commit)
        if commit is None:
            problems.append(f"{record.file}: the pinned commit {record.source.commit} is not here")
            continue
        problem, site = check_pinned(code, record, commit)
        if problem or site is None:
            problems.append(f"{record.file}: {problem or 'not a Python file'}")
            continue
        if commit not in anchors:
            anchors[commit] = anchor_of(repository, commit, found_releases)
        anchor = anchors[commit]
        source = record.source
        found = Found(record.message, record.exception, source.path, source.line, kind=site.kind)
        seen = Seen(found, commit, site)
        followed.append(Followed(record, anchor, seen, seen, commit))
    return followed


def anchor_of(repository: Repository, commit: str, found_releases: list[Release]) -> int:
    """The index of the first release (in version order) that has the commit."""
    names = containing(repository, commit)
    for index, release in enumerate(found_releases):
        if release.name in names or (
            release.name == UNRELEASED and is_ancestor(repository, commit, release.commit)
        ):
            return index
    return len(found_releases)


def pinned_of(record: Record) -> Pinned:
    source = record.source
    return Pinned(source.commit, source.path, source.line, record.exception, record.message)


def known_findings(
    stored: StoredHistory, followed: list[Followed], found_releases: list[Release]
) -> dict[str, dict[str, Finding]]:
    """What the history file already says and still holds: for records pinned as they were
    then, in releases at the same commit as then (`unreleased` too, when it has not moved)."""
    same = {r.name for r in stored.releases if r in found_releases}
    known: dict[str, dict[str, Finding]] = {}
    for item in followed:
        record_id = item.record.id
        if stored.pinned.get(record_id) == pinned_of(item.record):
            runs, unread = stored.runs.get(record_id, ()), stored.unread.get(record_id, ())
            by_release = found_by_release(runs, unread, stored.releases)
            known[record_id] = {name: by_release[name] for name in same}
    return known


def walk(
    code: Code,
    found_releases: list[Release],
    followed: list[Followed],
    known: dict[str, dict[str, Finding]],
    progress: Callable[[int, int], None] | None,
) -> tuple[dict[str, dict[str, Finding]], int]:
    """Each record's raise in each release: forwards from its pinned commit to the latest
    release, then backwards from it to the oldest; and how many releases were looked at
    (the others were all known)."""
    found: dict[str, dict[str, Finding]] = {item.record.id: {} for item in followed}
    count, looked_at = len(found_releases), set()
    steps = [(True, index) for index in range(count)]
    steps += [(False, index) for index in reversed(range(count))]
    last = last_reads(code, found_releases, steps, followed, known)
    for number, (forwards, index) in enumerate(steps):
        if number % count == 0:  # each walk starts at the records' pinned commits
            for item in followed:
                item.last, item.at = item.start, item.start.commit
        if progress:
            progress(number + 1, 2 * count)
        release = found_releases[index]
        if step(code, release, due_at(followed, forwards, index), known, found):
            looked_at.add(index)
        # what a later step reads, and what each record was last seen raised at: a record not
        # found since is compared with it, however long ago that was
        seen = {item.last.commit for item in followed}
        code.retain(lambda name: last.get(name, -1) > number or name in seen)  # noqa: B023
    return found, len(looked_at)


def due_at(followed: list[Followed], forwards: bool, index: int) -> list[Followed]:
    """The records the walk that way follows through the release at that index."""
    return [item for item in followed if (item.anchor <= index) == forwards]


def last_reads(
    code: Code,
    found_releases: list[Release],
    steps: list[tuple[bool, int]],
    followed: list[Followed],
    known: dict[str, dict[str, Finding]],
) -> dict[str, int]:
    """The last step of the walk that reads each commit and each file version (by hash): a
    step reads its release, and the release it comes from, whose raises it compares with
    (none where every finding is known). The records' pinned commits, where the walks start,
    are read to the end."""
    last: dict[str, int] = {}
    for number, (forwards, index) in enumerate(steps):
        due = due_at(followed, forwards, index)
        if all(found_releases[index].name in known.get(item.record.id, {}) for item in due):
            continue
        came_from = index - 1 if forwards else index + 1
        read = [i for i in (index, came_from) if 0 <= i < len(found_releases)]
        for commit in {found_releases[i].commit for i in read}:
            last[commit] = number
            last.update(dict.fromkeys(code.files(commit).values(), number))
    for commit in {item.start.commit for item in followed}:
        last[commit] = len(steps)
        last.update(dict.fromkeys(code.files(commit).values(), len(steps)))
    return last


def step(
    code: Code,
    release: Release,
    due: list[Followed],
    known: dict[str, dict[str, Finding]],
    found: dict[str, dict[str, Finding]],
) -> bool:
    """Each record's raise in one release: known, or matched one to one with the release's
    raises; whether any had to be matched. A raise not found where its file could not be
    parsed is `Unparsed`: not known either way."""
    todo = []
    for item in due:
        by_release = known.get(item.record.id, {})
        if release.name in by_release:
            stored = found[item.record.id][release.name] = by_release[release.name]
            if isinstance(stored, Found):
                item.last = Seen(stored, release.commit, None)
            item.at = release.commit
        else:
            todo.append(item)
    if not todo:
        return False
    wanted = [looked_for(code, item, release.commit) for item in todo]
    matches = match_raises(code, release.commit, wanted)
    for number, item in enumerate(todo):
        match, path = matches.get(number), wanted[number].path
        result: Finding = None
        if match is not None:
            raised = found_as(item.record, match.site, match.path)
            item.last, result = Seen(raised, release.commit, match.site), raised
        elif path is not None and (problem := unparsed_at(code, release.commit, path)):
            result = Unparsed(path, problem)
        found[item.record.id][release.name] = result
        item.at = release.commit
    return True


def unparsed_at(code: Code, commit: str, path: str) -> str:
    """Why the file at the commit could not be read or parsed ("" when it was, or is not
    there)."""
    if not code.exists(commit, path):
        return ""
    try:
        return code.file(commit, path).unparsed
    except (GitError, PinError) as exc:
        return read_problem(exc, path)


def looked_for(code: Code, item: Followed, target: str) -> Wanted:
    """The raise last seen of a record, to look for at another commit: in its file there,
    followed through a rename since the walk's last step (a file gone longer ago is looked
    for by its message alone)."""
    seen = item.last
    was = seen.found
    site = seen.site or site_at(code, seen.commit, was)
    path: str | None = was.path
    if not code.exists(target, was.path):
        moved = code.exists(item.at, was.path)
        path = code.renamed(item.at, target, was.path) if moved else None
    after_gap = seen.commit != item.at  # the steps since did not find it
    also = frozenset(place.path for place in item.record.source.also_raised_at)
    return Wanted.of(
        was.message, was.exception, was.line, path, site, seen.commit, was.path, after_gap, also
    )


def site_at(code: Code, commit: str, found: Found) -> RaiseSite | None:
    """The raise a stored finding names, parsed again (for its function and placeholders)."""
    try:
        parsed = code.file(commit, found.path)
    except (GitError, PinError):
        return None
    wanted = canonical(found.message)
    for site, template in zip(parsed.sites, parsed.templates, strict=True):
        if site.line == found.line and template == wanted:
            return site
    return None


def found_as(record: Record, site: RaiseSite, path: str) -> Found:
    """A raise found, in the record's words where they are the same: its own template (with
    its placeholder names) and its exception as written (`requests.HTTPError`)."""
    message = (
        record.message if canonical(record.message) == canonical(site.template) else site.template
    )
    exception = (
        record.exception if same_exception(record.exception, site.exception) else site.exception
    )
    return Found(message, exception, path, site.line, site.conditions, site.kind)


def read_history(path: Path, settings: dict[str, list[Any]]) -> StoredHistory:
    """The history file as written before: nothing of it when it was found with another
    matcher or other settings (nothing in it holds); HistoryError when it is not one."""
    try:
        text = path.read_text(encoding="utf-8")
        data = json.loads(text)
        if data.get("errpages_history") != FORMAT or data.get("matcher") != MATCHER:
            return StoredHistory()
        stored = parse_history(text)
    except (OSError, ValueError, AttributeError) as exc:
        raise HistoryError(
            f"{path}: not a history file errpages can read ({exc}); move it away and run again"
        ) from None
    return stored if stored.settings == settings else StoredHistory()


def history_json(report: HistoryReport) -> dict[str, Any]:
    """What `errpages history --json` prints: each record's raise in every release that
    raises it."""
    saved, names = report.saved, [release.name for release in report.saved.releases]
    histories = error_histories(saved)
    records = []
    for record_id in sorted(saved.runs):
        since = histories[record_id].not_raised_since
        raised = [
            {"release": names[number], **found_data(run.found)}
            for run in saved.runs[record_id]
            for number in range(run.first, run.until)
        ]
        unread = [
            {"release": names[number], **run.file._asdict()}
            for run in saved.unread.get(record_id, ())
            for number in range(run.first, run.until)
        ]
        records.append(
            {
                "id": record_id,
                "raised": raised,
                "unread": unread,
                "not_raised_since": since.name if since else None,
            }
        )
    return {
        "repo": saved.repo,
        "releases": names,
        "commits": {release.name: release.commit for release in saved.releases},
        "records": records,
        "problems": report.problems,
        "unparsed": [
            {"release": release, "path": path, "problem": problem}
            for (release, path), problem in sorted(
                report.unparsed.items(), key=lambda item: (names.index(item[0][0]), item[0][1])
            )
        ],
    }


def unparsed_summary(report: HistoryReport) -> str:
    """What could not be read, a line per file: where a raise was looked for in a file this
    Python cannot parse, it is not seen."""
    order = {release.name: number for number, release in enumerate(report.saved.releases)}
    by_path: dict[str, list[tuple[int, str, str]]] = {}
    for (release, path), problem in report.unparsed.items():
        by_path.setdefault(path, []).append((order.get(release, -1), release, problem))
    lines = [
        "note: a raise was looked for in files this Python cannot parse, so whether these"
        " releases raise it is not known (their pages say so):"
    ]
    for path, found in sorted(by_path.items()):
        found.sort()
        span = found[0][1] if len(found) == 1 else f"{found[0][1]} … {found[-1][1]}"
        where = f"{path} in {plural(len(found), 'release')} ({span}): {found[0][2]}"
        lines.append(f"  {printable(where)}")
    return "\n".join(lines)


def history_table(report: HistoryReport) -> str:
    """One row per record: its id and its releases, as its page says them at a glance."""
    histories = sorted(error_histories(report.saved).items())
    rows = [("ID", "RELEASES"), *((i, " · ".join(glance(h)) or "none") for i, h in histories)]
    width = max(len(row[0]) for row in rows)
    return "\n".join(printable(f"{a.ljust(width)}  {b}") for a, b in rows)
