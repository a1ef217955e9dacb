"""`errpages serve` serves the site's own paths only: crafted requests name nothing else."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from errpages.serve.static import Found, make_server, site_path, url_of
from tests.conftest import valid_record

SITE = {
    "index.html": b"<p>home</p>",
    "errors/x/index.html": b"<p>error x</p>",
    "404.html": b"<p>not found page</p>",
    "assets/app.js": b"let x;",
}
ASKED: list[str] = []  # every site path the server looked up


def read(path: str) -> Found | None:
    ASKED.append(path)
    return (SITE[path], []) if path in SITE else None


@pytest.fixture
def served() -> Iterator[tuple[str, int]]:
    server = make_server(read, "127.0.0.1", 0, quiet=True)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    host, port = server.server_address[:2]
    assert host == "127.0.0.1"
    yield str(host), int(port)
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
def test_traversal_is_refused(served: tuple[str, int], target: str) -> None:
    host, port = served
    ASKED.clear()
    status, body = raw_request(host, port, target)
    assert status in (400, 403, 404), (target, status)
    assert b"root:" not in body
    assert not [p for p in ASKED if ".." in p.split("/") or p.startswith("/") or "\\" in p]


def test_site_files_are_served(served: tuple[str, int]) -> None:
    host, port = served
    assert raw_request(host, port, "/") == (200, b"<p>home</p>")
    assert raw_request(host, port, "/errors/x/") == (200, b"<p>error x</p>")
    assert raw_request(host, port, "/errors/x/index.html?backend=mori") == (200, b"<p>error x</p>")
    status, _ = raw_request(host, port, "/errors/x")
    assert status == 301
    assert raw_request(host, port, "/nope/") == (404, b"<p>not found page</p>")
    assert raw_request(host, port, "/errors/") == (404, b"<p>not found page</p>")  # no listings
    with socket.create_connection((host, port), timeout=5) as conn:
        conn.sendall(f"GET /assets/app.js HTTP/1.0\r\nHost: {host}\r\n\r\n".encode())
        head = conn.makefile("rb").read().split(b"\r\n\r\n")[0].decode()
    assert "Content-Type: text/javascript; charset=utf-8" in head


def test_site_path_names_a_path_of_the_site_or_nothing() -> None:
    assert site_path("/a/b.html") == "a/b.html"
    assert site_path("/") == "index.html"
    assert site_path("/errors/x/?q=1") == "errors/x/index.html"
    assert site_path("/a/./b") == "a/b"
    assert site_path("/a/../b") is None
    assert site_path("/a%2f..%2f..%2fx") is None
    assert site_path("relative") is None


def test_binds_loopback_by_default() -> None:
    server = make_server(read, port=0, quiet=True)
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
    served: tuple[str, int], named: str, status: int
) -> None:
    host, port = served
    got, body = raw_request(host, port, "/index.html", named)
    assert got == status
    assert (b"home" in body) is (status == 200)


def test_a_path_part_longer_than_any_file_name_is_not_found(served: tuple[str, int]) -> None:
    host, port = served
    for target in ("/" + "a" * 300, "/errors/" + "b" * 300 + "/", "/x/" + "%41" * 400):
        status, body = raw_request(host, port, target)
        assert status == 404 and b"not found page" in body


def test_the_live_server_refuses_other_hosts_its_pages_and_its_events() -> None:
    from errpages.serve.dev import EVENTS_PATH, LiveHandler, LiveState

    def draft(path: str) -> Found | None:
        return (b"<p>draft page</p>", []) if path == "index.html" else None

    server = make_server(draft, "127.0.0.1", 0, quiet=True, handler=LiveHandler, state=LiveState())
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


def test_a_page_its_template_cannot_make_says_why(make_content, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from errpages.serve.session import Session

    content = make_content({"errors/a.yaml": valid_record(), "site.yaml": "theme: mytheme\n"})
    templates = tmp_path / "mytheme" / "templates"
    templates.mkdir(parents=True)
    broken = '{% extends "base.html" %}{% block main %}{{ 1 | no_such_filter }}{% endblock %}'
    (templates / "error.html").write_text(broken)
    session = Session(content)
    assert not session.update(set()).failed()  # the error page is made only when asked for
    found = session.read("errors/0123456789abcdef/index.html")
    assert found is not None
    _, problems = found
    assert [p.field for p in problems] == ["template"], problems
    assert "no_such_filter" in problems[0].message
    as_json = session.read("api/errors/0123456789abcdef.json")  # needs no template
    assert as_json is not None and b'"id": "0123456789abcdef"' in as_json[0]
    home = session.read("index.html")
    assert home is not None and home[1] == [] and b"bad widget" in home[0]


def raw_head(host: str, port: int, target: str) -> bytes:
    """The answer to HEAD: the headers, then whatever else comes within a second."""
    with socket.create_connection((host, port), timeout=5) as conn:
        conn.sendall(f"HEAD {target} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
        data = b""
        while b"\r\n\r\n" not in data and (chunk := conn.recv(65536)):
            data += chunk
        conn.settimeout(1)
        try:
            while chunk := conn.recv(65536):
                data += chunk
        except TimeoutError:
            pass
    return data


def test_every_response_is_for_this_origin_only_and_head_has_no_body() -> None:
    """Each answer (page, missing page, refused path, other host, event stream, live script)
    says it is for this origin's pages only and nothing but its type, and HEAD gets headers."""
    import http.client

    from errpages.serve.dev import EVENTS_PATH, SCRIPT_PATH, LiveHandler, LiveState

    server = make_server(read, "127.0.0.1", 0, quiet=True, handler=LiveHandler, state=LiveState())
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    host, port = str(server.server_address[0]), int(server.server_address[1])
    try:
        for target, host_header, status in [
            ("/", "", 200),
            ("/assets/app.js", "", 200),
            ("/errors/x", "", 301),
            ("/nope", "", 404),
            ("/../secret", "", 400),
            ("/", "rebound.example", 403),
            (SCRIPT_PATH, "", 200),
            (EVENTS_PATH, "", 200),
        ]:
            conn = http.client.HTTPConnection(host, port, timeout=5)
            conn.putrequest("GET", target, skip_host=True)
            conn.putheader("Host", host_header or f"{host}:{port}")
            conn.endheaders()
            response = conn.getresponse()
            assert response.status == status, target
            assert response.getheader("Cross-Origin-Resource-Policy") == "same-origin", target
            assert response.getheader("X-Content-Type-Options") == "nosniff", target
            conn.close()
        for target in ("/", EVENTS_PATH):
            data = raw_head(host, port, target)
            head, _, body = data.partition(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.0 200"), (target, head)
            assert body == b"", (target, body[:80])
    finally:
        server.shutdown()
        server.server_close()
