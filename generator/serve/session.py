"""What `errpages serve` serves: the site as the content is now, each file made when asked for.

A change runs the build's first stages again (list → load → validate → link →
plan), reading only the files that changed: the other records are kept in
memory. Nothing is made then. A request makes its file through the memo, with
the build's makers: a file whose inputs digest as before is the one made last
time. So a save shows once the site is linked again and its page made,
nothing else made, nothing written to disk (`errpages build` makes the site
to publish). What a request makes is what a build writes at that path, byte
for byte.
"""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass, field
from pathlib import Path

from jinja2 import Environment, TemplateError

from errpages import stages
from errpages.content.config import no_base_url
from errpages.content.listing import (
    ContentFiles,
    content_folder_missing,
    list_content,
    refreshed,
    shown_records_folder,
)
from errpages.diagnostics import Diagnostic
from errpages.memo.cache import BuildCache
from errpages.memo.fingerprint import BuildOptions, code_version, tree_fingerprint
from errpages.memo.memo import Made, Memo
from errpages.outputs import Planned
from errpages.outputs.linkcheck import check_cross_links, check_page
from errpages.outputs.plan import Plan, listing_files, plan_outputs
from errpages.outputs.records import record_words
from errpages.parallel import WorkerPool
from errpages.render.templates import make_environment, template_diagnostic
from errpages.render.themes import theme_layers
from errpages.report import BuildReport
from errpages.site import urls
from errpages.site.model import Site, Version

NOT_MADE = b"<!DOCTYPE html>\n<html><head><title>Not made</title></head><body></body></html>\n"


@dataclass(frozen=True)
class Linked:
    """The site as the last good update linked it, and its plan."""

    site: Site
    theme: stages.Theme
    plan: Plan
    planned: dict[str, Planned]  # the plan's files and the errors' files, by path
    versions: dict[str, Version]
    shared_key: str  # what every output depends on: code, settings, theme files


@dataclass
class Session:
    """The content folder as serve keeps it between changes: records, listing, templates,
    and the files made so far. One lock: a request waits for an update, and the reverse."""

    content_root: Path
    include_drafts: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)
    cache: BuildCache = field(default_factory=lambda: BuildCache(None))
    listing: ContentFiles | None = None
    changed: set[str] = field(default_factory=set)  # paths changed since the listing
    environment: tuple[str, Environment] | None = None  # the theme files' fingerprint, and it
    made: dict[str, Made] = field(default_factory=dict)  # the memo, kept between updates
    kept: dict[str, bytes] = field(default_factory=dict)  # what each file made came to
    words: dict[str, tuple[Version, str]] = field(default_factory=dict)  # by error id
    memo: Memo = field(init=False)
    theme_dir: Path | None = None  # the theme the settings named at the last update
    linked: Linked | None = None

    def __post_init__(self) -> None:
        # What was made once is reused across updates: its previous and current are one.
        self.memo = Memo(self.made, current=self.made)

    def update(self, changed: set[str]) -> BuildReport:
        """Read what changed and link the site again; the report of it. A failed update
        leaves the last good site served."""
        with self.lock:
            self.changed |= changed
            self.memo.made.clear()  # what was made since the last update: nothing reads it
            report = BuildReport()
            linked = self.link(report)
            if linked is not None and not report.failed():
                self.linked = linked
            return report

    def link(self, report: BuildReport) -> Linked | None:
        """list → load → validate → link → plan, as a build does them."""
        root = self.content_root
        if not root.is_dir():
            report.diagnostics.append(content_folder_missing(root))
            return None
        listing = self.listing and refreshed(self.listing, root, self.changed)
        self.listing, self.changed = listing or list_content(root), set()
        folder = shown_records_folder(root)
        if self.cache.records_folder != folder:  # serve's working folder is its own
            self.cache = BuildCache(None, records_folder=folder)
        options = BuildOptions(include_drafts=self.include_drafts, cache_dir=None)
        loaded = stages.load_records(root, self.listing, self.cache, report)
        with WorkerPool(options.jobs, len(loaded.pending)) as pool:
            config, theme_dir, fresh = stages.validate_records(loaded, options, pool, report)
        self.theme_dir = theme_dir or self.theme_dir
        site = stages.link_site(loaded, fresh, config, self.cache, report)
        if site is None or theme_dir is None:
            return None
        if not site.config.base_url:
            report.diagnostics.append(no_base_url(root))
        entries = stages.record_entries(self.cache, loaded, fresh)
        known = self.cache.fresh | {record.file: record for record in fresh}
        self.cache.records = entries  # the records kept, for the next update to reuse
        self.cache.fresh = {name: known[name] for name in entries if name in known}
        theme_key = tree_fingerprint(theme_layers(theme_dir), "theme")
        if self.environment is None or self.environment[0] != theme_key:
            self.environment = (theme_key, make_environment(theme_dir))
        theme = stages.Theme(theme_dir, self.environment[1])
        shared_key = stages.shared_inputs(code_version(), site.config, theme_key)
        if self.linked is None or self.linked.shared_key != shared_key:
            self.made.clear()  # each was made with what every output shared then
            self.kept.clear()
        versions = stages.record_versions(entries, folder)
        try:
            plan, problems = plan_outputs(
                site, theme.env, theme_dir, versions.__getitem__, self.memo.digests.of
            )
        except TemplateError as exc:
            report.diagnostics.append(template_diagnostic(exc, theme_dir))
            return None
        report.diagnostics += problems
        if report.failed():
            return None
        planned = {file.path: file for file in [*plan.files, *plan.errors]}
        report.site = site
        return Linked(site, theme, plan, planned, versions, shared_key)

    def read(self, path: str) -> tuple[bytes, list[Diagnostic]] | None:
        """The file at a site path, and the problems of its links (a page's); None when the
        site has no such file. A page its template cannot make is a page that says so."""
        with self.lock:
            try:
                content = self.file(path)
                if content is None or not path.endswith(".html") or self.linked is None:
                    return None if content is None else (content, [])
                return content, self.page_problems(path, content)
            except TemplateError as exc:
                assert self.linked is not None
                problem = template_diagnostic(exc, self.linked.theme.folder)
                return (NOT_MADE, [problem]) if path.endswith(".html") else None

    def file(self, path: str) -> bytes | None:
        """The bytes a build writes at this path, made now unless made from the same inputs
        before."""
        linked = self.linked
        if linked is None or path not in linked.plan.paths:
            return None
        if path == urls.ERRORS_NDJSON:
            lines = (self.file(urls.error_json(record.id)) for record in linked.site.records)
            return b"".join(line or b"" for line in lines)
        planned = linked.planned.get(path) or self.listing_file(linked, path)
        if self.memo.split([planned], lambda made, _sha: made in self.kept):
            content = planned.make()
            self.memo.keep(planned, hashlib.sha256(content).hexdigest())
            self.kept[path] = content
        return self.kept[path]

    def listing_file(self, linked: Linked, path: str) -> Planned:
        """One of the files made from every error: the errors index, the search index, the
        sitemap (planned only when one of them is asked for)."""
        return next(
            planned
            for planned in listing_files(
                linked.site, lambda error_id: self.words_of(linked, error_id)
            )
            if planned.path == path
        )

    def words_of(self, linked: Linked, error_id: str) -> str:
        """An error's words for the search index, found again only when its file changed."""
        summary = linked.site.links.by_id[error_id]
        version = linked.versions[summary.file]
        kept = self.words.get(error_id)
        if kept is None or kept[0] != version:
            kept = self.words[error_id] = (version, record_words(linked.site.record(summary)))
        return kept[1]

    def page_problems(self, path: str, text: bytes) -> list[Diagnostic]:
        """A page's broken links: to paths the site lacks, and to anchors of other pages."""
        linked = self.linked
        assert linked is not None
        origin = linked.planned[path].origin
        problems, cross = check_page(path, text.decode(), origin, linked.plan.paths)

        def page_text(target: str) -> str | None:
            content = self.file(target)
            return content.decode() if content is not None else None

        return problems + check_cross_links([(link, origin) for link in cross], page_text)

    def theme_folders(self) -> list[Path]:
        """The theme's folders, whose changes serve follows too."""
        with self.lock:
            return theme_layers(self.theme_dir) if self.theme_dir else []

    def paths(self) -> set[str]:
        """Every path the site has (what a build writes)."""
        with self.lock:
            linked = self.linked
            if linked is None:
                return set()
            return set(linked.plan.paths.files) | set(linked.planned)
