"""Where each page lives in the output, and links between them.

Every path here is a site path: relative to the output root, '/'-separated.
Links are always relative and name the file (`…/index.html`), so the site
works under any base path, on any static host, and opened from disk.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING
from urllib.parse import quote

if TYPE_CHECKING:  # for annotations only: the paths are the base everything else is built on
    from errpages.site.model import Place, Record, SiteConfig

# What base_url (site.yaml, --base-url, [tool.errpages]) must be.
URL_RE = re.compile(r"https?://[^\s<>\"']+")


def error_page(error_id: str) -> str:
    return f"errors/{error_id}/index.html"


def error_json(error_id: str) -> str:
    return f"api/errors/{error_id}.json"


def repo_page(repo: str) -> str:
    return f"repos/{repo}/index.html"


HOME_PAGE = "index.html"
SEARCH_PAGE = "search/index.html"
NOT_FOUND_PAGE = "404.html"
SITE_JS = "assets/site.js"
SEARCH_JS = "assets/search.js"
LOOKUP_JS = "assets/lookup.js"
SEARCH_INDEX_JS = "assets/search-index.js"
REDIRECT_JS = "assets/redirect.js"
FAVICON = "assets/favicon.svg"
FEED_XML = "feed.xml"
SITEMAP_XML = "sitemap.xml"
ROBOTS_TXT = "robots.txt"
ERRORS_NDJSON = "api/errors.ndjson"
ERRORS_INDEX_JSON = "api/errors/index.json"
SCHEMA_JSON = "api/schema.json"
STYLE_CSS = "assets/style.css"
PYGMENTS_CSS = "assets/pygments.css"


def permanent_path(site_path: str) -> str:
    """Drop a trailing index.html: the path people share (`errors/<id>/`)."""
    if site_path == "index.html":
        return ""
    if site_path.endswith("/index.html"):
        return site_path[: -len("index.html")]
    return site_path


SAFE_PATH_RE = re.compile(r"[A-Za-z0-9/#._~-]*")
PLAIN_PATH_RE = re.compile(r"[A-Za-z0-9/._~-]*")  # what quote(path, safe="/") leaves as it is


def relative(target: str, from_page: str) -> str:
    """Link from one site path to another with a relative URL."""
    start = from_page.split("/")[:-1]
    parts = target.split("/")
    common = 0
    while common < len(start) and common < len(parts) - 1 and start[common] == parts[common]:
        common += 1
    link = "/".join([".."] * (len(start) - common) + parts[common:]) or "."
    # Site paths are mostly plain ASCII already; quoting them is a slow no-op.
    return link if SAFE_PATH_RE.fullmatch(link) else quote(link, safe="/#.-_~")


def canonical_url(config: SiteConfig, site_path: str) -> str:
    """The absolute URL of a page, or '' when no base_url is set."""
    if not config.base_url:
        return ""
    path = permanent_path(site_path)
    return config.base_url + (path if PLAIN_PATH_RE.fullmatch(path) else quote(path, safe="/"))


def fill_template(template: str, values: dict[str, str]) -> str:
    """Fill `{name}` placeholders in a URL template, percent-encoding every value."""
    result = template
    for name, value in values.items():
        safe = "/" if name in ("repo", "path") else ""
        result = result.replace("{" + name + "}", quote(value, safe=safe))
    return result


def source_url(config: SiteConfig, record: Record) -> str:
    """Link to the raising line at the pinned commit on the repository's source host."""
    source, snippet = record.source, record.source.snippet
    return line_url(
        config,
        record.repo,
        source.commit,
        source.path,
        source.line,
        snippet.start_line,
        snippet.end_line,
    )


def place_url(config: SiteConfig, record: Record, place: Place) -> str:
    """Link to another line raising the record's error, at the pinned commit."""
    commit = record.source.commit
    return line_url(config, record.repo, commit, place.path, place.line, place.line, place.line)


def line_url(
    config: SiteConfig, repo: str, commit: str, path: str, line: int, start: int, end: int
) -> str:
    """Link to a line of a file at a commit on the repository's source host."""
    template, _ = config.source_for(repo)
    values = {
        "repo": repo,
        "commit": commit,
        "path": path,
        "line": str(line),
        "start": str(start),
        "end": str(end),
    }
    return fill_template(template, values)
