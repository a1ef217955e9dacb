"""The plan: every output of the site, each with the inputs it is made from.

An output is `Planned`: its path, and plain data that says what it shows (the
settings, a template's name, the versions and labels of the records it lists);
the memo compares that data's digest with the last build's to decide what to
make again. The files made from every error (the errors index, the search
index, the sitemap) are planned once the errors' own outputs are made: they
show what making those found (each page's words).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from jinja2 import Environment

from errpages.diagnostics import Diagnostic, Position, error
from errpages.outputs import OutputFile, Planned
from errpages.outputs.api import api_files, errors_index, index_entry
from errpages.outputs.assets import asset_files
from errpages.outputs.hosting import hosting_files, redirect_files, sitemap_xml
from errpages.outputs.pages import Version, page_files
from errpages.outputs.records import error_item, error_line, make_error_files
from errpages.outputs.search import search_files
from errpages.publish import check_collisions
from errpages.site import urls
from errpages.site.history import site_wordings
from errpages.site.model import RecordSummary, Site

Digest = Callable[[str, Any], str]  # (key, plain data) -> its digest, kept by key


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


@dataclass(frozen=True)
class Plan:
    """Every path of the whole site, and the outputs this build (this shard) makes of it."""

    paths: PlannedPaths
    files: list[Planned]  # site-wide: pages, the feed, assets, redirects, hosting files
    errors: list[Planned]  # this shard's errors' pages and JSON files
    global_shard: bool  # this shard makes the files made from every error too


def plan_outputs(
    site: Site,
    env: Environment,
    theme_dir: Path,
    version: Version,
    digest: Digest,
    shard: tuple[int, int] = (1, 1),
) -> tuple[Plan, list[Diagnostic]]:
    """Plan every output, and say which paths two outputs want. Raises TemplateError."""
    made = [*api_files(), *asset_files(theme_dir), *redirect_files(site, env)]
    made += hosting_files(site, env)
    files = page_files(site, env, version) + list(map(already_made, made))
    alias_at = {
        path: alias
        for record in site.records
        for alias in record.aliases
        for path in (urls.error_page(alias), urls.error_json(alias))
    }

    def here(file: Planned) -> bool:  # an alias's redirects go with the alias's shard
        alias = alias_at.get(file.path)
        return shard[0] == 1 if alias is None else in_shard(alias, shard)

    paths, problems = planned_paths(site, files)
    faces: dict[str | None, str] = {r.id: face_digest(site, r, digest) for r in site.records}
    errors = [
        planned
        for record in site.records
        if in_shard(record.id, shard)
        for planned in error_files(site, env, record, version, digest, faces.get)
    ]
    return Plan(paths, list(filter(here, files)), errors, shard[0] == 1), problems


def already_made(file: OutputFile) -> Planned:
    """An output whose bytes are known as it is planned: they are its inputs."""
    return Planned(file.path, file.origin, (file.content,), partial(bytes, file.content))


def planned_paths(site: Site, files: list[Planned]) -> tuple[PlannedPaths, list[Diagnostic]]:
    """Every path the whole site will have; two outputs that want one path are an error."""
    late = [urls.SEARCH_INDEX_JS, urls.ERRORS_NDJSON, urls.ERRORS_INDEX_JSON]
    if site.config.base_url:
        late.append(urls.SITEMAP_XML)
    everything = [(file.path, file.origin) for file in files] + [(path, "site") for path in late]
    problems = check_collisions(everything)
    paths = PlannedPaths(frozenset(path for path, _ in everything), frozenset(site.links.by_id))
    for path, origin in everything:  # where an error's page or JSON goes?
        error_id = paths.error_at(path)
        if error_id is not None:
            taken = f"{site.links.by_id[error_id].file} (error {error_id})"
            problems.append(
                error(Position(origin), "", f"output path {path} is also written by {taken}")
            )
    return paths, problems


def in_shard(error_id: str, shard: tuple[int, int]) -> bool:
    """Records go to shards by their id (already a hash): a disjoint, stable split."""
    k, n = shard
    return int(error_id, 16) % n == k - 1


def error_files(
    site: Site,
    env: Environment,
    record: RecordSummary,
    version: Version,
    digest: Digest,
    face: Callable[[str | None], str | None],
) -> list[Planned]:
    """An error's page and JSON file, planned with what they show: its record (by version),
    its drift note, its history, its label, and how its related errors, backlinks and
    neighbours in its source file read (their `face_digest`)."""
    links = site.links
    related, backlinks = links.ids(record.id)
    before, after = links.neighbours[record.id]
    shown = tuple(map(face, related)), tuple(map(face, backlinks)), (face(before), face(after))
    drift = site.drift_note(record) if site.drift else None
    history = site.histories.face(record)
    own = (version(record.file), drift, history and history.key, links.labels[record.id])
    inputs = (digest(record.id, (*own, shown)),)

    def page() -> bytes:
        return make_error_files(env, site.config, error_item(site, record.id)).page

    def data() -> bytes:
        item = error_item(site, record.id)
        return error_line(item.record, item.links, site.config, item.history)

    return [
        Planned(urls.error_page(record.id), record.file, inputs, page),
        Planned(urls.error_json(record.id), record.file, inputs, data),
    ]


def face_digest(site: Site, other: RecordSummary, digest: Digest) -> str:
    """How an error reads in another's links (message, exception, repository, label),
    digested."""
    shown = (other.id, other.message, other.exception, other.repo, site.links.labels[other.id])
    return digest(f"face {other.id}", shown)


def listing_files(site: Site, words: Callable[[str], str]) -> list[Planned]:
    """The errors index, the search index and the sitemap, from every error; each planned
    with what it shows of them (their summaries; their searched fields and words; their
    ids, repositories and analysis dates)."""
    config, records = site.config, site.records
    labels = site.links.labels
    wordings = site_wordings(records, site.histories)

    def errors_index_bytes() -> bytes:
        return errors_index(site, partial(index_entry, config=config)).content

    def search_index_bytes() -> bytes:
        found = {record.id: words(record.id) for record in records}
        return search_files(records, found, labels, wordings)[0].content

    def sitemap_bytes() -> bytes:
        return sitemap_xml(site).encode()

    searched = (
        tuple(
            (r.id, r.repo, r.kind, r.exception, r.message, labels[r.id], r.source_path)
            for r in records
        ),
        tuple((r.tags, r.retired, words(r.id)) for r in records),
        tuple(sorted(wordings.items())),
    )
    files = [
        Planned(urls.ERRORS_INDEX_JSON, "errors index", (config, records), errors_index_bytes),
        Planned(urls.SEARCH_INDEX_JS, "search index", searched, search_index_bytes),
    ]
    if config.base_url:
        mapped = tuple((r.id, r.repo, r.analysis_date) for r in records)
        files.append(Planned(urls.SITEMAP_XML, "sitemap", (config, mapped), sitemap_bytes))
    return files
