"""A local static server for the built site: loopback only, the output folder only.

Paths are decoded once, then any `..`, backslash, NUL or symbolic link that
leads out of the folder is refused, so crafted requests cannot read other files.
Requests are answered only when their `Host` names this server (an IP address,
`localhost`, or the host it was started with): a page on another site whose
name was made to resolve to 127.0.0.1 (DNS rebinding) cannot read it.
"""

from __future__ import annotations

import functools
import io
import ipaddress
import os
from contextlib import suppress
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import BinaryIO
from urllib.parse import unquote, urlsplit

NOT_FOUND_PAGE = "404.html"
NO_PAGE = (
    b"<!DOCTYPE html>\n<html><head><title>Not found</title></head>"
    b"<body><p>Not found.</p></body></html>\n"
)


def safe_path(root: Path, request_path: str) -> Path | None:
    """The file a request path names inside root, or None when it would leave root."""
    try:
        path = unquote(urlsplit(request_path).path, errors="strict")
    except (UnicodeDecodeError, ValueError):
        return None
    if "\x00" in path or "\\" in path or not path.startswith("/"):
        return None
    parts = [p for p in path.split("/") if p not in ("", ".")]
    if any(p == ".." for p in parts):
        return None
    candidate = root.joinpath(*parts) if parts else root
    try:
        resolved = candidate.resolve(strict=False)
    except (OSError, RuntimeError):
        return None
    if resolved != root and not resolved.is_relative_to(root):
        return None  # a symbolic link out of the folder
    with suppress(OSError):  # a name no file can have is simply not found later
        if path.endswith("/") and resolved.is_dir():
            resolved = resolved / "index.html"
    return resolved


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


class SiteHandler(SimpleHTTPRequestHandler):
    """Serve files of one folder; refuse what would leave it; 404.html for what is missing."""

    root: Path
    quiet = False

    def __init__(
        self, *args: object, root: Path, host: str, quiet: bool = False, **kwargs: object
    ) -> None:
        self.root = root
        self.host = host
        self.quiet = quiet
        super().__init__(*args, directory=str(root), **kwargs)  # type: ignore[arg-type]

    def parse_request(self) -> bool:
        if not super().parse_request():
            return False
        if not host_allowed(self.headers.get("Host"), self.host):
            self.send_error(HTTPStatus.FORBIDDEN, "This server answers only its own host name")
            return False
        return True

    def translate_path(self, path: str) -> str:
        target = safe_path(self.root, path)
        # A path that leaves the folder maps to a name that cannot exist.
        return str(target) if target is not None else str(self.root / "\x00refused")

    def send_head(self) -> io.BytesIO | BinaryIO | None:
        target = safe_path(self.root, self.path)
        if target is None:
            self.send_error(HTTPStatus.BAD_REQUEST, "Path leaves the site")
            return None
        try:
            target.stat()
        except OSError:  # missing, or a name no file can have (a part over 255 bytes)
            self.not_found()
            return None
        if target.is_dir() and not self.path.split("?")[0].endswith("/"):
            self.send_response(HTTPStatus.MOVED_PERMANENTLY)
            self.send_header("Location", urlsplit(self.path).path + "/")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return None
        if not target.is_file():
            self.not_found()
            return None
        if target.suffix == ".html":
            body = self.page(target.read_bytes())
            self.send_response(HTTPStatus.OK)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            return io.BytesIO(body)
        return super().send_head()

    def page(self, html: bytes) -> bytes:
        """An HTML page as sent (the live server adds its script here)."""
        return html

    def list_directory(self, path: str | os.PathLike[str]) -> io.BytesIO | None:
        self.not_found()
        return None

    def not_found(self) -> None:
        page = self.root / NOT_FOUND_PAGE
        body = self.page(page.read_bytes() if page.is_file() else NO_PAGE)
        self.send_response(HTTPStatus.NOT_FOUND)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        if not self.quiet:
            super().log_message(format, *args)


def make_server(
    root: Path,
    host: str = "127.0.0.1",
    port: int = 8000,
    quiet: bool = False,
    handler: type[SiteHandler] | None = None,
    **options: object,
) -> ThreadingHTTPServer:
    """A server for root on host:port (port 0: any free port)."""
    factory = functools.partial(
        handler or SiteHandler, root=root.resolve(), host=host, quiet=quiet, **options
    )
    server = ThreadingHTTPServer((host, port), factory)
    server.daemon_threads = True  # open event streams must not keep the process alive
    return server


def free_port_server(
    root: Path,
    host: str,
    port: int,
    quiet: bool = False,
    handler: type[SiteHandler] | None = None,
    **options: object,
) -> ThreadingHTTPServer:
    """Bind port, or the next free one when it is taken."""
    for candidate in [port, *range(port + 1, port + 20), 0] if port else [0]:
        try:
            return make_server(root, host, candidate, quiet, handler, **options)
        except OSError:
            continue
    raise OSError(f"no free port near {port}")


def url_of(server: ThreadingHTTPServer) -> str:
    host, port = server.server_address[:2]
    name = host.decode() if isinstance(host, bytes) else host
    return f"http://{name}:{port}/"
