"""`errpages serve` for real: a page in Chromium follows edits, shows errors and broken links,
and recovers."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from tests.conftest import EXAMPLE_CONTENT, REPO_ROOT

RECORD = "errors/sgl-project/sglang/offload-needs-hicache-backend.yaml"
PAGE = "errors/6ba5c6b60f1a1dc5/index.html"


@pytest.fixture
def live_server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    content = tmp_path / "content"
    shutil.copytree(EXAMPLE_CONTENT, content)
    process = subprocess.Popen(
        [
            sys.executable,
            "-u",
            "-m",
            "errpages",
            "serve",
            "--content",
            str(content),
            "--port",
            "0",
        ],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert process.stdout is not None
    url = ""
    for line in process.stdout:
        found = re.search(r"at (http://127\.0\.0\.1:\d+/)", line)
        if found:
            url = found.group(1)
            break
    assert url, "the server did not start"
    yield url, content
    process.terminate()
    process.wait(timeout=10)


def test_edits_reload_the_page_and_errors_show_over_it(
    browser: Browser, live_server: tuple[str, Path]
) -> None:
    url, content = live_server
    tab = browser.new_page()
    problems: list[str] = []
    tab.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    tab.goto(url + PAGE)
    expect(tab.locator("#meaning")).to_contain_text("validation rejects")
    record = content / RECORD
    original = record.read_text()

    record.write_text(original.replace("validation rejects", "validation now refuses"))
    expect(tab.locator("#meaning")).to_contain_text("validation now refuses", timeout=15000)

    record.write_text(original.replace("meaning: >-", "meaning: [unclosed"))
    overlay = tab.locator("#errpages-overlay")
    expect(overlay).to_be_visible(timeout=15000)
    expect(overlay).to_contain_text("offload-needs-hicache-backend.yaml:")
    expect(overlay).to_contain_text("YAML syntax error")
    expect(tab.locator("#meaning")).to_contain_text("validation now refuses")  # the last good build
    # Opaque (the page under it does not show through), and it can be closed.
    assert overlay.evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(31, 7, 7)"
    tab.get_by_role("button", name="Close (Esc)").click()
    expect(overlay).to_have_count(0)

    record.write_text(original)
    expect(overlay).to_have_count(0, timeout=15000)
    expect(tab.locator("#meaning")).to_contain_text("validation rejects", timeout=15000)
    assert problems == []


def test_a_page_with_a_broken_link_says_so_over_it(
    browser: Browser, live_server: tuple[str, Path]
) -> None:
    url, content = live_server
    tab = browser.new_page()
    tab.goto(url + PAGE)
    overlay = tab.locator("#errpages-overlay")
    record = content / RECORD
    original = record.read_text()
    linked = "validation rejects [the guide](../no-such-page/)"
    record.write_text(original.replace("validation rejects", linked))
    expect(overlay).to_be_visible(timeout=15000)
    expect(overlay).to_contain_text("This page has problems")
    expect(overlay).to_contain_text("broken link '../no-such-page/'")
    expect(tab.get_by_role("link", name="the guide")).to_have_count(1)  # the page as it is now

    record.write_text(original)
    expect(overlay).to_have_count(0, timeout=15000)


def test_a_page_on_another_origin_cannot_read_the_served_search_index(
    browser: Browser, live_server: tuple[str, Path]
) -> None:
    """A page elsewhere that loads serve's search index as a script (drafts and all, with
    --drafts) gets nothing; the site's own pages still get it."""
    import functools
    import threading
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    url, _content = live_server
    elsewhere = live_server[1].parent / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "index.html").write_text(
        f'<!DOCTYPE html><title>elsewhere</title><script src="{url}assets/search-index.js">'
        "</script>"
    )
    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(elsewhere))
    other = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    try:
        tab = browser.new_page()
        tab.goto(f"http://127.0.0.1:{other.server_address[1]}/index.html")
        tab.wait_for_load_state("load")
        assert tab.evaluate("typeof window.ERRPAGES_SEARCH") == "undefined"
        own = browser.new_page()
        own.goto(url + "search/")
        own.wait_for_load_state("load")
        assert own.evaluate("typeof window.ERRPAGES_SEARCH") == "object"
    finally:
        other.shutdown()
        other.server_close()
