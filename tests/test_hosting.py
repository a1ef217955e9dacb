"""Static hosting: sitemap, robots, feed, 404, redirects, dumps, base paths, link check."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.conftest import EXAMPLE_CONTENT, REPO_ROOT, parse_html, run_cli, valid_record

SITEMAP_NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
ATOM_NS = "{http://www.w3.org/2005/Atom}"


def test_sitemap_lists_every_page_with_lastmod(example_site: Path) -> None:
    root = ET.fromstring((example_site / "sitemap.xml").read_bytes())
    entries = {
        u.findtext(f"{SITEMAP_NS}loc"): u.findtext(f"{SITEMAP_NS}lastmod")
        for u in root.iter(f"{SITEMAP_NS}url")
    }
    base = "https://errors.example.org/"
    assert entries[base] == "2026-08-28"
    assert entries[f"{base}errors/6ba5c6b60f1a1dc5/"] == "2026-08-28"
    assert entries[f"{base}repos/sgl-project/sglang/"] == "2026-08-28"
    assert f"{base}search/" in entries
    error_urls = [u for u in entries if "/errors/" in u]
    assert len(error_urls) == 9  # aliases are redirects, not pages to index


def test_robots_nojekyll_and_ndjson(example_site: Path) -> None:
    robots = (example_site / "robots.txt").read_text()
    assert "Sitemap: https://errors.example.org/sitemap.xml" in robots
    assert (example_site / ".nojekyll").is_file()
    lines = (example_site / "api" / "errors.ndjson").read_text().splitlines()
    records = [json.loads(line) for line in lines]
    assert len(records) == 9
    one = json.loads((example_site / "api" / "errors" / f"{records[0]['id']}.json").read_text())
    assert records[0] == one


def test_atom_feed(example_site: Path) -> None:
    feed = ET.fromstring((example_site / "feed.xml").read_bytes())
    assert feed.findtext(f"{ATOM_NS}title") == "sglang error reference"
    assert feed.findtext(f"{ATOM_NS}updated") == "2026-08-28T00:00:00Z"
    entries = feed.findall(f"{ATOM_NS}entry")
    assert len(entries) == 9
    first = entries[0]
    assert first.findtext(f"{ATOM_NS}id", "").startswith("https://errors.example.org/errors/")
    assert first.findtext(f"{ATOM_NS}title", "").startswith("ValueError: ")
    assert first.findtext(f"{ATOM_NS}summary")


def test_alias_redirect_pages(example_site: Path) -> None:
    page = parse_html(example_site / "errors" / "0974de0685d3f549" / "index.html")
    refresh = page.find("meta", attrs={"http-equiv": "refresh"})
    assert refresh is not None
    assert refresh["content"] == "0; url=../6ba5c6b60f1a1dc5/index.html"
    canonical = page.find("link", rel="canonical")
    assert canonical is not None
    assert canonical["href"] == "https://errors.example.org/errors/6ba5c6b60f1a1dc5/"
    link = page.find("a", id="redirect-target")
    assert link is not None and link["href"] == "../6ba5c6b60f1a1dc5/index.html"
    stub = json.loads((example_site / "api" / "errors" / "0974de0685d3f549.json").read_text())
    assert stub["moved_to"] == "6ba5c6b60f1a1dc5"


def test_not_found_page_resolves_from_the_site_root(example_site: Path) -> None:
    page = parse_html(example_site / "404.html")
    base = page.find("base")
    assert base is not None and base["href"] == "/"
    stylesheet = page.find("link", rel="stylesheet")
    assert stylesheet is not None and stylesheet["href"] == "assets/style.css"


def test_site_under_a_sub_path(tmp_path: Path) -> None:
    out = tmp_path / "site"
    base = "https://example.org/docs/errors/"
    result = run_cli(
        "build",
        "--content",
        str(EXAMPLE_CONTENT),
        "--out",
        str(out),
        "--base-url",
        "https://example.org/docs/errors",
    )
    assert result.exit_code == 0, result.output
    page = parse_html(out / "errors" / "6ba5c6b60f1a1dc5" / "index.html")
    canonical = page.find("link", rel="canonical")
    assert canonical is not None and canonical["href"] == f"{base}errors/6ba5c6b60f1a1dc5/"
    og = page.find("meta", property="og:url")
    assert og is not None and og["content"] == f"{base}errors/6ba5c6b60f1a1dc5/"
    not_found = parse_html(out / "404.html").find("base")
    assert not_found is not None and not_found["href"] == "/docs/errors/"
    assert f"Sitemap: {base}sitemap.xml" in (out / "robots.txt").read_text()


def test_without_base_url_warns_and_skips_absolute_files(make_content, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    content = make_content({"errors/a.yaml": valid_record()})
    out = tmp_path / "site"
    result = run_cli("build", "--content", str(content), "--out", str(out))
    assert result.exit_code == 0
    assert "warning: base_url: not set: sitemap.xml, robots.txt and feed.xml" in result.stderr
    assert not (out / "sitemap.xml").exists() and not (out / "feed.xml").exists()
    page = parse_html(out / "errors" / "0123456789abcdef" / "index.html")
    assert page.find("link", rel="canonical") is None
    strict = run_cli("build", "--content", str(content), "--out", str(out), "--strict")
    assert strict.exit_code == 1


def test_source_date_epoch_sets_the_build_date(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1790000000")
    out = tmp_path / "site"
    assert run_cli("build", "--content", str(EXAMPLE_CONTENT), "--out", str(out)).exit_code == 0
    made = parse_html(out / "index.html").select_one(".made-with time")
    assert made is not None and made["datetime"] == "2026-09-21T14:13:20Z"
    feed = ET.fromstring((out / "feed.xml").read_bytes())
    assert feed.findtext(f"{ATOM_NS}updated") == "2026-09-21T14:13:20Z"


@pytest.mark.parametrize("command", ["build", "check"])
def test_a_link_to_a_missing_anchor_of_another_page_fails_check_as_it_fails_build(
    command: str, make_content, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    linking = valid_record().replace(
        "It means the widget was bad.",
        "It means the widget was bad; see [the other](../fedcba9876543210/index.html#nope).",
    )
    other = valid_record("fedcba9876543210", "other widget")
    content = make_content({"errors/a.yaml": linking, "errors/b.yaml": other})
    out = ["--out", str(tmp_path / "site")] if command == "build" else []
    result = run_cli(command, "--content", str(content), *out)
    assert result.exit_code == 1
    assert (
        "a.yaml: link: broken link '../fedcba9876543210/index.html#nope' on "
        "errors/0123456789abcdef/index.html: no anchor #nope in errors/fedcba9876543210/index.html"
    ) in result.stderr
    assert not (tmp_path / "site").exists()


def test_broken_theme_link_fails_the_build_naming_page_and_link(
    make_content, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    theme = tmp_path / "mytheme"
    shutil.copytree(REPO_ROOT / "themes" / "default", theme)
    index = theme / "templates" / "index.html"
    index.write_text(
        index.read_text().replace(
            "{% block main %}",
            '{% block main %}<a href="nowhere.html">x</a><a href="#no-such-anchor">y</a>'
            '<a href="errors/0123456789abcdef/index.html#L99">z</a>'
            '<a href="errors/0123456789abcdef/">w</a>',
        )
    )
    content = make_content({"errors/a.yaml": valid_record(), "site.yaml": "theme: mytheme\n"})
    out = tmp_path / "site"
    result = run_cli("build", "--content", str(content), "--out", str(out))
    assert result.exit_code == 1
    assert "site/index.html:" in result.stderr
    assert "link: broken link 'nowhere.html': no file" in result.stderr
    assert "link: broken link '#no-such-anchor': no anchor #no-such-anchor in index.html" in (
        result.stderr
    )
    assert "broken link 'errors/0123456789abcdef/index.html#L99': no anchor #L99" in result.stderr
    assert "broken link 'errors/0123456789abcdef/': a folder (links must name index.html)" in (
        result.stderr
    )
    assert not out.exists()


def test_link_preview_meta(example_site: Path) -> None:
    page = parse_html(example_site / "errors" / "e3cdd85d4338744c" / "index.html")

    def meta(**attrs: str) -> str:
        tag = page.find("meta", attrs=attrs)
        assert tag is not None, attrs
        return str(tag["content"])

    message = (
        "--disaggregation-decode-retraction-backup=host_pool requires "
        "--disable-priority-preemption when priority scheduling is enabled."
    )
    assert meta(property="og:title") == f"ValueError: {message}"
    assert meta(name="twitter:title") == f"ValueError: {message}"
    description = (
        "ServerArgs._handle_cache_compatibility rejects the combination of "
        "--disaggregation-decode-retraction-backup=host_pool with priority scheduling enabled "
        "(--enable-priority-scheduling) unless --disable-priority-preemption is also set."
    )
    assert meta(property="og:description") == description
    assert meta(name="description") == description
    assert meta(property="og:site_name") == "sglang error reference"
    assert meta(property="og:url") == "https://errors.example.org/errors/e3cdd85d4338744c/"
    assert meta(name="twitter:card") == "summary"
