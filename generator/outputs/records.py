"""Each error's own outputs: its page and its JSON file, made from its record and its links.

`make_error_files` is the one maker, for `build` (in forked workers when there
are enough errors to pay for them, each writing straight into the staging
folder, so no process ever holds the whole site) and for `serve` (one page
when it is asked for).
"""

from __future__ import annotations

import json
from collections.abc import Container, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from jinja2 import Environment

from errpages.diagnostics import Diagnostic
from errpages.outputs.api import error_data
from errpages.outputs.linkcheck import CrossLink, check_page
from errpages.outputs.search import meaning_words
from errpages.parallel import WorkerPool
from errpages.publish import Staging
from errpages.render.markdown import render_markdown, render_markdown_inline
from errpages.render.templates import error_page_context, make_environment
from errpages.site import urls
from errpages.site.model import DriftNote, ErrorHistory, ErrorLinks, Record, Site, SiteConfig


class ErrorItem(NamedTuple):
    """What an error's outputs are made from: its record and how what it links to reads."""

    record: Record
    links: ErrorLinks
    drift: DriftNote | None
    history: ErrorHistory | None


def error_item(site: Site, error_id: str) -> ErrorItem:
    summary = site.links.by_id[error_id]
    note = site.drift_note(summary)
    return ErrorItem(site.record(summary), site.links[error_id], note, site.history(summary))


class ErrorFiles(NamedTuple):
    page: bytes
    data: bytes  # the JSON file: one line, the same as its line in api/errors.ndjson
    words: str  # the page's words for the search index


def make_error_files(env: Environment, config: SiteConfig, item: ErrorItem) -> ErrorFiles:
    """Make an error's page and JSON file, and find the words the search index gives it."""
    record, links, drift, history = item
    context = error_page_context(record, links, config, drift, history)
    page = env.get_template("error.html").render(context).encode()
    rendered = [context["meaning_html"], *context["solutions_html"]]
    when = context["when"]
    if when and when["trigger_html"]:
        rendered.append(when["trigger_html"])
    words = " ".join(meaning_words(record, [str(html) for html in rendered]))
    return ErrorFiles(page, error_line(record, links, config, history), words)


def error_line(
    record: Record, links: ErrorLinks, config: SiteConfig, history: ErrorHistory | None
) -> bytes:
    """The error's JSON file: one line, the same as its line in api/errors.ndjson."""
    data = error_data(record, links, config, history)
    return f"{json.dumps(data, ensure_ascii=False)}\n".encode()


def record_words(record: Record) -> str:
    """A record's words for the search index, as making its page finds them."""
    rendered = [render_markdown(record.meaning), *map(render_markdown_inline, record.solutions)]
    if record.when is not None and record.when.trigger:
        rendered.append(render_markdown_inline(record.when.trigger))
    return " ".join(meaning_words(record, rendered))


@dataclass(frozen=True)
class ErrorWork:
    """What every worker needs, sent once to each when it starts (never the whole site)."""

    config: SiteConfig
    theme_dir: Path
    staging: Staging
    planned: Container[str]  # every path of the site


class ErrorMade(NamedTuple):
    """What a worker sends back of an error's outputs: small, so the parent never holds pages."""

    error_id: str
    page_sha: str
    data_sha: str
    words: str
    cross_links: tuple[CrossLink, ...]  # the page's links to other pages' anchors
    diagnostics: tuple[Diagnostic, ...]  # its own broken links


def stage_error_files(work: ErrorWork, env: Environment, item: ErrorItem) -> ErrorMade:
    """Make, check and stage one error's page and JSON file."""
    record = item.record
    page_path = urls.error_page(record.id)
    files = make_error_files(env, work.config, item)
    problems, cross = check_page(page_path, files.page.decode(), record.file, work.planned)
    page_sha = work.staging.put(page_path, files.page)
    data_sha = work.staging.put(urls.error_json(record.id), files.data)
    return ErrorMade(record.id, page_sha, data_sha, files.words, tuple(cross), tuple(problems))


def start_worker(work: ErrorWork) -> tuple[ErrorWork, Environment]:
    return work, make_environment(work.theme_dir)


def stage_chunk(state: tuple[ErrorWork, Environment], items: list[ErrorItem]) -> list[ErrorMade]:
    work, env = state
    return [stage_error_files(work, env, item) for item in items]


def stage_errors(
    pool: WorkerPool, work: ErrorWork, env: Environment, items: list[ErrorItem]
) -> Iterator[ErrorMade]:
    """Make and stage these errors' files, in the build's worker processes when it pays (each
    error goes to them with its links, so a worker holds only the errors it makes), else here,
    with this process's template environment."""
    yield from pool.map(stage_chunk, start_worker, work, items, here=(work, env))
