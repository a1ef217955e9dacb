"""The build, as a list of stages: load → validate → link → plan → render → write.

Nothing replaces the output until every record has been validated and linked
and every output rendered, checked and staged; a build with errors leaves the
previous output exactly as it was. With a cache, unchanged inputs are not
read again and unchanged outputs are carried over (hard links) instead of
rendered again; a no-op build stops after looking at file stats.

Read from the top: `build` holds the output folder, `build_into` runs the
stages and `write_site` the ones that write; each stage follows in the order
it runs. Last come `load_site` (the records, linked, for the commands that
build nothing) and the messages the stages share.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, closing, contextmanager
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import BinaryIO

from jinja2 import Environment, TemplateError, TemplateSyntaxError

from errpages.content.config import normalise_base_url, read_config
from errpages.content.listing import (
    ContentFiles,
    display_path,
    list_content,
    shown_records_folder,
)
from errpages.content.loader import LoadedContent, SnippetFiles, load_content, parse_files
from errpages.content.published import check_published
from errpages.content.schema import validate_document
from errpages.content.yamldoc import parse_yaml
from errpages.diagnostics import (
    Diagnostic,
    Position,
    error,
    has_errors,
    sorted_diagnostics,
    warning,
    with_source_lines,
)
from errpages.memo.cache import BuildCache, RecordEntry, Written, load_cache
from errpages.memo.fingerprint import (
    DEFAULT_CACHE_DIR,
    BuildOptions,
    Progress,
    cache_file,
    cache_summary,
    code_version,
    folder_identity,
    inputs_fingerprint,
    live_site,
    tree_fingerprint,
    unchanged_since,
)
from errpages.memo.memo import Digests, Memo
from errpages.outputs import OutputFile, Planned
from errpages.outputs.api import api_files, errors_index, index_entry
from errpages.outputs.assets import asset_files
from errpages.outputs.hosting import (
    Layout,
    dump_identity,
    dump_stat,
    hosting_files,
    ndjson_plan,
    redirect_files,
    sitemap_xml,
    source_date,
    write_ndjson,
)
from errpages.outputs.linkcheck import check_cross_links, check_page
from errpages.outputs.pages import page_files
from errpages.outputs.records import (
    RenderTask,
    UnitEntry,
    kept_units,
    record_extras,
    render_units,
    unit_entry,
    unit_inputs,
)
from errpages.outputs.search import (
    search_files,
)
from errpages.outputs.write import (
    OutputBusy,
    Staging,
    check_collisions,
    check_output_folder,
    foreign_files,
    output_lock,
)
from errpages.parallel import (
    WorkerPool,
    collector_paused,
)
from errpages.render.templates import make_environment
from errpages.render.themes import BUILTIN_THEMES, theme_layers
from errpages.site import urls
from errpages.site.history import site_wordings, unmarked_retired
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


@dataclass
class BuildReport:
    """What a build or check found and did."""

    diagnostics: list[Diagnostic] = field(default_factory=list)
    site: Site | None = None
    timings: dict[str, float] = field(default_factory=dict)
    written: bool = False
    unchanged: bool = False  # a no-op build: nothing read, nothing written
    records_read: int = 0  # record files read and validated; the others' rows were kept
    pages_rendered: int = 0  # error pages rendered (their JSON files with them)
    pages_kept: int = 0  # error pages carried over from the last build
    made: list[str] = field(default_factory=list)  # the outputs made again from their inputs
    files_total: int = 0
    cache_problem: str | None = None  # why the cache could not be saved, if it could not
    cache_refused: str | None = None  # why the cache found was not used: not errpages' own
    dropped: list[str] = field(default_factory=list)  # replaced files not known to be ours

    def failed(self, strict: bool = False) -> bool:
        return has_errors(self.diagnostics, strict)


@contextmanager
def timed(report: BuildReport, stage: str) -> Iterator[None]:
    start = time.perf_counter()
    yield
    report.timings[stage] = report.timings.get(stage, 0.0) + time.perf_counter() - start


def build(
    content_root: Path,
    out_dir: Path | None,
    base_url: str | None = None,
    strict: bool = False,
    include_drafts: bool = False,
    jobs: int = 0,
    cache_dir: Path | None = DEFAULT_CACHE_DIR,
    shard: tuple[int, int] = (1, 1),
    progress: Progress | None = None,
    wait: bool = True,
    waiting: Callable[[str], None] | None = None,
    listing: ContentFiles | None = None,
) -> BuildReport:
    """Build the site from content_root into out_dir (None: a check, `errpages check`).

    A build into a folder holds that folder's lock from start to end (`output_lock`):
    another build into it waits (told through `waiting`), or fails at once (`wait=False`).
    `listing`: the content folder, listed already (by `up_to_date`). A check is the same
    build, without a cache, into a folder of the system's temporary files that is deleted
    after: whatever a build would refuse, a check refuses.
    """
    options = BuildOptions(base_url, strict, include_drafts, jobs, cache_dir, shard, progress)
    report = BuildReport()
    with ExitStack() as scratch:
        checking = out_dir is None
        if out_dir is None:
            out_dir = (
                Path(scratch.enter_context(tempfile.TemporaryDirectory(prefix="errpages-check-")))
                / "site"
            )
            options = replace(options, cache_dir=None)
        try:
            with output_lock(out_dir, wait, waiting):
                return build_into(content_root, out_dir, options, report, listing, checking)
        except OutputBusy as exc:
            hint = "wait for it to finish, or run without --no-wait"
            report.diagnostics.append(error(Position(display_path(out_dir)), "", str(exc), hint))
        except OSError as exc:  # the output's parent, the lock or a staged file cannot be written
            where = display_path(exc.filename) if exc.filename else display_path(out_dir)
            report.diagnostics.append(
                error(Position(where), "", f"cannot write the site: {exc.strerror or exc}")
            )
    return report


def build_into(
    content_root: Path,
    out_dir: Path,
    options: BuildOptions,
    report: BuildReport,
    listing: ContentFiles | None = None,
    checking: bool = False,
) -> BuildReport:
    """The build once the output folder is held, stage by stage. `checking`: the build of
    `errpages check`, which says nothing of what only a published site needs."""
    report.diagnostics += preflight(content_root, out_dir, options.cache_dir)
    if report.failed():
        return report
    code = code_version()
    cache_path = (
        cache_file(options.cache_dir, out_dir, options.key()) if options.cache_dir else None
    )
    with collector_paused():  # from here on (the listing is tens of thousands of objects)
        with timed(report, "list"):
            listing = listing or list_content(content_root)
        themes = theme_folders(content_root)
        inputs = inputs_fingerprint(content_root, options, listing.digest, themes)
        live = live_site(out_dir)
        if unchanged_since(cache_summary(cache_path), code, inputs, live):
            report.unchanged = True  # decided without loading the cache itself
            return report
        folder = shown_records_folder(content_root)
        # Forked now, before the cache and the records are loaded (see `WorkerPool`).
        records_listed = len(listing.under("errors")[0])
        with (
            WorkerPool(options.jobs, records_listed) as pool,
            closing(load_cache(cache_path, code, folder)) as cache,
        ):
            report.cache_refused = cache.refused
            if cache.saw(inputs, live):
                report.unchanged = True
                report.diagnostics = list(cache.warnings)  # said again, not to be forgotten
                return report
            with timed(report, "load"):
                loaded = load_records(content_root, listing, cache, report)
            with timed(report, "validate"):
                config, theme_dir, fresh = validate_records(loaded, options, pool, report)
            with timed(report, "link"):
                site = link_site(loaded, fresh, config, cache, report)
            if site is None or theme_dir is None:
                return report
            if not site.config.base_url and not checking:
                report.diagnostics.append(no_base_url(content_root))
            theme_key = theme_folders_fingerprint(theme_dir)
            theme = Theme(theme_dir, make_environment(theme_dir))
            records = record_entries(cache, loaded, fresh)
            shared_key = shared_inputs(code, site.config, theme_key)
            # plan → render → link check → write
            before, versions = cache.written_with(shared_key), record_versions(records, folder)
            written = write_site(site, theme, out_dir, before, versions, pool, options, report)
            if written is None or cache_path is None:
                return report
            warnings = tuple(report.diagnostics)
            cache.remember(
                records, fresh, written, shared_key, inputs, tuple(map(str, themes)), warnings
            )
            report.cache_problem = cache.save()
            return report


def write_site(
    site: Site,
    theme: Theme,
    out_dir: Path,
    before: Written,
    versions: dict[str, Version],
    pool: WorkerPool,
    options: BuildOptions,
    report: BuildReport,
) -> Written | None:
    """Plan, render what changed since `before` (what the last build wrote that still holds),
    check links, swap the staged site in; what was written, or None when nothing was."""
    # What the last build wrote counts only for the very folder it wrote.
    same_folder = before.site_identity == folder_identity(out_dir)
    previous = before.outputs if same_folder else {}
    foreign = foreign_files(out_dir, previous, before.live_folders) if previous else []
    if foreign:
        report.diagnostics.append(not_ours(out_dir, foreign))
        return None
    digests = Digests()
    memo = Memo(before.pages, previous_page(out_dir, previous), digests)
    with timed(report, "plan"):
        plan = plan_outputs(site, theme, options, report, memo, versions.__getitem__)
    if plan is None or report.failed(options.strict):
        return None
    # The dump's lines are where they were only while it is the very file written.
    intact = previous and before.dump_stat is not None and before.dump_stat == dump_stat(out_dir)
    old_layout = before.dump_layout if intact else {}
    layout: Layout = {}
    spare = before.spare if previous else None
    staging = Staging(out_dir, previous, spare, before.live_folders if previous else None)
    try:
        with timed(report, "render"):
            inputs = unit_inputs(site, versions.__getitem__, digests)
            units = render_records(
                site, theme, plan, staging, before.units, inputs, pool, options, report
            )
            outputs = stage_site_files(
                site, theme, plan, staging, units, report, old_layout, layout, memo
            )
        with timed(report, "linkcheck"):
            cross = [
                (link, record.file)
                for record in plan.records
                if record.id in units  # a record whose rendering failed has none
                for link in units[record.id].cross_links
            ]
            report.diagnostics += check_cross_links(cross, staging.read)
        if report.failed(options.strict):
            staging.discard()
            return None
        for unit in units.values():
            outputs.update(unit.files)
        with timed(report, "write"):
            keep_spare = options.cache_dir is not None
            spare, live_folders = staging.commit(outputs, keep_spare)
            report.dropped = staging.dropped
    except BaseException:
        staging.discard()
        raise
    report.written = True
    report.made = sorted([*report.made, *memo.fresh])
    report.files_total = len(outputs) + 1
    return Written(
        outputs=outputs,
        units=units,
        pages=memo.current,
        dump_layout=layout,
        dump_stat=dump_stat(out_dir),
        spare=spare,
        live_folders=live_folders,
        site_identity=folder_identity(out_dir),
    )


# The stages, in the order they run.


def preflight(content_root: Path, out_dir: Path, cache_dir: Path | None) -> list[Diagnostic]:
    """What must hold before anything is read: an output folder of errpages' own (or none
    yet), the content folder, and a cache folder outside the output."""
    problems = check_output_folder(out_dir)
    if not content_root.is_dir():
        return [*problems, content_folder_missing(content_root)]
    if cache_dir is not None:
        problems += check_cache_folder(cache_dir, out_dir)
    return problems


def check_cache_folder(cache_dir: Path, out_dir: Path) -> list[Diagnostic]:
    """The cache folder must be a folder we can make (it is made now, before anything else),
    and not inside the output folder, where it would be published. A link is left as it is:
    the build does without a cache (`load_cache`)."""
    if cache_dir.is_symlink():
        return []
    inside = cache_dir.resolve()
    if inside == out_dir.resolve() or out_dir.resolve() in inside.parents:
        return [
            error(
                Position(display_path(cache_dir)),
                "--cache-dir",
                f"the cache folder is inside the output folder {display_path(out_dir)}, "
                "which is published whole",
                "choose a cache folder outside the output folder",
            )
        ]
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return [
            error(
                Position(str(cache_dir)),
                "--cache-dir",
                f"cannot make the cache folder: {exc.strerror or exc}",
                "choose another folder with --cache-dir, or build with --no-cache",
            )
        ]
    return []


def load_records(
    content_root: Path, listing: ContentFiles | None, cache: BuildCache | None, report: BuildReport
) -> LoadedContent:
    """Read content/: the settings, the snippets, and the record files the cache has no
    summary of that still holds (the others are not read)."""
    reuse, histories_read = (cache.reuse, cache.histories_read) if cache else (None, None)
    loaded, problems = load_content(content_root, reuse, listing, histories_read)
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
            {r.id for r in ordered} | {a for r in ordered for a in r.aliases},
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
        raise ValueError(f"{record_file}: changed while the site was built; build again")
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


@dataclass(frozen=True)
class Theme:
    """The theme in use: its folder (its layers' static files) and its templates."""

    folder: Path
    env: Environment


def plan_outputs(
    site: Site,
    theme: Theme,
    options: BuildOptions,
    report: BuildReport,
    memo: Memo,
    version: Callable[[str], Version],
) -> Plan | None:
    """Render the site-wide pages (those whose inputs changed) and list every path the whole
    site will have."""
    try:
        pages = [memo.made(planned) for planned in page_files(site, theme.env, version)]
        site_files = pages + api_files() + asset_files(theme.folder)
        site_files += redirect_files(site, theme.env)
    except TemplateError as exc:
        report.diagnostics.append(template_diagnostic(exc, theme.folder))
        return None
    shard = options.shard
    alias_at = {
        path: alias
        for record in site.records
        for alias in record.aliases
        for path in (urls.error_page(alias), urls.error_json(alias))
    }
    global_shard = shard[0] == 1  # the shard that writes the site-wide files

    def here(file: OutputFile) -> bool:  # an alias's redirects go with the alias's shard
        alias = alias_at.get(file.path)
        return global_shard if alias is None else in_shard(alias, shard)

    return Plan(
        paths=planned_paths(site, site_files, report),
        records=[record for record in site.records if in_shard(record.id, shard)],
        site_files=list(filter(here, site_files)),
        global_shard=global_shard,
    )


def planned_paths(site: Site, site_files: list[OutputFile], report: BuildReport) -> PlannedPaths:
    """Every path the whole site will have; two outputs that want one path are an error."""
    late = [urls.SEARCH_INDEX_JS, urls.ERRORS_NDJSON, urls.ERRORS_INDEX_JSON]
    late += [urls.NOT_FOUND_PAGE, ".nojekyll"]
    if site.config.base_url:
        late += [urls.SITEMAP_XML, urls.ROBOTS_TXT]
    everything = [(f.path, f.origin) for f in site_files] + [(p, "site") for p in late]
    report.diagnostics += check_collisions(everything)
    paths = PlannedPaths(frozenset(path for path, _ in everything), frozenset(site.links.by_id))
    for path, origin in everything:  # where an error's page or JSON goes?
        error_id = paths.error_at(path)
        if error_id is not None:
            taken = f"{site.links.by_id[error_id].file} (error {error_id})"
            report.diagnostics.append(
                error(Position(origin), "", f"output path {path} is also written by {taken}")
            )
    return paths


@dataclass
class Plan:
    """Every output path of the whole site, and what this build renders of it."""

    paths: PlannedPaths
    records: list[RecordSummary]  # this shard's records
    site_files: list[OutputFile]  # site-wide files whose content does not depend on records' units
    global_shard: bool


@dataclass(frozen=True)
class PlannedPaths:
    """Every path of the whole site; each error's two are known by its id, not listed."""

    files: frozenset[str]  # the rest: site-wide pages, assets, redirects, indexes
    ids: frozenset[str]

    def __contains__(self, path: object) -> bool:
        if path in self.files:
            return True
        found = RECORD_PATH_RE.fullmatch(path) if isinstance(path, str) else None
        return found is not None and (found[1] or found[2]) in self.ids

    def error_at(self, path: str) -> str | None:
        """The id of the error whose page or JSON file is at this path (in any case), if any."""
        found = RECORD_PATH_RE.fullmatch(path.lower())
        error_id = found and (found[1] or found[2])
        return error_id if error_id in self.ids else None


# Where an error's page and JSON file go (an id is 16 lowercase hex digits).
RECORD_PATH_RE = re.compile(r"errors/([0-9a-f]{16})/index\.html|api/errors/([0-9a-f]{16})\.json")


def in_shard(error_id: str, shard: tuple[int, int]) -> bool:
    """Records go to shards by their id (already a hash): a disjoint, stable split."""
    k, n = shard
    return int(error_id, 16) % n == k - 1


def render_records(
    site: Site,
    theme: Theme,
    plan: Plan,
    staging: Staging,
    units_before: dict[str, UnitEntry],
    inputs: dict[str, str],
    pool: WorkerPool,
    options: BuildOptions,
    report: BuildReport,
) -> dict[str, UnitEntry]:
    """Carry over the record outputs whose inputs are unchanged, render the rest (in
    parallel), check their links."""
    task = RenderTask(site.config, theme.folder, staging, plan.paths)
    to_render, units = kept_units(staging, plan.records, units_before, inputs)
    report.pages_kept = len(units)
    total, progress = len(plan.records), options.progress
    if progress:
        progress(len(units), total)
    by_id = {record.id: record for record in to_render}
    try:
        for result in render_units(pool, task, theme.env, site, to_render):
            summary = by_id[result.record_id]
            units[result.record_id] = unit_entry(summary, inputs[summary.id], result, site)
            for path, _ in result.files:  # perhaps written by a worker: note it here
                staging.note_written(path)
                report.made.append(path)
            report.diagnostics += result.diagnostics
            if progress:
                progress(len(units), total)
    except TemplateError as exc:
        report.diagnostics.append(template_diagnostic(exc, theme.folder))
    report.pages_rendered = len(to_render)
    return units


def stage_site_files(
    site: Site,
    theme: Theme,
    plan: Plan,
    staging: Staging,
    units: dict[str, UnitEntry],
    report: BuildReport,
    old_layout: Layout,
    layout: Layout,
    memo: Memo,
) -> dict[str, str]:
    """Stage the site-wide files, the indexes and the hosting files; check page links.

    `layout` is filled with where each error's line went in api/errors.ndjson. `memo`: what the
    site-wide files were made from, to remember pages' links in.
    """
    written: dict[str, str] = {}
    if not plan.global_shard:
        stage_checked(plan.site_files, plan, staging, report, written, memo)
        return written
    other_shards, other_words = {}, {}
    for record in site.records:
        if record.id not in units:  # another shard renders its page
            other_shards[record.id], other_words[record.id] = record_extras(
                site, site.record(record)
            )
    try:
        hosting = hosting_files(site, theme.env)
        stage_checked([*plan.site_files, *hosting], plan, staging, report, written, memo)
        listings = [memo.made(planned) for planned in listing_files(site, units, other_words)]
        stage_checked(listings, plan, staging, report, written)
    except TemplateError as exc:
        report.diagnostics.append(template_diagnostic(exc, theme.folder))
    written[urls.ERRORS_NDJSON] = stage_dump(site, staging, units, other_shards, old_layout, layout)
    return written


def stage_checked(
    files: list[OutputFile],
    plan: Plan,
    staging: Staging,
    report: BuildReport,
    written: dict[str, str],
    memo: Memo | None = None,
) -> None:
    """Check each page's links, stage each file, note what was written.

    A page carried over unchanged has only its links to other pages' anchors
    checked again: those the memo kept, or else the page is read through.
    """
    for file in files:
        if file.path.endswith(".html"):
            cross = file.cross_links if file.unchanged else None
            if cross is None:
                text = file.content.decode()
                problems, found = check_page(
                    file.path, text, file.origin, plan.paths, anchors_only=file.unchanged
                )
                report.diagnostics += problems
                cross = tuple(found)
                if memo is not None:
                    memo.links_checked(file.path, cross)
            report.diagnostics += check_cross_links(
                [(link, file.origin) for link in cross], staging.read
            )
        written[file.path] = staging.put(file.path, file.content, file.sha)


def listing_files(
    site: Site, units: dict[str, UnitEntry], other_words: dict[str, str]
) -> list[Planned]:
    """The errors index, the search index and the sitemap, from every error; each planned
    with what it shows of them (their entries in the index; their searched fields and
    meaning words; their ids, repositories and analysis dates)."""
    config, records = site.config, site.records
    entries = {record_id: unit.index_entry for record_id, unit in units.items()}

    def entry(record: RecordSummary) -> str:
        return entries.get(record.id) or index_entry(record, config)

    words = {record_id: unit.meaning_words for record_id, unit in units.items()} | other_words

    def errors_index_bytes() -> bytes:
        return errors_index(site, entry).content

    labels = site.links.labels
    wordings = site_wordings(records, site.histories)

    def search_index_bytes() -> bytes:
        return search_files(records, words, labels, wordings)[0].content

    def sitemap_bytes() -> bytes:
        return sitemap_xml(site).encode()

    index = (config, tuple(map(entry, records)))
    searched = (
        tuple(
            (r.id, r.repo, r.kind, r.exception, r.message, labels[r.id], r.source_path)
            for r in records
        ),
        tuple((r.tags, r.retired, words[r.id]) for r in records),
        tuple(sorted(wordings.items())),
    )
    files = [
        Planned(urls.ERRORS_INDEX_JSON, "errors index", index, errors_index_bytes),
        Planned(urls.SEARCH_INDEX_JS, "search index", searched, search_index_bytes),
    ]
    if config.base_url:
        mapped = tuple((r.id, r.repo, r.analysis_date) for r in records)
        files.append(Planned(urls.SITEMAP_XML, "sitemap", (config, mapped), sitemap_bytes))
    return files


def stage_dump(
    site: Site,
    staging: Staging,
    units: dict[str, UnitEntry],
    other_shards: dict[str, bytes],
    old_layout: Layout,
    layout: Layout,
) -> str:
    """Stage api/errors.ndjson; its hash. Each error's line is its JSON file; an unchanged
    one is copied from the previous dump, when that is still the file the last build
    wrote (old_layout says so)."""
    line_shas: dict[str, str] = {}
    unchanged: set[str] = set()
    previous = staging.previous
    for record_id, unit in units.items():
        json_path = urls.error_json(record_id)
        for path, sha in unit.files:
            if path == json_path:
                line_shas[record_id] = sha
                if previous.get(json_path) == sha:
                    unchanged.add(record_id)
    for record_id, extra in other_shards.items():
        line_shas[record_id] = hashlib.sha256(extra).hexdigest()

    def line_length(record_id: str) -> int:
        if record_id in other_shards:
            return len(other_shards[record_id])
        return staging.size(urls.error_json(record_id))

    def line(record_id: str) -> bytes:
        if record_id in other_shards:
            return other_shards[record_id]
        return staging.read_bytes(urls.error_json(record_id))

    records = site.records
    pieces, new_layout = ndjson_plan(records, line_length, old_layout, unchanged)
    layout.update(new_layout)
    old_dump = staging.out_dir / urls.ERRORS_NDJSON if old_layout else None

    def write_from(stream: BinaryIO, index: int) -> None:  # the lines from records[index] on
        tail, tail_pieces = records[index:], pieces
        if index:
            start = new_layout[tail[0].id][0]
            tail_pieces, _ = ndjson_plan(tail, line_length, old_layout, unchanged, start)
        write_ndjson(stream, tail, tail_pieces, line, old_dump)

    return staging.put_written(
        urls.ERRORS_NDJSON,
        partial(write_from, index=0),
        dump_identity(site, line_shas.__getitem__),
        live_intact=bool(old_layout),
    )


def previous_page(out_dir: Path, previous: dict[str, str]) -> Callable[[str], bytes | None]:
    """Read a file of the previous output (only one the cache knows it holds)."""

    def read(path: str) -> bytes | None:
        if path not in previous:
            return None
        try:
            return (out_dir / path).read_bytes()
        except OSError:
            return None

    return read


# For the commands that read the records and build nothing (lookup, new, ids, export).


def load_site(
    content_root: Path,
    base_url: str | None,
    report: BuildReport,
    include_drafts: bool = False,
    check_registry: bool = True,
) -> Site | None:
    """load → validate → link, in this process and without a cache: how the commands that
    read the records (lookup, new, ids) get them. `check_registry`: fail when an id in
    published-ids.txt has no page (what a build must refuse; a lookup need not)."""
    options = BuildOptions(base_url=base_url, include_drafts=include_drafts)
    loaded = load_records(content_root, None, None, report)
    config, _, fresh = validate_records(loaded, options, WorkerPool(jobs=1, expected=0), report)
    return link_site(loaded, fresh, config, None, report, check_registry)


def find_theme(config: SiteConfig, content_root: Path) -> tuple[Path | None, list[Diagnostic]]:
    """Resolve the theme setting: a built-in theme name, or a folder beside content/."""
    candidates = [BUILTIN_THEMES / config.theme] if "/" not in config.theme else []
    candidates.append((content_root.parent / config.theme).resolve())
    for candidate in candidates:
        if (candidate / "templates").is_dir() or (candidate / "static").is_dir():
            return candidate, []
    where = Position(display_path(content_root / "site.yaml"))
    return None, [
        error(
            where,
            "theme",
            f"no theme {config.theme!r} (expected a folder with templates/ or static/ "
            "beside the content folder, or the name of a built-in theme such as 'default')",
        )
    ]


def theme_folders(content_root: Path) -> list[Path]:
    """Folders whose files can change the output besides content/: the theme in use."""
    loaded_config = content_root / "site.yaml"
    config = SiteConfig()
    if loaded_config.is_file():
        document, _ = parse_yaml(loaded_config.read_text(encoding="utf-8-sig"), str(loaded_config))
        config, _ = read_config(document)
    theme_dir, _ = find_theme(config, content_root)
    return theme_layers(theme_dir) if theme_dir is not None else []


def theme_folders_fingerprint(theme_dir: Path) -> str:
    return tree_fingerprint(theme_layers(theme_dir), "theme")


def no_base_url(content_root: Path) -> Diagnostic:
    """What a build without a public address leaves out, said where it is set."""
    settings = content_root / "site.yaml"
    shown = display_path(settings)
    where = shown if settings.is_file() else display_path(content_root)
    how = f"add `base_url: https://…/` to {shown}" + ("" if settings.is_file() else " (a new file)")
    return warning(
        Position(where),
        "base_url",
        "not set: sitemap.xml, robots.txt and feed.xml need absolute URLs and were not "
        "written, and pages carry no canonical link",
        f"{how}, or pass --base-url",
    )


def content_folder_missing(content_root: Path) -> Diagnostic:
    """The message for a --content folder that is not there, pointing to `errpages init`."""
    return error(
        Position(os.path.abspath(content_root)),
        "",
        "no such content folder",
        "start a site there with `errpages init`, or name the content folder with --content DIR",
    )


def template_diagnostic(exc: TemplateError, theme_dir: Path) -> Diagnostic:
    if isinstance(exc, TemplateSyntaxError):
        where = Position(str(exc.filename or theme_dir), exc.lineno or 0)
    else:
        where = Position(display_path(theme_dir / "templates"))
    return error(where, "template", f"{type(exc).__name__}: {exc.message or exc}")


def not_ours(out_dir: Path, files: list[str]) -> Diagnostic:
    """The output holds files its last build did not write: the build would drop them."""
    shown = display_path(out_dir)
    named = ", ".join(files[:5]) + (f" and {len(files) - 5} more" if len(files) > 5 else "")
    return error(
        Position(shown),
        "--out",
        f"holds files errpages did not write there, or changed since: {named}",
        f"a build replaces {shown} whole: move them out of it (or delete {shown} to have it "
        "written anew), or build into another folder with --out",
    )
