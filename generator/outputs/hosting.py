"""Files for static hosting: sitemap, robots.txt, Atom feed, 404 page, redirects, dumps.

Absolute URLs need `base_url`; without it the sitemap, robots.txt and feed
cannot be written, and the build says so with a warning.
"""

from __future__ import annotations

import datetime
import json
import re
from collections.abc import Iterable

from jinja2 import Environment

from errpages.outputs import OutputFile
from errpages.render.markdown import plain_text
from errpages.render.templates import (
    first_sentence,
    group_by_repo,
    render_not_found_page,
    render_redirect_page,
)
from errpages.site import urls
from errpages.site.model import RecordSummary, Site

NOJEKYLL = ".nojekyll"


# xml.sax.saxutils' escape and quoteattr, written out: importing that module pulls in
# urllib.request, http.client and ssl, a tenth of errpages' start-up time.
# What XML 1.0 forbids: C0 controls but tab, newline and return; U+FFFE, U+FFFF; surrogates.
NOT_XML_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def escape(text: str) -> str:
    """Text for an XML element: &, < and > escaped, characters XML cannot hold shown as
    `[U+001B]` (as pages show hidden characters), so the file stays well-formed."""
    text = text.replace("&", "&amp;").replace(">", "&gt;").replace("<", "&lt;")
    return NOT_XML_RE.sub(lambda m: f"[U+{ord(m.group()):04X}]", text)


def quoteattr(text: str) -> str:
    """An XML attribute value with its quotes, chosen as xml.sax.saxutils.quoteattr does."""
    text = escape(text).replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;")
    if '"' not in text:
        return f'"{text}"'
    if "'" not in text:
        return f"'{text}'"
    return '"{}"'.format(text.replace('"', "&quot;"))


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


def feed_updated(site: Site) -> str:
    """The feed's own date: the build date when set, else the newest analysis date."""
    updated = site.config.build_date or atom_time(newest_date(site.records))
    return updated if "T" in updated else atom_time(updated)


def feed_xml(site: Site, newest: list[RecordSummary], updated: str) -> bytes:
    """An Atom feed of the newest errors by analysis date (`recent_records`)."""
    config = site.config
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
        title = f"{record.exception}: {site.links.labels[record.id]}"
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
    return ("\n".join(lines) + "\n").encode()


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


def hosting_files(site: Site, env: Environment) -> list[OutputFile]:
    """Plan the files static hosts and crawlers look for (but the sitemap, the feed, the
    alias redirects and the dump)."""
    files = [
        OutputFile(NOJEKYLL, b"", "static hosting"),
        OutputFile(urls.NOT_FOUND_PAGE, render_not_found_page(env, site).encode(), "404 page"),
    ]
    if site.config.base_url:
        files.append(OutputFile(urls.ROBOTS_TXT, robots_txt(site).encode(), "robots.txt"))
    return files


def source_date(epoch: str | None) -> str:
    """SOURCE_DATE_EPOCH as an Atom/ISO timestamp, or '' when unset or unreadable."""
    if not epoch or not epoch.strip().isdigit():
        return ""
    moment = datetime.datetime.fromtimestamp(int(epoch), tz=datetime.timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")
