"""The built site in a real browser: search, lookup, redirects, sharing, dark mode, a11y."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.browser.conftest import ARTIFACTS, Watch
from tests.lookup_cases import (
    BROWSER_RUNNER,
    LookupCase,
    browser_arguments,
    browser_matches,
    load_cases,
    python_matches,
    random_cases,
)

ERROR_000 = "errors/6ba5c6b60f1a1dc5/index.html"
DCP_ERROR = "errors/b0e9a9c158a0b982/index.html"
TRACEBACK = """Traceback (most recent call last):
  File "/opt/sglang/python/sglang/launch_server.py", line 14, in <module>
    server_args = prepare_server_args(sys.argv[1:])
  File "/opt/sglang/python/sglang/srt/arg_groups/pd_disaggregation_hook.py", line 58, in handle
    raise ValueError(
ValueError: PD decode DCP requires --disaggregation-transfer-backend mooncake, nixl, or fake for synthetic benchmarking, got 'mori'.
"""


def test_search_from_any_page_reaches_the_error(page: tuple[Page, Watch], site_root: str) -> None:
    tab, _ = page
    tab.goto(site_root + "repos/sgl-project/sglang/index.html")
    tab.fill("#site-q", "hicache storage backend provided")
    tab.press("#site-q", "Enter")
    expect(tab).to_have_url(re.compile(r"search/index\.html\?q=hicache"))
    first = tab.locator("#results a.result-link").first
    expect(first).to_contain_text("only supported when hicache-storage-backend is provided")
    marks = tab.locator("#results li").first.locator("mark").all_inner_texts()
    assert {"hicache", "storage", "backend", "provided"} <= {m.lower() for m in marks}
    expect(tab.locator("#search-status")).to_contain_text("match")
    first.click()
    expect(tab).to_have_url(re.compile(re.escape(ERROR_000) + "$"))
    expect(tab.locator("h1")).to_contain_text("The argument disaggregation-decode-enable")


def test_exact_message_ranks_first_and_keyboard_navigation(
    page: tuple[Page, Watch], site_root: str
) -> None:
    tab, _ = page
    tab.goto(site_root + "search/index.html")
    tab.fill(
        "#q",
        "The argument disaggregation-decode-enable-offload-kvcache is only supported for decode side.",
    )
    results = tab.locator("#results a.result-link")
    expect(results.first).to_have_attribute("href", "../errors/c61c9f6cb8afc303/index.html")
    tab.fill("#q", "offload kvcache")
    expect(results).to_have_count(3)
    tab.press("#q", "ArrowDown")
    expect(results.nth(0)).to_be_focused()
    tab.keyboard.press("ArrowDown")
    expect(results.nth(1)).to_be_focused()
    tab.keyboard.press("ArrowUp")
    tab.keyboard.press("ArrowUp")
    expect(tab.locator("#q")).to_be_focused()
    first_href = results.first.get_attribute("href") or ""
    tab.press("#q", "Enter")
    expect(tab).to_have_url(re.compile(re.escape(first_href.removeprefix("..")) + "$"))


def test_pasted_traceback_finds_the_error_and_fills_the_value(
    page: tuple[Page, Watch], site_root: str
) -> None:
    tab, _ = page
    tab.goto(site_root + "search/index.html")
    tab.fill("#traceback", TRACEBACK)
    first = tab.locator("#results li").first
    expect(first.locator(".why")).to_have_text("Matches the pasted text: backend = mori")
    link = first.locator("a.result-link")
    expect(link).to_have_attribute("href", "../errors/b0e9a9c158a0b982/index.html?backend=mori")
    link.click()
    expect(tab).to_have_url(re.compile(re.escape(DCP_ERROR) + r"\?backend=mori$"))
    value = tab.locator(".message-text var.placeholder")
    expect(value).to_have_text("'mori'")  # {backend!r}: quoted, as Python shows it
    expect(value).to_have_class(re.compile("filled"))
    expect(tab.locator("#filled-note")).to_be_visible()


def test_reader_values_in_the_url_are_shown_as_text(
    page: tuple[Page, Watch], site_root: str
) -> None:
    tab, _ = page
    tab.goto(site_root + DCP_ERROR + "?backend=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E")
    value = tab.locator(".message-text var.placeholder")
    expect(value).to_have_text("<img src=x onerror=alert(1)>")
    assert tab.locator(".message-text img").count() == 0


def test_alias_redirects_keeping_the_anchor(page: tuple[Page, Watch], site_root: str) -> None:
    tab, _ = page
    tab.goto(site_root + "errors/0974de0685d3f549/index.html#L9146")
    expect(tab).to_have_url(re.compile(re.escape(ERROR_000) + "#L9146$"))
    expect(tab.locator("#L9146")).to_have_class(re.compile("is-raise"))


def test_alias_redirects_without_javascript(
    context: BrowserContext, site_root: str, browser_no_js: BrowserContext
) -> None:
    tab = browser_no_js.new_page()
    tab.goto(site_root + "errors/0974de0685d3f549/index.html")
    expect(tab).to_have_url(re.compile(re.escape(ERROR_000) + "$"))


def test_copy_buttons(page: tuple[Page, Watch], site_root: str) -> None:
    tab, _ = page
    tab.goto(site_root + DCP_ERROR + "?backend=%27mori%27")
    canonical = "https://errors.example.org/errors/b0e9a9c158a0b982/?backend=%27mori%27"
    markdown = (
        f"[ValueError: PD decode DCP requires --disaggregation-transfer-backend…]({canonical})"
    )
    tab.get_by_role("button", name="Copy link").click()
    expect(tab.locator("#copy-status")).to_have_text(f"Copied Markdown link: {markdown}")
    if site_root.startswith("http"):
        assert tab.evaluate("navigator.clipboard.readText()") == markdown
    tab.get_by_role("button", name="Copy URL").click()
    expect(tab.locator("#copy-status")).to_have_text(f"Copied URL: {canonical}")
    if site_root.startswith("http"):
        assert tab.evaluate("navigator.clipboard.readText()") == canonical


def test_section_and_line_anchors_show_on_focus(page: tuple[Page, Watch], site_root: str) -> None:
    tab, _ = page
    tab.goto(site_root + ERROR_000 + "#L9146")
    anchor = tab.locator("#solutions-title a.anchor")
    assert anchor.evaluate("a => getComputedStyle(a).opacity") == "0"
    anchor.focus()
    expect(anchor).to_have_css("opacity", "1")
    line = tab.locator("#L9146 a.ln")
    expect(line).to_have_attribute("href", "#L9146")
    assert line.evaluate("a => getComputedStyle(a, '::before').content") == '"9146"'


def test_dark_mode(context: BrowserContext, page: tuple[Page, Watch], site_root: str) -> None:
    tab, _ = page
    tab.emulate_media(color_scheme="light")
    tab.goto(site_root + ERROR_000)
    assert tab.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(255, 255, 255)"
    tab.emulate_media(color_scheme="dark")
    assert tab.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(13, 17, 23)"
    keyword = tab.locator("#L9146 .k").first
    assert keyword.evaluate("k => getComputedStyle(k).color") != "rgb(0, 128, 0)"
    if site_root.startswith("file"):
        ARTIFACTS.mkdir(exist_ok=True)
        tab.screenshot(path=str(ARTIFACTS / "error-page-dark.png"), full_page=True)


@pytest.mark.parametrize(
    ("path", "name"),
    [
        (ERROR_000, "error-page"),
        ("index.html", "home-page"),
        ("search/index.html?q=host_pool", "search-page"),
    ],
)
def test_accessibility_and_screenshots(
    page: tuple[Page, Watch], site_root: str, path: str, name: str
) -> None:
    tab, _ = page
    tab.emulate_media(color_scheme="light")
    tab.goto(site_root + path)
    if "search" in path:
        expect(tab.locator("#results li").first).to_be_visible()
    if site_root.startswith("file"):
        # axe reads stylesheets with XMLHttpRequest, which file:// refuses (a console error
        # of axe's, not the site's); the pages are the same bytes, so it runs over HTTP.
        ARTIFACTS.mkdir(exist_ok=True)
        tab.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
        return
    for scheme in ("light", "dark"):
        tab.emulate_media(color_scheme=scheme)  # type: ignore[arg-type]
        result = Axe().run(tab)
        assert result.violations_count == 0, result.generate_report()


LOOKUP_TEXTS = [
    TRACEBACK,
    "ValueError: PD decode DCP requires --disaggregation-transfer-backend mooncake or nixl, got 'mori'.",
    "E   ValueError: The argument disaggregation-decode-enable-offload-kvcache is only supported\n"
    "E   when hicache-storage-backend is provided.",
    "[2026-08-28 10:00:01] ERROR: MiniCPM SALA does not support hierarchical cache (retrying)",
    "KeyError: 'nothing we know'",
]


@pytest.mark.parametrize("text", LOOKUP_TEXTS)
def test_browser_lookup_agrees_with_errpages_lookup(
    page: tuple[Page, Watch], site_root: str, text: str
) -> None:
    from errpages.report import BuildReport
    from errpages.site.lookup import compile_matchers, lookup
    from errpages.stages import load_site
    from tests.conftest import EXAMPLE_CONTENT

    site = load_site(EXAMPLE_CONTENT, None, BuildReport())
    assert site is not None
    python = [
        {"id": m.record.id, "exact": m.exact, "values": m.values}
        for m in lookup(text, compile_matchers(site.records), limit=100)
    ]
    tab, _ = page
    tab.goto(site_root + "search/index.html")
    browser = tab.evaluate("text => window.ERRPAGES.lookup(text)", text)
    assert [{k: r[k] for k in ("id", "exact", "values")} for r in browser] == python


def test_meaning_words_are_searchable(page: tuple[Page, Watch], site_root: str) -> None:
    tab, _ = page
    tab.goto(site_root + "search/index.html")
    # "relayout" appears only in the meaning of the PD decode DCP error.
    assert tab.evaluate("window.ERRPAGES.search('relayout')") == ["b0e9a9c158a0b982"]
    assert tab.evaluate("window.ERRPAGES.search('relay')") == ["b0e9a9c158a0b982"]
    found = tab.evaluate("window.ERRPAGES.search('minicpm')")
    assert sorted(found) == ["62ffe4ab85e379c1", "fdffa8e3ed0ceedb"]


def test_not_found_page_works_at_any_depth(
    browser_context_plain: BrowserContext, http_root: str
) -> None:
    tab = browser_context_plain.new_page()
    requests: list[str] = []
    tab.on("request", lambda request: requests.append(request.url))
    response = tab.goto(http_root + "no/such/deep/page/")
    assert response is not None and response.status == 404
    expect(tab.locator("h1")).to_have_text("Page not found")
    # The stylesheet loaded from the site root, so the page is styled.
    assert (
        tab.evaluate("getComputedStyle(document.querySelector('.site-header')).borderBottomStyle")
        == "solid"
    )
    assert all(url.startswith(http_root) for url in requests), requests
    tab.get_by_role("link", name="list of repositories").click()
    expect(tab).to_have_url(http_root + "index.html")
    tab.goto(http_root + "deep/er/x.html")
    tab.fill("#q404", "MiniCPM")
    tab.press("#q404", "Enter")
    expect(tab).to_have_url(re.compile(re.escape(http_root) + r"search/index\.html\?q=MiniCPM$"))
    expect(tab.locator("#results li")).to_have_count(2)


def run_lookup_js(browser: Browser, cases: list[LookupCase]) -> list[dict[str, Any]]:
    """Each case through lookup.js in a worker of a blank tab (a hang is an error, not a freeze)."""
    context = browser.new_context()
    try:
        results: list[dict[str, Any]] = context.new_page().evaluate(
            BROWSER_RUNNER, browser_arguments(cases, timeout_s=60)
        )
    finally:
        context.close()
    return results


def test_browser_lookup_gives_the_shared_table(browser: Browser) -> None:
    cases = load_cases()
    results = run_lookup_js(browser, cases)
    assert {c.name: browser_matches(r) for c, r in zip(cases, results, strict=True)} == {
        c.name: list(c.matches) for c in cases
    }


def test_browser_and_errpages_lookup_agree_on_odd_characters(browser: Browser) -> None:
    cases = random_cases(seed=20, count=400)
    results = run_lookup_js(browser, cases)
    for case, result in zip(cases, results, strict=True):
        assert browser_matches(result) == python_matches(case), (case.templates, case.text)


def test_hostile_links_do_not_freeze_the_search_page(
    browser: Browser, make_content: Callable[[dict[str, str]], Path], tmp_path: Path
) -> None:
    """A site holding templates that made the old matcher backtrack, opened with the links
    that froze it: the page answers (goto waits for the load event, 30 s at most)."""
    from tests.conftest import run_cli, valid_record

    templates = {"1": '"{a}{b}{c}{d}{e}{f} END"', "2": '"x {a} x {b} x {c} x {d} y"'}
    content = make_content(
        {f"errors/{n}.yaml": valid_record(f"00000000000000a{n}", m) for n, m in templates.items()}
    )
    site = tmp_path / "site"
    assert run_cli("build", "--content", str(content), "--out", str(site)).exit_code == 0
    links = {
        "tb": "END\n" + "x" * 610,
        "q": "y " + "x " * 149,
    }
    context = browser.new_context()
    tab = context.new_page()
    for key, text in links.items():
        tab.goto(f"{(site / 'search' / 'index.html').as_uri()}?{urlencode({key: text})}")
        expect(tab.locator("#search-status")).to_contain_text(re.compile("matches|match “"))
    context.close()


def test_a_link_too_long_to_read_is_cut_and_the_page_says_so(
    browser: Browser, example_site: Path
) -> None:
    """A ?q= query is read from its start and a ?tb= text from its end (where the exception
    line is), each to a bound, whatever the link carries; the page says what it cut."""
    search = (example_site / "search" / "index.html").as_uri()
    tab = browser.new_page()
    tab.goto(f"{search}?{urlencode({'q': 'hicache ' + 'x ' * 375_000})}")
    status = tab.locator("#search-status")
    expect(status).to_contain_text("it read its query to the first 2000 characters.")
    assert len(tab.locator("#q").input_value()) == 2000
    log = (
        "a line of noise\n" * 70_000
        + "ValueError: MiniCPM SALA does not support hierarchical cache\n"
    )
    tab.goto(f"{search}?{urlencode({'tb': log})}")
    expect(status).to_contain_text("1 error matches the pasted text.")
    # From a line's start: within a line of the bound.
    expect(status).to_contain_text(
        re.compile(r"it read its text to the last 655[2-3]\d characters")
    )
    assert len(tab.locator("#traceback").input_value()) <= 65536
    expect(tab.locator("#results a").first).to_have_attribute(
        "href", re.compile("fdffa8e3ed0ceedb")
    )
    tab.goto(
        f"{search}?{urlencode({'tb': 'ValueError: MiniCPM SALA does not support hierarchical cache'})}"
    )
    expect(status).to_have_text("1 error matches the pasted text.")  # a short link: nothing said
    tab.close()


def test_a_value_is_shown_as_the_template_converts_it(
    browser: Browser, make_content: Callable[[dict[str, str]], Path], tmp_path: Path
) -> None:
    """One value for `{url!r}` and `{url}`: quoted where the template says `!r` only; and the
    lookup of a traceback links to the page with the value unquoted."""
    from tests.conftest import run_cli, valid_record

    message = '"Invalid URL {url!r}: No scheme supplied. Perhaps you meant https://{url}?"'
    content = make_content({"errors/url.yaml": valid_record("00000000000000c1", message)})
    site = tmp_path / "site"
    assert run_cli("build", "--content", str(content), "--out", str(site)).exit_code == 0
    context = browser.new_context()
    tab = context.new_page()
    page = site / "errors" / "00000000000000c1" / "index.html"
    for query, shown in (
        ("url=foo", "Invalid URL 'foo': No scheme supplied. Perhaps you meant https://foo?"),
        ("url=it%27s", "Invalid URL \"it's\": No scheme supplied. Perhaps you meant https://it's?"),
        (
            "url=%27foo%27",
            "Invalid URL 'foo': No scheme supplied. Perhaps you meant https://'foo'?",
        ),
    ):
        tab.goto(f"{page.as_uri()}?{query}")
        expect(tab.locator(".message-text").first).to_have_text(shown)
    traceback = "ValueError: Invalid URL 'foo': No scheme supplied. Perhaps you meant https://foo?"
    tab.goto(f"{(site / 'search' / 'index.html').as_uri()}?{urlencode({'tb': traceback})}")
    link = tab.locator("#results a.result-link").first
    expect(link).to_have_attribute("href", re.compile(r"00000000000000c1/index\.html\?url=foo$"))
    context.close()
