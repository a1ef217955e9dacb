"""Two different errors never show the same label, on any listing of a site."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from xml.etree import ElementTree

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.corpus import write_corpus
from errpages.site import links
from errpages.site.links import cut_after, distinct_labels, first_difference, short_text
from errpages.site.model import RecordSummary
from tests.conftest import parse_html, run_cli


def listings(site: Path) -> dict[str, list[str]]:
    """Every list of errors the site shows, by where: each entry's visible label."""
    found = {
        "home": [a.get_text() for a in parse_html(site / "index.html").select(".error-list a")]
    }
    for page in sorted((site / "repos").rglob("index.html")):
        found[str(page)] = [a.get_text() for a in parse_html(page).select(".error-list a")]
    titles: dict[str, str] = {}
    for page in sorted((site / "errors").glob("*/index.html")):
        html = parse_html(page)
        if html.select_one("article.error-page") is None:
            continue  # an alias's redirect page
        titles[page.parent.name] = html.select_one("h1").get_text()  # type: ignore[union-attr]
        for where in (".related-list a", ".backlinks-list a", ".page-aside .error-links a"):
            found[f"{page} {where}"] = [a.get_text() for a in html.select(where)]
    found["every error page's title"] = list(titles.values())
    index = (site / "assets" / "search-index.js").read_text()
    data = json.loads(re.sub(r"\\(.)", r"\1", index.split("JSON.parse('", 1)[1].rsplit("')", 1)[0]))
    messages = Counter(doc[4] for doc in data["docs"])  # as search.js shows them:
    found["search results"] = [doc[5] if messages[doc[4]] > 1 else doc[4] for doc in data["docs"]]
    feed = site / "feed.xml"
    if feed.is_file():
        atom = "{http://www.w3.org/2005/Atom}"
        entries = ElementTree.parse(feed).getroot().iter(f"{atom}entry")
        found["feed"] = [entry.findtext(f"{atom}title") or "" for entry in entries]
    return found


def repeated(found: dict[str, list[str]]) -> dict[str, list[str]]:
    return {
        where: [label for label, n in Counter(labels).items() if n > 1]
        for where, labels in found.items()
        if len(set(labels)) < len(labels)
    }


def test_the_example_site_shows_each_error_under_a_label_of_its_own(example_site: Path) -> None:
    found = listings(example_site)
    assert repeated(found) == {}
    titles = found["every error page's title"]
    # Two messages that begin alike (lines 9142 and 9146) are cut where they differ.
    assert "The argument disaggregation-decode-enable-offload-kvcache is only supported when…" in (
        titles
    )
    assert "The argument disaggregation-decode-enable-offload-kvcache is only supported for…" in (
        titles
    )


@pytest.fixture(scope="module")
def corpus_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 1,000-record generated site (messages alike by design), built once."""
    folder = tmp_path_factory.mktemp("corpus")
    write_corpus(1000, folder / "content")
    out = folder / "site"
    args = ["--content", str(folder / "content"), "--out", str(out), "--no-cache"]
    result = run_cli("build", *args, "--base-url", "https://x.example/")
    assert result.exit_code == 0, result.output
    return out


def test_a_generated_site_shows_each_error_under_a_label_of_its_own(corpus_site: Path) -> None:
    found = listings(corpus_site)
    assert len(found["every error page's title"]) == 1000
    assert repeated(found) == {}


def summary(error_id: str, message: str, title: str = "", **changes: str) -> RecordSummary:
    fields = {"exception": "ValueError", "repo": "a/b", **changes}
    return RecordSummary(
        error_id, f"{error_id}.yaml", fields["repo"], "error", fields["exception"], message,
        title or message, "x.py", 1, "abcdef1", (), (), (), "", False, False, False,
    )  # fmt: skip


def test_labels_cut_where_messages_differ_and_name_what_else_differs() -> None:
    long = "The argument disaggregation-decode-enable-offload-kvcache is only supported "
    records = [
        summary("a", long + "when hicache-storage-backend is provided."),
        summary("b", long + "for decode side."),
        summary("c", "short and alone"),
        summary("d", "the very same message"),
        summary("e", "the very same message", exception="KeyError"),
        summary("f", "a message", title="A title"),
        summary("g", "another message", title="A title"),
        summary("h", "the very same message", exception="KeyError", repo="c/d"),
    ]
    assert distinct_labels(records) == {
        "a": long + "when…",
        "b": long + "for…",
        "c": "short and alone",
        "d": "the very same message (ValueError)",
        "e": "the very same message (KeyError) (a/b)",
        "f": "A title (ValueError) (a/b) (f)",
        "g": "A title (ValueError) (a/b) (g)",
        "h": "the very same message (KeyError) (c/d)",
    }


# Messages that begin alike for longer than a label's cut: a few words, repeated.
alike_messages = st.lists(
    st.lists(st.sampled_from(["input", "should", "be", "a", "valid", "x", "xy"]), max_size=40),
    min_size=1,
    max_size=40,
)


@settings(max_examples=200, deadline=None)
@given(alike_messages)
def test_each_label_is_its_message_up_to_where_it_differs_from_every_other(
    word_lists: list[list[str]],
) -> None:
    """The label reads up to the end of the word where the message differs from the message
    that begins most like it (compared with every other one here), however many begin alike;
    messages all equal keep the cut."""
    prefix = "Input should be a valid dictionary or instance of the model class "
    texts = [" ".join([*prefix.split(), *words]) for words in word_lists]
    labels = distinct_labels([summary(f"{n:x}", text) for n, text in enumerate(texts)])
    for n, text in enumerate(texts):
        others = [other for other in texts if other != text]
        if not others:
            assert labels[f"{n:x}"].startswith(short_text(text))
            continue
        apart = max(first_difference(text, other) for other in others)
        assert labels[f"{n:x}"].startswith(cut_after(text, apart))


def test_thousands_of_messages_that_begin_alike_get_their_labels_by_comparing_neighbours() -> None:
    """Each label compares its message with its neighbours in sorted order, not with every
    other message: this many messages alike would take minutes compared in pairs."""
    compared: list[tuple[str, str]] = []

    def counting(a: str, b: str) -> int:
        compared.append((a, b))
        return first_difference(a, b)

    records = [
        summary(f"{n:x}", f"Input should be a valid dictionary or instance of the model {n}")
        for n in range(5_000)
    ]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(links, "first_difference", counting)
        labels = distinct_labels(records)
    assert len(set(labels.values())) == 5_000
    assert len(compared) < 5_000
