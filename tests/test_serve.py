"""`errpages serve` serves the output folder only: crafted requests cannot leave it."""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from generator.serve.static import make_server, safe_path, url_of


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


def raw_request(host: str, port: int, target: str, host_header: str = "") -> tuple[int, bytes]:
    """Send a request line exactly as given (no client-side normalisation)."""
    named = host_header or f"{host}:{port}"
    with socket.create_connection((host, port), timeout=5) as conn:
        request = f"GET {target} HTTP/1.1\r\nHost: {named}\r\nConnection: close\r\n\r\n"
        conn.sendall(request.encode())
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


@pytest.mark.parametrize(
    ("named", "status"),
    [
        ("localhost:8000", 200),
        ("LOCALHOST", 200),
        ("127.0.0.1", 200),
        ("[::1]:8000", 200),
        ("app.localhost:8000", 200),
        ("10.0.0.7:8000", 200),  # an address: no other site can claim it
        ("attacker.example:8000", 403),  # a name rebound to 127.0.0.1
        ("localhost.attacker.example", 403),
        ("[::1", 403),
    ],
)
def test_only_requests_naming_this_server_are_answered(
    served: tuple[str, int, Path], named: str, status: int
) -> None:
    host, port, _ = served
    got, body = raw_request(host, port, "/index.html", named)
    assert got == status
    assert (b"home" in body) is (status == 200)


def test_a_path_part_longer_than_any_file_name_is_not_found(served: tuple[str, int, Path]) -> None:
    host, port, _ = served
    for target in ("/" + "a" * 300, "/errors/" + "b" * 300 + "/", "/x/" + "%41" * 400):
        status, body = raw_request(host, port, target)
        assert status == 404 and b"not found page" in body


def test_the_live_server_refuses_other_hosts_its_pages_and_its_events(tmp_path: Path) -> None:
    from generator.serve.dev import EVENTS_PATH, LiveHandler, LiveState

    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<p>draft page</p>")
    server = make_server(site, "127.0.0.1", 0, quiet=True, handler=LiveHandler, state=LiveState())
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    host, port = (str(part) for part in server.server_address[:2])
    try:
        for target in ("/index.html", EVENTS_PATH):
            status, body = raw_request(host, int(port), target, "rebound.example")
            assert status == 403 and b"draft" not in body
        assert raw_request(host, int(port), "/index.html")[0] == 200
    finally:
        server.shutdown()
        server.server_close()
