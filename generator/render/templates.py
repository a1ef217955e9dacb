"""Render stage: the Jinja environment and the context each template receives.

A page is a function of its record, the link graph and the theme alone
(`render_error_page`), so pages are rendered in parallel and kept while those
are the same.
Every piece of record text is escaped by Jinja's autoescape; the few values
passed as Markup were produced by our Markdown renderer or Pygments, which
escape their input themselves.
"""

from __future__ import annotations

import heapq
import re
import sys
import textwrap
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn
from urllib.parse import urlsplit

from jinja2 import (
    Environment,
    FileSystemLoader,
    StrictUndefined,
    TemplateError,
    TemplateRuntimeError,
    TemplateSyntaxError,
    select_autoescape,
)
from jinja2.sandbox import ImmutableSandboxedEnvironment
from markupsafe import Markup, escape

from errpages import __version__
from errpages.content.listing import display_path
from errpages.diagnostics import Diagnostic, Position, error
from errpages.pylex import PYTHON_LANGUAGES, logical_line
from errpages.render.highlight import highlight_block, highlight_lines
from errpages.render.markdown import render_markdown, render_markdown_inline, text_of_html
from errpages.render.themes import theme_layers
from errpages.reveal import finalize, reveal_html, reveal_text
from errpages.site import urls
from errpages.site.conditions import beside_code
from errpages.site.history import (
    ReleaseCount,
    glance,
    history_changes,
    listed,
    release_counts,
    release_label,
)
from errpages.site.links import short_text
from errpages.site.messages import message_parts, placeholder_names
from errpages.site.model import (
    VERBS,
    DriftNote,
    ErrorHistory,
    ErrorLinks,
    Histories,
    HistoryFace,
    LinkRef,
    Record,
    RecordSummary,
    Site,
    SiteConfig,
)


def anchor(text: str) -> str:
    """Make an HTML id from free text: lowercase letters, digits, '-' and '_'."""
    return re.sub(r"[^a-z0-9_-]+", "-", text.lower()).strip("-") or "x"


class ThemeEnvironment(ImmutableSandboxedEnvironment):
    """Jinja's immutable sandbox, where whatever a template raises is a template error."""

    def handle_exception(self, source: str | None = None) -> NoReturn:
        """Called by Jinja for any exception while a template renders: one that is not
        Jinja's own (`{{ 1 / 0 }}`, `{{ text.encode('ascii') }}`) is reported as a template
        error too, so a theme cannot end a build (or `serve`) with a traceback."""
        raised = sys.exc_info()[1]
        if isinstance(raised, TemplateError) or raised is None:
            super().handle_exception(source)
        raise TemplateRuntimeError(f"{type(raised).__name__}: {raised}") from raised


def make_environment(theme_dir: Path) -> Environment:
    """Build the Jinja environment for a theme (and the default theme it inherits from).

    Autoescape everything, fail on undefined names. A theme may come from a pull request,
    so templates run in Jinja's immutable sandbox: no attribute that starts with `_`, no
    internals of functions, frames or code, and no method that changes a list, dict or set
    (what reaches `os.system` through Python's object graph). Nothing compiled is kept
    on disk between builds: compiled code read back from a folder a pull request can write
    would run whatever it holds. A build makes its own environment, so templates are never
    checked for changes on disk again.
    """
    env = ThemeEnvironment(
        loader=FileSystemLoader([str(layer / "templates") for layer in theme_layers(theme_dir)]),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        finalize=finalize,
        auto_reload=False,
    )
    env.filters["anchor"] = anchor
    env.globals["verbs"] = VERBS  # "raised", "issued": what code does with a record's kind
    return env


def message_html(message: str) -> Markup:
    """Escape a message template and mark its `{placeholders}` so readers see what varies."""
    return Markup("").join(
        Markup('<var class="placeholder" data-name="{}"{}>{}</var>').format(
            reveal_text(part.name),
            Markup(' data-conversion="r"') if part.conversion == "r" else "",
            Markup(reveal_html(str(escape(part.text)))),
        )
        if part.is_placeholder
        else Markup(reveal_html(str(escape(part.text))))
        for part in message_parts(message)
    )


@dataclass(frozen=True)
class PageLinks:
    """Relative links every page needs, computed from that page's own path."""

    path: str
    root: str
    home: str
    search: str
    style_css: str
    pygments_css: str
    site_js: str
    search_js: str
    lookup_js: str
    search_index_js: str
    errors_index_json: str
    feed: str
    favicon: str

    @staticmethod
    def for_page(path: str) -> PageLinks:
        def link(target: str) -> str:
            return urls.relative(target, path)

        return PageLinks(
            path=path,
            root=link("index.html").removesuffix("index.html") or "./",
            home=link(urls.HOME_PAGE),
            search=link(urls.SEARCH_PAGE),
            style_css=link(urls.STYLE_CSS),
            pygments_css=link(urls.PYGMENTS_CSS),
            site_js=link(urls.SITE_JS),
            search_js=link(urls.SEARCH_JS),
            lookup_js=link(urls.LOOKUP_JS),
            search_index_js=link(urls.SEARCH_INDEX_JS),
            errors_index_json=link(urls.ERRORS_INDEX_JSON),
            feed=link(urls.FEED_XML),
            favicon=link(urls.FAVICON),
        )

    def to_error(self, error_id: str) -> str:
        return urls.relative(urls.error_page(error_id), self.path)

    def to_repo(self, repo: str) -> str:
        return urls.relative(urls.repo_page(repo), self.path)

    def to_json(self, error_id: str) -> str:
        return urls.relative(urls.error_json(error_id), self.path)


def site_context(
    config: SiteConfig, page: PageLinks, canonical: str, base_href: str = ""
) -> dict[str, Any]:
    return {
        "site": config,
        "page": page,
        "content_security_policy": CONTENT_SECURITY_POLICY,
        "canonical_url": canonical,
        "base_href": base_href,
        "generator": f"errpages {__version__}",
    }


# Only the site's own scripts, styles and images; nothing inline, nothing remote.
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "base-uri 'self'; form-action 'self'"
)

ABBREVIATIONS = ("e.g.", "i.e.", "etc.", "vs.", "cf.", "approx.")


def first_sentence(text: str, limit: int = 300) -> str:
    """The first sentence of plain text (abbreviations such as e.g. do not end it)."""
    text = " ".join(text.split())
    for found in re.finditer(r"[.!?](?=\s|$)", text):
        end = found.end()
        if text[:end].lower().endswith(ABBREVIATIONS):
            continue
        return short_text(text[:end], limit)
    return short_text(text, limit)


# A line's indentation as the highlighters write it: plain, or in a white-space token.
LEADING_SPACE_RE = re.compile(r'^(?:<span class="w">([ \t]+)</span>|([ \t]+))')


def raise_span(record: Record) -> tuple[int, int]:
    """The snippet's lines (from 1) of the raising statement: the first and the last."""
    snippet = record.source.snippet
    raise_line = record.source.line - snippet.start_line + 1
    if snippet.language.lower() in PYTHON_LANGUAGES:
        statement = logical_line(textwrap.dedent(snippet.text), raise_line)
        if statement is not None:
            return statement.first, statement.last
    return raise_line, raise_line


def snippet_context(record: Record) -> dict[str, Any]:
    """The snippet's lines for display: the indentation all of them share taken off (their
    numbers are the file's own), and the lines of the raising statement marked."""
    snippet = record.source.snippet
    highlighted = highlight_lines(textwrap.dedent(snippet.text), snippet.language)
    first, last = raise_span(record)
    lines = [
        {
            "number": snippet.start_line + offset,
            "html": Markup(html),
            "is_raise": offset + 1 == first,  # where the raising statement starts
            "in_raise": first <= offset + 1 <= last,
        }
        for offset, html in enumerate(highlighted)
    ]
    return {"language": snippet.language, "lines": lines, "rows_html": snippet_rows(lines)}


def snippet_rows(lines: list[dict[str, Any]]) -> Markup:
    """The snippet's lines as the default theme marks them up, each with its own anchor, its
    indentation apart from its code (a long line wraps under its code, a little further in).

    A Jinja loop over forty lines was a third of a page's template time, so the
    rows are joined here; a theme that wants other markup loops over
    `snippet.lines` instead.
    """
    rows = []
    for line in lines:
        number = int(line["number"])
        css, label = "line", f"Line {number}"
        if line["in_raise"]:
            css += " in-raise"
        if line["is_raise"]:
            css, label = css + " is-raise", f"Line {number}, raises here"
        html = str(line["html"])
        found = LEADING_SPACE_RE.match(html)
        indent = (found[1] or found[2]) if found else ""
        code = html[found.end() :] if found else html
        rows.append(
            f'<span class="{css}" id="L{number}"><a class="ln" href="#L{number}" '
            f'data-line="{number}" aria-label="{label}"></a><span class="lc">'
            f'<span class="indent">{indent}</span><span class="text">{code}</span></span>\n</span>'
        )
    return Markup("".join(rows))


def link_context(ref: LinkRef, page: PageLinks) -> dict[str, str]:
    return {
        "id": ref.id,
        "title": ref.title,
        "message": ref.message,
        "exception": ref.exception,
        "repo": ref.repo,
        "url": page.to_error(ref.id),
    }


def report_url(config: SiteConfig, record: Record, canonical: str) -> str:
    title = f"Error page {record.id}: {record.exception}: {short_text(record.message)}"
    page = canonical or urls.permanent_path(urls.error_page(record.id))
    body = f"About the error page {page}\n\n(describe what is wrong or missing)"
    return urls.fill_template(
        config.report_url,
        {
            "repo": record.repo,
            "id": record.id,
            "title": title,
            "url": page,
            "body": body,
            "exception": record.exception,
            "message": record.message,
        },
    )


DRIFT_NOTES = {
    "moved": "Pinned to an old commit: the code has moved. At {commit} this raise is at {now}.",
    "changed": "Pinned to an old commit: at {commit} the code raises a different message here.",
    "removed": "At {commit} the code no longer raises this message.",
    "conditions-changed": "Pinned to an old commit: at {commit} the code around this raise "
    "tests something else, so what this page says triggers it may be out of date.",
    "corrupt": "The snippet on this page differs from the file at its pinned commit.",
    "mismatch": "The pinned line does not raise this message at the pinned commit.",
}


def drift_text(note: DriftNote | None) -> str:
    if note is None or note.status not in DRIFT_NOTES:
        return ""
    return DRIFT_NOTES[note.status].format(commit=note.checked_commit[:10], now=note.now)


def history_context(
    history: ErrorHistory | None, record: Record, config: SiteConfig
) -> dict[str, Any] | None:
    """The line under the title and the History section, when the error's releases are known."""
    if history is None or not history.runs:
        return None
    since = history.not_raised_since
    return {
        "glance": glance(history),
        "changes": history_changes(history, record.repo, config),
        "not_raised_since": release_label(since.name) if since else "",
        "latest": release_label(history.latest.name),
        "kind": history.runs[-1].found.kind,  # what the last release that has it did with it
    }


# `analysis.by` that says how the analysis was made ("AI-assisted"), not who made it.
HOW_ANALYSED_RE = re.compile(r"(?i)(assisted|generated|automated|reviewed|written)$")


def analysed_by(record: Record) -> dict[str, str]:
    """The footer's words for `analysis.by`: "AI-assisted analysis of …", or "Analysis of …
    by Jane Doe"."""
    by = record.analysis.by if record.analysis else ""
    if by and HOW_ANALYSED_RE.search(by):
        return {"analysis_kind": by, "analyst": ""}
    return {"analysis_kind": "", "analyst": by}


def error_page_context(
    record: Record,
    links: ErrorLinks,
    config: SiteConfig,
    drift: DriftNote | None = None,
    history: ErrorHistory | None = None,
) -> dict[str, Any]:
    """Everything error.html needs; depends on the record, its links and the settings only."""
    path = urls.error_page(record.id)
    page = PageLinks.for_page(path)
    canonical = urls.canonical_url(config, path)
    related_ids = {ref.id for ref in links.related}
    fix = record.example_fix
    when = record.when
    meaning_html = Markup(render_markdown(record.meaning))
    return {
        **site_context(config, page, canonical),
        "record": record,
        "short_title": links.label or short_text(record.title),
        "short_message": short_text(record.message),
        "description": first_sentence(text_of_html(meaning_html)),
        "message_html": message_html(record.message),
        "placeholders": placeholder_names(record.message),
        "meaning_html": meaning_html,
        "snippet": snippet_context(record),
        "source_url": urls.source_url(config, record),
        "source_host": config.source_for(record.repo)[1],
        "drift_note": drift_text(drift),
        "also_raised_at": [
            (place, urls.place_url(config, record, place)) for place in record.source.also_raised_at
        ],
        "raised_when": beside_code(record),
        "history": history_context(history, record, config),
        "retired_note_html": Markup(render_markdown(record.retired.note))
        if record.retired and record.retired.note
        else "",
        "solutions_html": [Markup(render_markdown_inline(s)) for s in record.solutions],
        "fix": None
        if fix is None
        else {
            "language": fix.language,
            "before_html": Markup(highlight_block(fix.before, fix.language)),
            "after_html": Markup(highlight_block(fix.after, fix.language)),
            "notes_html": Markup(render_markdown(fix.notes)) if fix.notes else "",
        },
        "when": None
        if when is None
        else {
            "trigger_html": Markup(render_markdown_inline(when.trigger)) if when.trigger else "",
            "situations_html": [Markup(render_markdown_inline(s)) for s in when.situations],
        },
        "related": [link_context(ref, page) for ref in links.related],
        "backlinks": [
            link_context(ref, page) for ref in links.backlinks if ref.id not in related_ids
        ],
        **analysed_by(record),
        "previous": link_context(links.previous, page) if links.previous else None,
        "next": link_context(links.next, page) if links.next else None,
        "json_url": page.to_json(record.id),
        "json_path": urls.error_json(record.id),
        "repo_url": page.to_repo(record.repo),
        "report_url": report_url(config, record, canonical),
    }


def render_error_page(
    env: Environment,
    record: Record,
    links: ErrorLinks,
    config: SiteConfig,
    drift: DriftNote | None = None,
    history: ErrorHistory | None = None,
) -> str:
    """Render one error page."""
    context = error_page_context(record, links, config, drift, history)
    return env.get_template("error.html").render(context)


def error_summary(
    record: Record, page: PageLinks, label: str, history: HistoryFace | None = None
) -> dict[str, Any]:
    """An error as a listing shows it; with its history, the releases raising it (for the
    release filter) and the release since which none does."""
    raised, since = listed(history) or (None, None)
    return {
        "record": record,
        "short_title": label,
        "url": page.to_error(record.id),
        "raised": raised,
        "not_raised_since": since,
    }


def group_by_repo(records: Iterable[RecordSummary]) -> dict[str, list[RecordSummary]]:
    groups: dict[str, list[RecordSummary]] = defaultdict(list)
    for record in records:
        groups[record.repo].append(record)
    return dict(sorted(groups.items(), key=lambda item: item[0].lower()))


def recent_records(site: Site, count: int | None = None) -> list[RecordSummary]:
    """The newest analyses first; records without a date last, then by id for stability."""
    # site.records are in id order, and nlargest keeps that order among equal dates
    # (it is sorted(..., reverse=True)[:n], without sorting ten thousand records).
    wanted = site.config.recent_count if count is None else count
    return heapq.nlargest(wanted, site.records, key=lambda r: r.analysis_date)


# A repository's line on the home page: its name, errors, warnings and exception types, and
# the same for each of its releases (from its errors' histories, newest first).
RepoOverview = tuple[str, int, int, int, tuple[ReleaseCount, ...]]


def repo_overview(
    groups: dict[str, list[RecordSummary]], histories: Histories
) -> list[RepoOverview]:
    """Each repository's line on the home page."""
    return [
        (
            repo,
            sum(1 for r in records if r.kind == "error"),
            sum(1 for r in records if r.kind == "warning"),
            len({r.exception for r in records}),
            release_counts(records, histories.repositories.get(repo)),
        )
        for repo, records in groups.items()
    ]


def home_page_context(
    site: Site,
    overview: list[RepoOverview],
    recent: list[RecordSummary],
) -> dict[str, Any]:
    """The home page: the repositories (`repo_overview`) and the newest errors
    (`recent_records`)."""
    page = PageLinks.for_page(urls.HOME_PAGE)
    repos = [
        {
            "name": repo,
            "url": page.to_repo(repo),
            "errors": errors,
            "warnings": warnings,
            "exceptions": exceptions,
            "releases": releases,
        }
        for repo, errors, warnings, exceptions, releases in overview
    ]
    return {
        **site_context(site.config, page, urls.canonical_url(site.config, urls.HOME_PAGE)),
        "repos": repos,
        "total": len(site.records),
        "recent": [
            error_summary(site.record(r), page, site.links.labels[r.id], site.histories.face(r))
            for r in recent
        ],
        "has_releases": any(repo["releases"] for repo in repos),
    }


def repo_page_context(
    site: Site, repo: str, records: list[RecordSummary], releases: tuple[ReleaseCount, ...]
) -> dict[str, Any]:
    """A repository's errors grouped by exception type, then by source file; with its
    releases (`release_counts`), to narrow them to one."""
    path = urls.repo_page(repo)
    page = PageLinks.for_page(path)
    by_exception: dict[str, dict[str, list[RecordSummary]]] = defaultdict(lambda: defaultdict(list))
    for record in records:
        by_exception[record.exception][record.source_path].append(record)
    groups = [
        {
            "exception": exception,
            "count": sum(len(v) for v in files.values()),
            "files": [
                {
                    "path": source_path,
                    "errors": [
                        error_summary(
                            site.record(r), page, site.links.labels[r.id], site.histories.face(r)
                        )
                        for r in sorted(items, key=lambda r: (r.source_line, r.id))
                    ],
                }
                for source_path, items in sorted(files.items())
            ],
        }
        for exception, files in sorted(by_exception.items())
    ]
    return {
        **site_context(site.config, page, urls.canonical_url(site.config, path)),
        "repo": repo,
        "total": len(records),
        "groups": groups,
        "releases": releases,
    }


def search_page_context(site: Site) -> dict[str, Any]:
    page = PageLinks.for_page(urls.SEARCH_PAGE)
    return site_context(site.config, page, urls.canonical_url(site.config, urls.SEARCH_PAGE))


def render_not_found_page(env: Environment, site: Site) -> str:
    """The 404 page: served at any depth, so its links resolve against the site's root path."""
    page = PageLinks.for_page(urls.NOT_FOUND_PAGE)
    base_href = urlsplit(site.config.base_url).path or "/"
    return env.get_template("404.html").render(site_context(site.config, page, "", base_href))


def render_redirect_page(env: Environment, site: Site, alias: str, record: Record) -> str:
    """A page at a former id's address that sends readers on to the error's page."""
    path = urls.error_page(alias)
    context = {
        "record": record,
        "short_message": short_text(record.message),
        "target_url": urls.relative(urls.error_page(record.id), path),
        "canonical_url": urls.canonical_url(site.config, urls.error_page(record.id)),
        "redirect_js": urls.relative(urls.REDIRECT_JS, path),
        "content_security_policy": CONTENT_SECURITY_POLICY,
        "favicon": urls.relative(urls.FAVICON, path),
    }
    return env.get_template("redirect.html").render(context)


def template_diagnostic(exc: TemplateError, theme_dir: Path) -> Diagnostic:
    """A template that cannot be made or rendered, said where it is."""
    if isinstance(exc, TemplateSyntaxError):
        where = Position(str(exc.filename or theme_dir), exc.lineno or 0)
    else:
        where = Position(display_path(theme_dir / "templates"))
    return error(where, "template", f"{type(exc).__name__}: {exc.message or exc}")
