"""Files for static hosting: sitemap, robots.txt, Atom feed, 404 page, redirects, dumps.

Absolute URLs need `base_url`; without it the sitemap, robots.txt and feed
cannot be written, and the build says so with a warning.
"""

from __future__ import annotations

import datetime
import hashlib
import json
from collections.abc import Callable, Collection, Iterable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import BinaryIO
from xml.sax.saxutils import escape, quoteattr

from jinja2 import Environment

from generator import urls
from generator.diagnostics import Diagnostic, Position, warning
from generator.links import short_text
from generator.markdown import plain_text
from generator.model import RecordSummary, Site
from generator.outputs import OutputFile
from generator.render import (
    first_sentence,
    group_by_repo,
    recent_records,
    render_not_found_page,
    render_redirect_page,
)

NOJEKYLL = ".nojekyll"


def newest_date(records: Iterable[RecordSummary]) -> str:
    return max((r.analysis_date for r in records), default="")


def sitemap_xml(site: Site) -> str:
    """List every page's canonical URL, with lastmod from the analysis dates."""
    entries: list[tuple[str, str]] = [
        (urls.HOME_PAGE, newest_date(site.records)),
        (urls.SEARCH_PAGE, ""),
    ]
    for repo, records in group_by_repo(site.records).items():
        entries.append((urls.repo_page(repo), newest_date(records)))
    for record in site.records:
        entries.append((urls.error_page(record.id), record.analysis_date))
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
    ]
    for path, lastmod in entries:
        lines.append(f"  <url><loc>{escape(urls.canonical_url(site.config, path))}</loc>")
        if lastmod:
            lines[-1] += f"<lastmod>{lastmod}</lastmod>"
        lines[-1] += "</url>"
    lines.append("</urlset>")
    return "\n".join(lines) + "\n"


def robots_txt(site: Site) -> str:
    sitemap = urls.canonical_url(site.config, urls.SITEMAP_XML)
    return f"User-agent: *\nAllow: /\n\nSitemap: {sitemap}\n"


def atom_time(date: str) -> str:
    return f"{date}T00:00:00Z" if date else "1970-01-01T00:00:00Z"


def feed_xml(site: Site) -> str:
    """An Atom feed of the newest errors by analysis date."""
    config = site.config
    newest = recent_records(site, config.feed_count)
    updated = config.build_date or atom_time(newest_date(site.records))
    if "T" not in updated:
        updated = atom_time(updated)
    feed_url = urls.canonical_url(config, urls.FEED_XML)
    lines = [
        '<?xml version="1.0" encoding="utf-8"?>',
        '<feed xmlns="http://www.w3.org/2005/Atom">',
        f"  <title>{escape(config.title)}</title>",
        f"  <id>{escape(feed_url)}</id>",
        f'  <link rel="self" href={quoteattr(feed_url)}/>',
        f"  <link href={quoteattr(urls.canonical_url(config, urls.HOME_PAGE))}/>",
        f"  <updated>{updated}</updated>",
        f"  <author><name>{escape(config.title)}</name></author>",
    ]
    for entry in newest:
        record = site.record(entry)
        url = urls.canonical_url(config, urls.error_page(record.id))
        date = entry.analysis_date
        title = f"{record.exception}: {short_text(record.message, 120)}"
        summary = first_sentence(plain_text(record.meaning))
        lines += [
            "  <entry>",
            f"    <title>{escape(title)}</title>",
            f"    <id>{escape(url)}</id>",
            f"    <link href={quoteattr(url)}/>",
            f"    <updated>{atom_time(date)}</updated>",
            f"    <category term={quoteattr(record.repo)}/>",
            f"    <summary>{escape(summary)}</summary>",
            "  </entry>",
        ]
    lines.append("</feed>")
    return "\n".join(lines) + "\n"


Layout = dict[str, tuple[int, int]]  # error id -> (offset, length) of its line in the dump
CHUNK = 1 << 20


def ndjson_parts(
    site: Site,
    staged_json: Callable[[str], bytes],
    other_shards: dict[str, str],
    previous: tuple[Path, Layout] | None = None,
    unchanged: Collection[str] = (),
    layout: Layout | None = None,
) -> Iterator[bytes]:
    """api/errors.ndjson piece by piece, in id order: each error's JSON file is its line.

    Streamed, so the dump of tens of thousands of errors is never held whole.
    Records another shard renders bring their line along. With the previous
    dump and where its lines were (`previous`), the lines of errors whose JSON
    did not change are copied from it in runs instead of read one file each.
    Where every line went is filled into `layout`, for the next build.
    """
    old_layout = previous[1] if previous else {}
    with ExitStack() as stack:
        old = stack.enter_context(open(previous[0], "rb")) if previous else None
        run = (0, 0)  # a range of the old dump still to copy
        offset = 0
        for record in site.records:
            where = old_layout.get(record.id)
            if where is not None and record.id not in other_shards and record.id in unchanged:
                start, length = where
                if start == run[1] and run[1] > run[0]:
                    run = (run[0], start + length)
                else:
                    yield from copy_range(old, *run)
                    run = (start, start + length)
            else:
                yield from copy_range(old, *run)
                run = (0, 0)
                if record.id in other_shards:
                    line = other_shards[record.id].encode() + b"\n"
                else:
                    line = staged_json(urls.error_json(record.id))
                length = len(line)
                yield line
            if layout is not None:
                layout[record.id] = (offset, length)
            offset += length
        yield from copy_range(old, *run)


def previous_dump(out_dir: Path, layout: Layout, sha: str | None) -> tuple[Path, Layout] | None:
    """The previous build's dump and where its lines are, when it is still the file it wrote."""
    path = out_dir / urls.ERRORS_NDJSON
    if not layout or sha is None:
        return None
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as stream:
            while chunk := stream.read(CHUNK):
                digest.update(chunk)
    except OSError:
        return None
    return (path, layout) if digest.hexdigest() == sha else None


def copy_range(stream: BinaryIO | None, start: int, end: int) -> Iterator[bytes]:
    """Bytes start..end of a file, a chunk at a time."""
    if stream is None or end <= start:
        return
    stream.seek(start)
    while start < end:
        chunk = stream.read(min(CHUNK, end - start))
        if not chunk:
            raise OSError("the previous errors.ndjson is shorter than the cache says")
        start += len(chunk)
        yield chunk


def redirect_files(site: Site, env: Environment) -> list[OutputFile]:
    """A page and a JSON stub at every former id's address, pointing to the current one."""
    files = []
    for record in site.records:
        for alias in record.aliases:
            html = render_redirect_page(env, site, alias, site.record(record))
            files.append(OutputFile(urls.error_page(alias), html.encode(), record.file))
            stub = {
                "id": alias,
                "moved_to": record.id,
                "url": urls.permanent_path(urls.error_page(record.id)),
                "json_url": urls.error_json(record.id),
            }
            text = json.dumps(stub, indent=2) + "\n"
            files.append(OutputFile(urls.error_json(alias), text.encode(), record.file))
    return files


def hosting_files(site: Site, env: Environment) -> tuple[list[OutputFile], list[Diagnostic]]:
    """Plan the files static hosts and crawlers look for (not the alias redirects or the dump)."""
    files = [
        OutputFile(NOJEKYLL, b"", "static hosting"),
        OutputFile(urls.NOT_FOUND_PAGE, render_not_found_page(env, site).encode(), "404 page"),
    ]
    if not site.config.base_url:
        return files, [
            warning(
                Position("site.yaml"),
                "base_url",
                "not set: sitemap.xml, robots.txt and feed.xml need absolute URLs and were "
                "not written, and pages carry no canonical link",
                "set base_url in content/site.yaml or pass --base-url",
            )
        ]
    files += [
        OutputFile(urls.SITEMAP_XML, sitemap_xml(site).encode(), "sitemap"),
        OutputFile(urls.ROBOTS_TXT, robots_txt(site).encode(), "robots.txt"),
        OutputFile(urls.FEED_XML, feed_xml(site).encode(), "feed"),
    ]
    return files, []


def source_date(epoch: str | None) -> str:
    """SOURCE_DATE_EPOCH as an Atom/ISO timestamp, or '' when unset or unreadable."""
    if not epoch or not epoch.strip().isdigit():
        return ""
    moment = datetime.datetime.fromtimestamp(int(epoch), tz=datetime.timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")
