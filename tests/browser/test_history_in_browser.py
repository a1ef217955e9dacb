"""Errors through time in a real browser, from disk: the listings narrowed to one release,
the search page knowing a traceback with an older release's wording, and an error page's
History on a phone and a desktop."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, Page, expect

from tests.browser.test_layout import overflow
from tests.conftest import parse_html, run_cli
from tests.test_history import history, project  # noqa: F401  (the fixture)


def shown_titles(tab: Page) -> list[str]:
    return sorted(tab.locator("li[data-raised]:visible a").all_inner_texts())


@pytest.fixture
def history_site(
    project,  # type: ignore[no-untyped-def]  # noqa: F811
    tmp_path: Path,
) -> tuple[dict[str, Any], Path]:
    """The project's histories and its site built with them (drafts included)."""
    repo, _, content, _ = project
    data = history(content, repo)
    out = tmp_path / "site"
    result = run_cli("build", "--content", str(content), "--out", str(out), "--drafts")
    assert result.exit_code == 0, result.output
    return data, out


def test_a_listing_narrowed_to_a_release_shows_what_it_raises(
    history_site: tuple[dict[str, Any], Path], browser: Browser
) -> None:
    data, out = history_site
    raised_in = {
        release: {
            r["id"] for r in data["records"] if release in {x["release"] for x in r["raised"]}
        }
        for release in data["releases"]
    }
    assert raised_in["v1.2"] != raised_in["v2.0"]  # the legacy error is gone, the mirror's back

    # without a script: every error listed, the one gone by the latest release marked
    listing = parse_html(out / "repos" / "acme" / "proj" / "index.html")
    items = listing.select("li[data-raised]")
    assert len(items) == len(data["records"])
    marked = [li for li in items if li.select_one(".not-raised")]
    assert [li.a["href"] for li in marked] == ["../../../errors/00000000000000aa/index.html"]
    assert marked[0].select_one(".not-raised").get_text() == "not raised since v2.0"
    options = listing.select("#release option[data-name]")
    assert [o["data-name"] for o in options] == list(reversed(data["releases"]))

    def titles_of(release: str) -> list[str]:
        wanted = raised_in[release]
        return sorted(li.a.get_text() for li in items if li.a["href"].split("/")[-2] in wanted)

    context = browser.new_context()
    problems: list[str] = []
    tab = context.new_page()
    tab.on("pageerror", lambda error: problems.append(str(error)))
    tab.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page_url = (out / "repos" / "acme" / "proj" / "index.html").as_uri()
    tab.goto(page_url + "?release=v1.2")
    expect(tab.locator("#release")).to_be_visible()
    assert shown_titles(tab) == titles_of("v1.2")
    expect(tab.locator("[data-release-stats]")).to_have_text(
        f"{len(raised_in['v1.2'])} errors raised in v1.2."
    )
    tab.select_option("#release", label="v2.0")
    assert shown_titles(tab) == titles_of("v2.0")
    assert parse_qs(urlsplit(tab.url).query) == {"release": ["v2.0"]}
    # every group and file heading left shows something; the counts are the release's
    for group in tab.locator(".exception-group:visible").all():
        shown = group.locator("li:visible").count()
        assert shown > 0
        expect(group.locator(".count")).to_have_text(f"({shown})")
    tab.select_option("#release", index=0)
    assert len(shown_titles(tab)) == len(data["records"])
    assert urlsplit(tab.url).query == ""
    expect(tab.locator("[data-release-stats]")).to_contain_text(
        f"{len(data['records'])} errors, grouped"
    )

    # the home page, narrowed to the repository's oldest release
    tab.goto((out / "index.html").as_uri() + "?repo=acme/proj&release=v1.0")
    row = tab.locator("tr[data-repo='acme/proj']")
    expect(row.locator("[data-count=errors]")).to_have_text(str(len(raised_in["v1.0"])))
    expect(tab.locator("[data-release-stats]")).to_have_text(
        f"{len(raised_in['v1.0'])} errors raised in v1.0."
    )
    recent = tab.locator("#recent li[data-raised]:visible a")
    assert all(
        href.split("/")[-2] in raised_in["v1.0"]
        for href in recent.evaluate_all("links => links.map(a => a.getAttribute('href'))")
    )

    # the search page: a traceback with v1.0's wording of the widget error
    tab.goto((out / "search" / "index.html").as_uri())
    tab.fill("#q", "KeyError: \"unknown widget 'dial'\"")
    first = tab.locator("#results li").first
    expect(first.locator(".why")).to_contain_text(
        "(as v1.0 worded it: KeyError: unknown widget {name!r})"
    )
    expect(first.locator("a.result-link")).to_have_text("no widget named {name!r}")
    first.locator("a.result-link").click()
    expect(tab.locator("h1")).to_contain_text("no widget named")
    assert parse_qs(urlsplit(tab.url).query) == {"name": ["dial"]}
    context.close()
    assert problems == []


def test_an_error_pages_history_fits_a_phone(
    history_site: tuple[dict[str, Any], Path], browser: Browser
) -> None:
    _, out = history_site
    pages = [
        page
        for page in sorted((out / "errors").glob("*/index.html"))
        if parse_html(page).select_one("table.history")
    ]
    assert len(pages) >= 3
    for width in (320, 390, 1280):
        context = browser.new_context(viewport={"width": width, "height": 800})
        tab = context.new_page()
        for page in pages:
            tab.goto(page.as_uri())
            assert overflow(tab) <= 0, (page, width)
        result = Axe().run(tab)
        assert result.violations_count == 0, (width, result.generate_report())
        context.close()
