"""Check every internal href and src of the planned site, anchors included.

Runs on the rendered files in memory, before anything is written, so a broken
link fails the build and leaves the previous site in place. External links
(with a scheme, or starting with //) are not fetched.
"""

from __future__ import annotations

import posixpath
from html.parser import HTMLParser
from urllib.parse import unquote, urlsplit

from generator.diagnostics import Diagnostic, Position, error
from generator.outputs import OutputFile

LINK_ATTRIBUTES = {"href", "src", "action"}


class _PageScanner(HTMLParser):
    """Collect a page's ids, its <base href> and the URLs it links to."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[tuple[int, str]] = []
        self.base = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is None:
                continue
            if name == "id":
                self.ids.add(value)
            elif tag == "base" and name == "href":
                self.base = value
            elif name in LINK_ATTRIBUTES and tag != "base":
                self.links.append((self.getpos()[0], value))


def scan(file: OutputFile) -> _PageScanner:
    scanner = _PageScanner()
    scanner.feed(file.content.decode("utf-8", errors="replace"))
    scanner.close()
    return scanner


def resolve(page: str, base: str, url: str) -> str | None:
    """The site path a relative URL points at from a page (None if it leaves the site)."""
    path = unquote(urlsplit(url).path)
    if not path:
        return page
    # A root-relative <base> (the 404 page) stands for the site's root folder.
    start = "" if base.startswith("/") else posixpath.dirname(page)
    if path.startswith("/"):
        return None
    joined = posixpath.normpath(posixpath.join(start, path))
    if joined.startswith("../") or joined == "..":
        return None
    return joined


def check_links(files: list[OutputFile]) -> list[Diagnostic]:
    """Report every internal link that names no planned file or no anchor on its target."""
    planned = {f.path: f for f in files}
    pages = {f.path: scan(f) for f in files if f.path.endswith(".html")}
    diagnostics = []
    for path, scanner in sorted(pages.items()):
        origin = planned[path].origin
        for line, url in scanner.links:
            parts = urlsplit(url)
            if parts.scheme or url.startswith("//"):
                continue
            target = resolve(path, scanner.base, url)
            # Pages made from a record name the record: that is where a link is fixed.
            if origin.endswith((".yaml", ".yml")):
                where, on = Position(origin), f" on {path}"
            else:
                where, on = Position(f"site/{path}", line), ""
            if target is None or target not in planned:
                folder = f"{target}/index.html" in planned
                kind = "a folder (links must name index.html)" if folder else "no file"
                diagnostics.append(error(where, "link", f"broken link {url!r}{on}: {kind}"))
                continue
            fragment = unquote(parts.fragment)
            if fragment and target in pages and fragment not in pages[target].ids:
                message = f"broken link {url!r}{on}: no anchor #{fragment} in {target}"
                diagnostics.append(error(where, "link", message))
    return diagnostics
