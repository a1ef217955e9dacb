"""Drive Debian's Chromium headless with Playwright, over file:// and a local HTTP server."""

from __future__ import annotations

import functools
import shutil
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from playwright.sync_api import (
    Browser,
    BrowserContext,
    ConsoleMessage,
    Page,
    Playwright,
    sync_playwright,
)

from tests.conftest import REPO_ROOT

ARTIFACTS = REPO_ROOT / "test-artifacts"
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        pytest.fail("Chromium is needed for the browser tests: apt-get install chromium")
    return path


@pytest.fixture(scope="session")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="session")
def browser(playwright: Playwright) -> Iterator[Browser]:
    browser = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_FLAGS)
    yield browser
    browser.close()


class StaticHostHandler(SimpleHTTPRequestHandler):
    """Serve files like a static host: quietly, and with the site's 404.html for missing paths."""

    def log_message(self, format: str, *args: object) -> None:
        pass

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        not_found = Path(self.directory) / "404.html"
        if code != 404 or not not_found.is_file():
            super().send_error(code, message, explain)
            return
        body = not_found.read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


@pytest.fixture(scope="session")
def http_root(example_site: Path) -> Iterator[str]:
    """Serve the example site on 127.0.0.1 (a free port) for the session."""
    handler = functools.partial(StaticHostHandler, directory=str(example_site))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


@pytest.fixture(params=["file", "http"])
def site_root(request: pytest.FixtureRequest, example_site: Path) -> str:
    """The example site's root URL, once from disk and once over HTTP."""
    if request.param == "file":
        return example_site.resolve().as_uri() + "/"
    root: str = request.getfixturevalue("http_root")
    return root


class Watch:
    """What a page did that it should not: console errors, page errors, requests off the site."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.problems: list[str] = []

    def console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            self.problems.append(f"console error: {message.text}")

    def request(self, url: str) -> None:
        if not url.startswith(self.root) and not url.startswith("data:"):
            self.problems.append(f"request off the site: {url}")


@pytest.fixture
def context(browser: Browser, site_root: str) -> Iterator[BrowserContext]:
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    if site_root.startswith("http"):
        context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site_root[:-1])
    yield context
    context.close()


@pytest.fixture
def page(context: BrowserContext, site_root: str) -> Iterator[tuple[Page, Watch]]:
    """A fresh tab that records console errors and any request that leaves the site."""
    watch = Watch(site_root)
    tab = context.new_page()
    tab.on("console", watch.console)
    tab.on("pageerror", lambda error: watch.problems.append(f"page error: {error}"))
    tab.on("request", lambda request: watch.request(request.url))
    yield tab, watch
    assert watch.problems == []


@pytest.fixture
def browser_no_js(browser: Browser) -> Iterator[BrowserContext]:
    context = browser.new_context(java_script_enabled=False)
    yield context
    context.close()


@pytest.fixture
def browser_context_plain(browser: Browser) -> Iterator[BrowserContext]:
    """A context without the console watch, for pages that are errors on purpose (404)."""
    context = browser.new_context()
    yield context
    context.close()
