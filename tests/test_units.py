"""Small pieces with sharp edges: ids, title cutting, URL safety, placeholders."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from errpages.content.schema import derive_id, normalise_snippet_name
from errpages.publish import exchange_folders
from errpages.render.markdown import is_safe_url, render_markdown
from errpages.render.templates import message_html
from errpages.site.links import short_text
from errpages.site.messages import placeholder_names
from errpages.site.model import Analysis, Record, Snippet, Source


def test_derive_id_is_documented_rule() -> None:
    import hashlib

    expected = hashlib.sha256(b"a/b\nValueError\nboom").hexdigest()[:16]
    assert derive_id("a/b", "ValueError", "boom") == expected


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("short message", "short message"),
        (
            "The arguments disaggregation-decode-enable-offload-kvcache and "
            "disaggregation-decode-retraction-backup=host_pool are mutually exclusive",
            "The arguments disaggregation-decode-enable-offload-kvcache…",
        ),
        ("x" * 80, "x" * 60 + "…"),
    ],
)
def test_short_text_cuts_on_word_boundary(text: str, shown: str) -> None:
    assert short_text(text) == shown


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(1)",
        "JAVASCRIPT:x",
        "java\tscript:x",
        " javascript:x",
        "vbscript:x",
        "data:text/html,x",
        "%6Aavascript:x",
        "file:///etc/passwd",
        "java%0ascript:x",
    ],
)
def test_dangerous_urls_refused(url: str) -> None:
    assert not is_safe_url(url)


@pytest.mark.parametrize("url", ["https://a.org/x", "http://a", "mailto:a@b.c", "../x", "#L1", "x"])
def test_ordinary_urls_allowed(url: str) -> None:
    assert is_safe_url(url)


def test_markdown_escapes_raw_html_and_highlights_fences() -> None:
    html = render_markdown("<b>x</b>\n\n```python\nraise ValueError('<x>')\n```\n")
    assert "&lt;b&gt;x&lt;/b&gt;" in html
    assert '<pre class="hl" data-lang="python">' in html
    assert "&lt;x&gt;" in html and "<x>" not in html


def test_placeholders_marked_and_named() -> None:
    message = "got {backend!r} at {0} for {cfg.mode:>8}, {{literal}} {d[k]}"
    assert placeholder_names(message) == ["backend", "0", "cfg", "d"]
    html = str(message_html("a <b> {backend!r} {{x}}"))
    assert html == (
        'a &lt;b&gt; <var class="placeholder" data-name="backend" data-conversion="r">'
        "{backend!r}</var> {x}"
    )


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("a/b.py", "a/b.py"),
        ("./a//b.py", "a/b.py"),
        ("../x", None),
        ("a/../../x", None),
        ("/etc/passwd", None),
        ("C:/x", None),
        ("a\\..\\x", None),
    ],
)
def test_snippet_names_stay_inside_snippets(name: str, expected: str | None) -> None:
    assert normalise_snippet_name(name) == expected


def test_hidden_characters_are_revealed_but_emoji_sequences_kept() -> None:
    from errpages.render.highlight import highlight_lines
    from errpages.reveal import reveal_text

    assert reveal_text("a\u202eb\u200bc") == "a[U+202E]b[U+200B]c"
    family = "👨\u200d👩\u200d👧"
    assert reveal_text(family) == family
    line = highlight_lines('x = "\u2066admin\u2069"', "python")[0]
    assert '<span class="hidden-char" title="U+2066 LEFT-TO-RIGHT ISOLATE">[U+2066]</span>' in line
    assert "\u2066" not in line


def test_planned_paths_know_each_errors_files_by_its_id() -> None:
    """The site's paths, without listing every error's page and JSON file one by one."""
    from errpages.outputs.plan import PlannedPaths

    paths = PlannedPaths(
        frozenset({"index.html", "assets/site.js"}), frozenset({"0123456789abcdef"})
    )
    assert "index.html" in paths and "assets/site.js" in paths
    assert "errors/0123456789abcdef/index.html" in paths
    assert "api/errors/0123456789abcdef.json" in paths
    assert "errors/fedcba9876543210/index.html" not in paths  # no such error
    assert "errors/0123456789abcdef/other.html" not in paths
    assert "errors/0123456789abcdef" not in paths
    assert "api/errors/0123456789abcdef.json.bak" not in paths
    assert paths.error_at("Errors/0123456789ABCDEF/index.html") == "0123456789abcdef"
    assert paths.error_at("api/errors/index.json") is None


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="renameat2 is Linux's")
def test_two_folders_are_exchanged_in_one_step(tmp_path: Path) -> None:
    """The swap of a new site for the old one: renameat2 found in the running C library."""
    (tmp_path / "live").mkdir()
    (tmp_path / "live" / "old.html").write_text("old")
    (tmp_path / "staged").mkdir()
    (tmp_path / "staged" / "new.html").write_text("new")
    assert exchange_folders(tmp_path / "staged", tmp_path / "live")
    assert [p.name for p in (tmp_path / "live").iterdir()] == ["new.html"]
    assert [p.name for p in (tmp_path / "staged").iterdir()] == ["old.html"]


@pytest.mark.parametrize(
    ("by", "footer"),
    [
        ("AI-assisted", "AI-assisted analysis of a/b@abcdef1 (2026-01-02)."),
        ("Jane Doe", "Analysis of a/b@abcdef1 by Jane Doe (2026-01-02)."),
        ("", "Analysis of a/b@abcdef1 (2026-01-02)."),
    ],
)
def test_the_footer_says_who_or_how_an_error_was_analysed(by: str, footer: str) -> None:
    from bs4 import BeautifulSoup

    from errpages.render.templates import make_environment, render_error_page
    from errpages.site.model import ErrorLinks, SiteConfig
    from tests.conftest import REPO_ROOT

    record = Record(
        id="00000000000000aa", repo="a/b", kind="error", exception="ValueError",
        message="bad", title="bad", meaning="m", solutions=("s",), file="x.yaml",
        source=Source("x.py", 1, "abcdef1", Snippet("raise X()", 1, "python")),
        analysis=Analysis(by, "2026-01-02"),
    )  # fmt: skip
    env = make_environment(REPO_ROOT / "themes" / "default")
    html = render_error_page(env, record, ErrorLinks((), ()), SiteConfig())
    text = BeautifulSoup(html, "html.parser").select_one(".analysis")
    assert text is not None
    assert " ".join(text.get_text().split()).startswith(footer)
