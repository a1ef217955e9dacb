"""What `errpages serve` serves: the site as the content is now, each file made when asked for.

A change runs the build's first stages again (list → load → validate → link →
plan), reading only the files that changed: the other records are kept in
memory. Nothing else is made then. A request makes its file from the linked
site, through the memo: a page whose inputs digest as before is the page made
last time. So a save shows once the site is linked again and its page made,
nothing else rendered, nothing written to disk (`errpages build` makes the
site to publish). What a request makes is what a build writes at that path,
byte for byte.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from jinja2 import Environment, TemplateError

from errpages.build import (
    BuildReport,
    Plan,
    Theme,
    content_folder_missing,
    link_site,
    listing_files,
    load_records,
    no_base_url,
    plan_outputs,
    record_entries,
    record_versions,
    shared_inputs,
    template_diagnostic,
    theme_folders_fingerprint,
    validate_records,
)
from errpages.content.listing import ContentFiles, list_content, refreshed, shown_records_folder
from errpages.diagnostics import Diagnostic
from errpages.memo.cache import BuildCache
from errpages.memo.fingerprint import BuildOptions, code_version
from errpages.memo.memo import Digests, Made, Memo
from errpages.outputs import OutputFile, Planned
from errpages.outputs.hosting import hosting_files
from errpages.outputs.linkcheck import check_cross_links, check_page
from errpages.outputs.records import (
    error_line,
    face_digest,
    record_words,
    unit_input,
    unit_inputs,
)
from errpages.parallel import WorkerPool
from errpages.render.templates import make_environment, render_error_page
from errpages.site import urls
from errpages.site.model import Site, Version

NOT_MADE = b"<!DOCTYPE html>\n<html><head><title>Not made</title></head><body></body></html>\n"


@dataclass(frozen=True)
class Linked:
    """The site as the last good update linked it, and what is made of it up front: the
    site-wide pages, assets, redirects and hosting files (the memo makes most of them
    again only when what they show changed)."""

    site: Site
    theme: Theme
    plan: Plan
    versions: dict[str, Version]
    shared_key: str  # what every output depends on: code, settings, theme files
    files: dict[str, OutputFile]


@dataclass
class Session:
    """The content folder as serve keeps it between changes: records, listing, templates,
    and the outputs made so far. One lock: a request waits for an update, and the reverse."""

    content_root: Path
    include_drafts: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)
    cache: BuildCache = field(default_factory=lambda: BuildCache(None))
    listing: ContentFiles | None = None
    changed: set[str] = field(default_factory=set)  # paths changed since the listing
    environment: tuple[str, Environment] | None = None  # the theme files' fingerprint, and it
    digests: Digests = field(default_factory=Digests)
    made: dict[str, Made] = field(default_factory=dict)  # the memo: how each file was made
    kept: dict[str, bytes] = field(default_factory=dict)  # and what it came to
    words: dict[str, tuple[object, str]] = field(default_factory=dict)  # meaning words by id
    linked: Linked | None = None

    def update(self, changed: set[str]) -> BuildReport:
        """Read what changed and link the site again; the report of it. A failed update
        leaves the last good site served."""
        with self.lock:
            self.changed |= changed
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
        loaded = load_records(root, self.listing, self.cache, report)
        with WorkerPool(options.jobs, len(loaded.pending)) as pool:
            config, theme_dir, fresh = validate_records(loaded, options, pool, report)
        site = link_site(loaded, fresh, config, self.cache, report)
        if site is None or theme_dir is None:
            return None
        if not site.config.base_url:
            report.diagnostics.append(no_base_url(root))
        entries = record_entries(self.cache, loaded, fresh)
        known = self.cache.fresh | {record.file: record for record in fresh}
        self.cache.records = entries  # the records kept, for the next update to reuse
        self.cache.fresh = {name: known[name] for name in entries if name in known}
        theme_key = theme_folders_fingerprint(theme_dir)
        if self.environment is None or self.environment[0] != theme_key:
            self.environment = (theme_key, make_environment(theme_dir))
        theme = Theme(theme_dir, self.environment[1])
        shared_key = shared_inputs(code_version(), site.config, theme_key)
        versions = record_versions(entries, folder)
        if self.linked is None or self.linked.shared_key != shared_key:
            self.made, self.kept, self.words = {}, {}, {}  # each was made with the old key
        memo = self.memo()
        plan = plan_outputs(site, theme, options, report, memo, versions.__getitem__)
        if plan is None or report.failed():
            return None
        try:
            hosting = hosting_files(site, theme.env)
        except TemplateError as exc:
            report.diagnostics.append(template_diagnostic(exc, theme_dir))
            return None
        files = {file.path: file for file in [*plan.site_files, *hosting]}
        self.remember(memo, files.values())
        report.site = site
        return Linked(site, theme, plan, versions, shared_key, files)

    def memo(self) -> Memo:
        """A memo of the files made so far (what it makes is kept by `remember`)."""
        return Memo(self.made, self.kept.get, self.digests)

    def remember(self, memo: Memo, files: Iterable[OutputFile]) -> None:
        """Keep what the memo made, for the next time the same file is asked for."""
        self.made.update(memo.current)
        self.kept.update((file.path, file.content) for file in files)

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
        if linked is None:
            return None
        if path in linked.files:
            return linked.files[path].content
        if path not in linked.plan.paths:
            return None
        error_id = linked.plan.paths.error_at(path)
        planned = self.error_file(linked, error_id, path) if error_id else None
        memo = self.memo()
        made = memo.made(planned or self.site_wide(linked, path))
        self.remember(memo, [made])
        return made.content

    def error_file(self, linked: Linked, error_id: str, path: str) -> Planned:
        """An error's page or JSON file, planned with its inputs' digest (`unit_input`)."""
        site = linked.site
        summary = site.links.by_id[error_id]
        face = partial(face_digest, site, digests=self.digests)
        inputs = unit_input(site, summary, linked.versions.__getitem__, self.digests, face)

        def page() -> bytes:
            record, note = site.record(summary), site.drift_note(summary)
            env, links = linked.theme.env, site.links[error_id]
            history = site.history(summary)
            return render_error_page(env, record, links, site.config, note, history).encode()

        def data() -> bytes:
            record, links = site.record(summary), site.links[error_id]
            return error_line(record, links, site.config, site.history(summary))

        make = data if path.endswith(".json") else page
        return Planned(path, summary.file, (inputs,), make)

    def site_wide(self, linked: Linked, path: str) -> Planned:
        """One of the files made from every error: the indexes, the search index, the
        sitemap, api/errors.ndjson (planned only when one of them is asked for)."""
        site = linked.site
        if path != urls.ERRORS_NDJSON:
            words = {record.id: self.meaning_words(linked, record.id) for record in site.records}
            return next(
                planned for planned in listing_files(site, {}, words) if planned.path == path
            )
        inputs = tuple(unit_inputs(site, linked.versions.__getitem__, self.digests).values())

        def dump() -> bytes:
            lines = (
                error_line(
                    site.record(record), site.links[record.id], site.config, site.history(record)
                )
                for record in site.records
            )
            return b"".join(lines)

        return Planned(urls.ERRORS_NDJSON, "site", (inputs,), dump)

    def meaning_words(self, linked: Linked, error_id: str) -> str:
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
        error_id = linked.plan.paths.error_at(path)
        if error_id is None:
            origin = linked.files[path].origin
        else:
            origin = linked.site.links.by_id[error_id].file
        problems, cross = check_page(path, text.decode(), origin, linked.plan.paths)

        def page_text(target: str) -> str | None:
            content = self.file(target)
            return content.decode() if content is not None else None

        return problems + check_cross_links([(link, origin) for link in cross], page_text)

    def paths(self) -> set[str]:
        """Every path the site has (what a build writes)."""
        with self.lock:
            linked = self.linked
            if linked is None:
                return set()
            found = set(linked.plan.paths.files)
            for error_id in linked.site.links.by_id:
                found |= {urls.error_page(error_id), urls.error_json(error_id)}
            return found
