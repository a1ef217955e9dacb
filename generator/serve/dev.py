"""`errpages serve`: build, serve, watch, rebuild what changed, and reload the open tabs.

Only in serve mode does each HTML page get one extra script, served from
memory (never written into the site): it listens for server-sent events and
reloads the tab after a rebuild, or shows the build's errors over the page
when the content became invalid, until a fix clears them.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http import HTTPStatus
from pathlib import Path

from watchfiles import watch

from generator.serve.static import SiteHandler

EVENTS_PATH = "/__errpages/events"
SCRIPT_PATH = "/__errpages/live.js"
KEEPALIVE_SECONDS = 15.0

LIVE_SCRIPT = """\
/* errpages serve: reload after a rebuild; show build errors over the page. */
(function () {
  "use strict";
  var overlay = null;
  function show(lines) {
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
    overlay.lastChild.textContent = "The content has errors; this page is the last good build. " +
      "It reloads when they are fixed.\\n\\n" + lines.join("\\n\\n");
  }
  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape") { hide(); }
  });
  function hide() {
    if (overlay) { overlay.remove(); overlay = null; }
  }
  var events = new EventSource("%(events)s");
  events.addEventListener("reload", function () { location.reload(); });
  events.addEventListener("errors", function (e) { show(JSON.parse(e.data)); });
  events.addEventListener("ok", hide);
})();
"""


class LiveState:
    """The last build's result, and a number that changes with every rebuild."""

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


def inject(html: bytes) -> bytes:
    """Add the live script, and let the page's Content-Security-Policy reach the event stream."""
    text = html.decode("utf-8", errors="replace")
    for quote in ("'", "&#39;", "&#x27;"):
        policy = f"script-src {quote}self{quote};"
        text = text.replace(policy, f"{policy} connect-src {quote}self{quote};", 1)
    tag = f'<script src="{SCRIPT_PATH}"></script>'
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

    def page(self, html: bytes) -> bytes:
        return inject(html)

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def stream_events(self) -> None:
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "keep-alive")
        self.end_headers()
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


def written_by_builds(out_dir: Path, cache_dir: Path | None) -> Callable[[object, str], bool]:
    """A watch filter that drops what a build writes: the output folder, the folders and
    the lock beside it (`.NAME.*`), and the cache, wherever they are (inside content/ too),
    so that a rebuild never sets off another."""
    out = out_dir.absolute()
    cache = cache_dir.absolute() if cache_dir is not None else None

    def wanted(_change: object, path: str) -> bool:
        changed = Path(path).absolute()
        if cache is not None and (changed == cache or cache in changed.parents):
            return False
        for part in (changed, *changed.parents):
            if part.parent == out.parent and (
                part.name == out.name or part.name.startswith(f".{out.name}.")
            ):
                return False
        return True

    return wanted


def watch_and_rebuild(
    folders: list[Path],
    rebuild: Callable[[set[str]], list[str]],
    state: LiveState,
    stop: threading.Event,
    wanted: Callable[[object, str], bool] | None = None,
) -> None:
    """Rebuild after each burst of changes (debounced: one save of many files, one build),
    told the paths that changed; `wanted` drops changes that are not edits (what builds
    write)."""
    for changes in watch(
        *folders,
        watch_filter=wanted,
        debounce=300,
        step=50,
        stop_event=stop,
        raise_interrupt=False,
    ):
        state.publish(rebuild({path for _change, path in changes}))
