"""The build's stages, each from plain data to plain data: load, validate, link, make.

`build` runs them in order (and imports this module only when it has work to
do: the renderers take longer to import than a build with nothing to do
takes); `serve` runs the first of them again after every change and makes
each file through the same makers when it is asked for.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

from jinja2 import Environment, TemplateError

from errpages.content.config import normalise_base_url, read_config
from errpages.content.listing import ContentChanged, ContentFiles, display_path
from errpages.content.loader import LoadedContent, SnippetFiles, load_content, parse_files
from errpages.content.published import check_published, published_ids
from errpages.content.schema import validate_document
from errpages.diagnostics import Diagnostic, Position, sorted_diagnostics, with_source_lines
from errpages.memo.cache import BuildCache, RecordEntry
from errpages.memo.fingerprint import BuildOptions
from errpages.memo.memo import Memo
from errpages.outputs import Planned
from errpages.outputs.hosting import source_date
from errpages.outputs.linkcheck import check_cross_links, check_page
from errpages.outputs.plan import Plan, listing_files
from errpages.outputs.records import (
    ErrorWork,
    error_item,
    error_line,
    record_words,
    stage_errors,
)
from errpages.parallel import WorkerPool
from errpages.publish import DumpLine, Publisher
from errpages.render.templates import template_diagnostic
from errpages.render.themes import find_theme
from errpages.report import BuildReport
from errpages.site import urls
from errpages.site.history import unmarked_retired
from errpages.site.links import link_records
from errpages.site.model import (
    Record,
    RecordStore,
    RecordSummary,
    Site,
    SiteConfig,
    Version,
    summarize,
)


@dataclass(frozen=True)
class Theme:
    """The theme in use: its folder (its layers' static files) and its templates."""

    folder: Path
    env: Environment


def load_records(
    content_root: Path, listing: ContentFiles | None, cache: BuildCache | None, report: BuildReport
) -> LoadedContent:
    """Read content/: the settings, the snippets, and the record files the cache has no
    summary of that still holds (the others are not read)."""
    reuse = cache.reuse if cache else None
    histories = (cache.histories_read, cache.histories_parsed) if cache else None
    loaded, problems = load_content(content_root, reuse, listing, histories)
    report.diagnostics += problems
    report.records_read = len(loaded.pending)
    return loaded


def validate_records(
    loaded: LoadedContent, options: BuildOptions, pool: WorkerPool, report: BuildReport
) -> tuple[SiteConfig, Path | None, list[Record]]:
    """The settings, the theme they name, and the record files read, parsed and validated (in
    the workers), in file order."""
    config, theme_dir = read_settings(loaded, options, report)
    records: list[Record] = []
    for record, problems in pool.map(
        validate_chunk, snippets_as_sent, loaded.snippets, loaded.pending
    ):
        report.diagnostics += problems
        if record is not None:
            records.append(record)
    records.sort(key=lambda record: record.file)
    report.diagnostics += loaded.problems + loaded.snippets.diagnostics
    return config, theme_dir, records


Checked = tuple[Record | None, list[Diagnostic]]  # a record file validated, and its problems


def validate_chunk(snippets: SnippetFiles, files: list[tuple[Path, str]]) -> list[Checked]:
    results: list[Checked] = []
    for document, problems in parse_files(files):
        if document is None:
            results.append((None, problems))
        else:
            record, found = validate_document(document, snippets)
            results.append((record, problems + found))
    return results


def snippets_as_sent(snippets: SnippetFiles) -> SnippetFiles:
    return snippets


def read_settings(
    loaded: LoadedContent, options: BuildOptions, report: BuildReport
) -> tuple[SiteConfig, Path | None]:
    config, problems = read_config(loaded.config)
    report.diagnostics += problems
    if options.base_url is not None:
        config = replace(config, base_url=normalise_base_url(options.base_url))
    config = replace(
        config,
        build_date=source_date(os.environ.get("SOURCE_DATE_EPOCH")),
        include_drafts=options.include_drafts,
    )
    theme_dir, problems = find_theme(config, loaded.root)
    report.diagnostics += problems
    return config, theme_dir


def link_site(
    loaded: LoadedContent,
    fresh: list[Record],
    config: SiteConfig,
    cache: BuildCache | None,
    report: BuildReport,
    check_registry: bool = True,
) -> Site | None:
    """Order the records, link related errors both ways and check the registry; the site, or
    None when anything so far is an error (every diagnostic then has its source line)."""
    store = RecordStore(fresh, partial(reused_record, cache, loaded) if cache else None)
    records = [*loaded.reused, *map(summarize, fresh)]

    def where(summary: RecordSummary, key: str) -> Position:
        return store.get(summary).position(key)

    # A record that failed to load is reported by its own errors; its id may be one that
    # was published, so the registry is checked only when every file loaded.
    loaded_whole = not report.failed()
    ordered, links, problems = link_records(records, where, config.include_drafts)
    report.diagnostics += problems
    report.diagnostics += unmarked_retired(ordered, loaded.histories)
    if loaded.manifest is not None and loaded_whole and check_registry:
        report.diagnostics += check_published(
            loaded.manifest,
            display_path(loaded.manifest.path),
            published_ids(ordered),
            {r.id for r in records if r.draft},
        )
    report.diagnostics = with_source_lines(sorted_diagnostics(report.diagnostics), loaded.texts)
    if report.failed():
        return None
    report.site = Site(config, tuple(ordered), links, loaded.drift, store, loaded.histories)
    return report.site


def reused_record(cache: BuildCache, loaded: LoadedContent, record_file: str) -> Record:
    """A record unchanged since the cached build: the cache's copy or, when the cache holds
    none it can use, its file validated again."""
    record = cache.read_record(record_file)
    if record is not None:
        return record
    path = loaded.root / "errors" / record_file[len(cache.records_folder) :]
    for document, _ in parse_files([(path, record_file)]):
        if document is not None:
            record, _ = validate_document(document, loaded.snippets)
    if record is None:
        raise ContentChanged(record_file)
    return record


def record_entries(
    cache: BuildCache, loaded: LoadedContent, fresh: list[Record]
) -> dict[str, RecordEntry]:
    """Every record file's entry: the cache's for those not read again, new ones for the
    records just validated (with the stats of the files they came from)."""
    entries = {summary.file: cache.records[summary.file] for summary in loaded.reused}
    for record in fresh:
        name = record.source.snippet.file
        entries[record.file] = RecordEntry(
            stat=loaded.record_stats[record.file],
            snippet_name=name,
            snippet_stat=loaded.snippets.stat(name) if name else None,
            summary=summarize(record),
        )
    return entries


def shared_inputs(code: str, config: SiteConfig, theme_key: str) -> str:
    """What every output depends on: errpages' code, the settings and the theme's files."""
    return f"{code}\n{config!r}\n{theme_key}"


def record_versions(entries: dict[str, RecordEntry], records_folder: str) -> dict[str, Version]:
    """What each record was read from: a record read from the same files is the same record."""
    cut = len(records_folder)
    return {name: (name[cut:], e.stat, e.snippet_stat) for name, e in entries.items()}


Progress = Callable[[int, int], None]  # told (done, total) of this shard's errors


def make_outputs(
    plan: Plan,
    site: Site,
    theme: Theme,
    memo: Memo,
    publisher: Publisher,
    pool: WorkerPool,
    report: BuildReport,
    progress: Progress | None = None,
) -> dict[str, str]:
    """Make what the memo does not reuse and stage it, each page checked for its own links as
    it is made; every staged file's sha256.

    The errors' pages and JSON files are made in the workers (a worker checks the pages it
    makes, and sends back only what it found); the files made from every error once their
    pages are made (the search index shows each page's words).
    """
    by_path = {planned.path: planned for planned in plan.errors}
    to_make = memo.split(plan.errors, publisher.holds)
    ids = list(dict.fromkeys(filter(None, map(plan.paths.error_at, (p.path for p in to_make)))))
    total = len(plan.errors) // 2
    report.pages_kept, report.pages_rendered = total - len(ids), len(ids)
    work = ErrorWork(site.config, theme.folder, publisher.staged(), plan.paths)
    try:
        if progress:
            progress(report.pages_kept, total)
        items = [error_item(site, error_id) for error_id in ids]
        for done, made in enumerate(stage_errors(pool, work, theme.env, items), 1):
            page, data = urls.error_page(made.error_id), urls.error_json(made.error_id)
            publisher.note_written(page, data)  # by a worker, perhaps
            memo.keep(by_path[page], made.page_sha, made.cross_links, made.words)
            memo.keep(by_path[data], made.data_sha)
            report.diagnostics += made.diagnostics
            if progress:
                progress(report.pages_kept + done, total)
        make_files(plan.files, plan, memo, publisher, report)
        if not plan.global_shard:
            return memo.sha_by_path()
        make_files(listing_files(site, words_of(site, memo)), plan, memo, publisher, report)
    except TemplateError as exc:
        report.diagnostics.append(template_diagnostic(exc, theme.folder))
        return {}
    return memo.sha_by_path() | {urls.ERRORS_NDJSON: stage_dump(site, memo, publisher)}


def make_files(
    files: list[Planned], plan: Plan, memo: Memo, publisher: Publisher, report: BuildReport
) -> None:
    """Make and stage the files the memo does not reuse, and check each page's links; a page
    reused is read through for its links to anchors only when they are not known."""
    for planned in memo.split(files, publisher.holds):
        content = planned.make()
        sha = publisher.put(planned.path, content)
        links = None
        if planned.path.endswith(".html"):
            text = content.decode()
            problems, found = check_page(planned.path, text, planned.origin, plan.paths)
            report.diagnostics += problems
            links = tuple(found)
        memo.keep(planned, sha, links)
    for planned in files:
        if planned.path.endswith(".html") and memo.current[planned.path].links is None:
            text = publisher.read(planned.path) or ""
            problems, found = check_page(
                planned.path, text, planned.origin, plan.paths, anchors_only=True
            )
            report.diagnostics += problems
            memo.links_found(planned.path, tuple(found))


def words_of(site: Site, memo: Memo) -> Callable[[str], str]:
    """Each error's words for the search index: as making its page found them, or (an error
    another shard makes) found from its record."""

    def words(error_id: str) -> str:
        made = memo.current.get(urls.error_page(error_id))
        return made.words if made else record_words(site.record(site.links.by_id[error_id]))

    return words


def stage_dump(site: Site, memo: Memo, publisher: Publisher) -> str:
    """Stage api/errors.ndjson: every error's JSON file, one a line; its sha256."""
    staging = publisher.staged()
    lines = []
    for record in site.records:
        path = urls.error_json(record.id)
        made = memo.current.get(path)
        if made is not None:
            lines.append(
                DumpLine(
                    path, made.sha, partial(staging.size, path), partial(staging.read_bytes, path)
                )
            )
            continue
        full = site.record(record)  # another shard makes its file
        line = error_line(full, site.links[record.id], site.config, site.history(record))
        lines.append(
            DumpLine(path, hashlib.sha256(line).hexdigest(), line.__len__, partial(bytes, line))
        )
    return publisher.put_dump(urls.ERRORS_NDJSON, lines)


def check_anchors(plan: Plan, memo: Memo, publisher: Publisher) -> list[Diagnostic]:
    """Check every page's links to other pages' anchors, now that every page is staged."""
    links = [
        (link, planned.origin)
        for planned in [*plan.files, *plan.errors]
        if planned.path.endswith(".html") and planned.path in memo.current
        for link in memo.current[planned.path].links or ()
    ]
    return check_cross_links(links, publisher.read)


def load_site(
    content_root: Path,
    base_url: str | None,
    report: BuildReport,
    include_drafts: bool = False,
    check_registry: bool = True,
) -> Site | None:
    """load → validate → link, in this process and without a cache: how the commands that
    read the records (lookup, new, ids, export) get them. `check_registry`: fail when an id in
    published-ids.txt has no page (what a build must refuse; a lookup need not)."""
    options = BuildOptions(base_url=base_url, include_drafts=include_drafts)
    loaded = load_records(content_root, None, None, report)
    config, _, fresh = validate_records(loaded, options, WorkerPool(jobs=1, expected=0), report)
    return link_site(loaded, fresh, config, None, report, check_registry)
