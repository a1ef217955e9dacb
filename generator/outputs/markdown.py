"""`errpages export markdown`: the error pages as Markdown for MkDocs (and its kin) or MyST.

A record's Markdown is never copied through: it is parsed as the site parses it
(CommonMark, no raw HTML, safe links only) and written again, every character of
its text escaped, so that nothing in a record acts in the docs' own Markdown: no
HTML, no MyST directive or role, no pymdownx syntax (a snippet include, critic
marks, keys, an admonition), no attribute list, no template tag. Record headings
become bold lines (a record cannot add to the docs' table of contents).

Flavors: `mkdocs` is Python-Markdown with `pymdownx.highlight` and
`pymdownx.superfences` (code blocks with line numbers and marked lines); `myst`
is MyST for Sphinx (code blocks as `code-block` directives, a hidden toctree).
"""

from __future__ import annotations

import html
import json
import re
import textwrap
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from markdown_it.token import Token

from errpages.render.markdown import markdown_renderer
from errpages.render.templates import raise_span
from errpages.reveal import reveal_text
from errpages.site import conditions, urls
from errpages.site.history import Change, glance, history_changes
from errpages.site.links import short_text
from errpages.site.model import VERBS, LinkRef, Record, RecordSummary, Site

# Characters of text that mean something to Python-Markdown, pymdownx, MyST or a template
# plugin anywhere in a line (HTML, code, roles and directives, attribute lists, links,
# emphasis, tables, marks, math), written as entities: both parsers decode them to the
# character, and neither reads a backslash before all of them as an escape.
ENTITIES = {c: f"&#{ord(c)};" for c in "&<>\\`*_{}[]|~^=$+"}
TEXT_ESCAPE = str.maketrans(ENTITIES)
# At the start of a line, punctuation (a heading, a list, an admonition, a colon fence) and
# a number's `.` or `)` (an ordered list) are escaped too.
LINE_START_RE = re.compile(r"^(\d*)([!-%'-/:-@\\^`{-~])")  # not &: an entity is safe
LANGUAGE_RE = re.compile(r"[A-Za-z0-9_+-]{1,40}")
# A pymdownx.snippets include: a line of its own (`--8<-- "file"`, or the marker alone).
SNIPPET_MARKER_RE = re.compile(r"^([ \t]*)(-+8<-+(?:[ \t]+(?:\"[^\"\n]+\"|'[^'\n]+'))?)[ \t]*$")


def escape(text: str) -> str:
    """Text as Markdown that reads as exactly that text, in every flavor and extension; line
    breaks as spaces (a record's line never starts a block)."""
    return re.sub(r"\s+", " ", reveal_text(text)).translate(TEXT_ESCAPE)


def line_start(markdown: str) -> str:
    """Markdown that starts a line, its first character kept from starting a block."""
    return LINE_START_RE.sub(lambda m: m.group(1) + f"&#{ord(m.group(2))};", markdown, count=1)


def fence(code: str, info: str, flavor: str, options: Sequence[str] = ()) -> str:
    """A fenced code block longer than any backtick run in the code; a line that would include
    a file through pymdownx.snippets is escaped the way snippets reads (`;--8<--`)."""
    code = reveal_text(code.replace("\r\n", "\n").replace("\r", "\n")).rstrip("\n")
    if flavor == "mkdocs":
        code = "\n".join(SNIPPET_MARKER_RE.sub(r"\1;\2", line) for line in code.split("\n"))
    ticks = "`" * max(3, 1 + max((len(run) for run in re.findall("`+", code)), default=0))
    if flavor == "myst":
        head = f"{ticks}{{code-block}} {info}\n" + "".join(f":{o}\n" for o in options)
    else:
        head = f"{ticks}{info}" + "".join(f" {o}" for o in options) + "\n"
    return f"{head}{code}\n{ticks}"


def language(name: str) -> str:
    return name if LANGUAGE_RE.fullmatch(name) else "text"


def code_span(code: str) -> str:
    """Code in a span, on one line, its hidden characters shown."""
    return conditions.code_span(" ".join(reveal_text(code).split()))


def link(text: str, url: str) -> str:
    """`[text](url)`: the URL percent-escaped where Markdown would read it otherwise."""
    safe = re.sub(r"[\s()<>\\\"'`]", lambda m: f"%{ord(m.group()):02X}", url)
    return f"[{text}]({safe})"


def inline(children: Sequence[Token]) -> str:
    """An inline run written again: text escaped, emphasis and code kept, safe links only."""
    parts: list[str] = []
    links: list[tuple[int, str]] = []  # the open links: where their text starts, their URL
    for child in children:
        kind = child.type
        if kind == "text":
            text = escape(child.content)
            parts.append(text if parts else line_start(text.lstrip()))
        elif kind == "code_inline":
            parts.append(code_span(child.content))
        elif kind in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif kind in ("em_open", "em_close"):
            parts.append("*")
        elif kind in ("strong_open", "strong_close"):
            parts.append("**")
        elif kind in ("s_open", "s_close"):
            pass  # strikethrough is not in every flavor; its text stays
        elif kind == "link_open":
            links.append((len(parts), str(child.attrGet("href") or "")))
        elif kind == "link_close" and links:
            start, href = links.pop()
            parts[start:] = [link("".join(parts[start:]), href)]
    return "".join(parts).strip()


def markdown_inline(text: str) -> str:
    """One line of record Markdown (a solution, a trigger) written again."""
    tokens = markdown_renderer().parseInline(text)
    return inline(tokens[0].children or []) if tokens else ""


def markdown_blocks(text: str, flavor: str) -> str:
    """A record's Markdown field written again, block by block."""
    return "\n\n".join(blocks(markdown_renderer().parse(text), flavor))


def blocks(tokens: Sequence[Token], flavor: str) -> list[str]:
    """The blocks of a token stream (or of one container's tokens) as Markdown."""
    out: list[str] = []
    index = 0
    while index < len(tokens):
        token = tokens[index]
        end = closing(tokens, index)
        if token.type == "inline":
            out.append(inline(token.children or []))
        elif token.type == "heading_open":
            out.append(f"**{inline(tokens[index + 1].children or [])}**")
        elif token.type in ("fence", "code_block"):
            info = token.info.strip().split(maxsplit=1)[0] if token.info.strip() else "text"
            out.append(fence(token.content, language(info), flavor))
        elif token.type == "hr":
            out.append("---")
        elif token.type in ("bullet_list_open", "ordered_list_open"):
            out.append(list_items(tokens[index + 1 : end], flavor))
        elif token.type == "blockquote_open":
            inner = "\n\n".join(blocks(tokens[index + 1 : end], flavor))
            out.append("\n".join(f"> {line}".rstrip() for line in inner.split("\n")))
        elif token.type == "table_open":
            out.append(table(tokens[index + 1 : end]))
        elif token.type == "paragraph_open":
            out.extend(blocks(tokens[index + 1 : end], flavor))
        index = end + 1
    return [block for block in out if block]


def closing(tokens: Sequence[Token], index: int) -> int:
    """The index of the token that closes the one at `index` (itself when it opens nothing)."""
    if tokens[index].nesting != 1:
        return index
    depth = 0
    for position in range(index, len(tokens)):
        depth += tokens[position].nesting
        if depth == 0:
            return position
    return len(tokens) - 1


def list_items(tokens: Sequence[Token], flavor: str) -> str:
    """A list's items, each indented by four spaces under its marker (as Python-Markdown
    needs; CommonMark reads it the same)."""
    items = []
    index = 0
    while index < len(tokens):
        end = closing(tokens, index)
        if tokens[index].type == "list_item_open":
            marker = f"{tokens[index].info}." if tokens[index].markup in ".)" else "-"
            inner = "\n\n".join(blocks(tokens[index + 1 : end], flavor))
            first, *rest = inner.split("\n") or [""]
            lines = [f"{marker:<3} {first}".rstrip()]
            lines += [f"    {line}".rstrip() for line in rest]
            items.append("\n".join(lines))
        index = end + 1
    return "\n".join(items)


def table(tokens: Sequence[Token]) -> str:
    """A table, its cells escaped (a `|` in a cell is an entity)."""
    rows: list[list[str]] = []
    for token in tokens:
        if token.type == "tr_open":
            rows.append([])
        elif token.type == "inline" and rows:
            rows[-1].append(inline(token.children or []) or " ")
    if not rows:
        return ""
    lines = ["| " + " | ".join(row) + " |" for row in rows]
    lines.insert(1, "|" + "---|" * len(rows[0]))
    return "\n".join(lines)


@dataclass(frozen=True)
class MarkdownPage:
    """One file of the export: its name under the output folder and its text."""

    name: str
    text: str


def page_name(error_id: str) -> str:
    return f"{error_id}.md"


def ref_link(ref: LinkRef) -> str:
    return link(escape(ref.title), page_name(ref.id))


def front_matter(title: str, description: str, flavor: str, orphan: bool = False) -> str:
    """YAML front matter (JSON strings are YAML). MkDocs themes put the title and the
    description into the page as HTML, unescaped: they are escaped for it; and template
    plugins (mkdocs-macros) are told to keep out. An `orphan` page is in no toctree (Sphinx
    then does not warn): the errors' pages are reached from their index and each other,
    and kept out of the docs' navigation, which every page of the docs carries whole."""
    shown = (lambda text: html.escape(text)) if flavor == "mkdocs" else (lambda text: text)
    lines = [f"title: {json.dumps(shown(reveal_text(title)))}"]
    if description:
        lines.append(f"description: {json.dumps(shown(reveal_text(description)))}")
    if flavor == "mkdocs":
        lines.append("render_macros: false")  # mkdocs-macros: the page is not a template
    elif orphan:
        lines.append("orphan: true")
    return "---\n" + "\n".join(lines) + "\n---\n\n"


def error_page(site: Site, summary: RecordSummary, flavor: str) -> MarkdownPage:
    """An error's page: what the site's page says, in the docs' Markdown."""
    record = site.record(summary)
    history = site.history(record)
    heading = f"{code_span(record.exception)} in {escape(record.repo)}"
    if history is not None and (line := glance(history)):
        heading += f" · {escape(' · '.join(line))}"
    description = short_text(" ".join(record.meaning.split()), 160)
    parts = [
        front_matter(record.title, description, flavor, orphan=True),
        f"# {escape(record.title)}\n",
        heading + "\n",
        fence(record.message, "text", flavor) + "\n",
    ]
    if record.retired is not None:
        note = f" {markdown_inline(record.retired.note)}" if record.retired.note else ""
        verb = VERBS[record.kind]
        parts.append(f"> **No longer {verb}** since {escape(record.retired.since)}.{note}\n")
    parts += ["## What it means\n", markdown_blocks(record.meaning, flavor) + "\n"]
    parts += snippet(site, record, flavor)
    solutions = (f"{n}. {markdown_inline(text)}" for n, text in enumerate(record.solutions, 1))
    parts += ["## Solutions\n", "\n".join(solutions) + "\n"]
    parts += example_fix(record, flavor) + when_it_happens(record)
    if history is not None:
        parts += history_table(history_changes(history, record.repo, site.config))
    links = site.links[record.id]
    parts += related_lists(links.related, links.backlinks)
    text = "\n".join(parts).rstrip("\n") + "\n"
    return MarkdownPage(page_name(record.id), re.sub(r"\n{3,}", "\n\n", text))


def example_fix(record: Record, flavor: str) -> list[str]:
    fix = record.example_fix
    if fix is None:
        return []
    code = language(fix.language)
    parts = ["## Example fix\n", "Before:\n", fence(fix.before, code, flavor) + "\n"]
    parts += ["After:\n", fence(fix.after, code, flavor) + "\n"]
    return parts + ([markdown_blocks(fix.notes, flavor) + "\n"] if fix.notes else [])


def when_it_happens(record: Record) -> list[str]:
    when = record.when
    if when is None or not (when.trigger or when.situations):
        return []
    parts = ["## When it happens\n"]
    if when.trigger:
        parts.append(f"**Trigger:** {markdown_inline(when.trigger)}\n")
    if when.situations:
        parts.append("\n".join(f"- {markdown_inline(s)}" for s in when.situations) + "\n")
    return parts


def history_table(rows: Sequence[Change]) -> list[str]:
    """The History section: each release where something changed, linked to that line."""
    if not rows:
        return []
    parts = ["## History\n", "| Release | What changed | Where |", "|---|---|---|"]
    for row in rows:
        what = escape(row.what) + (f": was “{escape(row.former)}”" if row.former else "")
        parts.append(f"| {escape(row.release)} | {what} | {link(escape(row.where), row.url)} |")
    return [*parts, ""]


def snippet(site: Site, record: Record, flavor: str) -> list[str]:
    """The pinned snippet, its lines numbered as in the file and the raise marked."""
    source, code = record.source, record.source.snippet
    first, last = raise_span(record)
    marked = " ".join(str(n) for n in range(first, last + 1))
    host = site.config.source_for(record.repo)[1]
    url = urls.source_url(site.config, record)
    where = f"{escape(source.path)}, line {source.line}"
    view = link(f"View on {escape(host)} (pinned to {source.short_commit})", url)
    if flavor == "myst":
        # `force`: a snippet that Pygments cannot lex whole is shown all the same, unwarned.
        lines = marked.replace(" ", ",")
        options = [f"lineno-start: {code.start_line}", f"emphasize-lines: {lines}", "force:"]
    else:
        options = [f'linenums="{code.start_line}"', f'hl_lines="{marked}"']
    parts = [
        f"## Where it is {VERBS[record.kind]}\n",
        f"{where} · {view}\n",
        fence(textwrap.dedent(code.text), language(code.language), flavor, options) + "\n",
    ]
    if raised := conditions.beside_code(record):
        parts.append(markdown_inline(conditions.markdown(raised)) + "\n")
    if source.also_raised_at:
        places = (
            f"- {link(escape(f'{p.path}:{p.line}'), urls.place_url(site.config, record, p))}"
            for p in source.also_raised_at
        )
        parts += [f"Also {VERBS[record.kind]} at:\n", "\n".join(places) + "\n"]
    return parts


def related_lists(related: Iterable[LinkRef], backlinks: Iterable[LinkRef]) -> list[str]:
    """Related errors, and the errors that list this one (cross-references both ways)."""
    parts: list[str] = []
    related = list(related)
    shown = {ref.id for ref in related}
    backlinks = [ref for ref in backlinks if ref.id not in shown]
    for heading, refs in (("Related errors", related), ("Linked from", backlinks)):
        if refs:
            items = (f"- {ref_link(ref)}: {code_span(ref.exception)}" for ref in refs)
            parts += [f"## {heading}\n", "\n".join(items) + "\n"]
    return parts


def index_page(site: Site, published: Sequence[RecordSummary], flavor: str) -> MarkdownPage:
    """The errors' index: by repository, each error linked by its title; for MyST, a hidden
    toctree that puts every page under it."""
    config = site.config
    parts = [front_matter(config.title, config.description, flavor), f"# {escape(config.title)}\n"]
    if config.description:
        parts.append(markdown_inline(config.description) + "\n")
    repos = sorted({summary.repo for summary in published})
    for repo in repos:
        parts.append(f"## {escape(repo)}\n")
        rows = sorted((r for r in published if r.repo == repo), key=lambda r: (r.title, r.id))
        items = (
            f"- {link(escape(r.title), page_name(r.id))}: {code_span(r.exception)}" for r in rows
        )
        parts.append("\n".join(items) + "\n")
    return MarkdownPage("index.md", "\n".join(parts).rstrip("\n") + "\n")


def nav_pages(published: Sequence[RecordSummary], title: str) -> list[MarkdownPage]:
    """The folder's navigation for mkdocs-awesome-pages (`.pages`) and mkdocs-awesome-nav
    (`.nav.yml`): the index, then each error by title (JSON strings are YAML)."""
    rows = sorted(published, key=lambda r: (r.title, r.id))
    nav = ["nav:", "  - index.md"]
    nav += [f"  - {json.dumps(short_text(r.title, 80))}: {page_name(r.id)}" for r in rows]
    text = f"title: {json.dumps(title)}\n" + "\n".join(nav) + "\n"
    return [MarkdownPage(".pages", text), MarkdownPage(".nav.yml", text)]


def redirects_page(site: Site, published: Sequence[RecordSummary], prefix: str) -> MarkdownPage:
    """Each alias's old page to its error's page, as mkdocs-redirects reads `redirect_maps`
    (paths from the docs folder: `prefix` is the export's place in it)."""
    lines = [
        "# mkdocs-redirects: put this mapping under `plugins: - redirects:` in mkdocs.yml.",
        "redirect_maps:",
    ]
    pairs = sorted((alias, r.id) for r in published for alias in r.aliases)
    lines += [
        f"  {json.dumps(prefix + page_name(alias))}: {json.dumps(prefix + page_name(error_id))}"
        for alias, error_id in pairs
    ]
    if not pairs:
        lines[-1] += " {}"
    return MarkdownPage(".redirects.yml", "\n".join(lines) + "\n")


def markdown_export(site: Site, flavor: str, prefix: str = "") -> list[MarkdownPage]:
    """Every file of the export: a page per published error, the index and, for MkDocs, the
    navigation files and the aliases' redirects."""
    published = [summary for summary in site.records if not summary.draft]
    pages = [error_page(site, summary, flavor) for summary in published]
    pages.append(index_page(site, published, flavor))
    if flavor == "mkdocs":
        pages += nav_pages(published, site.config.title)
        pages.append(redirects_page(site, published, prefix))
    return pages


MANIFEST = ".errpages-export.json"


class ExportConflict(Exception):
    """A file of the export is already there, written by someone else; nothing was written."""


@dataclass(frozen=True)
class WriteSummary:
    written: tuple[str, ...]
    unchanged: int
    removed: tuple[str, ...]


def write_pages(folder: Path, pages: Sequence[MarkdownPage]) -> WriteSummary:
    """Write the export into its folder: only the files whose bytes changed (a docs watcher
    sees no change otherwise), the files of an earlier export that are gone removed. Files
    the folder held before and an export did not write are never replaced or removed (the
    folder's MANIFEST names the export's files)."""
    from errpages.content.files import atomic_write_text

    before = set(exported_names(folder))
    foreign = []
    changed = []
    for page in pages:
        target = folder / page.name
        held = read_text(target)
        if held == page.text and not target.is_symlink():
            continue
        if (held is not None or target.is_symlink()) and page.name not in before:
            foreign.append(page.name)
        changed.append(page)
    if foreign:
        named = ", ".join(sorted(foreign)[:5])
        raise ExportConflict(
            f"{folder} already holds files an export did not write ({named}); "
            "export into a folder of its own"
        )
    for page in changed:
        atomic_write_text(folder / page.name, page.text)
    names = {page.name for page in pages}
    removed = sorted(before - names)
    for name in removed:
        (folder / name).unlink(missing_ok=True)
    manifest = json.dumps({"files": sorted(names)}, indent=1) + "\n"
    if read_text(folder / MANIFEST) != manifest:
        atomic_write_text(folder / MANIFEST, manifest)
    written = tuple(page.name for page in changed)
    return WriteSummary(written, len(pages) - len(changed), tuple(removed))


def read_text(path: Path) -> str | None:
    """A file's text, or None when there is no such file (or it cannot be read as text)."""
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def exported_names(folder: Path) -> list[str]:
    """The files the last export wrote into the folder (its MANIFEST), names checked."""
    try:
        data = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    files = data.get("files") if isinstance(data, dict) else None
    if not isinstance(files, list):
        return []
    return [name for name in files if isinstance(name, str) and EXPORT_NAME_RE.fullmatch(name)]


# What an export writes: error and alias pages (ids are hex or slugs), the index, the nav
# and redirect files; a manifest naming anything else is not followed.
EXPORT_NAME_RE = re.compile(
    r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}\.md|\.pages|\.nav\.yml|\.redirects\.yml"
)


def docs_prefix(folder: Path) -> str:
    """Where the folder is in the MkDocs docs folder of the nearest mkdocs.yml above it
    (`errors/`), for the redirects' paths; "" when it is in none."""
    absolute = folder.resolve()
    for parent in absolute.parents:
        for name in ("mkdocs.yml", "mkdocs.yaml"):
            config = parent / name
            if config.is_file():
                found = re.search(r"^docs_dir:\s*['\"]?([^'\"\s#]+)", read_text(config) or "", re.M)
                docs = (parent / (found.group(1) if found else "docs")).resolve()
                try:
                    inside = absolute.relative_to(docs).as_posix()
                except ValueError:
                    return ""
                return "" if inside == "." else inside + "/"
    return ""
