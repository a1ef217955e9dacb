"""Record text is untrusted: hostile records build into inert HTML and JSON."""

from __future__ import annotations

import json
import re
from pathlib import Path

from bs4 import BeautifulSoup

from tests.conftest import parse_html, run_cli

SCRIPT = "<script>alert(1)</script>"
QUOTES = '"\' onmouseover="alert(2)'

HOSTILE = f"""\
id: 0123456789abcdef
repo: acme/widgets
exception: "Value{SCRIPT}Error"
message: 'got {{value!r}} {SCRIPT} {QUOTES.replace("'", "''")}'
title: "{SCRIPT.replace('"', "")} title \\" onload=\\"x"
meaning: |
  Raw HTML <img src=x onerror=alert(3)> and <b>bold</b> stay text.
  [click](javascript:alert(4)) [data](data:text/html;base64,PHNjcmlwdD4=)
  [vb](vbscript:msgbox(5)) [ok](https://example.org/docs)
  ![remote](https://tracker.example/pixel.png)
source:
  path: "widgets/<core>.py"
  line: 2
  commit: abcdef1234567
  start_line: 1
  snippet: |
    def check(x):
        raise ValueError("</script><script>alert(6)</script>")
solutions:
  - "Use <b>good</b> input, not [this](javascript:alert(7))"
  - "</li></ol><script>alert(8)</script>"
example_fix:
  before: "echo '<script>alert(9)</script>'"
  after: "echo ok"
  notes: "<iframe src=x></iframe>"
when:
  trigger: "<svg onload=alert(10)>"
  situations: ["\\"><script>alert(11)</script>"]
tags: ["<script>", "a\\" b"]
"""


def build_hostile(make_content, tmp_path: Path) -> Path:  # type: ignore[no-untyped-def]
    content = make_content({"errors/evil.yaml": HOSTILE})
    out = tmp_path / "site"
    result = run_cli("build", "--content", str(content), "--out", str(out))
    assert result.exit_code == 0, result.output
    return out


def all_attributes(soup: BeautifulSoup) -> list[tuple[str, str, str]]:
    return [
        (str(tag.name), str(name), str(value))
        for tag in soup.find_all(True)
        for name, value in tag.attrs.items()
    ]


def test_no_script_no_handlers_no_dangerous_links(make_content, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    out = build_hostile(make_content, tmp_path)
    for page in out.rglob("*.html"):
        soup = parse_html(page)
        assert soup.find_all(["iframe", "img", "svg", "b", "object", "embed"]) == [], page
        for script in soup.find_all("script"):
            # Only the theme's own script files, never inline code.
            assert re.fullmatch(r"(\.\./)*assets/[a-z-]+\.js", str(script.get("src", ""))), page
            assert script.get_text() == ""
        for tag, name, value in all_attributes(soup):
            assert not name.startswith("on"), (page, tag, name)
            lowered = value.strip().lower()
            assert not lowered.startswith(("javascript:", "vbscript:", "data:")), (page, value)


def test_hostile_text_is_shown_as_text(make_content, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    out = build_hostile(make_content, tmp_path)
    soup = parse_html(out / "errors" / "0123456789abcdef" / "index.html")
    message = soup.select_one(".message-text")
    assert message is not None
    assert SCRIPT in message.get_text()
    assert QUOTES in message.get_text()
    meaning = soup.select_one("#meaning .prose")
    assert meaning is not None
    assert "<img src=x onerror=alert(3)>" in meaning.get_text()
    # An image is never loaded from a record: it becomes a plain link to its address.
    links = [a["href"] for a in meaning.find_all("a")]
    assert links == ["https://example.org/docs", "https://tracker.example/pixel.png"]
    solutions = [li.get_text() for li in soup.select("#solutions li")]
    assert solutions[1] == "</li></ol><script>alert(8)</script>"
    assert [li.get_text() for li in soup.select(".tags li")] == ["<script>", 'a" b']
    assert "alert(6)" in soup.select_one(".snippet").get_text()  # type: ignore[union-attr]
    assert soup.select_one(".eyebrow code").get_text() == f"Value{SCRIPT}Error"  # type: ignore[union-attr]


def test_urls_carry_record_text_percent_encoded(make_content, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    out = build_hostile(make_content, tmp_path)
    soup = parse_html(out / "errors" / "0123456789abcdef" / "index.html")
    source = soup.select_one(".source-link a")
    assert source is not None
    assert source["href"] == (
        "https://github.com/acme/widgets/blob/abcdef1234567/widgets/%3Ccore%3E.py#L2"
    )
    report = soup.select_one(".analysis a[rel]")
    assert report is not None
    href = str(report["href"])
    assert "<" not in href and '"' not in href and " " not in href


def test_json_round_trips_hostile_text(make_content, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    out = build_hostile(make_content, tmp_path)
    data = json.loads((out / "api" / "errors" / "0123456789abcdef.json").read_text())
    assert SCRIPT in data["message"]
    assert data["tags"] == ["<script>", 'a" b']
