"""Error pages inside docs: real Sphinx projects (errpages.sphinx, and MyST export) and real
MkDocs projects (Markdown export), built from the example content and read back as HTML."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from bs4 import BeautifulSoup

from tests.conftest import EXAMPLE_CONTENT, parse_html, valid_record

BIN = Path(sys.executable).parent


def published() -> dict[str, dict[str, object]]:
    """The example's published records by id (ids derived where a record has none)."""
    from errpages.content.schema import derive_id

    found = {}
    for path in sorted((EXAMPLE_CONTENT / "errors").rglob("*.yaml")):
        data = yaml.safe_load(path.read_text())
        if data.get("draft"):
            continue
        error_id = data.get("id") or derive_id(data["repo"], data["exception"], data["message"])
        found[error_id] = data
    return found


def run(*command: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(part) for part in command], cwd=cwd, capture_output=True, text=True, check=False
    )


def errpages(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run(sys.executable, "-m", "errpages", *args, cwd=cwd)


def message_word(data: dict[str, object]) -> str:
    """A long word of the message that is not a placeholder: what a reader would search for."""
    text = re.sub(r"\{[^}]*\}", " ", str(data["message"]))
    return max(re.findall(r"[A-Za-z]{5,}", text), key=len).lower()


# ---------------------------------------------------------------- Sphinx


def sphinx_project(root: Path, content: Path) -> Path:
    docs = root / "docs"
    docs.mkdir(parents=True)
    (docs / "conf.py").write_text(
        'project = "Widgets"\nextensions = ["errpages.sphinx"]\n'
        f"errpages_content = {str(content)!r}\n"
    )
    (docs / "index.rst").write_text("Widgets\n=======\n\n.. toctree::\n\n   errors/index\n")
    return docs


def sphinx_build(docs: Path, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    command = (BIN / "sphinx-build", "--no-color", "-W", "-b", "html", *extra, docs, out)
    return run(*command, cwd=docs.parent)


@pytest.fixture(scope="module")
def sphinx_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("sphinx")
    content = root / "content"
    shutil.copytree(EXAMPLE_CONTENT, content)
    built = sphinx_build(sphinx_project(root, content), root / "out", "-j", "auto")
    assert built.returncode == 0, built.stdout + built.stderr
    return root


def search_index(out: Path) -> dict[str, object]:
    text = (out / "searchindex.js").read_text()
    return json.loads(text[text.index("(") + 1 : text.rindex(")")])


def test_sphinx_gives_every_error_a_page_in_the_docs_search_and_toctree(sphinx_site: Path) -> None:
    from sphinx.search.en import SearchEnglish

    out = sphinx_site / "out"
    index = search_index(out)
    docnames = index["docnames"]
    assert isinstance(docnames, list)
    stem = SearchEnglish({}).stem
    errors = published()
    for error_id, data in errors.items():
        page = parse_html(out / "errors" / f"{error_id}.html")
        assert page.find("h1").get_text().strip().rstrip("¶#").strip() == data.get(
            "title", " ".join(str(data["message"]).split())
        )
        word = stem(message_word(data))
        found = []  # the pages a search for the word finds: by their text or their title
        for kind in ("terms", "titleterms"):
            hits = index[kind].get(word, [])  # type: ignore[attr-defined]
            found += hits if isinstance(hits, list) else [hits]
        assert docnames.index(f"errors/{error_id}") in found, (error_id, word)
        # The snippet, highlighted by the docs' own Pygments, its raise marked.
        (block,) = [b for b in page.select("div.highlight") if b.select("span.linenos")]
        assert block.select("span.hll")
    toctree = parse_html(out / "index.html").select("a.reference.internal")
    assert any(a["href"] == "errors/index.html" for a in toctree)
    listed = {a["href"] for a in parse_html(out / "errors" / "index.html").select("a.reference")}
    assert {f"{error_id}.html" for error_id in errors} <= listed


def test_sphinx_links_related_errors_both_ways_and_keeps_aliases_and_the_api(
    sphinx_site: Path,
) -> None:
    out = sphinx_site / "out" / "errors"
    errors = published()
    for error_id, data in errors.items():
        page = parse_html(out / f"{error_id}.html")
        section = page.find(id="related-errors")
        hrefs = [a["href"] for a in section.select("a.reference.internal")] if section else []
        assert hrefs == [f"{other}.html" for other in data.get("related") or []]
        assert all((out / href).is_file() for href in hrefs)
        for other in data.get("related") or []:
            back = parse_html(out / f"{other}.html")
            both = back.find(id="related-errors"), back.find(id="linked-from")
            assert any(s and s.find("a", href=f"{error_id}.html") for s in both), (other, error_id)
        for alias in data.get("aliases") or []:
            moved = (out / f"{alias}.html").read_text()
            assert f'url={error_id}.html"' in moved and f'href="{error_id}.html"' in moved
        api = json.loads((out / "api" / "errors" / f"{error_id}.json").read_text())
        assert api["id"] == error_id
    listing = json.loads((out / "api" / "errors" / "index.json").read_text())
    assert listing["count"] == len(errors)
    assert (out / "api" / "schema.json").is_file()


def test_sphinx_dirhtml_redirects_aliases_to_their_errors_folders(tmp_path: Path) -> None:
    docs = sphinx_project(tmp_path, EXAMPLE_CONTENT)
    out = tmp_path / "out"
    built = run(BIN / "sphinx-build", "--no-color", "-W", "-b", "dirhtml", docs, out, cwd=tmp_path)
    assert built.returncode == 0, built.stdout + built.stderr
    for error_id, data in published().items():
        for alias in data.get("aliases") or []:
            moved = parse_html(out / "errors" / alias / "index.html")
            href = moved.find("a")["href"]
            assert href == f"../{error_id}/"
            assert (out / "errors" / alias / href / "index.html").resolve().is_file()


def test_sphinx_rebuilds_only_the_page_an_edit_changes(tmp_path: Path) -> None:
    content = tmp_path / "content"
    shutil.copytree(EXAMPLE_CONTENT, content)
    docs = sphinx_project(tmp_path, content)
    assert sphinx_build(docs, tmp_path / "out").returncode == 0
    again = sphinx_build(docs, tmp_path / "out")
    assert "0 added, 0 changed, 0 removed" in again.stdout, again.stdout
    record = next(
        p for p in (content / "errors").rglob("*.yaml") if "e3cdd85d4338744c" in p.read_text()
    )
    record.write_text(
        record.read_text().replace("meaning: >-\n", "meaning: >-\n  Edited here.\n", 1)
    )
    edited = sphinx_build(docs, tmp_path / "out")
    assert edited.returncode == 0, edited.stdout + edited.stderr
    assert "0 added, 1 changed, 0 removed" in edited.stdout, edited.stdout
    assert re.findall(r"reading sources\.\.\. \[\s*\d+%\] (\S+)", edited.stdout) == [
        "errors/e3cdd85d4338744c"
    ]
    assert "Edited here." in (tmp_path / "out" / "errors" / "e3cdd85d4338744c.html").read_text()


def test_a_bad_record_is_a_sphinx_warning_at_its_file_and_line(tmp_path: Path) -> None:
    content = tmp_path / "content"
    (content / "errors").mkdir(parents=True)
    (content / "errors" / "good.yaml").write_text(valid_record())
    bad = valid_record("00000000000000b1", "other widget").replace("meaning:", "meening:")
    (content / "errors" / "bad.yaml").write_text(bad)
    docs = sphinx_project(tmp_path, content)
    built = sphinx_build(docs, tmp_path / "out")
    assert built.returncode != 0
    said = built.stdout + built.stderr
    assert re.search(
        r"content/errors/bad\.yaml:5: WARNING: errpages error: meening: unknown field", said
    ), said
    assert "Traceback" not in said


HOSTILE_MEANING = (
    "<script>alert(1)</script> {eval-rst}`.. raw:: html` [x](javascript:alert(2)) "
    "$x$ ==mark== {: onclick=alert(3)} {{ config }} {% raw %}\n\n"
    "```{raw} html\n<img src=x onerror=alert(4)>\n```\n\n"
    ":::{include} /etc/passwd\n:::\n\n"
    '--8<-- "secret.txt"\n\n'
    '!!! danger "admonition"\n\n'
    "# A heading\n"
)


def hostile_content(root: Path) -> Path:
    content = root / "content"
    (content / "errors").mkdir(parents=True)
    record = valid_record(message="bad <b>widget</b> {name}").replace(
        "meaning: It means the widget was bad.", f"meaning: {json.dumps(HOSTILE_MEANING)}"
    )
    record = record.replace(
        '            raise ValueError("bad widget")',
        '            raise ValueError("bad widget")\n        --8<-- "secret.txt"\n        ```{raw} html',
    )
    (content / "errors" / "a.yaml").write_text(record)
    (root / "secret.txt").write_text("TOP SECRET\n")
    return content


def assert_text_only(page: BeautifulSoup) -> None:
    body = page.find("body")
    assert body is not None
    assert not body.find_all(["script"], string=re.compile("alert"))
    assert not body.find_all("img", attrs={"onerror": True})
    assert not body.find_all(attrs={"onclick": True})
    assert not [a for a in body.find_all("a") if "javascript" in str(a.get("href", "")).lower()]
    assert not body.find_all("b")  # the message's <b> is text
    assert not body.find_all("mark")
    assert "TOP SECRET" not in page.get_text()
    text = body.get_text()
    for shown in ("<script>alert(1)</script>", "{eval-rst}", "{{ config }}", "<b>widget</b>"):
        assert shown in text, shown


def test_a_hostile_record_is_text_in_sphinx(tmp_path: Path) -> None:
    content = hostile_content(tmp_path)
    docs = sphinx_project(tmp_path, content)
    built = sphinx_build(docs, tmp_path / "out")
    assert built.returncode == 0, built.stdout + built.stderr
    page = parse_html(tmp_path / "out" / "errors" / "0123456789abcdef.html")
    assert_text_only(page)
    # A record heading is a bold line, not a heading of the docs' table of contents.
    assert "A heading" not in [h.get_text().rstrip("¶#") for h in page.find_all(["h2", "h3", "h4"])]


def test_the_myst_export_builds_in_plain_sphinx(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "conf.py").write_text('project = "W"\nextensions = ["myst_parser"]\n')
    (docs / "index.md").write_text("# W\n\n```{toctree}\nerrors/index\n```\n")
    exported = errpages(
        "export",
        "markdown",
        docs / "errors",
        "--flavor",
        "myst",
        "--content",
        EXAMPLE_CONTENT,
        cwd=tmp_path,
    )
    assert exported.returncode == 0, exported.stderr
    built = sphinx_build(docs, tmp_path / "out")
    assert built.returncode == 0, built.stdout + built.stderr
    assert {p.stem for p in (tmp_path / "out" / "errors").glob("*.html")} >= set(published())


# ---------------------------------------------------------------- MkDocs


def mkdocs_project(root: Path, content: Path, *extensions: str) -> subprocess.CompletedProcess[str]:
    """A MkDocs project with the errors exported into docs/errors and their aliases'
    redirects given to mkdocs-redirects; the export's result."""
    docs = root / "docs"
    docs.mkdir(parents=True, exist_ok=True)
    (docs / "index.md").write_text("# Widgets\n\nSee [the errors](errors/index.md).\n")
    (root / "mkdocs.yml").write_text("site_name: Widgets\n")
    exported = errpages("export", "markdown", "docs/errors", "--content", content, cwd=root)
    redirects = yaml.safe_load((docs / "errors" / ".redirects.yml").read_text())
    config = {
        "site_name": "Widgets",
        "markdown_extensions": ["pymdownx.highlight", "pymdownx.superfences", *extensions],
        "plugins": ["search", {"redirects": redirects}],
    }
    (root / "mkdocs.yml").write_text(yaml.safe_dump(config))
    return exported


def mkdocs_build(root: Path) -> subprocess.CompletedProcess[str]:
    return run(BIN / "mkdocs", "build", "--strict", cwd=root)


@pytest.fixture(scope="module")
def mkdocs_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("mkdocs")
    exported = mkdocs_project(root, EXAMPLE_CONTENT)
    assert exported.returncode == 0, exported.stderr
    built = mkdocs_build(root)
    assert built.returncode == 0, built.stdout + built.stderr
    return root


def test_mkdocs_builds_every_error_page_into_its_search_with_links_that_resolve(
    mkdocs_site: Path,
) -> None:
    from errpages.report import BuildReport
    from errpages.stages import load_site

    example = load_site(EXAMPLE_CONTENT, None, BuildReport())
    assert example is not None
    site_record = example.record
    site = mkdocs_site / "site"
    index = json.loads((site / "search" / "search_index.json").read_text())
    searched: dict[str, str] = {}
    for doc in index["docs"]:
        searched[doc["location"].split("#")[0]] = (
            searched.get(doc["location"].split("#")[0], "") + " " + doc["text"] + " " + doc["title"]
        )
    snippet_starts = {r.id: site_record(r).source.snippet.start_line for r in example.records}
    for error_id, data in published().items():
        page_path = site / "errors" / error_id / "index.html"
        page = parse_html(page_path)
        assert message_word(data) in searched[f"errors/{error_id}/"].lower()
        (block,) = [b for b in page.select("div.highlight") if b.select("span.hll")]
        start = str(snippet_starts[error_id])
        assert block.find(string=re.compile(rf"^{start}$"))  # numbered as in the file
        related = [
            a["href"]
            for a in page.select("a")
            if re.fullmatch(r"\.\./[0-9a-f]{16}/", a.get("href", ""))
        ]
        assert set(related) >= {f"../{other}/" for other in data.get("related") or []}
        for href in related:
            assert (page_path.parent / href / "index.html").resolve().is_file()
        for alias in data.get("aliases") or []:
            moved = (site / "errors" / alias / "index.html").read_text()
            assert f"{error_id}/" in moved
    assert (site / "errors" / "index.html").is_file()


def test_a_second_export_writes_nothing_and_an_edit_rewrites_only_its_pages(tmp_path: Path) -> None:
    content = tmp_path / "content"
    shutil.copytree(EXAMPLE_CONTENT, content)
    assert mkdocs_project(tmp_path, content).returncode == 0
    folder = tmp_path / "docs" / "errors"
    before = {p.name: p.stat().st_mtime_ns for p in folder.iterdir()}
    again = errpages("export", "markdown", folder, "--content", content, cwd=tmp_path)
    assert "0 files changed" in again.stdout, again.stdout
    assert {p.name: p.stat().st_mtime_ns for p in folder.iterdir()} == before
    record = next(
        p for p in (content / "errors").rglob("*.yaml") if "id: e3cdd85d4338744c" in p.read_text()
    )
    record.write_text(
        record.read_text().replace("meaning: >-\n", "meaning: >-\n  Edited here.\n", 1)
    )
    edited = errpages("export", "markdown", folder, "--content", content, cwd=tmp_path)
    assert edited.returncode == 0
    changed = {p.name for p in folder.iterdir() if p.stat().st_mtime_ns != before.get(p.name)}
    assert changed == {"e3cdd85d4338744c.md"}, changed
    # A record gone: its page goes too, and nothing else of the folder.
    (content / "errors" / "lone.yaml").write_text(valid_record("00000000000000aa", "lone widget"))
    errpages("export", "markdown", folder, "--content", content, cwd=tmp_path)
    assert (folder / "00000000000000aa.md").is_file()
    (folder / "notes.txt").write_text("mine\n")
    (content / "errors" / "lone.yaml").unlink()
    gone = errpages("export", "markdown", folder, "--content", content, cwd=tmp_path)
    assert "1 removed" in gone.stdout, gone.stdout + gone.stderr
    assert not (folder / "00000000000000aa.md").exists()
    assert (folder / "notes.txt").read_text() == "mine\n"
    assert mkdocs_build(tmp_path).returncode == 0


def test_the_export_never_replaces_a_file_it_did_not_write(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "index.md").write_text("# My own docs\n")
    refused = errpages("export", "markdown", folder, "--content", EXAMPLE_CONTENT, cwd=tmp_path)
    assert refused.returncode == 1
    assert "already holds files an export did not write (index.md)" in refused.stderr
    assert (folder / "index.md").read_text() == "# My own docs\n"
    assert [p.name for p in folder.iterdir()] == ["index.md"]


def test_a_hostile_record_is_text_in_mkdocs_even_with_pymdownx_snippets(tmp_path: Path) -> None:
    content = hostile_content(tmp_path)
    exported = mkdocs_project(
        tmp_path,
        content,
        "pymdownx.snippets",
        "pymdownx.arithmatex",
        "pymdownx.mark",
        "attr_list",
        "admonition",
        "md_in_html",
    )
    assert exported.returncode == 0, exported.stderr
    built = mkdocs_build(tmp_path)
    assert built.returncode == 0, built.stdout + built.stderr
    page = parse_html(tmp_path / "site" / "errors" / "0123456789abcdef" / "index.html")
    assert_text_only(page)
    code = " ".join(b.get_text() for b in page.select("div.highlight"))
    assert '--8<-- "secret.txt"' in code  # shown as the code it is, not included
