"""Check every internal href, src and form action of the site, anchors included.

Runs on each page as it is rendered, before anything is swapped in, so a
broken link fails the build and leaves the previous site in place. Links to
another page's anchor are checked once every page exists. External links
(with a scheme, or starting with //) are not fetched.
"""

from __future__ import annotations

import html
import posixpath
import re
from collections.abc import Callable, Container
from functools import lru_cache
from urllib.parse import unquote, urlsplit

from errpages.diagnostics import Diagnostic, Position, error

# Our templates write every attribute in double quotes, with its value escaped.
LINK_ATTRIBUTES = ('href="', 'src="', 'action="')
BASE_RE = re.compile(r'<base\s[^>]*href="([^"]*)"')

CrossLink = tuple[str, str, str, str]  # (page, target page, fragment, url as written)


def link_attributes(text: str) -> list[tuple[int, int, str]]:
    """Every href, src and action attribute after white space: (start, end, value as written),
    in order, none overlapping another: what the pattern `\\s(?:href|src|action)="([^"]*)"`
    finds, in a third of its time (three plain searches, not the pattern tried at every
    character of pages of up to hundreds of kilobytes)."""
    candidates = []
    for name in LINK_ATTRIBUTES:
        at = text.find(name)
        while at != -1:
            if at and text[at - 1].isspace():
                end = text.find('"', at + len(name))
                if end == -1:
                    break  # nor does any later one close
                candidates.append((at - 1, end + 1, text[at + len(name) : end]))
            at = text.find(name, at + 1)
    candidates.sort()
    found = []
    reached = 0
    for candidate in candidates:
        if candidate[0] >= reached:  # (one inside another's value is not an attribute)
            found.append(candidate)
            reached = candidate[1]
    return found


def page_ids(text: str) -> set[str]:
    """Every id="..." attribute value on a page (a plain search: pages are large, ids many)."""
    ids = set()
    at = text.find('id="')
    while at != -1:
        end = text.find('"', at + 4)
        if end == -1:
            break
        if at and text[at - 1].isspace():  # an id attribute, not data-id or the like
            value = text[at + 4 : end]
            ids.add(html.unescape(value) if "&" in value else value)
        at = text.find('id="', at + 4)
    return ids


def _resolve_from(folder: str, path: str) -> str | None:
    if path.startswith("/"):
        return None
    # The usual link, `../../errors/<id>/index.html`: climb, then a path with no dot segments.
    ups = 0
    while path.startswith("../", 3 * ups):
        ups += 1
    rest = path[3 * ups :]
    if rest and "//" not in rest and "/." not in rest and rest[0] != "." and rest[-1] != "/":
        parts = folder.split("/") if folder else []
        if ups > len(parts):
            return None
        return "/".join([*parts[: len(parts) - ups], rest])
    return _normalised(folder, path)


@lru_cache(maxsize=4096)
def _normalised(folder: str, path: str) -> str | None:
    joined = posixpath.normpath(posixpath.join(folder, path))
    if joined.startswith("../") or joined == "..":
        return None
    return joined


PLAIN_URL_RE = re.compile(r"[A-Za-z0-9/._~#-]*")  # no scheme, query, escapes or spaces


@lru_cache(maxsize=4096)
def split_url(url: str) -> tuple[bool, str, str]:
    """(external, path, fragment) of a URL as written, percent-decoded."""
    if PLAIN_URL_RE.fullmatch(url) and not url.startswith("//"):
        path, _, fragment = url.partition("#")  # what urlsplit says of it, a tenth as slow
        return False, path, fragment
    parts = urlsplit(url)
    external = bool(parts.scheme) or url.startswith("//")
    return external, unquote(parts.path), unquote(parts.fragment)


def where(page: str, origin: str, text: str, offset: int) -> tuple[Position, str]:
    """Pages made from a record name the record: that is where a link is fixed."""
    if origin.endswith((".yaml", ".yml")):
        return Position(origin), f" on {page}"
    return Position(f"site/{page}", text.count("\n", 0, offset) + 1), ""


def check_page(
    page: str, text: str, origin: str, planned: Container[str], anchors_only: bool = False
) -> tuple[list[Diagnostic], list[CrossLink]]:
    """Check one page's links against the planned files and its own anchors.

    With anchors_only, only links with a #fragment are looked at (for a page
    made again from the same inputs: its other links cannot have broken).
    """
    diagnostics: list[Diagnostic] = []
    cross: list[CrossLink] = []
    base_match = BASE_RE.search(text)
    base = base_match.group(1) if base_match else ""
    own_ids: set[str] | None = None
    # What links are relative to: a root-relative <base> (the 404 page) stands for the root.
    relative_to = "" if base.startswith("/") else posixpath.dirname(page)
    page_planned = page in planned
    for start, end, written in link_attributes(text):
        if anchors_only and "#" not in written:
            continue
        if base_match and start < base_match.end() and end > base_match.start():
            continue  # the <base href> itself
        url = html.unescape(written) if "&" in written else written
        if url[:1] == "#" and "%" not in url:  # most links of an error page: its own lines
            external, path, fragment = False, "", url[1:]
        else:
            external, path, fragment = split_url(url)
        if external:
            continue
        if path:
            target = _resolve_from(relative_to, path)
            known = target is not None and target in planned
        else:
            target, known = page, page_planned
        if target is None or not known:
            position, on = where(page, origin, text, start)
            folder = target is not None and f"{target}/index.html" in planned
            kind = "a folder (links must name index.html)" if folder else "no file"
            diagnostics.append(error(position, "link", f"broken link {url!r}{on}: {kind}"))
        elif fragment and target == page:
            own_ids = page_ids(text) if own_ids is None else own_ids
            if fragment not in own_ids:
                position, on = where(page, origin, text, start)
                message = f"broken link {url!r}{on}: no anchor #{fragment} in {target}"
                diagnostics.append(error(position, "link", message))
        elif fragment and target.endswith(".html"):
            cross.append((page, target, fragment, url))
    return diagnostics, cross


def check_cross_links(
    links: list[tuple[CrossLink, str]], read: Callable[[str], str | None]
) -> list[Diagnostic]:
    """Check links to another page's anchor, reading each target page once."""
    ids: dict[str, set[str] | None] = {}
    diagnostics = []
    for (page, target, fragment, url), origin in links:
        if target not in ids:
            text = read(target)
            ids[target] = page_ids(text) if text is not None else None
        found = ids[target]
        if found is not None and fragment not in found:
            on = f" on {page}" if origin.endswith((".yaml", ".yml")) else ""
            shown = Position(origin) if on else Position(f"site/{page}")
            message = f"broken link {url!r}{on}: no anchor #{fragment} in {target}"
            diagnostics.append(error(shown, "link", message))
    return diagnostics
