"""`errpages serve` serves the output folder only: crafted requests cannot leave it."""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from generator.serve import make_server, safe_path, url_of


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, int, Path]]:
    site = tmp_path / "site"
    (site / "errors" / "x").mkdir(parents=True)
    (site / "index.html").write_text("<p>home</p>")
    (site / "errors" / "x" / "index.html").write_text("<p>error x</p>")
    (site / "404.html").write_text("<p>not found page</p>")
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET")
    os.symlink(secret, site / "leak.txt")
    os.symlink(tmp_path, site / "up")
    server = make_server(site, "127.0.0.1", 0, quiet=True)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    host, port = server.server_address[:2]
    assert host == "127.0.0.1"
    yield str(host), int(port), site
    server.shutdown()
    server.server_close()


def raw_request(host: str, port: int, target: str) -> tuple[int, bytes]:
    """Send a request line exactly as given (no client-side normalisation)."""
    with socket.create_connection((host, port), timeout=5) as conn:
        conn.sendall(f"GET {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while chunk := conn.recv(65536):
            data += chunk
    status = int(data.split(b" ", 2)[1])
    return status, data.split(b"\r\n\r\n", 1)[1]


ATTACKS = [
    "/../secret.txt",
    "/../../../../etc/passwd",
    "/%2e%2e/secret.txt",
    "/%2E%2E%2Fsecret.txt",
    "/errors/..%2f..%2fsecret.txt",
    "/%252e%252e/secret.txt",
    "/..%5csecret.txt",
    "/..\\secret.txt",
    "/errors/x/%00../../secret.txt",
    "http://x/../secret.txt",
    "/leak.txt",
    "/up/secret.txt",
    "//etc/passwd",
    "/%c0%ae%c0%ae/secret.txt",
]


@pytest.mark.parametrize("target", ATTACKS)
def test_traversal_is_refused(served: tuple[str, int, Path], target: str) -> None:
    host, port, _ = served
    status, body = raw_request(host, port, target)
    assert status in (400, 403, 404), (target, status)
    assert b"TOP SECRET" not in body
    assert b"root:" not in body


def test_site_files_are_served(served: tuple[str, int, Path]) -> None:
    host, port, _ = served
    assert raw_request(host, port, "/") == (200, b"<p>home</p>")
    assert raw_request(host, port, "/errors/x/") == (200, b"<p>error x</p>")
    assert raw_request(host, port, "/errors/x/index.html?backend=mori") == (200, b"<p>error x</p>")
    status, _ = raw_request(host, port, "/errors/x")
    assert status == 301
    assert raw_request(host, port, "/nope/") == (404, b"<p>not found page</p>")
    assert raw_request(host, port, "/errors/") == (404, b"<p>not found page</p>")  # no listings


def test_safe_path_unit(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    assert safe_path(root, "/a/b.html") == root / "a" / "b.html"
    assert safe_path(root, "/a/../b") is None
    assert safe_path(root, "/a%2f..%2f..%2fx") is None
    assert safe_path(root, "relative") is None


def test_binds_loopback_by_default(tmp_path: Path) -> None:
    server = make_server(tmp_path, port=0, quiet=True)
    try:
        assert url_of(server).startswith("http://127.0.0.1:")
    finally:
        server.server_close()
