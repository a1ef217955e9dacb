"""The example site's error pages carry every section of the reference pages."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from bs4 import BeautifulSoup, Tag

from tests.conftest import parse_html
from tests.seeds import ReferencePage, reference_pages

SECTION_ORDER = ["message", "meaning", "source", "solutions", "fix", "when", "related"]


def squash(text: str) -> str:
    return " ".join(text.split())


def section(soup: BeautifulSoup, anchor: str) -> Tag:
    found = soup.find("section", id=anchor)
    assert isinstance(found, Tag), f"no section #{anchor}"
    return found


def one(node: Tag, selector: str) -> Tag:
    found = node.select_one(selector)
    assert found is not None, f"nothing matches {selector!r}"
    return found


@pytest.fixture(params=reference_pages(), ids=lambda page: page.error_id)
def reference(request: pytest.FixtureRequest) -> ReferencePage:
    page: ReferencePage = request.param
    return page


@pytest.fixture
def page(example_site: Path, reference: ReferencePage) -> BeautifulSoup:
    return parse_html(example_site / "errors" / reference.error_id / "index.html")


def test_sections_come_in_reference_order(page: BeautifulSoup) -> None:
    anchors = [s["id"] for s in page.select("article section[id]")]
    assert anchors == SECTION_ORDER


def test_title_line_and_heading(page: BeautifulSoup, reference: ReferencePage) -> None:
    assert squash(one(page, ".eyebrow").get_text()) == reference.title_line
    # The published page's title, cut on, when needed, to where it differs from another
    # error's message (the seed 002's does: its title was the same as error 9142's).
    heading = squash(one(page, "h1").get_text()).rstrip("…")
    assert heading.startswith(reference.short_title.rstrip().rstrip("…"))
    assert reference.message.startswith(heading)


def test_message_and_meaning(page: BeautifulSoup, reference: ReferencePage) -> None:
    assert squash(one(page, "#message .message-text").get_text()) == reference.message
    assert squash(one(page, "#meaning .prose").get_text()) == squash(reference.meaning)


def test_snippet_lines_numbers_and_raise_marker(
    page: BeautifulSoup, reference: ReferencePage
) -> None:
    path, line = reference.thrown_at.rsplit(":", 1)
    source = section(page, "source")
    assert squash(one(source, "figcaption").get_text()) == f"Thrown at {reference.thrown_at}"
    lines = source.select(".snippet .line")
    # Shown without the indentation all its lines share (the numbers are the file's own).
    shown = textwrap.dedent("\n".join(reference.snippet)).split("\n")
    assert [node.select_one(".lc").get_text() for node in lines] == shown  # type: ignore[union-attr]
    numbers = [int(node["id"].removeprefix("L")) for node in lines]  # type: ignore[union-attr]
    assert numbers == list(range(numbers[0], numbers[0] + len(numbers)))
    raised = source.select(".line.is-raise")
    assert [node["id"] for node in raised] == [f"L{line}"]
    assert raised[0].select_one("a.ln")["href"] == f"#L{line}"  # type: ignore[index]
    link = one(source, ".source-link a")
    assert squash(link.get_text()) == f"View on GitHub (pinned to {reference.pinned_commit})"
    assert link["href"] == (
        f"https://github.com/sgl-project/sglang/blob/{reference.pinned_commit}/{path}#L{line}"
    )


def test_solutions_fix_and_when(page: BeautifulSoup, reference: ReferencePage) -> None:
    solutions = [squash(li.get_text()) for li in section(page, "solutions").select("li")]
    assert solutions == reference.solutions
    fix = section(page, "fix")
    assert squash(one(fix, ".fix-before pre").get_text()) == reference.fix_before
    assert squash(one(fix, ".fix-after pre").get_text()) == reference.fix_after
    assert one(fix, ".fix-notes pre").get_text() == reference.fix_notes_code
    when = section(page, "when")
    assert squash(one(when, ".trigger").get_text()) == f"Trigger: {reference.trigger}"
    situations = [squash(li.get_text()).lower() for li in when.select(".situations li")]
    assert situations == [item.lower() for item in reference.situations]


def test_related_titles_cut_on_word_boundary(page: BeautifulSoup, reference: ReferencePage) -> None:
    links = section(page, "related").select(".related-list a")
    assert len(links) == len(reference.related_prefixes)
    for link, prefix in zip(links, reference.related_prefixes, strict=True):
        full = str(link["title"])
        shown = link.get_text()
        assert full.startswith(prefix), (full, prefix)
        assert len(shown) <= 61 or shown.startswith(prefix.rstrip("…")), shown  # cut later: apart
        if shown.endswith("…"):
            cut = shown[:-1]
            assert full.startswith(cut) and full[len(cut)] in " ,.;:", shown
        else:
            assert shown == full


def test_footer(page: BeautifulSoup, reference: ReferencePage) -> None:
    footer = squash(one(page, ".site-footer .analysis").get_text())
    assert footer.startswith(reference.footer.split(" Data as JSON")[0])
    json_link = one(page, ".analysis a[href$='.json']")
    assert json_link["href"] == f"../../api/errors/{reference.error_id}.json"
    report = one(page, ".analysis a[href^='https://github.com/']")
    assert report.get_text() == "GitHub"
    assert "/issues/new?title=" in str(report["href"])


def test_backlinks_are_listed_where_not_already_related(example_site: Path) -> None:
    # The PD decode DCP record is named by four records and lists two of them itself.
    soup = parse_html(example_site / "errors" / "b0e9a9c158a0b982" / "index.html")
    back = {a["href"].split("/")[-2] for a in soup.select(".backlinks-list a")}  # type: ignore[union-attr]
    assert back == {"6ba5c6b60f1a1dc5", "e3cdd85d4338744c"}
    related = {a["href"].split("/")[-2] for a in soup.select(".related-list a")}  # type: ignore[union-attr]
    assert not back & related


def test_home_and_repository_pages(example_site: Path) -> None:
    home = parse_html(example_site / "index.html")
    rows = home.select("table.repos tbody tr")
    assert [squash(r.get_text(" ")) for r in rows] == ["sgl-project/sglang 9 0 1"]
    repo = parse_html(example_site / "repos" / "sgl-project" / "sglang" / "index.html")
    files = [squash(h.get_text()) for h in repo.select(".source-file")]
    assert files == [
        "python/sglang/srt/arg_groups/model_overrides/minicpm.py",
        "python/sglang/srt/arg_groups/pd_disaggregation_hook.py",
        "python/sglang/srt/server_args.py",
    ]
    server_args_lines = [
        squash(m.get_text()) for m in repo.select(".error-list")[2].select(".meta")
    ]
    assert server_args_lines == [f"line {n}" for n in (9112, 9120, 9129, 9142, 9146, 9150)]


def test_every_example_error_has_page_and_json(example_site: Path) -> None:
    index = json.loads((example_site / "api" / "errors" / "index.json").read_text())
    assert index["count"] == 9
    for row in index["errors"]:
        assert (example_site / "errors" / row["id"] / "index.html").is_file()
        assert (example_site / "api" / "errors" / f"{row['id']}.json").is_file()
