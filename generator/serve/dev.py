"""`errpages serve`: serve the site from memory, watch, read what changed, reload the tabs.

Each HTML page gets one extra script (served by this server only, never part
of the site): it listens for server-sent events and reloads the tab after a
change, or shows the content's errors over the page when it became invalid,
until a fix clears them; and it shows the page's own broken links.
"""

from __future__ import annotations

import json
import signal
import threading
import time
from collections.abc import Callable
from html import escape
from http import HTTPStatus
from pathlib import Path

from watchfiles import watch

from errpages.content.listing import display_path
from errpages.diagnostics import Diagnostic, Level, plural, printable
from errpages.report import BuildReport
from errpages.serve.session import Session
from errpages.serve.static import Found, SiteHandler, free_port_server, url_of

EVENTS_PATH = "/__errpages/events"
SCRIPT_PATH = "/__errpages/live.js"
KEEPALIVE_SECONDS = 15.0

LIVE_SCRIPT = """\
/* errpages serve: reload after a change; show the content's errors over the page. */
(function () {
  "use strict";
  var overlay = null;
  var own = document.currentScript && document.currentScript.getAttribute("data-problems");
  var pageProblems = own ? JSON.parse(own) : null;
  var BROKEN = "This page has problems (`errpages build` refuses them):\\n\\n";
  var INVALID = "The content has errors; this page is the last good one. " +
    "It reloads when they are fixed.\\n\\n";
  function show(heading, lines) {
    if (!overlay) {
      overlay = document.createElement("div");
      overlay.id = "errpages-overlay";
      overlay.setAttribute("role", "alert");
      var s = overlay.style;
      s.position = "fixed"; s.inset = "0"; s.zIndex = "2147483647"; s.overflow = "auto";
      s.background = "#1f0707"; s.color = "#ffd7d5"; s.padding = "2rem";
      s.font = "14px/1.5 ui-monospace, monospace"; s.whiteSpace = "pre-wrap";
      var close = document.createElement("button");
      close.type = "button";
      close.textContent = "Close (Esc)";
      close.style.float = "right";
      close.addEventListener("click", hide);
      overlay.appendChild(close);
      overlay.appendChild(document.createElement("pre")).style.margin = "0";
      document.body.appendChild(overlay);
      close.focus();
    }
    overlay.lastChild.textContent = heading + lines.join("\\n\\n");
  }
  function settled() {
    if (pageProblems) { show(BROKEN, pageProblems); } else { hide(); }
  }
  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape") { hide(); }
  });
  function hide() {
    if (overlay) { overlay.remove(); overlay = null; }
  }
  var events = new EventSource("%(events)s");
  events.addEventListener("reload", function () { location.reload(); });
  events.addEventListener("errors", function (e) { show(INVALID, JSON.parse(e.data)); });
  events.addEventListener("ok", settled);
})();
"""


class LiveState:
    """The last update's errors, and a number that changes with every update."""

    def __init__(self) -> None:
        self.changed = threading.Condition()
        self.version = 0
        self.errors: list[str] = []

    def publish(self, errors: list[str]) -> None:
        with self.changed:
            self.version += 1
            self.errors = errors
            self.changed.notify_all()

    def wait(self, seen: int, timeout: float) -> tuple[int, list[str]]:
        with self.changed:
            self.changed.wait_for(lambda: self.version != seen, timeout=timeout)
            return self.version, list(self.errors)


def inject(html: bytes, problems: list[Diagnostic]) -> bytes:
    """Add the live script (with the page's problems), and let the page's
    Content-Security-Policy reach the event stream."""
    text = html.decode("utf-8", errors="replace")
    for quote in ("'", "&#39;", "&#x27;"):
        policy = f"script-src {quote}self{quote};"
        text = text.replace(policy, f"{policy} connect-src {quote}self{quote};", 1)
    lines = json.dumps([problem.format() for problem in problems])
    shown = f' data-problems="{escape(lines)}"' if problems else ""
    tag = f'<script src="{SCRIPT_PATH}"{shown}></script>'
    text = text.replace("</body>", f"{tag}\n</body>", 1) if "</body>" in text else text + tag
    return text.encode()


class LiveHandler(SiteHandler):
    """The site handler, plus the event stream and the live script, and pages with it injected."""

    state: LiveState

    def __init__(self, *args: object, state: LiveState, **kwargs: object) -> None:
        self.state = state
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        if path == EVENTS_PATH:
            self.stream_events()
        elif path == SCRIPT_PATH:
            self.send_bytes(
                HTTPStatus.OK, "text/javascript", (LIVE_SCRIPT % {"events": EVENTS_PATH}).encode()
            )
        else:
            super().do_GET()

    def send_bytes(self, status: HTTPStatus, kind: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", f"{kind}; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def page(self, html: bytes, problems: list[Diagnostic]) -> bytes:
        return inject(html, problems)

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def stream_events(self) -> None:
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "keep-alive")
        self.end_headers()
        if self.command == "HEAD":
            return
        version, errors = self.state.wait(-1, 0)
        try:
            self.send_event("errors" if errors else "ok", errors)
            while True:
                latest, errors = self.state.wait(version, KEEPALIVE_SECONDS)
                if latest == version:
                    self.wfile.write(b": keep-alive\n\n")
                else:
                    self.send_event("errors" if errors else "reload", errors)
                    version = latest
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, ValueError):
            return

    def send_event(self, name: str, data: list[str]) -> None:
        self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
        self.wfile.flush()


def watch_and_update(
    folders: list[Path],
    update: Callable[[set[str]], list[str]],
    state: LiveState,
    stop: threading.Event,
) -> None:
    """Update after each burst of changes (debounced: one save of many files, one update),
    told the paths that changed (every path: the listing kept in memory must hear of each)."""
    for changes in watch(
        *folders,
        watch_filter=None,
        debounce=300,
        step=50,
        stop_event=stop,
        raise_interrupt=False,
    ):
        state.publish(update({path for _change, path in changes}))


def run(
    session: Session,
    host: str,
    port: int,
    watching: bool,
    say: Callable[[str], None],
    warn: Callable[[str], None],
) -> None:
    """Serve the session's site until Ctrl-C (or SIGTERM), updating it after each burst of
    changes; say what happens (`warn`: problems), each warning and broken link once."""
    state = LiveState()
    said: set[Diagnostic] = set()

    def update(changed: set[str]) -> list[str]:
        started = time.perf_counter()
        try:
            report = session.update(changed)
        except Exception as exc:
            failure = f"reading the content failed: {type(exc).__name__}: {printable(str(exc))}"
            warn(f"{failure}; serving the last good site.")
            return [failure]
        for diagnostic in report.diagnostics:
            if diagnostic.level is Level.ERROR or diagnostic not in said:
                said.add(diagnostic)
                warn(diagnostic.format())
        if report.failed():
            served = "the last good site" if session.linked else "no site until they are fixed"
            warn(f"Not updated ({report.problem_counts()}); serving {served}.")
            return [d.format() for d in report.diagnostics if d.level is Level.ERROR]
        say(updated_line(report, time.perf_counter() - started))
        return []

    def read(path: str) -> Found | None:
        found = session.read(path)
        for problem in found[1] if found else []:
            if problem not in said:
                said.add(problem)
                warn(problem.format())
        return found

    state.errors = update(set())
    server = free_port_server(read, host, port, quiet=True, handler=LiveHandler, state=state)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    say(f"Serving {display_path(session.content_root)} at {url_of(server)}  (Ctrl-C stops)")
    stop = threading.Event()
    signal.signal(signal.SIGTERM, stopped_by_signal)  # stopped as by Ctrl-C
    try:
        if watching:
            folders = [session.content_root, *session.theme_folders()]
            watch_and_update(folders, update, state, stop)
        else:
            stop.wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.shutdown()
        server.server_close()
        say("Stopped.")


def updated_line(report: BuildReport, elapsed: float) -> str:
    """The line that ends each update."""
    errors = len(report.site.records) if report.site else 0
    return (
        f"Updated {plural(errors, 'error')} ({report.records_read} read), "
        f"{plural(report.warning_count(), 'warning')}, {elapsed:.2f}s"
    )


def stopped_by_signal(_signal: int, _frame: object) -> None:
    raise KeyboardInterrupt
