"""The first hour with errpages: init, the messages of a first build, new, lookup, serve."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tarfile
import time
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

import pytest

from errpages.content.listing import display_path
from errpages.content.record_schema import record_schema
from tests.conftest import REPO_ROOT, Served, install_wheel, run_cli, valid_record

INVALID = Path(__file__).resolve().parent / "invalid"


def test_init_starts_a_site_that_builds(tmp_path: Path) -> None:
    folder = tmp_path / "proj"
    (folder).mkdir()
    (folder / ".gitignore").write_text("/node_modules/\n/site/")
    started = run_cli("init", str(folder))
    assert started.exit_code == 0, started.output
    assert "Next: `errpages serve --content" in started.stdout
    content = folder / "content"
    records = list((content / "errors").rglob("*.yaml"))
    assert len(records) == 1
    assert (
        records[0]
        .read_text()
        .startswith("# yaml-language-server: $schema=../../../../schema/record.schema.json\n")
    )
    schema = json.loads((folder / "schema" / "record.schema.json").read_text())
    assert schema == record_schema()
    assert "# base_url:" in (content / "site.yaml").read_text()  # commented, to be set
    assert (folder / ".gitignore").read_text() == (
        "/node_modules/\n/site/\n# errpages: the built site, its spare and lock, and the build "
        "cache\n/.site.*\n/.errpages-cache/\n"
    )

    check = run_cli("check", "--strict", "--content", str(content))
    assert check.exit_code == 0, check.output
    assert check.stdout == "1 record OK, 0 warnings\n"
    built = run_cli("build", "--content", str(content), "--out", str(folder / "site"))
    assert built.exit_code == 0, built.output
    assert built.stdout.startswith("Built 1 error into")
    warnings = [line for line in built.stderr.splitlines() if ": warning: " in line]
    assert len(warnings) == 1 and "base_url: not set" in warnings[0]
    pages = list((folder / "site" / "errors").glob("*/index.html"))
    assert len(pages) == 1

    before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file() and "site" not in p.parts}
    again = run_cli("init", str(folder))
    assert again.exit_code == 1
    assert "already holds files; nothing was written" in again.stderr
    assert before == {
        p: p.read_bytes() for p in folder.rglob("*") if p.is_file() and "site" not in p.parts
    }


def test_a_missing_content_folder_points_to_init(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    for command in (["build"], ["check"], ["lookup", "--text", "x"], ["ids", "record"]):
        result = run_cli(*command)
        assert result.exit_code == 1, command
        assert f"{tmp_path / 'content'}: no such content folder" in result.stderr, command
        assert "start a site there with `errpages init`" in result.stderr


def record_at(line: int, snippet: str, kind: str = "error", path: str = "widgets/core.py") -> str:
    text = valid_record().replace("  line: 12\n", f"  line: {line}\n")
    text = text.replace("widgets/core.py", path)
    code = "".join(f"    {row}\n" for row in snippet.splitlines())
    head, _, tail = text.partition("  snippet: |\n")
    tail = tail[tail.index("solutions:") :]
    return head + "  snippet: |\n" + code + tail + f"kind: {kind}\n"


SNIPPET = """\
def check(widget):
    # a comment
    if not widget:
        raise ValueError(
            "bad widget"
        )
    warnings.warn("old widget")

@deprecated.deprecated("Use check()")
def old_check(widget): ..."""


@pytest.mark.parametrize(
    ("line", "kind", "path", "warned"),
    [
        (13, "error", "widgets/core.py", False),  # raise ValueError(
        (14, "error", "widgets/core.py", False),  # its message, in the same statement
        (15, "error", "widgets/core.py", False),  # its closing bracket
        (11, "error", "widgets/core.py", True),  # a comment
        (10, "error", "widgets/core.py", True),  # def check(widget):
        (16, "error", "widgets/core.py", True),  # warnings.warn(…), for an error
        (16, "warning", "widgets/core.py", False),  # warnings.warn(…), for a warning
        # the Deprecated package's decorator: its warning ("Call to deprecated function
        # (or staticmethod) old_check. (Use check())") is not its text word for word
        (18, "warning", "widgets/core.py", False),
        (18, "error", "widgets/core.py", True),
        (11, "error", "widgets/core.rs", False),  # not Python: not looked into
    ],
)
def test_a_source_line_that_raises_nothing_is_warned_about(
    make_content, line: int, kind: str, path: str, warned: bool
) -> None:  # type: ignore[no-untyped-def]
    content = make_content({"errors/a.yaml": record_at(line, SNIPPET, kind, path)})
    result = run_cli("check", "--content", str(content))
    assert result.exit_code == 0, result.output
    message = f"a.yaml:8:9: warning: source.line: line {line} is not in a statement that"
    assert (message in result.stderr) is warned, result.stderr


def test_the_base_url_warning_names_the_file_to_set_it_in(make_content, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    content = make_content({"errors/a.yaml": valid_record()})
    out = str(tmp_path / "site")
    without = run_cli("build", "--content", str(content), "--out", out, "--no-cache")
    shown = display_path(content)
    assert f"{shown}: warning: base_url: not set" in without.stderr
    assert f"add `base_url: https://…/` to {shown}/site.yaml (a new file)" in without.stderr
    (content / "site.yaml").write_text("title: Widgets\n")
    settings = run_cli("build", "--content", str(content), "--out", out, "--no-cache")
    assert f"{shown}/site.yaml: warning: base_url: not set" in settings.stderr
    assert "(a new file)" not in settings.stderr
    assert "base_url" not in run_cli("check", "--content", str(content)).output


def test_serve_says_a_warning_once_and_ends_each_update_with_a_line(
    make_content,
) -> None:  # type: ignore[no-untyped-def]
    content = make_content({"errors/a.yaml": valid_record()})
    served = Served("--content", str(content))
    try:
        served.wait_for("Serving")
        for edit in range(2):
            time.sleep(0.5)  # the watcher is running
            record = content / "errors" / "a.yaml"
            record.write_text(valid_record().replace("widget was bad", f"widget was bad {edit}"))
            served.wait_for("Updated ")
    finally:
        served.stop()
    updated_lines = [line for line in served.lines if line.startswith("Updated ")]
    assert len(updated_lines) == 3, served.lines
    pattern = r"Updated 1 error \(1 read\), 1 warning, [\d.]+s"
    assert all(re.fullmatch(pattern, line.strip()) for line in updated_lines), updated_lines
    assert sum("base_url: not set" in line for line in served.lines) == 1, served.lines


def fetch(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as refused:
        return refused.code, refused.read().decode()


def test_serve_shows_each_save_and_writes_nothing(make_content, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """An edit, an added record and an editor's temporary file reach the served pages through
    the watcher; a page's broken link is said over it and once in the terminal; and serve
    writes no file, into the content folder or anywhere beside it."""
    content = make_content({"errors/a.yaml": valid_record()})
    broken = valid_record("00000000000000cc", "linked widget").replace(
        "widget was bad.", "widget was bad, see [the guide](../nowhere/)."
    )
    written = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    served = Served("--content", str(content))
    try:
        url = served.wait_for("Serving").split(" at ")[1].split()[0]
        page = f"{url}errors/0123456789abcdef/"
        assert "bad widget" in fetch(page)[1]
        time.sleep(0.5)  # the watcher is running
        (content / "errors" / "a.yaml").write_text(valid_record(message="edited widget"))
        (content / "errors" / "a.yaml~").write_text("an editor's backup")
        served.wait_for("Updated ")
        assert "edited widget" in fetch(page)[1]
        (content / "errors" / "a.yaml~").unlink()
        (content / "errors" / "b.yaml").write_text(valid_record("fedcba9876543210", "new one"))
        (content / "errors" / "c.yaml").write_text(broken)
        assert served.wait_for("Updated ").startswith("Updated 3 errors"), served.lines
        assert fetch(f"{url}errors/fedcba9876543210/") == (
            200,
            fetch(f"{url}errors/fedcba9876543210/index.html")[1],
        )
        assert "new one" in fetch(f"{url}errors/fedcba9876543210/")[1]
        for _ in range(2):
            status, text = fetch(f"{url}errors/00000000000000cc/")
            assert status == 200 and 'data-problems="' in text and "broken link" in text
        assert "data-problems" not in fetch(page)[1]
        assert fetch(f"{url}errors/0000000000000000/")[0] == 404
        said = served.lines_within(1)
    finally:
        served.stop()
    assert sum("broken link '../nowhere/'" in line for line in said) == 1, said
    ending = [line.strip() for line in served.lines_within(1)]
    assert served.process.returncode == 0 and "Stopped." in ending, ending
    written[content / "errors" / "a.yaml"] = (content / "errors" / "a.yaml").read_bytes()
    for name in ("b.yaml", "c.yaml"):
        written[content / "errors" / name] = (content / "errors" / name).read_bytes()
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == written


def test_lookup_prints_a_page_a_person_can_open(make_content, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    record = valid_record(message="bad widget of size {size!r}")
    draft = valid_record("fedcba9876543210", "half-written {thing}") + "draft: true\n"
    content = make_content({"errors/a.yaml": record, "errors/b.yaml": draft})
    out = tmp_path / "site"
    text = "ValueError: bad widget of size 0"
    early = run_cli("lookup", "--content", str(content), "--out", str(out), "--text", text)
    assert early.exit_code == 0
    assert "no site in" in early.stderr and "`errpages build` makes it" in early.stderr
    assert run_cli("build", "--content", str(content), "--out", str(out)).exit_code == 0
    found = run_cli("lookup", "--content", str(content), "--out", str(out), "--text", text)
    url = found.stdout.splitlines()[-1].strip()
    page = out / "errors" / "0123456789abcdef" / "index.html"
    assert url == f"{page.as_uri()}?size=0"
    assert page.is_file() and "no site in" not in found.stderr
    as_json = run_cli("lookup", "--content", str(content), "--json", "--text", text)
    assert json.loads(as_json.stdout)["matches"][0]["url"].startswith("file:///")
    public = run_cli(
        "lookup", "--content", str(content), "--base-url", "https://e.org/x", "--text", text
    )
    assert public.stdout.splitlines()[-1].strip() == (
        "https://e.org/x/errors/0123456789abcdef/?size=0"
    )
    half = "ValueError: half-written page"
    assert run_cli("lookup", "--content", str(content), "--text", half).exit_code == 1
    drafts = run_cli("lookup", "--content", str(content), "--drafts", "--text", half)
    assert drafts.exit_code == 0 and "fedcba9876543210" in drafts.stdout


CASES = sorted(p.name for p in INVALID.iterdir() if (p / "expected.txt").is_file())


@pytest.mark.parametrize("case", CASES)
def test_every_format_numbers_lines_and_columns_alike(case: str, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(INVALID / case)
    text = run_cli("check", "--content", "content").stderr
    shown = re.findall(r"^(content/\S+?)(?::(\d+):(\d+))?: ", text, re.MULTILINE)
    problems = json.loads(run_cli("check", "--content", "content", "--format", "json").stdout)
    positions = [(p["path"], p["line"], p["column"]) for p in problems["problems"]]
    numbered = [(path, int(n) if n else None, int(c) if c else None) for path, n, c in shown]
    assert positions == numbered
    github = run_cli("check", "--content", "content", "--format", "github").stdout.splitlines()
    for (path, line, column), annotation in zip(positions, github, strict=True):
        where = f"file={path}" + (f",line={line},col={column}" if line else "")
        assert where in annotation.replace("%2C", ","), annotation


def test_the_release_files_build_check_and_install_as_errpages(tmp_path: Path) -> None:
    """`python -m build` makes a wheel and an sdist that twine accepts; the wheel installs
    the package `errpages` with its theme and nothing else at the top level."""
    dist = tmp_path / "dist"
    built = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(dist), str(REPO_ROOT)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert built.returncode == 0, built.stderr
    printed = built.stdout + built.stderr
    assert "SetuptoolsDeprecationWarning" not in printed and "absent from" not in printed
    (wheel_path,) = dist.glob("errpages-*.whl")
    (sdist_path,) = dist.glob("errpages-*.tar.gz")
    checked = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", str(wheel_path), str(sdist_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    with zipfile.ZipFile(wheel_path) as wheel:
        names = wheel.namelist()
    assert {name.split("/")[0] for name in names} == {
        "errpages",
        f"{wheel_path.name.split('-')[0]}-{wheel_path.name.split('-')[1]}.dist-info",
    }
    theme = REPO_ROOT / "themes"
    assert {n for n in names if n.startswith("errpages/themes/")} == {
        f"errpages/themes/{p.relative_to(theme).as_posix()}"
        for p in theme.rglob("*")
        if p.is_file()
    }
    with tarfile.open(sdist_path) as sdist:
        top = {"/".join(name.split("/")[1:2]) for name in sdist.getnames()}
    assert {"CHANGELOG.md", "LICENSE", "README.md", "generator", "themes"} <= top
    target = tmp_path / "installed"
    install_wheel(wheel_path, target)
    installed = {p.name for p in target.iterdir() if not p.name.endswith(".dist-info")}
    assert installed == {"errpages", "bin"}  # the package, and the `errpages` console script
    assert (target / "bin" / "errpages").is_file()
    version = subprocess.run(
        [sys.executable, "-m", "errpages", "--version"],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(target)},
        capture_output=True,
        text=True,
        check=True,
    )
    assert version.stdout.strip() == f"errpages, version {wheel_path.name.split('-')[1]}"
