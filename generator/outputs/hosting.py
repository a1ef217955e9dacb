"""Files for static hosting: sitemap, robots.txt, Atom feed, 404 page, redirects, dumps.

Absolute URLs need `base_url`; without it the sitemap, robots.txt and feed
cannot be written, and the build says so with a warning.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Callable, Iterator
from xml.sax.saxutils import escape, quoteattr

from jinja2 import Environment

from generator import urls
from generator.diagnostics import Diagnostic, Position, warning
from generator.links import short_text
from generator.markdown import plain_text
from generator.model import Record, Site
from generator.outputs import OutputFile
from generator.render import (
    first_sentence,
    group_by_repo,
    recent_records,
    render_not_found_page,
    render_redirect_page,
)

NOJEKYLL = ".nojekyll"


def newest_date(records: list[Record] | tuple[Record, ...]) -> str:
    dates = [r.analysis.date for r in records if r.analysis and r.analysis.date]
    return max(dates, default="")


def sitemap_xml(site: Site) -> str:
    """List every page's canonical URL, with lastmod from the analysis dates."""
    entries: list[tuple[str, str]] = [
        (urls.HOME_PAGE, newest_date(site.records)),
        (urls.SEARCH_PAGE, ""),
    ]
    for repo, records in group_by_repo(site.records).items():
        entries.append((urls.repo_page(repo), newest_date(records)))
    for record in site.records:
        entries.append((urls.error_page(record.id), newest_date([record])))
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
    for record in newest:
        url = urls.canonical_url(config, urls.error_page(record.id))
        date = record.analysis.date if record.analysis else ""
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


def ndjson_parts(
    site: Site, staged_json: Callable[[str], bytes], other_shards: dict[str, str]
) -> Iterator[bytes]:
    """api/errors.ndjson piece by piece, in id order: each error's staged JSON file is its line.

    Streamed, so the dump of tens of thousands of errors is never held whole;
    records another shard renders bring their line along.
    """
    for record in site.records:
        if record.id in other_shards:
            yield other_shards[record.id].encode() + b"\n"
        else:
            yield staged_json(urls.error_json(record.id))


def redirect_files(site: Site, env: Environment) -> list[OutputFile]:
    """A page and a JSON stub at every former id's address, pointing to the current one."""
    files = []
    for record in site.records:
        for alias in record.aliases:
            html = render_redirect_page(env, site, alias, record)
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
