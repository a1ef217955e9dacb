"""Plain data passed between the build stages. No I/O happens here."""

from __future__ import annotations

from dataclasses import dataclass, field

from generator.diagnostics import Position


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


@dataclass(frozen=True)
class Source:
    """Where the error is raised: file, line and the commit everything is pinned to."""

    path: str
    line: int
    commit: str
    snippet: Snippet

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


@dataclass(frozen=True)
class LinkRef:
    """A resolved link to another error page, titled for display."""

    id: str
    title: str
    message: str
    exception: str
    repo: str


@dataclass(frozen=True)
class ErrorLinks:
    """What the link stage resolved for one record."""

    related: tuple[LinkRef, ...]
    backlinks: tuple[LinkRef, ...]


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
class Site:
    """Everything the renderer needs: settings, records in id order, and the link graph."""

    config: SiteConfig
    records: tuple[Record, ...]
    links: dict[str, ErrorLinks]
    drift: dict[str, DriftNote] = field(default_factory=dict)

    def drift_note(self, record: Record) -> DriftNote | None:
        """The saved drift status, if it was taken for the commit the record is pinned to now."""
        note = self.drift.get(record.id)
        if note is None or note.status == "same" or note.pinned_commit != record.source.commit:
            return None
        return note
