"""Plain data passed between the build stages. No I/O happens here."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from errpages.diagnostics import Position

if TYPE_CHECKING:
    from errpages.site.links import LinkGraph

StatKey = tuple[int, int, int]  # size, mtime in ns, inode: enough to tell a file changed
UNRELEASED = "unreleased"  # the release name of the commit documented, when no release has it
VERBS = {"error": "raised", "warning": "issued"}  # each kind of record, and what code does with it


@dataclass(frozen=True)
class TextFile:
    """A content file's text, with its path for messages and its name under its folder."""

    display_path: str
    name: str  # path relative to its folder (errors/ or snippets/), with forward slashes
    text: str


@dataclass(frozen=True)
class Snippet:
    """Source lines pinned to a commit; `start_line` is the file's own number of the first line."""

    text: str
    start_line: int
    language: str
    file: str | None = None  # the snippet file under content/snippets/, if any

    @property
    def lines(self) -> list[str]:
        return self.text.split("\n")

    @property
    def end_line(self) -> int:
        return self.start_line + len(self.lines) - 1


class Place(NamedTuple):
    """Another line of the pinned commit that raises the same error."""

    path: str
    line: int


@dataclass(frozen=True)
class Source:
    """Where the error is raised: file, line and the commit everything is pinned to."""

    path: str
    line: int
    commit: str
    snippet: Snippet
    # Where a record asks for them (scan writes them): the class and function that raise, and
    # what holds when the raise runs, as the code says it (see errpages.site.conditions).
    function: str = ""
    conditions: tuple[str, ...] = ()
    # the functions its message goes through: the raise helper, the function that makes it
    through: tuple[str, ...] = ()
    also_raised_at: tuple[Place, ...] = ()  # the other places raising it at the commit

    @property
    def short_commit(self) -> str:
        return self.commit[:10]


@dataclass(frozen=True)
class ExampleFix:
    before: str
    after: str
    language: str = "bash"
    notes: str = ""


@dataclass(frozen=True)
class When:
    trigger: str = ""
    situations: tuple[str, ...] = ()


@dataclass(frozen=True)
class Analysis:
    by: str = ""
    date: str = ""  # YYYY-MM-DD


@dataclass(frozen=True)
class Retired:
    """An error the code no longer raises; its page stays, marked, so links keep working."""

    since: str  # a commit or version
    note: str = ""  # Markdown


@dataclass(frozen=True)
class Record:
    """One error as its author wrote it, validated. `file` is the record's display path."""

    id: str
    repo: str
    kind: str
    exception: str
    message: str
    title: str
    meaning: str
    source: Source
    solutions: tuple[str, ...]
    file: str
    example_fix: ExampleFix | None = None
    when: When | None = None
    related: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    analysis: Analysis | None = None
    draft: bool = False  # scaffolded by `errpages scan`; left out of the site unless --drafts
    retired: Retired | None = None
    id_derived: bool = False
    # Positions of fields checked after validation (related ids, aliases, id).
    positions: dict[str, Position] = field(default_factory=dict, compare=False, hash=False)

    def position(self, key: str) -> Position:
        return self.positions.get(key) or Position(self.file, 1, 1)


# What a record was read from: its file (named under errors/, so the same from any working
# folder), the file's stats and its snippet file's stats. A record read from the same files
# is the same record.
Version = tuple[str, StatKey, StatKey | None]


class RecordSummary(NamedTuple):
    """What the site-wide stages need of a record: links, listings, indexes, sitemap.

    A build where few records changed keeps only these in memory for the
    rest; a full record is read (from the cache) only for a page that shows
    it.
    """

    id: str
    file: str
    repo: str
    kind: str
    exception: str
    message: str
    title: str
    source_path: str
    source_line: int
    commit: str
    related: tuple[str, ...]
    tags: tuple[str, ...]
    aliases: tuple[str, ...]
    analysis_date: str
    draft: bool
    retired: bool
    id_derived: bool


def summarize(record: Record) -> RecordSummary:
    return RecordSummary(
        id=record.id,
        file=record.file,
        repo=record.repo,
        kind=record.kind,
        exception=record.exception,
        message=record.message,
        title=record.title,
        source_path=record.source.path,
        source_line=record.source.line,
        commit=record.source.commit,
        related=record.related,
        tags=record.tags,
        aliases=record.aliases,
        analysis_date=record.analysis.date if record.analysis else "",
        draft=record.draft,
        retired=record.retired is not None,
        id_derived=record.id_derived,
    )


class LinkRef(NamedTuple):
    """A resolved link to another error page, titled for display.

    A named tuple: a record's links are compared with the cached ones on
    every build, and tuples compare (and load from the cache) fastest.
    """

    id: str
    title: str
    message: str
    exception: str
    repo: str


@dataclass(frozen=True)
class ErrorLinks:
    """What the link stage resolved for one record: its related errors, its backlinks, and
    its own label (see `site.links.distinct_labels`)."""

    related: tuple[LinkRef, ...]
    backlinks: tuple[LinkRef, ...]
    label: str = ""
    # The errors raised just before and just after it in the same source file (by line).
    previous: LinkRef | None = None
    next: LinkRef | None = None


@dataclass(frozen=True)
class SiteConfig:
    title: str = "Error reference"
    description: str = ""
    base_url: str = ""
    source_url: str = "https://github.com/{repo}/blob/{commit}/{path}#L{line}"
    source_host: str = "GitHub"
    report_url: str = "https://github.com/{repo}/issues/new?title={title}&body={body}"
    report_host: str = "GitHub"
    theme: str = "default"
    recent_count: int = 10
    feed_count: int = 20
    build_date: str = ""  # from SOURCE_DATE_EPOCH only, so builds stay reproducible
    repos: tuple[tuple[str, str, str], ...] = ()  # per repository: (repo, source_url, source_host)
    include_drafts: bool = False
    # Exception classes whose message is not their first argument: (class, position or keyword)
    message_arguments: tuple[tuple[str, int | str], ...] = ()
    gettext_functions: tuple[str, ...] = ()

    def source_for(self, repo: str) -> tuple[str, str]:
        """The source link template and host name for a repository."""
        for name, template, host in self.repos:
            if name == repo:
                return template, host
        return self.source_url, self.source_host


@dataclass(frozen=True)
class DriftNote:
    """What the last `errpages drift --save` found for a record."""

    status: str
    pinned_commit: str
    checked_commit: str
    now: str = ""


@dataclass(frozen=True)
class Release:
    """A release of a repository (a version tag), or its unreleased code."""

    name: str
    commit: str


class Found(NamedTuple):
    """How one release raises an error."""

    message: str  # the template, as the record writes it when the message is the record's
    exception: str
    path: str
    line: int
    conditions: tuple[str, ...] = ()  # what holds when it runs (see RaiseSite.conditions)
    kind: str = "error"  # "warning": issued with `warnings.warn` there, not raised


class Run(NamedTuple):
    """Consecutive releases raising an error the same way, by index among the repository's
    releases, oldest first: its first, and the one after its last (the number of releases
    when the latest raises it)."""

    first: int
    until: int
    found: Found


class Unparsed(NamedTuple):
    """A file a release holds that this Python could not parse (newer syntax, a merge
    conflict): a raise looked for in it is not seen, so whether that release raises the error
    is not known."""

    path: str
    problem: str  # what the parser said


class UnreadRun(NamedTuple):
    """Consecutive releases where an error's raise was looked for in the same file that could
    not be parsed, the same way: by index, as `Run`."""

    first: int
    until: int
    file: Unparsed


@dataclass(frozen=True)
class RaisedRun:
    """A run as a page shows it, its releases named."""

    first: Release
    last: Release
    after: Release | None  # the release after it, when it is not the latest
    first_index: int
    until: int  # the index of the release after it
    message: str
    exception: str
    path: str
    line: int
    conditions: tuple[str, ...] = ()
    kind: str = "error"


class Wording(NamedTuple):
    """A message as some releases raised it before it read as its record says."""

    message: str  # the template
    exception: str
    releases: str  # which, for a reader: "v1.0 – v1.4, v2.1"


@dataclass(frozen=True)
class ErrorHistory:
    """In which releases an error is raised, as `errpages history` found it."""

    runs: tuple[Run, ...]  # oldest first
    releases_key: str  # a digest of `releases`: histories equal read the same
    releases: tuple[Release, ...] = field(repr=False, compare=False)  # the repository's
    unread: tuple[UnreadRun, ...] = ()  # releases where whether it is raised is not known

    @property
    def latest(self) -> Release:
        return self.releases[-1]

    @property
    def not_raised_since(self) -> Release | None:
        """The release after the last one raising it, when the latest does not (and every
        release from there on could be read)."""
        last = self.runs[-1].until if self.runs else len(self.releases)
        if last == len(self.releases) or any(run.until > last for run in self.unread):
            return None
        return self.releases[last]

    def unread_between(self, first: int, until: int) -> bool:
        """Whether every release from `first` to before `until` (one at least) is unread."""
        covered = sum(max(0, min(r.until, until) - max(r.first, first)) for r in self.unread)
        return until > first and covered >= until - first

    def raised(self) -> tuple[RaisedRun, ...]:
        """The runs with their releases named."""
        named, count = self.releases, len(self.releases)
        return tuple(
            RaisedRun(
                named[run.first],
                named[run.until - 1],
                named[run.until] if run.until < count else None,
                run.first,
                run.until,
                *run.found,
            )
            for run in self.runs
        )


class HistoryFace(NamedTuple):
    """What the plan, the listings and the search index need of an error's history: a build
    keeps it by its history file's stat, and reads the whole history only for a page made."""

    key: str  # a digest of the whole history: equal keys read the same
    spans: tuple[tuple[int, int], ...]  # the releases raising it: (first, one past the last)
    since: str  # the name of the release since which none raises it ("" while the latest does)
    wordings: tuple[Wording, ...]  # every message releases raised it with, oldest first
    unread: tuple[tuple[int, int], ...] = ()  # the releases not known to raise it or not


class RepositoryHistory(NamedTuple):
    """A repository's history file as every build reads it: its releases, and each error's
    `HistoryFace` by record id."""

    repo: str
    releases: tuple[Release, ...]
    faces: dict[str, HistoryFace]


def no_histories(repo: str) -> dict[str, ErrorHistory]:
    return {}


@dataclass(frozen=True)
class Histories:
    """In which releases the errors are raised, as `errpages history` found it: each
    repository's (`RepositoryHistory`), and an error's whole history, read from its file when
    a page shows it (`read`: a repository's, by record id)."""

    repositories: dict[str, RepositoryHistory] = field(default_factory=dict)
    read: Callable[[str], dict[str, ErrorHistory]] = field(default=no_histories, compare=False)

    def face(self, record: RecordSummary | Record) -> HistoryFace | None:
        repository = self.repositories.get(record.repo)
        return repository.faces.get(record.id) if repository else None

    def full(self, record: RecordSummary | Record) -> ErrorHistory | None:
        return self.read(record.repo).get(record.id) if self.face(record) else None


class RecordStore:
    """Full records by file: those validated in this build, the others read when asked for.

    `read` fetches a record the build did not validate (from the cache); a
    record read once is kept for the rest of the build.
    """

    def __init__(
        self, records: Iterable[Record] = (), read: Callable[[str], Record] | None = None
    ) -> None:
        self.records = {record.file: record for record in records}
        self.read = read

    def get(self, summary: RecordSummary) -> Record:
        record = self.records.get(summary.file)
        if record is None:
            if self.read is None:
                raise KeyError(summary.file)
            record = self.records[summary.file] = self.read(summary.file)
        return record


@dataclass(frozen=True)
class Site:
    """Everything the renderer needs: settings, records in id order, and the link graph.

    `records` are summaries; `record()` gives the full record behind one.
    """

    config: SiteConfig
    records: tuple[RecordSummary, ...]
    links: LinkGraph
    drift: dict[str, DriftNote] = field(default_factory=dict)
    store: RecordStore = field(default_factory=RecordStore, compare=False)
    histories: Histories = field(default_factory=Histories)  # from content/history/

    def record(self, summary: RecordSummary) -> Record:
        return self.store.get(summary)

    def history(self, record: RecordSummary | Record) -> ErrorHistory | None:
        """In which releases of its repository the error is raised, when that was found."""
        return self.histories.full(record)

    def drift_note(self, summary: RecordSummary) -> DriftNote | None:
        """The saved drift status, if it was taken for the commit the record is pinned to now."""
        note = self.drift.get(summary.id)
        if note is None or note.status == "same" or note.pinned_commit != summary.commit:
            return None
        return note
