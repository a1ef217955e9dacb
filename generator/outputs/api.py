"""The JSON API: one file per error, an index of summaries and the record schema."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from errpages.content.record_schema import record_schema
from errpages.outputs import OutputFile
from errpages.site import urls
from errpages.site.history import history_data
from errpages.site.model import (
    ErrorHistory,
    ErrorLinks,
    LinkRef,
    Record,
    RecordSummary,
    Site,
    SiteConfig,
)


def dump_json(data: Any, indent: int | None = 2) -> bytes:
    """Serialise deterministically: fixed key order as built, UTF-8, trailing newline."""
    return (json.dumps(data, ensure_ascii=False, indent=indent) + "\n").encode()


def link_data(ref: LinkRef, config: SiteConfig) -> dict[str, str]:
    page = urls.error_page(ref.id)
    return {
        "id": ref.id,
        "title": ref.title,
        "message": ref.message,
        "exception": ref.exception,
        "repo": ref.repo,
        "url": urls.permanent_path(page),
        "canonical_url": urls.canonical_url(config, page),
        "json_url": urls.error_json(ref.id),
    }


def record_data(record: Record) -> dict[str, Any]:
    """The record as its author wrote it (with defaults filled in)."""
    source = record.source
    snippet = source.snippet
    fix = record.example_fix
    return {
        "id": record.id,
        "repo": record.repo,
        "kind": record.kind,
        "exception": record.exception,
        "message": record.message,
        "title": record.title,
        "meaning": record.meaning,
        "source": {
            "path": source.path,
            "line": source.line,
            "commit": source.commit,
            "language": snippet.language,
            "start_line": snippet.start_line,
            "end_line": snippet.end_line,
            "snippet": snippet.text,
            "snippet_file": snippet.file,
            **({"function": source.function} if source.function else {}),
            **({"conditions": list(source.conditions)} if source.conditions else {}),
            **({"through": list(source.through)} if source.through else {}),
            **(
                {"also_raised_at": [place._asdict() for place in source.also_raised_at]}
                if source.also_raised_at
                else {}
            ),
        },
        "solutions": list(record.solutions),
        "example_fix": None
        if fix is None
        else {
            "before": fix.before,
            "after": fix.after,
            "language": fix.language,
            "notes": fix.notes,
        },
        "when": None
        if record.when is None
        else {"trigger": record.when.trigger, "situations": list(record.when.situations)},
        "related": list(record.related),
        "tags": list(record.tags),
        "aliases": list(record.aliases),
        "analysis": None
        if record.analysis is None
        else {"by": record.analysis.by, "date": record.analysis.date},
        "draft": record.draft,
        "retired": None
        if record.retired is None
        else {"since": record.retired.since, "note": record.retired.note},
    }


def error_data(
    record: Record, links: ErrorLinks, config: SiteConfig, history: ErrorHistory | None = None
) -> dict[str, Any]:
    """The record plus what the build resolved: URLs, source permalink, related and backlinks,
    and in which releases it is raised (when `errpages history` found it)."""
    page = urls.error_page(record.id)
    extra = {"history": history_data(history)} if history is not None else {}
    return {
        **record_data(record),
        "resolved": {
            "url": urls.permanent_path(page),
            "canonical_url": urls.canonical_url(config, page),
            "json_url": urls.error_json(record.id),
            "source_url": urls.source_url(config, record),
            "id_derived": record.id_derived,
            "related": [link_data(ref, config) for ref in links.related],
            "backlinks": [link_data(ref, config) for ref in links.backlinks],
            **extra,
        },
    }


def summary_data(record: RecordSummary, config: SiteConfig) -> dict[str, Any]:
    page = urls.error_page(record.id)
    return {
        "id": record.id,
        "repo": record.repo,
        "kind": record.kind,
        "exception": record.exception,
        "message": record.message,
        "title": record.title,
        "source_path": record.source_path,
        "source_line": record.source_line,
        "tags": list(record.tags),
        "url": urls.permanent_path(page),
        "canonical_url": urls.canonical_url(config, page),
        "json_url": urls.error_json(record.id),
        "analysis_date": record.analysis_date,
        "retired": record.retired,
    }


def index_entry(record: RecordSummary, config: SiteConfig) -> str:
    """An error's entry in the errors index, as JSON text (kept with its rendering)."""
    return json.dumps(summary_data(record, config), ensure_ascii=False)


def errors_index(site: Site, entry: Callable[[RecordSummary], str]) -> OutputFile:
    """The index of every error's summary, joined from each error's entry.

    One line: at tens of thousands of errors, indenting costs more than the
    rest of the file; the bytes are what json.dumps of the whole would give.
    """
    entries = ", ".join(entry(record) for record in site.records)
    text = f'{{"count": {len(site.records)}, "errors": [{entries}]}}\n'
    return OutputFile(urls.ERRORS_INDEX_JSON, text.encode(), "errors index")


def api_files() -> list[OutputFile]:
    """The record schema (each error's JSON is a record output; the index comes last)."""
    return [OutputFile(urls.SCHEMA_JSON, dump_json(record_schema()), "record schema")]
