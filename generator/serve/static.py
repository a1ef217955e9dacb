"""A local server for a site kept in memory: loopback only, the site's own paths only.

Paths are decoded once, then any `..`, backslash or NUL is refused, and what is
left is looked up among the site's paths: a request can name nothing else.
Requests are answered only when their `Host` names this server (an IP address,
`localhost`, or the host it was started with): a page on another site whose
name was made to resolve to 127.0.0.1 (DNS rebinding) cannot read it. Every
response says it is for this origin's pages only (`Cross-Origin-Resource-Policy`)
and is only what its type says (`nosniff`): a page elsewhere that loads the
search index as a script, to read the drafts in it, gets nothing.
"""

from __future__ import annotations

import functools
import ipaddress
import mimetypes
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlsplit

from errpages.diagnostics import Diagnostic
from errpages.site.urls import NOT_FOUND_PAGE

NO_PAGE = (
    b"<!DOCTYPE html>\n<html><head><title>Not found</title></head>"
    b"<body><p>Not found.</p></body></html>\n"
)
TYPES = {".js": "text/javascript", ".json": "application/json", ".ndjson": "application/x-ndjson"}

Found = tuple[bytes, list[Diagnostic]]  # a file, and (of a page) the problems of its links
Reader = Callable[[str], Found | None]  # the file at a site path, if the site has one


def site_path(request_path: str) -> str | None:
    """The site path a request names (`errors/x/index.html`), or None when it would leave
    the site."""
    try:
        path = unquote(urlsplit(request_path).path, errors="strict")
    except (UnicodeDecodeError, ValueError):
        return None
    if "\x00" in path or "\\" in path or not path.startswith("/"):
        return None
    parts = [p for p in path.split("/") if p not in ("", ".")]
    if any(p == ".." for p in parts):
        return None
    return "/".join([*parts, "index.html"] if path.endswith("/") else parts)


def content_type(path: str) -> str:
    suffix = path[path.rfind(".") :] if "." in path.rsplit("/", 1)[-1] else ""
    kind = TYPES.get(suffix) or mimetypes.guess_type(path)[0] or "application/octet-stream"
    text = kind.startswith("text/") or kind.endswith(("json", "xml", "javascript"))
    return f"{kind}; charset=utf-8" if text else kind


def host_allowed(header: str | None, bound: str) -> bool:
    """Whether a request's Host header names this server: an IP address (which no other
    site can make its own), localhost or a name under it, or the host it was bound to."""
    if header is None:
        return True  # HTTP/1.0 clients send none; browsers always do
    name = header.strip().lower()
    if name.startswith("["):
        name = name[1 : name.find("]")] if "]" in name else name
    elif name.count(":") == 1:
        name = name.split(":")[0]
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        pass
    return name in ("localhost", bound.lower()) or name.endswith(".localhost")


class SiteHandler(BaseHTTPRequestHandler):
    """Serve a site's files by path (`read`); refuse paths that would leave it; 404.html for
    what is missing."""

    quiet = False

    def __init__(
        self, *args: object, read: Reader, host: str, quiet: bool = False, **kwargs: object
    ) -> None:
        self.read = read
        self.host = host
        self.quiet = quiet
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    def parse_request(self) -> bool:
        if not super().parse_request():
            return False
        if not host_allowed(self.headers.get("Host"), self.host):
            self.send_error(HTTPStatus.FORBIDDEN, "This server answers only its own host name")
            return False
        return True

    def do_GET(self) -> None:
        path = site_path(self.path)
        if path is None:
            self.send_error(HTTPStatus.BAD_REQUEST, "Path leaves the site")
            return
        found = self.read(path)
        if found is None and not path.endswith("index.html") and self.read(f"{path}/index.html"):
            self.send_response(HTTPStatus.MOVED_PERMANENTLY)
            self.send_header("Location", urlsplit(self.path).path + "/")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if found is None:
            missing = self.read(NOT_FOUND_PAGE)
            self.send_body(HTTPStatus.NOT_FOUND, NOT_FOUND_PAGE, missing or (NO_PAGE, []))
            return
        self.send_body(HTTPStatus.OK, path, found)

    def do_HEAD(self) -> None:
        self.do_GET()

    def end_headers(self) -> None:
        self.send_header("Cross-Origin-Resource-Policy", "same-origin")
        self.send_header("X-Content-Type-Options", "nosniff")
        super().end_headers()

    def send_body(self, status: HTTPStatus, path: str, found: Found) -> None:
        content, problems = found
        kind = content_type(path)
        if kind.startswith("text/html"):
            content = self.page(content, problems)
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(content)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(content)

    def page(self, html: bytes, problems: list[Diagnostic]) -> bytes:
        """An HTML page as sent (the live server adds its script and the page's problems)."""
        return html

    def log_message(self, format: str, *args: object) -> None:
        if not self.quiet:
            super().log_message(format, *args)


def make_server(
    read: Reader,
    host: str = "127.0.0.1",
    port: int = 8000,
    quiet: bool = False,
    handler: type[SiteHandler] | None = None,
    **options: object,
) -> ThreadingHTTPServer:
    """A server of the site `read` reads on host:port (port 0: any free port)."""
    factory = functools.partial(
        handler or SiteHandler, read=read, host=host, quiet=quiet, **options
    )
    server = ThreadingHTTPServer((host, port), factory)
    server.daemon_threads = True  # open event streams must not keep the process alive
    return server


def free_port_server(
    read: Reader,
    host: str,
    port: int,
    quiet: bool = False,
    handler: type[SiteHandler] | None = None,
    **options: object,
) -> ThreadingHTTPServer:
    """Bind port, or the next free one when it is taken."""
    for candidate in [port, *range(port + 1, port + 20), 0] if port else [0]:
        try:
            return make_server(read, host, candidate, quiet, handler, **options)
        except OSError:
            continue
    raise OSError(f"no free port near {port}")


def url_of(server: ThreadingHTTPServer) -> str:
    host, port = server.server_address[:2]
    name = host.decode() if isinstance(host, bytes) else host
    return f"http://{name}:{port}/"
