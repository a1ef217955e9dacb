"""`errpages history` over a real repository's release tags, and what a build makes of it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup

from tests.conftest import parse_html, run_cli
from tests.gitrepo import GitRepo

WIDGETS = 'def get_widget(name):\n    if name not in WIDGETS:\n        raise KeyError(f"{}")\n'
PAINT = (
    "def paint(colour):\n    if colour not in COLOURS:\n"
    '        raise ValueError(f"Unsupported colour {colour!r}, choose one of the palette")\n'
)
SIZE = 'def size(s):\n    if s < 0:\n        raise {}(f"Size must be positive, got {{s}}")\n'
LEGACY = 'def old():\n    raise RuntimeError("The legacy mode has been switched off for good")\n'
SHAPE = 'def shape(s):\n    raise TypeError(f"Shape {{s!r}} cannot be drawn {} this canvas")\n'
GONE = 'def fetch(url):\n    raise ConnectionError(f"Could not reach the mirror at {url}")\n'


def release_history(root: Path) -> tuple[GitRepo, dict[str, str]]:
    """A project through its releases, one shape of change in each."""
    repo = GitRepo(root)
    files = {
        "pkg/widgets.py": WIDGETS.replace("{}", "unknown widget {name!r}"),
        "pkg/colors.py": PAINT,
        "pkg/sizes.py": SIZE.format("ValueError"),
        "pkg/legacy.py": LEGACY,
        "pkg/shapes.py": SHAPE.format("on"),
        "pkg/net.py": GONE,
    }
    for name, text in files.items():
        repo.write(name, text)
    tags = {"v1.0": repo.commit("1.0")}
    repo.git("tag", "v1.0")
    # reworded in place; moved to another file
    repo.write(
        "pkg/widgets.py", "import os\n\n" + WIDGETS.replace("{}", "no widget named {name!r}")
    )
    repo.git("mv", "pkg/colors.py", "pkg/palette_helpers.py")
    repo.write("pkg/palette_helpers.py", "# helpers\n\n\n" + PAINT)
    tags["v1.1"] = repo.commit("1.1")
    repo.git("tag", "v1.1")
    repo.git("tag", "1.x")  # not a version
    repo.write("pkg/legacy.py", "def old():\n    return None\n")
    tags["v1.2rc1"] = repo.commit("1.2rc1")
    repo.git("tag", "-a", "v1.2rc1", "-m", "a pre-release")
    # gone; exception class changed; reworded and moved
    repo.write("pkg/sizes.py", SIZE.format("TypeError"))
    repo.git("rm", "-q", "pkg/shapes.py")
    repo.write("pkg/draw.py", "import math\n\n\n" + SHAPE.format("onto"))
    tags["v1.2"] = repo.commit("1.2")
    repo.git("tag", "-a", "v1.2", "-m", "1.2")
    # the package folder renamed; back again; gone for good
    (repo.path / "src").mkdir()
    repo.git("mv", "pkg", "src/pkg")
    repo.write("src/pkg/legacy.py", LEGACY)
    repo.git("rm", "-q", "-f", "src/pkg/net.py")
    tags["v2.0"] = repo.commit("2.0")
    repo.git("tag", "v2.0")
    widgets = repo.path / "src" / "pkg" / "widgets.py"
    repo.write("src/pkg/widgets.py", "import sys\n" + widgets.read_text())
    tags["head"] = repo.commit("after 2.0")
    return repo, tags


def records_by_message(content: Path) -> dict[str, str]:
    """Each record's id, by the first words of its message."""
    found = {}
    for path in (content / "errors").rglob("*.yaml"):
        text = path.read_text()
        record_id = text.split('id: "', 1)[1].split('"', 1)[0]
        message = text.split("message: ", 1)[1].splitlines()[0].strip('"')
        found[" ".join(message.split()[:2])] = record_id
    return found


@pytest.fixture
def project(tmp_path: Path, make_content) -> tuple[GitRepo, dict[str, str], Path, dict[str, str]]:  # type: ignore[no-untyped-def]
    repo, tags = release_history(tmp_path / "proj")
    content = make_content({})
    scanned = run_cli("scan", str(repo.path), "--repo", "acme/proj", "--content", str(content))
    assert scanned.exit_code == 0, scanned.output
    # the record of a raise that is gone by the latest release: pinned at v1.1
    net = repo.git("show", f"{tags['v1.1']}:pkg/net.py")
    assert "mirror" in net
    record = content / "errors" / "acme" / "proj" / "net.yaml"
    record.write_text(
        'id: "00000000000000aa"\nrepo: acme/proj\nexception: ConnectionError\n'
        'message: "Could not reach the mirror at {url}"\nmeaning: The mirror is down.\n'
        'source:\n  path: pkg/net.py\n  line: 2\n  commit: "0000000"\n  start_line: 2\n'
        "  snippet: |\n    raise\nsolutions:\n  - Try later.\n"
    )
    pinned = run_cli(
        "pin",
        str(record),
        "--content",
        str(content),
        "--repo-dir",
        str(repo.path),
        "--commit",
        tags["v1.1"],
    )
    assert pinned.exit_code == 0, pinned.output
    return repo, tags, content, records_by_message(content)


def history(content: Path, repo: GitRepo, *extra: str) -> dict[str, Any]:
    result = run_cli(
        "history", "--content", str(content), "--repo-dir", str(repo.path), "--json", *extra
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def raised(data: dict[str, Any], record_id: str) -> dict[str, tuple[str, str, str, int]]:
    record = next(r for r in data["records"] if r["id"] == record_id)
    return {
        r["release"]: (r["exception"], r["message"], r["path"], r["line"]) for r in record["raised"]
    }


def test_each_shape_of_change_is_followed_release_by_release(project) -> None:  # type: ignore[no-untyped-def]
    repo, tags, content, ids = project
    data = history(content, repo)
    assert data["releases"] == ["v1.0", "v1.1", "v1.2", "v2.0", "unreleased"]
    assert data["commits"]["unreleased"] == tags["head"]
    assert raised(data, ids["no widget"]) == {
        "v1.0": ("KeyError", "unknown widget {name!r}", "pkg/widgets.py", 3),
        "v1.1": ("KeyError", "no widget named {name!r}", "pkg/widgets.py", 5),
        "v1.2": ("KeyError", "no widget named {name!r}", "pkg/widgets.py", 5),
        "v2.0": ("KeyError", "no widget named {name!r}", "src/pkg/widgets.py", 5),
        "unreleased": ("KeyError", "no widget named {name!r}", "src/pkg/widgets.py", 6),
    }
    paint = raised(data, ids["Unsupported colour"])
    assert [paint[r][2:] for r in data["releases"]] == [
        ("pkg/colors.py", 3),
        ("pkg/palette_helpers.py", 6),
        ("pkg/palette_helpers.py", 6),
        ("src/pkg/palette_helpers.py", 6),
        ("src/pkg/palette_helpers.py", 6),
    ]
    size = raised(data, ids["Size must"])
    assert [size[r][0] for r in data["releases"]] == ["ValueError"] * 2 + ["TypeError"] * 3
    legacy = raised(data, ids["The legacy"])
    assert sorted(legacy) == ["unreleased", "v1.0", "v1.1", "v2.0"]  # gone in 1.2, back in 2.0
    shape = raised(data, ids["Shape {s!r}"])
    assert shape["v1.1"][1:3] == ("Shape {s!r} cannot be drawn on this canvas", "pkg/shapes.py")
    assert shape["v1.2"][1:3] == ("Shape {s!r} cannot be drawn onto this canvas", "pkg/draw.py")
    gone = next(r for r in data["records"] if r["id"] == "00000000000000aa")
    assert [r["release"] for r in gone["raised"]] == ["v1.0", "v1.1", "v1.2"]
    assert gone["not_raised_since"] == "v2.0"
    # every pair listed is in git at the path and line given
    for record in data["records"]:
        for pair in record["raised"]:
            commit = data["commits"][pair["release"]]
            lines = repo.git("show", f"{commit}:{pair['path']}").splitlines()
            assert lines[pair["line"] - 1].lstrip().startswith("raise"), pair


def test_pre_releases_come_in_when_the_tag_pattern_asks(project) -> None:  # type: ignore[no-untyped-def]
    repo, _, content, ids = project
    data = history(content, repo, "--tags", "v*")
    assert data["releases"] == ["v1.0", "v1.1", "v1.2rc1", "v1.2", "v2.0", "unreleased"]
    assert "v1.2rc1" not in raised(data, ids["The legacy"])


def test_tags_with_digits_apart_are_read_as_versions_and_a_run_with_none_says_how(
    tmp_path: Path, make_content
) -> None:  # type: ignore[no-untyped-def]
    # Alembic's and SQLAlchemy's `rel_1_13_0`; `1_2` alone reads as 1.2.
    repo = GitRepo(tmp_path / "proj")
    for number, tag in enumerate(["rel_0_9_0", "rel_1_10_0", "rel_1_9_2"]):
        raising = 'def f():\n    raise ValueError("no such revision")\n'
        repo.release(tag, {"pkg/mod.py": raising, "pkg/version.py": f"VERSION = {number}\n"})
    content = make_content({})
    assert (
        run_cli("scan", str(repo.path), "--content", str(content), "--repo", "a/b").exit_code == 0
    )
    where = ("--content", str(content), "--repo-dir", str(repo.path))
    untagged = run_cli("history", *where)
    assert untagged.exit_code == 0, untagged.output
    assert "through 1 release" in untagged.stderr
    assert (
        "hint: no tag reads as a version (3 tags, such as rel_1_9_2); "
        "--tags 'rel_*' reads rel_1_9_2 as 1.9.2"
    ) in untagged.stderr
    mistaken = run_cli("history", *where, "--tags", "release-*")
    assert mistaken.exit_code == 0, mistaken.output
    assert (
        "hint: no tag that --tags 'release-*' takes reads as a version (3 tags, such as "
        "rel_1_9_2); --tags 'rel_*' reads rel_1_9_2 as 1.9.2"
    ) in mistaken.stderr
    data = history(content, repo, "--tags", "rel_*")
    assert data["releases"] == ["rel_0_9_0", "rel_1_9_2", "rel_1_10_0"]  # as versions
    repo.git("tag", "1_11")
    assert history(content, repo)["releases"] == ["1_11"]
    # tags named two ways (pyparsing's `pyparsing_2.4.7`, then `3.1.0`): a glob for each
    both = history(content, repo, "--tags", "rel_*", "--tags", "[0-9]*")
    assert both["releases"] == ["rel_0_9_0", "rel_1_9_2", "rel_1_10_0", "1_11"]


def test_a_run_after_a_new_tag_looks_at_that_tag_only_and_agrees_with_a_fresh_run(project) -> None:  # type: ignore[no-untyped-def]
    repo, _, content, _ = project
    history(content, repo)
    saved = content / "history" / "acme" / "proj.json"
    repo.git("tag", "v2.1")
    result = run_cli("history", "--content", str(content), "--repo-dir", str(repo.path))
    assert result.exit_code == 0, result.output
    assert "(1 looked at" in result.output
    again = saved.read_text()
    saved.unlink()
    history(content, repo)
    assert saved.read_text() == again
    assert '"name": "unreleased"' not in again


def test_a_message_reworded_in_place_is_changed_for_drift_too(project) -> None:  # type: ignore[no-untyped-def]
    repo, tags, content, ids = project
    result = run_cli(
        "drift",
        "--content",
        str(content),
        "--repo-dir",
        str(repo.path),
        "--to",
        tags["v1.0"],
        "--json",
    )
    rows = {row["id"]: row for row in json.loads(result.stdout)["records"]}
    row = rows[ids["no widget"]]
    assert (row["status"], row["detail"]) == ("changed", "reworded")
    assert row["new_message"] == "unknown widget {name!r}"


def test_pages_say_when_and_what_changed_and_the_api_carries_it(project, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    repo, tags, content, ids = project
    history(content, repo)
    out = tmp_path / "site"
    result = run_cli("build", "--content", str(content), "--out", str(out), "--drafts")
    assert result.exit_code == 0, result.output
    assert "00000000000000aa" not in result.output or "retired" in result.output
    page = parse_html(out / "errors" / ids["no widget"] / "index.html")
    assert page.select_one(".releases").get_text() == "Raised since v1.0 · reworded in v1.1"
    rows = [
        [c.get_text(" ", strip=True) for c in tr.find_all(["th", "td"])]
        for tr in page.select("table.history tbody tr")
    ]
    assert rows[0][:2] == ["v1.0", "raised"]
    assert rows[1][:2] == ["v1.1", "reworded"]
    assert "unknown widget {name!r}" in rows[1][2] and "no widget named {name!r}" in rows[1][2]
    link = page.select("table.history tbody tr")[1].select_one("a")["href"]
    assert link == f"https://github.com/acme/proj/blob/{tags['v1.1']}/pkg/widgets.py#L5"
    assert rows[2][:2] == ["v2.0", "moved to src/pkg/widgets.py"]

    gone = parse_html(out / "errors" / "00000000000000aa" / "index.html")
    assert (
        gone.select_one(".releases").get_text() == "Raised in v1.0 – v1.2 · not raised since v2.0"
    )
    assert "since v2.0" in gone.select_one(".retired-banner").get_text(" ", strip=True)
    assert (
        "warning: retired: this error is not raised in the latest release (unreleased code)"
        in result.output
    )

    data = json.loads((out / "api" / "errors" / f"{ids['Size must']}.json").read_text())
    runs = data["resolved"]["history"]["raised"]
    assert [(r["from"], r["to"], r["exception"]) for r in runs] == [
        ("v1.0", "v1.1", "ValueError"),
        ("v1.2", "v1.2", "TypeError"),
        ("v2.0", "unreleased", "TypeError"),
    ]
    assert data["resolved"]["history"]["not_raised_since"] is None
    lines = (out / "api" / "errors.ndjson").read_text().splitlines()
    assert any(json.loads(line)["resolved"].get("history") for line in lines)


def test_a_broken_history_file_is_an_error_naming_the_line(project, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    repo, _, content, _ = project
    history(content, repo)
    saved = content / "history" / "acme" / "proj.json"
    text = saved.read_text()
    saved.write_text(text.replace('"path": "pkg/net.py", "until"', '"path": "../x.py", "until"', 1))
    result = run_cli("build", "--content", str(content), "--out", str(tmp_path / "site"))
    assert result.exit_code == 1
    line = text[: text.index('"00000000000000aa": {')].count("\n") + 1
    assert f"proj.json:{line}:" in result.output and "unreadable history file" in result.output
    saved.write_text(text.replace('"from": ', '"kind": "fatal", "from": ', 1))
    result = run_cli("build", "--content", str(content), "--out", str(tmp_path / "site"))
    assert result.exit_code == 1
    assert "expected kind 'error' or 'warning'" in result.output


def test_a_malformed_tree_is_a_clear_error(project) -> None:  # type: ignore[no-untyped-def]
    repo, _, content, _ = project
    bad = repo.path / "bad-tree"
    bad.write_bytes(b"100644 no-nul-and-no-hash")
    tree = repo.git("hash-object", "-t", "tree", "--literally", "-w", str(bad))
    commit = repo.git("commit-tree", tree, "-m", "broken")
    for command in ("drift", "history"):
        option = "--to" if command == "drift" else "--rev"
        result = run_cli(
            command, "--content", str(content), "--repo-dir", str(repo.path), option, commit
        )
        assert result.exit_code == 1, result.output
        assert f"tree {tree[:12]} is malformed" in result.output
        assert "Traceback" not in result.output


def test_lookup_and_the_exported_module_know_an_older_releases_wording(
    project, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    repo, _, content, ids = project
    history(content, repo)
    old_widget = "Traceback (most recent call last):\nKeyError: \"unknown widget 'dial'\"\n"
    old_shape = "TypeError: Shape 'cube' cannot be drawn on this canvas"
    for text, record_id, releases in (
        (old_widget, ids["no widget"], "v1.0"),
        (old_shape, ids["Shape {s!r}"], "v1.0 – v1.1"),
    ):
        result = run_cli("lookup", "--content", str(content), "--drafts", "--json", "--text", text)
        assert result.exit_code == 0, result.output
        best = json.loads(result.stdout)["matches"][0]
        assert (best["id"], best["exact"], best["former"]["releases"]) == (
            record_id,
            True,
            releases,
        )
        assert best["message"] != best["former"]["message"]  # the page's, and the old one
    plain = run_cli("lookup", "--content", str(content), "--drafts", "--text", old_widget)
    assert "as v1.0 worded it: KeyError: unknown widget {name!r}" in plain.output
    assert "?name=dial" in plain.output
    # today's wording is no former one
    now = run_cli(
        "lookup",
        "--content",
        str(content),
        "--drafts",
        "--json",
        "--text",
        "KeyError: \"no widget named 'dial'\"",
    )
    assert json.loads(now.stdout)["matches"][0]["former"] is None

    # the exported module links the old wording too, and says so in the note it adds
    widget = next((content / "errors").rglob("no-widget-named-*.yaml"))
    widget.write_text(widget.read_text().replace("draft: true\n", ""))
    target = tmp_path / "vendored" / "links.py"
    target.parent.mkdir()
    result = run_cli(
        "export", "python", str(target), "--content", str(content), "--base-url", "https://e.test/"
    )
    assert result.exit_code == 0, result.output
    probe = subprocess.run(
        [sys.executable, "-I", "-S", "-c", EXPORT_PROBE, str(target.parent)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert probe.returncode == 0, probe.stderr
    url, note = json.loads(probe.stdout)
    assert url == f"https://e.test/errors/{ids['no widget']}/?name=dial"
    assert note == f"See {url} (the message as v1.0 worded it)"


EXPORT_PROBE = """
import json, sys
sys.path.insert(0, sys.argv[1])
import links
error = KeyError("unknown widget 'dial'")
links.add_note(error)
print(json.dumps([links.url_for(error), getattr(error, "__notes__", [None])[-1]]))
"""


def test_python_2_releases_are_read_and_a_file_that_does_not_parse_is_not_said_to_lack_it(
    tmp_path: Path,
    make_content,  # type: ignore[no-untyped-def]
) -> None:
    repo = GitRepo(tmp_path / "old")
    raising = '    raise RuntimeError("The content for this response was already consumed")\n'
    python2 = (
        "try:\n    pass\nexcept ValueError, e:\n    print >>sys.stderr, e\ndef content():\n"
        '    raise RuntimeError, "The content for this response was already consumed"\n'
    )
    # A release committed with a merge conflict: no Python reads it.
    conflict = "<<<<<<< HEAD\nx = 1\n=======\nx = 2\n>>>>>>> other\n"
    for tag, text in [
        ("v0.8", python2),
        ("v0.9", conflict + "def content():\n" + raising),
        ("v1.0", "def content():\n" + raising),
        ("v1.1", conflict + "def content():\n" + raising),
        ("v1.2", "def content():\n" + raising),
        ("v1.3", conflict + "def content():\n" + raising),
    ]:
        repo.release(tag, {"pkg/models.py": text})
    content = make_content({})
    scanned = run_cli(
        "scan", str(repo.path), "--repo", "acme/old", "--content", str(content), "--commit", "v1.2"
    )
    assert scanned.exit_code == 0, scanned.output
    args = ("history", "--content", str(content), "--repo-dir", str(repo.path), "--json")
    first, again = run_cli(*args), run_cli(*args)  # the second reads what the first saved
    assert first.exit_code == again.exit_code == 0, first.output + again.output
    assert "(0 looked at, the others known)" in again.stderr
    assert json.loads(first.stdout) == json.loads(again.stdout)
    [record] = json.loads(again.stdout)["records"]
    assert [(r["release"], r["line"]) for r in record["raised"]] == [
        ("v0.8", 6),  # `raise RuntimeError, "…"`: the Python 2 release raises it, there
        ("v1.0", 2),
        ("v1.2", 2),
    ]
    assert [(u["release"], u["path"]) for u in record["unread"]] == [
        ("v0.9", "pkg/models.py"),
        ("v1.1", "pkg/models.py"),
        ("v1.3", "pkg/models.py"),
    ]
    assert record["not_raised_since"] is None  # v1.3 may raise it: nobody could tell
    problem = record["unread"][0]["problem"]  # what the parser says differs between Pythons
    assert f"pkg/models.py in 3 releases (v0.9 … v1.3): {problem}" in again.stderr

    out = tmp_path / "site"
    built = run_cli("build", "--content", str(content), "--out", str(out), "--drafts")
    assert built.exit_code == 0, built.output
    assert "retired" not in built.output
    page = parse_html(out / "errors" / record["id"] / "index.html")
    assert page.select_one(".releases").get_text() == (
        "Raised since v0.8 · v0.9 could not be read · v1.1 could not be read"
        " · v1.3 could not be read"
    )
    assert page.select_one(".retired-banner") is None
    rows = [
        [c.get_text(" ", strip=True) for c in tr.find_all(["th", "td"])]
        for tr in page.select("table.history tbody tr")
    ]
    unread = f"could not be read (does not parse: {problem})"
    assert [row[:2] for row in rows] == [
        ["v0.8", "raised"],
        ["v0.9", unread],
        ["v1.1", unread],
        ["v1.3", unread],
    ]
    assert rows[1][2:] == ["", "pkg/models.py"]
    api = json.loads((out / "api" / "errors" / f"{record['id']}.json").read_text())
    assert api["resolved"]["history"]["unread"][1] == {
        "from": "v1.1",
        "to": "v1.1",
        "path": "pkg/models.py",
        "problem": problem,
    }
    home = parse_html(out / "index.html")
    summary = home.select_one('option[data-name="v1.1"]')["data-summary"]
    assert summary == "0 errors raised in v1.1. Not known for 1 more: the code could not be read."


def test_serve_reads_a_history_file_again_only_when_it_changed(project) -> None:  # type: ignore[no-untyped-def]
    from errpages.serve.session import Session

    repo, _, content, ids = project
    history(content, repo)
    saved = content / "history" / "acme" / "proj.json"
    session = Session(content, include_drafts=True)
    assert not session.update(set()).failed()
    page = f"errors/{ids['no widget']}/index.html"

    def glance() -> str:
        found = session.read(page)
        assert found is not None
        return BeautifulSoup(found[0].decode(), "html.parser").select_one(".releases").get_text()

    assert glance() == "Raised since v1.0 · reworded in v1.1"
    record = next((content / "errors").rglob("no-widget-named-*.yaml"))
    record.write_text(record.read_text().replace("TO BE WRITTEN: what this", "What this", 1))
    assert not session.update({str(record)}).failed()  # the history is not read again
    assert session.cache.histories_read
    text = saved.read_text()
    saved.write_text(text.replace('"unknown widget {name!r}"', '"unknown gadget {name!r}"', 1))
    assert not session.update({str(saved)}).failed()
    assert glance() == "Raised since v1.0 · reworded in v1.1"  # the former message changed
    found = session.read(page)
    assert found is not None and "unknown gadget" in found[0].decode()
    saved.write_text(text.replace('"line": 3', '"line": 0', 1))
    report = session.update({str(saved)})
    assert report.failed() and "proj.json" in report.diagnostics[0].format()
    assert not session.cache.histories_read  # a file with problems is read again each time


def test_the_markdown_export_says_when_and_what_changed(project, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    repo, tags, content, ids = project
    history(content, repo)
    for record in (content / "errors").rglob("*.yaml"):
        record.write_text(record.read_text().replace("draft: true\n", ""))
    folder = tmp_path / "docs" / "errors"
    result = run_cli("export", "markdown", str(folder), "--content", str(content))
    assert result.exit_code == 0, result.output
    page = (folder / f"{ids['no widget']}.md").read_text()
    assert "in acme/proj · Raised since v1.0 · reworded in v1.1\n" in page
    rows = [line for line in page.splitlines() if line.startswith("| v")]
    assert rows[0].startswith("| v1.0 | raised |")
    assert rows[1].startswith("| v1.1 | reworded: was “unknown widget &#123;name!r&#125;” |")
    assert f"(https://github.com/acme/proj/blob/{tags['v1.1']}/pkg/widgets.py#L5)" in rows[1]


def test_after_releases_without_it_an_error_is_not_taken_for_another_files_alike_raise(
    tmp_path: Path,
    make_content,  # type: ignore[no-untyped-def]
) -> None:
    # uvicorn: 0.2's `http.response.body` check in httptools.py, gone by 0.3, is not 0.25's
    # `websocket.http.response.body` check in websockets.py reworded and moved; a file its
    # record says raises it too may have had it before the gap (wsproto.py).
    http = (
        "def send(message):\n"
        "    if message['type'] != 'http.response.body':\n"
        "        msg = \"Expected ASGI message 'http.response.body', but got '%s'.\"\n"
        "        raise RuntimeError(msg % message['type'])\n"
    )
    websocket = http.replace("http.response.body', but", "websocket.http.response.body' but")
    websocket = websocket.replace("'http.response.body'", "'websocket.http.response.body'")
    older = websocket.replace("body' but", "body', but")
    empty = "def send(message):\n    pass\n"

    def followed(name: str, wsproto: list[str]) -> list[tuple[str, str]]:
        repo = GitRepo(tmp_path / name)
        for tag, files in [
            ("0.2", {"pkg/httptools.py": http, "pkg/wsproto.py": wsproto[0]}),
            ("0.3", {"pkg/httptools.py": empty, "pkg/wsproto.py": empty}),
            ("0.25", {"pkg/websockets.py": websocket, "pkg/wsproto.py": wsproto[1]}),
            (
                "0.26",
                {"pkg/websockets.py": websocket.replace("'%s'", "%r"), "pkg/wsproto.py": empty},
            ),
        ]:
            repo.release(tag, files)
        content = make_content({})
        scan = ("scan", str(repo.path), "--repo", "acme/asgi", "--content", str(content))
        assert run_cli(*scan, "--commit", "0.25", "--path", "pkg").exit_code == 0
        [record] = history(content, repo)["records"]
        return [(r["release"], r["path"]) for r in record["raised"]]

    assert followed("asgi", [empty, empty]) == [
        ("0.25", "pkg/websockets.py"),
        ("0.26", "pkg/websockets.py"),
    ]
    assert followed("also", [older, websocket]) == [
        ("0.2", "pkg/wsproto.py"),
        ("0.25", "pkg/websockets.py"),
        ("0.26", "pkg/websockets.py"),
    ]


def test_of_two_errors_reworded_alike_an_older_raise_is_the_one_whose_check_it_keeps(
    tmp_path: Path,
    make_content,  # type: ignore[no-untyped-def]
) -> None:
    # Sphinx 1.7 → 1.8: "programable" became "programmable" beside a syntax error check
    # whose message (a module constant before) is as far from the old words: the old raise
    # is the programmable error's, the one raised under the same `except`, with the same
    # placeholder, though the other raise is nearer.
    def config(syntax: str, programmable: str) -> str:
        return (
            "def load(path):\n"
            "    try:\n"
            "        run(path)\n"
            f"{syntax}"
            "    except Exception as exc:\n"
            f'        raise ConfigError("There is a {programmable} error in your'
            ' configuration file: %s" % exc)\n'
        )

    syntax = (
        "    except SyntaxError as err:\n"
        '        raise ConfigError("There is a syntax error in your configuration file: %s" % err)\n'
    )
    repo = GitRepo(tmp_path / "docs")
    for tag, text in [
        ("v1.7", config("", "programable")),
        ("v1.8", config(syntax, "programmable")),
    ]:
        repo.release(tag, {"pkg/config.py": text})
    content = make_content({})
    scan = ("scan", str(repo.path), "--repo", "acme/docs", "--content", str(content))
    assert run_cli(*scan).exit_code == 0
    raised = {
        record["raised"][-1]["message"].split()[3]: [
            (r["release"], r["line"], r["message"]) for r in record["raised"]
        ]
        for record in history(content, repo)["records"]
    }
    assert raised == {
        "syntax": [("v1.8", 5, "There is a syntax error in your configuration file: {err}")],
        "programmable": [
            ("v1.7", 5, "There is a programable error in your configuration file: {exc}"),
            ("v1.8", 7, "There is a programmable error in your configuration file: {exc}"),
        ],
    }


def test_of_two_raises_of_the_message_in_other_files_the_older_is_the_one_whose_check_reads_alike(
    tmp_path: Path,
    make_content,  # type: ignore[no-untyped-def]
) -> None:
    # strawberry 0.157 → 0.158: the check of a union's types moved from `union()` to the
    # schema converter, beside a twin raise of the message in the scalar's `__or__`; the
    # older raise is `union()`'s, whose loop reads the types as the converter's does, though
    # the twin's file comes first by name.
    raising = '            raise UnionError(f"Type {type_} cannot be used in a union")\n'
    union = "def union(name, types):\n    for type_ in types:\n        if not valid(type_):\n"
    scalar = (
        "class Scalar:\n"
        "    def __or__(self, type_):\n"
        '        raise UnionError(f"Type {type_} cannot be used in a union")\n'
    )
    converter = (
        "class Converter:\n"
        "    def from_union(self, union):\n"
        "        for type_ in union.types:\n"
        "            if not Union.valid(type_):\n"
        "    " + raising
    )
    repo = GitRepo(tmp_path / "schema")
    repo.write("pkg/custom_scalar.py", scalar)
    for tag, files in [
        ("v1", {"pkg/union.py": union + raising}),
        (
            "v2",
            {
                "pkg/union.py": "def union(name, types):\n    return types\n",
                "pkg/convert.py": converter,
            },
        ),
    ]:
        repo.release(tag, files)
    content = make_content({})
    scan = ("scan", str(repo.path), "--repo", "acme/schema", "--content", str(content))
    assert run_cli(*scan).exit_code == 0
    (record,) = history(content, repo)["records"]
    assert [(r["release"], r["path"], r["line"]) for r in record["raised"]] == [
        ("v1", "pkg/union.py", 4),
        ("v2", "pkg/convert.py", 5),
    ]


def test_of_a_message_raised_twice_one_reworded_is_the_error_the_other_is_another(
    tmp_path: Path,
    make_content,  # type: ignore[no-untyped-def]
) -> None:
    # litestar 1.51 raised "Cannot call cleanup on a closed group" in `add` and in `cleanup`;
    # 2.16 reworded the one in `add` (then moved the package): "Cannot call .add …" was the
    # first, though the message was raised beside it, once, where it was last seen.
    group = (
        "class Group:\n"
        "    def add(self, hook):\n"
        "        if self.closed:\n"
        '            raise RuntimeError("Cannot call ADD on a closed group")\n'
        "    def cleanup(self):\n"
        "        if self.closed:\n"
        '            raise RuntimeError("Cannot call cleanup on a closed group")\n'
    )
    repo = GitRepo(tmp_path / "app")
    repo.release("v1", {"pkg/provide.py": group.replace("ADD", "cleanup")})
    repo.git("rm", "-q", "pkg/provide.py")
    repo.release("v2", {"src/cleanup.py": group.replace("ADD", ".add")})
    content = make_content({})
    scan = ("scan", str(repo.path), "--repo", "acme/app", "--content", str(content))
    assert run_cli(*scan).exit_code == 0
    raised = {
        record["raised"][-1]["message"]: [
            (r["release"], r["path"], r["line"]) for r in record["raised"]
        ]
        for record in history(content, repo)["records"]
    }
    assert raised == {
        "Cannot call .add on a closed group": [
            ("v1", "pkg/provide.py", 4),
            ("v2", "src/cleanup.py", 4),
        ],
        "Cannot call cleanup on a closed group": [
            ("v1", "pkg/provide.py", 7),
            ("v2", "src/cleanup.py", 7),
        ],
    }


def test_a_release_in_the_encoding_its_coding_line_names_is_read_and_one_not_text_is_unread(
    tmp_path: Path,
    make_content,  # type: ignore[no-untyped-def]
) -> None:
    # dateutil 2.1–2.4: `# -*- coding:iso-8859-1 -*-` and Latin-1 bytes in parser.py.
    raising = 'def street(name):\n    raise ValueError("no Straße named %s" % name)\n'
    repo = GitRepo(tmp_path / "dates")
    for tag, data in [
        ("v0.8", raising.encode("latin-1")),  # no coding line: Python would refuse it too
        ("v0.9", ("# -*- coding:iso-8859-1 -*-\n" + raising).encode("latin-1")),
        ("v1.0", raising.encode("utf-8")),
    ]:
        (repo.path / "pkg").mkdir(parents=True, exist_ok=True)
        (repo.path / "pkg" / "parser.py").write_bytes(data)
        repo.commit(tag)
        repo.git("tag", tag)
    content = make_content({})
    scan = ("scan", str(repo.path), "--repo", "acme/dates", "--content", str(content))
    assert run_cli(*scan).exit_code == 0
    [record] = history(content, repo)["records"]
    assert [(r["release"], r["line"], r["message"]) for r in record["raised"]] == [
        ("v0.9", 3, "no Straße named {name}"),
        ("v1.0", 2, "no Straße named {name}"),
    ]
    assert record["unread"] == [
        {"release": "v0.8", "path": "pkg/parser.py", "problem": "file is not UTF-8 text"}
    ]


def test_a_clone_without_its_large_files_is_read_for_the_python_it_holds(
    tmp_path: Path,
    make_content,  # type: ignore[no-untyped-def]
) -> None:
    # apscheduler's 4.0 alphas hold a binary (`tools/dockerize`) that a mirror or a partial
    # clone leaves out; renames are looked for among Python files only, so it is never read.
    raising = 'def start(job):\n    raise LookupError(f"No job called {job!r} is scheduled")\n'
    repo = GitRepo(tmp_path / "jobs")
    repo.write("pkg/jobs.py", raising)
    repo.write("tools/dockerize", "\0binary\n" * 500)
    repo.commit("1.0")
    repo.git("tag", "v1.0")
    repo.git("mv", "pkg", "src")
    repo.git("rm", "-q", "tools/dockerize")
    repo.write("tools/wait.sh", "#!/bin/sh\nsleep 1\n")
    repo.commit("2.0")
    repo.git("tag", "v2.0")
    binary = repo.git("rev-parse", "v1.0:tools/dockerize")
    (repo.path / ".git" / "objects" / binary[:2] / binary[2:]).unlink()

    content = make_content({})
    scan = ("scan", str(repo.path), "--repo", "acme/jobs", "--content", str(content))
    assert run_cli(*scan).exit_code == 0
    [record] = history(content, repo)["records"]
    assert [(r["release"], r["path"], r["line"]) for r in record["raised"]] == [
        ("v1.0", "pkg/jobs.py", 2),
        ("v2.0", "src/jobs.py", 2),
    ]


def test_a_warning_that_became_an_error_of_its_first_half_is_the_same_error(
    tmp_path: Path,
    make_content,  # type: ignore[no-untyped-def]
) -> None:
    # webargs 6.1 warned "… did not raise an exception and flow of control returned to
    # parse(). …"; 7.0 raises a ValueError of the first half, in the same place.
    parse = (
        "import warnings\n\n\ndef parse(self, schema, data):\n    try:\n"
        "        return schema.load(data)\n    except ValidationError as error:\n"
        "        self.on_error(error)\n{}"
    )
    repo = GitRepo(tmp_path / "args")
    for tag, tail in [
        ("v6.1", "        pass\n"),
        (
            "v6.2",
            "        warnings.warn(\n"
            '            "on_error hook did not raise an exception and flow "\n'
            '            "of control returned to parse(). You may get unexpected results"\n'
            "        )\n",
        ),
        (
            "v7.0",
            '        raise ValueError("on_error hook did not raise an exception") from error\n',
        ),
    ]:
        repo.release(tag, {"pkg/core.py": parse.format(tail)})
    content = make_content({})
    scan = ("scan", str(repo.path), "--repo", "acme/args", "--content", str(content))
    assert run_cli(*scan).exit_code == 0
    [record] = history(content, repo)["records"]
    assert [
        (r["release"], r["exception"], r["message"], r.get("kind")) for r in record["raised"]
    ] == [
        (
            "v6.2",
            "UserWarning",
            "on_error hook did not raise an exception and flow of control returned to parse()."
            " You may get unexpected results",
            "warning",
        ),
        ("v7.0", "ValueError", "on_error hook did not raise an exception", None),
    ]
