"""Property-based tests: any input gives a page or a clean error, never a crash or live markup."""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path

import yaml
from bs4 import BeautifulSoup
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from errpages.build import build
from errpages.content.schema import RECORD_KEYS
from errpages.outputs.search import search_files
from errpages.render.templates import make_environment, render_error_page
from errpages.reveal import reveal_text
from errpages.site.links import distinct_labels
from errpages.site.messages import message_parts
from errpages.site.model import ErrorLinks, Record, RecordSummary, SiteConfig, Snippet, Source
from tests.conftest import REPO_ROOT, valid_record

THEME = REPO_ROOT / "themes" / "default"
ENV = make_environment(THEME)
PROPERTY_SETTINGS = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

FRAGMENTS = [
    *"<>&\"'`{}[]()!#*_\\/:=;\n\t ",
    "javascript:",
    "</script>",
    "{x!r}",
    "{{",
    "\u202e",
    "\u200b",
    "\x00",
]
nasty_text = st.lists(
    st.one_of(st.sampled_from(FRAGMENTS), st.characters(codec="utf-8", exclude_categories=("Cs",))),
    max_size=60,
).map("".join)
scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), nasty_text)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(nasty_text, inner, max_size=4),
    max_leaves=20,
)
records = st.dictionaries(st.sampled_from([*RECORD_KEYS, "colour", "sourc"]), values, max_size=12)


def check_content(files: dict[str, bytes]) -> None:
    with tempfile.TemporaryDirectory() as temp:
        content = Path(temp) / "content"
        for name, data in files.items():
            (content / name).parent.mkdir(parents=True, exist_ok=True)
            (content / name).write_bytes(data)
        (content / "errors").mkdir(parents=True, exist_ok=True)
        report = build(content, None)
        for diagnostic in report.diagnostics:
            assert diagnostic.position.path, diagnostic
            assert diagnostic.message, diagnostic


@PROPERTY_SETTINGS
@given(st.binary(max_size=400))
def test_any_bytes_as_a_record_give_a_result(data: bytes) -> None:
    check_content({"errors/a.yaml": data})


@PROPERTY_SETTINGS
@given(records)
def test_any_yaml_mapping_as_a_record_gives_a_result(record: dict[str, object]) -> None:
    check_content(
        {
            "errors/a.yaml": yaml.safe_dump(record, allow_unicode=True).encode(
                "utf-8", "surrogatepass"
            )
        }
    )


@PROPERTY_SETTINGS
@given(st.text(max_size=300), st.sampled_from(["id", "message", "meaning", "repo", "source"]))
def test_one_field_replaced_by_any_text_gives_a_result(text: str, field: str) -> None:
    lines = [line for line in valid_record().splitlines() if not line.startswith(field + ":")]
    record = (
        "\n".join(lines) + f"\n{field}: " + yaml.safe_dump(text, allow_unicode=True, width=1000)
    )
    check_content({"errors/a.yaml": record.encode("utf-8", "surrogatepass")})


def record_with(message: str, title: str, meaning: str, tag: str, path: str) -> Record:
    snippet = Snippet("def f():\n    raise ValueError(x)\n" + message[:50], 1, "python")
    return Record(
        id="0123456789abcdef",
        repo="acme/widgets",
        kind="error",
        exception="ValueError",
        message=message,
        title=title or message,
        meaning=meaning or "m",
        source=Source(path or "a.py", 2, "abcdef1", snippet),
        solutions=(meaning or "s", message or "s"),
        file="a.yaml",
        tags=(tag,) if tag else (),
    )


@PROPERTY_SETTINGS
@given(nasty_text, nasty_text, nasty_text, nasty_text, nasty_text)
def test_rendered_pages_are_inert_and_show_the_text(
    message: str, title: str, meaning: str, tag: str, path: str
) -> None:
    message = message.replace("\x00", "") or "m"
    record = record_with(
        message,
        title.replace("\x00", ""),
        meaning.replace("\x00", ""),
        tag.replace("\x00", ""),
        path.replace("\x00", ""),
    )
    html = render_error_page(ENV, record, ErrorLinks((), ()), SiteConfig(base_url="https://x.org/"))
    soup = BeautifulSoup(html, "html.parser")
    scripts = [s.get("src") for s in soup.find_all("script")]
    assert scripts == ["../../assets/site.js"]
    for tag_node in soup.find_all(True):
        for name, value in tag_node.attrs.items():
            assert not name.lower().startswith("on"), name
            if name in ("href", "src"):
                lowered = re.sub(r"[\x00-\x20]", "", str(value)).lower()
                assert not lowered.startswith(("javascript:", "vbscript:", "data:")), value
    assert soup.find_all(["iframe", "img", "svg", "object", "embed", "style"]) == []
    shown = soup.select_one(".message-text")
    assert shown is not None
    expected = "".join(reveal_text(part.text) for part in message_parts(message))
    assert shown.get_text() == expected
    assert all(c not in shown.get_text() for c in "\u202e\u200b")


PYTHON_PIECES = [
    *("def ", "class ", "@", "dec.x", "'", '"', '"' * 3, "'" * 3, "\\", "\n", "  ", "#", "x"),
    *("1.5e3", "0x1F", "rb", "f", "(", ")", ":=", "<", "&", ">", "\r", "\t", "é", "\u202e"),
]


@PROPERTY_SETTINGS
@given(
    st.text(max_size=300)
    | st.lists(st.sampled_from(PYTHON_PIECES), max_size=60).map("".join)
    | st.sampled_from(["    x = (\n", "  if a:\n b\n", '"""open', "def f(:\n  pass\n"])
)
def test_fast_python_highlighter_keeps_every_character_and_balances_spans(code: str) -> None:
    """One HTML fragment per line; strip the tags, unescape, and the code is back, unchanged."""
    import html

    from errpages.pylex import python_html_lines

    lines = python_html_lines(code)
    assert len(lines) == code.count("\n") + 1
    for line in lines:
        assert line.count("<span") == line.count("</span>")
        assert "<" not in re.sub(r'<span class="[a-z0-9]+">|</span>', "", line)
    text = "\n".join(re.sub(r"<[^>]+>", "", line) for line in lines)
    assert html.unescape(text) == code


def test_fast_python_highlighter_matches_pygments_on_everyday_code() -> None:
    """Same classes and markup as Pygments' PythonLexer + HtmlFormatter on ordinary code."""
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import PythonLexer

    from errpages.pylex import python_html_lines

    code = (
        "@dataclass(frozen=True)\n"
        "class Point(Base):\n"
        "    def move(self, dx: int = 0x1F, *args) -> None:\n"
        '        if dx is not None and 1.5e3 > dx:  # check <first> & "last"\n'
        "            raise ValueError(\"bad\", 'single', b'x', rb'\\d')\n"
        "        return len([i for i in range(10) if i % 2]) @ other\n"
    )
    expected = highlight(code, PythonLexer(), HtmlFormatter(nowrap=True)).rstrip("\n")
    assert python_html_lines(code.rstrip("\n")) == expected.split("\n")


@given(st.text(alphabet=st.sampled_from([*"<>&\"'\n\r\t ab", "é", "\u2028"])))
def test_feed_escaping_is_what_xml_sax_saxutils_gives(text: str) -> None:
    """The feed's own escape/quoteattr (kept to avoid a slow import) match the stdlib's."""
    from xml.sax.saxutils import escape as stdlib_escape
    from xml.sax.saxutils import quoteattr as stdlib_quoteattr

    from errpages.outputs.hosting import escape, quoteattr

    assert escape(text) == stdlib_escape(text)
    assert quoteattr(text) == stdlib_quoteattr(text)


LINK_PATTERN = re.compile(r'\s(?:href|src|action)="([^"]*)"')
pieces = st.sampled_from(['href="', 'src="', 'action="', '"', " ", "\n", "\u00a0", "x", "#", "="])


@given(st.lists(pieces, max_size=40).map("".join))
def test_link_attributes_are_what_the_pattern_finds(text: str) -> None:
    """The link checker's plain searches find what the regular expression finds, overlaps and
    all (an attribute value ending in ` src=` is not a src attribute)."""
    from errpages.outputs.linkcheck import link_attributes

    expected = [(m.start(), m.end(), m.group(1)) for m in LINK_PATTERN.finditer(text)]
    assert link_attributes(text) == expected


SEARCH_TEXT = st.text(
    alphabet=st.sampled_from([*"<>&\"'\\/ ab{}", "é", "\u2028", "\u2029", "\x00", "😀"]),
    max_size=12,
)
SEARCH_WORDS = st.lists(st.sampled_from(["alpha", "beta", "gamma", "delta", "é1"]), unique=True)


@st.composite
def search_records(draw: st.DrawFn, file: str, uniform: bool) -> tuple[RecordSummary, str]:
    """A summary as the search index reads it (shared strings from a few, or all the same
    when `uniform`), and its words."""
    message = draw(SEARCH_TEXT)

    def shared(*values: str) -> str:
        return values[0] if uniform else draw(st.sampled_from(values))

    summary = RecordSummary(
        id=draw(st.sampled_from(["a", "b", "c"])) + file,
        file=file,
        repo=shared("o/r", "o/s", "<o>/'t'"),
        kind=shared("error", "warning"),
        exception=shared("ValueError", "E&'"),
        message=message,
        title=draw(st.one_of(st.just(message), SEARCH_TEXT)),
        source_path=shared("a.py", "b/c.py"),
        source_line=1,
        commit="c",
        related=(),
        tags=tuple(draw(st.lists(SEARCH_TEXT, max_size=2))),
        aliases=(),
        analysis_date="",
        draft=False,
        retired=draw(st.booleans()),
        id_derived=False,
    )
    return summary, " ".join(draw(SEARCH_WORDS))


@st.composite
def search_sites(draw: st.DrawFn) -> list[tuple[RecordSummary, str]]:
    files = draw(st.lists(st.sampled_from([f"f{n}" for n in range(8)]), unique=True, max_size=6))
    uniform = draw(st.booleans())
    return [draw(search_records(file, uniform)) for file in files]


@PROPERTY_SETTINGS
@given(search_sites())
def test_the_search_index_script_reads_back_as_its_errors(
    site: list[tuple[RecordSummary, str]],
) -> None:
    """Whatever the text, the index script is one JSON.parse of one string literal, with no
    `<`, `>`, `&` or line separator left raw, and it reads back as the errors it was made of."""
    ids = [summary.id for summary, _ in site]
    if len(set(ids)) < len(ids):
        return  # (a site has one error per id)
    records = tuple(summary for summary, _ in site)
    labels = distinct_labels(records)
    words = {summary.id: words for summary, words in site}
    script = search_files(records, words, labels, {})[0].content
    text = script.decode()
    prefix, suffix = "window.ERRPAGES_SEARCH = JSON.parse('", "');\n"
    assert text.startswith(prefix) and text.endswith(suffix)
    literal = text[len(prefix) : -len(suffix)]
    assert not re.search("[<>&\u2028\u2029]", literal)
    assert not re.search(r"(?<!\\)(\\\\)*'", literal), "a quote ends the literal early"
    index = json.loads(re.sub(r"\\(.)", r"\1", literal, flags=re.S))
    docs = index["docs"]
    assert [doc[0] for doc in docs] == ids
    for doc, summary in zip(docs, records, strict=True):
        assert doc[4] == summary.message
        label = labels[summary.id]
        assert doc[5] == (label if label != summary.message else "")
        assert doc[7] == list(summary.tags)
        assert index["strings"][doc[1]] == summary.repo
