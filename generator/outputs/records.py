"""Each record's own outputs (its page and its JSON), rendered in parallel when it pays.

A record's outputs depend only on the record (its version: what it was read
from), how its related errors and backlinks read, its drift note, and what
every page shares (settings, theme, errpages' code: the cache drops every
unit when that changes). Those inputs are kept as one digest; a cached
rendering holds while they digest the same. The rest are rendered in forked
workers, each writing straight into the staging folder, so no process ever
holds the whole site in memory.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Container, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from jinja2 import Environment

from errpages.diagnostics import Diagnostic
from errpages.memo.memo import Digests
from errpages.outputs.api import error_data, index_entry
from errpages.outputs.linkcheck import CrossLink, check_page
from errpages.outputs.search import meaning_words
from errpages.outputs.write import Staging
from errpages.parallel import WorkerPool
from errpages.render.markdown import render_markdown, render_markdown_inline
from errpages.render.templates import error_page_context, make_environment
from errpages.site import urls
from errpages.site.model import (
    DriftNote,
    ErrorHistory,
    ErrorLinks,
    Record,
    RecordSummary,
    Site,
    SiteConfig,
    Version,
)


@dataclass(frozen=True)
class RenderTask:
    """What every worker needs, sent once to each when it starts (never the whole site)."""

    config: SiteConfig
    theme_dir: Path
    staging: Staging
    planned: Container[str]  # every path of the site


class UnitEntry(NamedTuple):
    """What rendering one record produced, and the digest of what it was rendered from (see
    `outputs.records.unit_inputs`): its outputs hold while that digest is the same."""

    inputs: str
    files: tuple[tuple[str, str], ...]  # (site path, sha256)
    meaning_words: str  # space-separated, for the search index
    cross_links: tuple[tuple[str, str, str, str], ...]  # (page, target, fragment, url)
    index_entry: str  # its entry in api/errors/index.json


RenderItem = tuple[Record, ErrorLinks, DriftNote | None, ErrorHistory | None]


@dataclass(frozen=True)
class UnitResult:
    """What a worker sends back: small, so the parent never holds pages."""

    record_id: str
    files: tuple[tuple[str, str], ...]  # (site path, sha256)
    meaning_words: str
    cross_links: tuple[CrossLink, ...]
    diagnostics: tuple[Diagnostic, ...]


def render_unit(
    task: RenderTask,
    env: Environment,
    record: Record,
    links: ErrorLinks,
    drift: DriftNote | None,
    history: ErrorHistory | None,
) -> UnitResult:
    """Render, check and stage one record's page and JSON."""
    page_path = urls.error_page(record.id)
    context = error_page_context(record, links, task.config, drift, history)
    html = env.get_template("error.html").render(context)
    when = context["when"]
    rendered = [context["meaning_html"], *context["solutions_html"]]
    if when and when["trigger_html"]:
        rendered.append(when["trigger_html"])
    diagnostics, cross = check_page(page_path, html, record.file, task.planned)
    json_path = urls.error_json(record.id)
    files = (
        (page_path, task.staging.put(page_path, html.encode())),
        (json_path, task.staging.put(json_path, error_line(record, links, task.config, history))),
    )
    words = " ".join(meaning_words(record, [str(h) for h in rendered]))
    return UnitResult(record.id, files, words, tuple(cross), tuple(diagnostics))


def error_line(
    record: Record, links: ErrorLinks, config: SiteConfig, history: ErrorHistory | None
) -> bytes:
    """The error's JSON file: one line, the same as its line in api/errors.ndjson."""
    data = error_data(record, links, config, history)
    return f"{json.dumps(data, ensure_ascii=False)}\n".encode()


def unit_inputs(site: Site, version: Callable[[str], Version], digests: Digests) -> dict[str, str]:
    """Every record's outputs' inputs (`unit_input`), each error's face digested once."""
    faces = {record.id: face_digest(site, record.id, digests) for record in site.records}
    return {r.id: unit_input(site, r, version, digests, faces.get) for r in site.records}


def face_digest(site: Site, error_id: str, digests: Digests) -> str | None:
    """How an error reads in another's links (message, exception, repository, label),
    digested; None for no error (no neighbour there)."""
    other = site.links.by_id.get(error_id)
    if other is None:
        return None
    shown = (other.id, other.message, other.exception, other.repo, site.links.labels[other.id])
    return digests.of(f"face {other.id}", shown)


def unit_input(
    site: Site,
    record: RecordSummary,
    version: Callable[[str], Version],
    digests: Digests,
    face: Callable[[str], str | None],
) -> str:
    """A record's outputs' inputs, as one digest: its version, its drift note, its history,
    its label, and the faces (`face_digest`) of its related errors, backlinks and neighbours
    in its source file."""
    related, backlinks = site.links.ids(record.id)
    before, after = site.links.neighbours[record.id]
    drift = site.drift_note(record) if site.drift else None
    shown = tuple(map(face, related)), tuple(map(face, backlinks))
    own = (version(record.file), drift, site.history(record), shown, (face(before), face(after)))
    return digests.of(record.id, (*own, site.links.labels[record.id]))


def unit_entry(summary: RecordSummary, inputs: str, result: UnitResult, site: Site) -> UnitEntry:
    """Remember what a record's outputs were made from (its inputs' digest) and came to."""
    return UnitEntry(
        inputs=inputs,
        files=result.files,
        meaning_words=result.meaning_words,
        cross_links=result.cross_links,
        index_entry=index_entry(summary, site.config),
    )


def record_extras(site: Site, record: Record) -> tuple[bytes, str]:
    """What site-wide files need from a record whose page another shard renders."""
    line = error_line(record, site.links[record.id], site.config, site.history(record))
    return line, record_words(record)


def record_words(record: Record) -> str:
    """A record's meaning words for the search index, as rendering its page finds them."""
    rendered = [render_markdown(record.meaning), *map(render_markdown_inline, record.solutions)]
    if record.when is not None and record.when.trigger:
        rendered.append(render_markdown_inline(record.when.trigger))
    return " ".join(meaning_words(record, rendered))


def start_worker(task: RenderTask) -> tuple[RenderTask, Environment]:
    return task, make_environment(task.theme_dir)


def render_chunk(
    state: tuple[RenderTask, Environment], items: list[RenderItem]
) -> list[UnitResult]:
    task, env = state
    return [render_unit(task, env, *item) for item in items]


def render_units(
    pool: WorkerPool, task: RenderTask, env: Environment, site: Site, records: list[RecordSummary]
) -> Iterator[UnitResult]:
    """Render these records' outputs, in the build's worker processes when it pays (each
    record goes to them with its links, so a worker holds only the records it renders), else
    here, with this process's template environment."""
    items = [
        (site.record(s), site.links[s.id], site.drift_note(s), site.history(s)) for s in records
    ]
    yield from pool.map(render_chunk, start_worker, task, items, here=(task, env))


def kept_units(
    staging: Staging,
    records: Iterable[RecordSummary],
    units: dict[str, UnitEntry],
    inputs: dict[str, str],
) -> tuple[list[RecordSummary], dict[str, UnitEntry]]:
    """Split records into those to render and those whose cached outputs still hold: made
    from inputs with the same digest, and still in the staging folder (or linked there)."""
    to_render: list[RecordSummary] = []
    kept: dict[str, UnitEntry] = {}
    previous, held, keep = staging.previous, staging.holds, staging.keep
    for summary in records:
        unit = units.get(summary.id)
        if unit is not None and unit.inputs == inputs[summary.id]:
            for path, sha in unit.files:
                # the spare holds the very file the last build wrote; else link it again
                if not ((previous.get(path) == sha and held.get(path) == sha) or keep(path, sha)):
                    break
            else:
                kept[summary.id] = unit
                continue
        to_render.append(summary)
    return to_render, kept
