"""Every page kind at a phone's and a desktop's width, light and dark: no sideways page scroll,
the raising statement readable in its code box, search marks that read, axe clean; and a
screenshot of each in test-artifacts/."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, Page, expect

from tests.browser.conftest import ARTIFACTS

TRACEBACK = (
    'Traceback (most recent call last):\n  File "serve.py", line 3, in <module>\n'
    "ValueError: PD decode DCP requires --disaggregation-transfer-backend mooncake, nixl, "
    "or fake for synthetic benchmarking, got 'mori'."
)
PAGES = {
    "home": "index.html",
    "error": "errors/6ba5c6b60f1a1dc5/index.html",
    "repository": "repos/sgl-project/sglang/index.html",
    "search": "search/index.html",
    "404": "no/such/page/",
}
WIDTHS = (390, 1280)
SCHEMES = ("light", "dark")


@pytest.fixture(params=[(w, s) for w in WIDTHS for s in SCHEMES], ids=lambda p: f"{p[0]}-{p[1]}")
def tab(request: pytest.FixtureRequest, browser: Browser) -> Iterator[Page]:
    width, scheme = request.param
    context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme)
    yield context.new_page()
    context.close()


def overflow(tab: Page) -> int:
    """How far the page reaches past the viewport's right edge (0: no sideways scroll)."""
    return int(tab.evaluate("document.documentElement.scrollWidth - window.innerWidth"))


def test_every_page_kind_fits_and_passes_axe(tab: Page, http_root: str) -> None:
    width = tab.viewport_size["width"] if tab.viewport_size else 0
    scheme = (
        "dark" if tab.evaluate("matchMedia('(prefers-color-scheme: dark)').matches") else "light"
    )
    ARTIFACTS.mkdir(exist_ok=True)
    for kind, path in PAGES.items():
        tab.goto(http_root + path)
        if kind == "search":
            tab.fill("#traceback", TRACEBACK)
            expect(tab.locator("#results li").first).to_be_visible()
        assert overflow(tab) <= 0, (kind, width, scheme)
        tab.screenshot(path=str(ARTIFACTS / f"{kind}-{width}-{scheme}.png"), full_page=True)
        result = Axe().run(tab)
        assert result.violations_count == 0, (kind, width, scheme, result.generate_report())


def test_the_raising_statement_reads_whole_in_its_code_box(
    tab: Page, http_root: str, example_site: Path
) -> None:
    """On every error page of the example site: no line of the statement reaches past the
    code box, which needs no sideways scroll; the statement's lines are all marked."""
    pages = [p for p in sorted((example_site / "errors").glob("*/index.html"))]
    checked = 0
    for page in pages:
        tab.goto(http_root + page.relative_to(example_site).as_posix())
        box = tab.locator(".snippet .code")
        if box.count() == 0:
            continue  # an alias's redirect
        assert box.evaluate("b => b.scrollWidth - b.clientWidth") <= 0, page
        edge = box.evaluate("b => b.getBoundingClientRect().right")
        marked = tab.locator(".snippet .line.in-raise")
        assert marked.count() >= 1
        for right in marked.locator(".text").evaluate_all(
            "texts => texts.map(t => t.getBoundingClientRect().right)"
        ):
            assert right <= edge, page
        assert tab.locator(".snippet .line.is-raise").count() == 1
        assert overflow(tab) <= 0, page
        checked += 1
    assert checked >= 9


def contrast(foreground: str, background: str) -> float:
    """WCAG's contrast ratio of two `rgb(…)` colours."""

    def luminance(colour: str) -> float:
        red, green, blue = (int(v) / 255 for v in re.findall(r"\d+", colour)[:3])
        linear = [
            c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in (red, green, blue)
        ]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    light, dark = sorted((luminance(foreground), luminance(background)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_search_marks_meet_wcag_aa(tab: Page, http_root: str) -> None:
    tab.goto(http_root + "search/index.html?q=hicache+storage")
    marks = tab.locator("#results mark")
    expect(marks.first).to_be_visible()
    colours = marks.evaluate_all(
        "ms => ms.map(m => [getComputedStyle(m).color, getComputedStyle(m).backgroundColor])"
    )
    page = tab.evaluate("getComputedStyle(document.body).backgroundColor")
    for foreground, background in colours:
        assert contrast(foreground, background) >= 4.5, (foreground, background)
        assert contrast(background, page) >= 1.3, "a mark that does not stand out from the page"


def test_print_keeps_the_code_readable(browser: Browser, http_root: str) -> None:
    """Printed (A4's width), the snippet wraps inside the page and keeps its marks; the
    search box, the buttons and the aside are left out."""
    context = browser.new_context(viewport={"width": 794, "height": 1123})
    tab = context.new_page()
    tab.emulate_media(media="print")
    tab.goto(http_root + PAGES["error"])
    box = tab.locator(".snippet .code")
    assert box.evaluate("b => b.scrollWidth - b.clientWidth") <= 0
    assert overflow(tab) <= 0
    for hidden in (".site-search", ".share", ".page-aside"):
        assert tab.locator(hidden).evaluate("e => getComputedStyle(e).display") == "none"
    edge = tab.locator(".snippet .line.is-raise").evaluate("e => getComputedStyle(e).boxShadow")
    assert edge != "none"
    assert len(tab.pdf(format="A4")) > 1000
    context.close()


@pytest.mark.parametrize("width", [320, 360])
def test_no_sideways_scroll_on_the_narrowest_phones(
    browser: Browser, http_root: str, width: int
) -> None:
    context = browser.new_context(viewport={"width": width, "height": 800})
    tab = context.new_page()
    for kind, path in PAGES.items():
        tab.goto(http_root + path)
        if kind == "search":
            tab.fill("#traceback", TRACEBACK)
            expect(tab.locator("#results li").first).to_be_visible()
        assert overflow(tab) <= 0, (kind, width)
    context.close()
