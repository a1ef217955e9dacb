"""Every internal link and asset reference in the built site resolves, anchors included."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlsplit

from tests.conftest import parse_html


def internal_references(site: Path) -> list[tuple[Path, str]]:
    """(folder the URL is relative to, URL) for every internal link of every page."""
    refs = []
    for page in sorted(site.rglob("*.html")):
        soup = parse_html(page)
        base = soup.find("base")
        # The 404 page is served at any depth; its <base href="/"> is the site root.
        folder = site if base is not None else page.parent
        for tag in soup.find_all(href=True) + soup.find_all(src=True):
            if tag.name == "base":
                continue
            url = str(tag.get("href") or tag.get("src"))
            if urlsplit(url).scheme or url.startswith("//"):
                continue
            refs.append((folder / page.name, url))
    return refs


def test_all_internal_links_resolve_to_files_and_anchors(example_site: Path) -> None:
    refs = internal_references(example_site)
    assert len(refs) > 200
    broken = []
    anchors: dict[Path, set[str]] = {}
    for page, url in refs:
        parts = urlsplit(url)
        target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
        if not target.is_file() or not target.is_relative_to(example_site.resolve()):
            broken.append(f"{page.relative_to(example_site)}: {url} (no file)")
            continue
        if parts.fragment and target.suffix == ".html":
            if target not in anchors:
                anchors[target] = {str(t["id"]) for t in parse_html(target).find_all(id=True)}
            if unquote(parts.fragment) not in anchors[target]:
                broken.append(f"{page.relative_to(example_site)}: {url} (no anchor)")
    assert broken == []


def test_links_are_relative_and_name_files(example_site: Path) -> None:
    for page, url in internal_references(example_site):
        assert not url.startswith("/"), (page, url)
        path = urlsplit(url).path
        assert path == "" or not path.endswith("/"), (page, url)


def test_no_remote_assets(example_site: Path) -> None:
    for page in example_site.rglob("*.html"):
        soup = parse_html(page)
        for tag in soup.find_all(["script", "img", "iframe", "link"]):
            url = str(tag.get("src") or tag.get("href") or "")
            if tag.name == "link" and tag.get("rel") == ["canonical"]:
                continue
            assert not urlsplit(url).scheme, (page, url)
    for css in example_site.rglob("*.css"):
        assert "url(" not in css.read_text() and "@import" not in css.read_text()
