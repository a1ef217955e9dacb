"""Hostile and broken content: inert pages or a clear `path:line` error, never a traceback.

Static cases live in tests/hostile/*.yaml, each saying on its first line what
must happen (`# expect: builds` or `# expect: error: <text>`). Cases that are
bytes, sizes or file-system shapes are made here. Every build runs in a
subprocess under a memory limit and a time limit.
"""

from __future__ import annotations

import os
import re
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO_ROOT, parse_html, valid_record

HOSTILE = Path(__file__).resolve().parent / "hostile"
STATIC_CASES = sorted(p.name for p in HOSTILE.glob("*.yaml"))
MEMORY_LIMIT = 1536 * 1024 * 1024
TIME_LIMIT = 60
VOID = {
    "area",
    "base",
    "br",
    "col",
    "embed",
    "hr",
    "img",
    "input",
    "link",
    "meta",
    "source",
    "track",
    "wbr",
}
OWN_SCRIPT = re.compile(r"(\.\./)*assets/[a-z-]+\.js")


def limit_resources() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def build(content: Path, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "errpages",
            "build",
            "--content",
            str(content),
            "--out",
            str(out),
            "--base-url",
            "https://errors.example.org/",
            *extra,
        ],
        capture_output=True,
        text=True,
        timeout=TIME_LIMIT,
        cwd=REPO_ROOT,
        preexec_fn=limit_resources,
        check=False,
    )


class Balance(HTMLParser):
    """Check that every element we open is closed, in order."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.problems: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack[-1] != tag:
            self.problems.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
        else:
            self.stack.pop()


def assert_inert_and_valid(out: Path) -> None:
    for page in out.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert text.startswith("<!DOCTYPE html>"), page
        checker = Balance()
        checker.feed(text)
        checker.close()
        assert checker.problems == [] and checker.stack == [], (
            page,
            checker.problems[:3],
            checker.stack,
        )
        soup = parse_html(page)
        assert soup.find_all(["iframe", "img", "svg", "object", "embed", "style"]) == [], page
        assert all(form.get("role") == "search" for form in soup.find_all("form")), page
        for script in soup.find_all("script"):
            assert OWN_SCRIPT.fullmatch(str(script.get("src", ""))), (page, script)
            assert script.get_text() == ""
        for tag in soup.find_all(True):
            for name, value in tag.attrs.items():
                assert not name.lower().startswith("on"), (page, tag.name, name)
                if name in ("href", "src", "action", "content"):
                    lowered = re.sub(r"[\x00-\x20]", "", str(value)).lower()
                    assert not lowered.startswith(("javascript:", "vbscript:", "data:")), (
                        page,
                        value,
                    )
        csp = soup.find("meta", attrs={"http-equiv": "Content-Security-Policy"})
        assert csp is not None and "script-src 'self'" in str(csp["content"]), page
    index = (out / "assets" / "search-index.js").read_text(encoding="utf-8")
    assert "</script" not in index.lower() and "<" not in index


@pytest.mark.parametrize("case", STATIC_CASES)
def test_static_hostile_case(case: str, make_content, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    text = (HOSTILE / case).read_text(encoding="utf-8")
    expect = text.splitlines()[0].removeprefix("# expect: ")
    content = make_content({"errors/case.yaml": text})
    out = tmp_path / "site"
    result = build(content, out)
    assert "Traceback" not in result.stderr, result.stderr
    if expect == "builds":
        assert result.returncode == 0, result.stderr
        assert_inert_and_valid(out)
    else:
        assert result.returncode == 1, result.stderr
        assert re.search(
            r"case\.yaml(:\d+:\d+)?: " + re.escape(expect.removeprefix("error: ")), result.stderr
        ), result.stderr
        assert not out.exists()


def deep_nesting(depth: int) -> bytes:
    return valid_record().encode() + b"tags: " + b"[" * depth + b"]" * depth + b"\n"


def billion_laughs() -> bytes:
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    lines += [f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 12)]
    return (valid_record() + "\n".join(lines) + "\ntags: *a11\n").encode()


# name -> (files to write as bytes, or a function making the tree; expected stderr pattern or None)
BYTE_CASES: dict[str, tuple[dict[str, bytes], str | None]] = {
    "billion-laughs": ({"errors/a.yaml": billion_laughs()}, r"a\.yaml:\d+:\d+: .*YAML aliases"),
    "python-object-tag": (
        {
            "errors/a.yaml": valid_record()
            .replace("bad widget\n", "!!python/object/apply:os.system [id]\n", 1)
            .encode()
        },
        r"a\.yaml:4:10: message: YAML tag '!!python/object/apply:os.system' is not allowed",
    ),
    "duplicate-keys": (
        {"errors/a.yaml": (valid_record() + "repo: other/repo\n").encode()},
        r"a\.yaml:17:1: repo: duplicate key 'repo' \(first defined on line 2\)",
    ),
    "deep-nesting-100": (
        {"errors/a.yaml": deep_nesting(100)},
        r"a\.yaml:\d+:\d+: tags.*: nested deeper than 40",
    ),
    "deep-nesting-50000": ({"errors/a.yaml": deep_nesting(50000)}, r"a\.yaml:\d+:\d+: "),
    "invalid-utf8": (
        {
            "errors/a.yaml": valid_record()
            .encode()
            .replace(b"bad widget", b"bad \xff\xfe widget", 1)
        },
        r"a\.yaml:4:14: file is not valid UTF-8",
    ),
    "bom": ({"errors/a.yaml": b"\xef\xbb\xbf" + valid_record().encode()}, None),
    "crlf": ({"errors/a.yaml": valid_record().replace("\n", "\r\n").encode()}, None),
    "empty-file": (
        {"errors/a.yaml": b""},
        r"a\.yaml:1:1: a record must be a mapping of fields, got an empty file",
    ),
    "only-comment": (
        {"errors/a.yaml": b"# nothing here\n"},
        r"a\.yaml:1:1: a record must be a mapping",
    ),
    "ids-differ-in-case": (
        {
            "errors/a.yaml": valid_record().encode(),
            "errors/b.yaml": valid_record("0123456789ABCDEF", "other").encode(),
        },
        r"b\.yaml:1:5: id: '0123456789ABCDEF' is not valid",
    ),
    "repos-differ-in-case": (
        {
            "errors/a.yaml": valid_record().encode(),
            "errors/b.yaml": valid_record("fedcba9876543210", "other")
            .replace("acme/widgets", "Acme/Widgets")
            .encode(),
        },
        r"output path repos/acme/widgets/index.html is also written by|output path repos/Acme/Widgets/index.html is also written by",
    ),
}


@pytest.mark.parametrize("case", sorted(BYTE_CASES))
def test_byte_hostile_case(case: str, tmp_path: Path) -> None:
    files, expected = BYTE_CASES[case]
    content = tmp_path / "content"
    for name, data in files.items():
        (content / name).parent.mkdir(parents=True, exist_ok=True)
        (content / name).write_bytes(data)
    out = tmp_path / "site"
    result = build(content, out)
    assert "Traceback" not in result.stderr, result.stderr[-2000:]
    if expected is None:
        assert result.returncode == 0, result.stderr
        assert_inert_and_valid(out)
    else:
        assert result.returncode == 1, result.stderr[-2000:]
        assert re.search(expected, result.stderr), result.stderr[-2000:]


def fifty_megabytes(content: Path) -> str:
    (content / "errors" / "big.yaml").write_bytes(
        valid_record().encode() + b"#" * (50 * 1024 * 1024) + b"\n"
    )
    return r"big\.yaml: file is \d+ bytes; the limit is 2097152 bytes"


def folder_named_yaml(content: Path) -> str:
    (content / "errors" / "x.yaml").mkdir()
    return r"x\.yaml: a folder is named like a record file"


def symlink_out_of_content(content: Path) -> str:
    outside = content.parent / "outside.yaml"
    outside.write_text(valid_record())
    os.symlink(outside, content / "errors" / "link.yaml")
    return r"link\.yaml: symbolic link points outside the content folder; refusing to read it"


def snippet_symlink_out(content: Path) -> str:
    secret = content.parent / "secret.py"
    secret.write_text("---\npath: a.py\ncommit: abcdef1\nstart_line: 1\n---\nTOP SECRET\n")
    (content / "snippets").mkdir()
    os.symlink(secret, content / "snippets" / "s.py")
    record = (
        valid_record().split("  commit:")[0]
        + "  commit: abcdef1\n  snippet_file: s.py\nsolutions: [x]\n"
    )
    (content / "errors" / "a.yaml").write_text(record)
    return r"s\.py: symbolic link points outside the content folder"


def symlink_loop(content: Path) -> str:
    """A link to a folder that holds it: listing through it would never end."""
    (content / "errors" / "a.yaml").write_text(valid_record())
    (content / "errors" / "deeper").mkdir()
    os.symlink(content / "errors", content / "errors" / "deeper" / "again")
    return r"again: symbolic link loops back to a folder that holds it"


def symlinks_in_a_ring(content: Path) -> str:
    """Two folders linking to each other: a loop no single link shows."""
    (content / "errors" / "a.yaml").write_text(valid_record())
    (content / "errors" / "one").mkdir()
    (content / "errors" / "two").mkdir()
    os.symlink(content / "errors" / "two", content / "errors" / "one" / "to-two")
    os.symlink(content / "errors" / "one", content / "errors" / "two" / "to-one")
    return r"to-(one|two): symbolic link loops back to a folder that holds it"


def errors_folder_linked_out(content: Path) -> str:
    """content/errors itself a link out of content/: its records are not read from there."""
    outside = content.parent / "elsewhere"
    outside.mkdir()
    (outside / "a.yaml").write_text(valid_record())
    (content / "errors").rmdir()
    os.symlink(outside, content / "errors")
    return r"errors: symbolic link points outside the content folder; refusing to read it"


TREE_CASES: dict[str, Callable[[Path], str]] = {
    "fifty-megabytes": fifty_megabytes,
    "folder-named-yaml": folder_named_yaml,
    "symlink-out-of-content": symlink_out_of_content,
    "snippet-symlink-out": snippet_symlink_out,
    "symlink-loop": symlink_loop,
    "symlinks-in-a-ring": symlinks_in_a_ring,
    "errors-folder-linked-out": errors_folder_linked_out,
}


@pytest.mark.parametrize("case", sorted(TREE_CASES))
def test_tree_hostile_case(case: str, tmp_path: Path) -> None:
    content = tmp_path / "content"
    (content / "errors").mkdir(parents=True)
    expected = TREE_CASES[case](content)
    out = tmp_path / "site"
    result = build(content, out)
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert re.search(expected, result.stderr), result.stderr
    assert "TOP SECRET" not in result.stderr + result.stdout


ERRPAGES = (sys.executable, "-m", "errpages")
PASTED = "\x1b]0;PWNED\x07\x1b[2J \x1b]0;VALUE\x07"
FORGED = "\n::error file=README.md,line=1::INJECTED"
TITLE = "\x1b]0;PWNED\x07"


def test_names_and_keys_cannot_forge_output_lines_or_reach_the_terminal(
    make_content, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    """A record file named with a newline and a workflow command, an unknown key holding a
    newline, and an ESC ] … BEL title sequence: every format shows them escaped."""
    record = valid_record() + r'"bad\n::error file=README.md,line=1::X": 1' + "\n"
    record += r'"\e]0;PWNED\a": 2' + "\n"
    content = make_content({f"errors/x{FORGED}{TITLE}.yaml": record})
    for output_format in ("text", "github", "json"):
        result = subprocess.run(
            [*ERRPAGES, "check", "--content", str(content), "--format", output_format],
            capture_output=True,
            text=True,
            cwd=REPO_ROOT,
            check=False,
        )
        printed = result.stdout + result.stderr
        assert result.returncode == 1, printed
        assert "\x1b" not in printed and "\x07" not in printed, output_format
        lines = printed.splitlines()
        assert not [line for line in lines if line.startswith("::error file=README.md")]
        if output_format == "github":
            annotations = [line for line in result.stdout.splitlines() if line]
            assert len(annotations) == 2 and all(a.startswith("::error file=") for a in annotations)
        if output_format == "text":
            assert "x\\n::error file=README.md,line=1::INJECTED\\x1b]0;PWNED\\x07.yaml" in printed


def test_lookup_prints_record_text_and_values_escaped(make_content) -> None:  # type: ignore[no-untyped-def]
    record = valid_record(message=r'"clear\e]0;PWNED\a\e[2J {value}"')
    content = make_content({"errors/a.yaml": record})
    result = subprocess.run(
        [*ERRPAGES, "lookup", "--content", str(content), "--text", f"ValueError: clear{PASTED}"],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout
    assert "clear\\x1b]0;PWNED\\x07\\x1b[2J" in result.stdout
    assert "value = \\x1b]0;VALUE\\x07" in result.stdout


def test_control_characters_are_shown_and_the_feed_stays_well_formed(
    make_content, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    import xml.etree.ElementTree as ElementTree

    message = '"nul \\0 esc \\e bel \\a bs \\b not \\uFFFE end"'
    record = valid_record(message=message) + "analysis: {by: x, date: 2026-01-02}\n"
    content = make_content({"errors/a.yaml": record, "site.yaml": "base_url: https://e.example/\n"})
    out = tmp_path / "site"
    result = subprocess.run(
        [sys.executable, "-m", "errpages", "build", "--content", str(content), "--out", str(out)],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    feed = ElementTree.fromstring((out / "feed.xml").read_bytes())  # well-formed XML 1.0
    titles = [e.text or "" for e in feed.iter("{http://www.w3.org/2005/Atom}title")]
    assert any(
        "nul [U+0000] esc [U+001B] bel [U+0007] bs [U+0008] not [U+FFFE]" in t for t in titles
    )
    ElementTree.fromstring((out / "sitemap.xml").read_bytes())
    page = parse_html(out / "errors" / "0123456789abcdef" / "index.html")
    shown = page.select_one("#message").get_text()
    for code in ("U+0000", "U+001B", "U+0007", "U+0008", "U+FFFE"):
        assert f"[{code}]" in shown


@pytest.mark.parametrize("case", ["fifo-record", "upper-case-suffix", "site-folder", "site-fifo"])
def test_files_that_are_not_what_they_are_named_are_errors(
    case: str, make_content, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    content = make_content({"errors/a.yaml": valid_record()})
    expected = {
        "fifo-record": "errors/b.yaml: not a regular file (a FIFO, socket or device)",
        "upper-case-suffix": "errors/B.YAML: record files end in '.yaml' or '.yml', in lowercase",
        "site-folder": "site.yaml: expected a YAML file, found a folder",
        "site-fifo": "site.yaml: expected a YAML file, found a special file",
    }[case]
    if case == "fifo-record":
        os.mkfifo(content / "errors" / "b.yaml")
    elif case == "upper-case-suffix":
        (content / "errors" / "B.YAML").write_text(valid_record("fedcba9876543210", "other"))
    elif case == "site-folder":
        (content / "site.yaml").mkdir()
    else:
        os.mkfifo(content / "site.yaml")
    result = subprocess.run(
        [*ERRPAGES, "build", "--content", str(content), "--out", str(tmp_path / "site")],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        check=False,
        timeout=60,
    )
    assert result.returncode == 1, result.stdout
    assert f"{content}/{expected}" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_theme_that_raises_is_a_template_error(make_content, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    content = make_content({"errors/a.yaml": valid_record(), "site.yaml": "theme: content/t\n"})
    (content / "t" / "templates").mkdir(parents=True)
    base = (REPO_ROOT / "themes" / "default" / "templates" / "error.html").read_text()
    for payload, raised in (
        ("{{ 1 / 0 }}", "ZeroDivisionError"),
        ("{{ '€'.encode('ascii') }}", "UnicodeEncodeError"),
    ):
        page = base.replace("{% block main %}", "{% block main %}" + payload, 1)
        (content / "t" / "templates" / "error.html").write_text(page)
        result = subprocess.run(
            [*ERRPAGES, "build", "--content", str(content), "--out", str(tmp_path / "site")],
            capture_output=True,
            text=True,
            cwd=REPO_ROOT,
            check=False,
        )
        assert result.returncode == 1
        assert "Traceback" not in result.stderr
        assert f"template: TemplateRuntimeError: {raised}" in result.stderr


class RunsCode:
    """Unpickled, this runs a shell command: what a crafted cache file held."""

    def __init__(self, command: str) -> None:
        self.command = command

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.system, (self.command,))


def test_a_crafted_cache_runs_no_code_and_is_simply_ignored(make_content, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import pickle

    content = make_content({"errors/a.yaml": valid_record()})
    out, cache = tmp_path / "site", tmp_path / "cache"
    build_args = [*ERRPAGES, "build", "--content", str(content), "--out", str(out)]
    build_args += ["--cache-dir", str(cache)]
    first = subprocess.run(build_args, capture_output=True, text=True, cwd=tmp_path, check=False)
    assert first.returncode == 0, first.stderr
    database = next(cache.glob("build-*.sqlite"))
    mark = tmp_path / "MARK"
    payload = pickle.dumps(RunsCode(f"touch {mark}"))
    database.with_suffix(".pickle").write_bytes(payload)  # where the head used to be
    crafted = b'[20,{"code":{"__reduce__":"os.system"}}]'
    import sqlite3

    with sqlite3.connect(database) as db:  # the head, every full record too
        db.execute("UPDATE head SET data = ?", (crafted,))
        db.execute("UPDATE records SET data = ?", (payload,))
    for state in (".head", ".site"):  # and the files beside it
        database.with_suffix(state).write_bytes(payload)
    (content / "errors" / "a.yaml").write_text(valid_record(message="worse widget"))
    again = subprocess.run(build_args, capture_output=True, text=True, cwd=tmp_path, check=False)
    assert again.returncode == 0, again.stderr
    assert "Traceback" not in again.stderr
    assert not mark.exists() and not (tmp_path / "MARK").exists()
    assert tree_bytes(out) == clean_tree(content, tmp_path)


def clean_tree(content: Path, tmp_path: Path) -> dict[str, bytes]:
    """What a build from scratch (no cache) makes of the content."""
    clean = tmp_path / "clean"
    subprocess.run(
        [*ERRPAGES, "build", "--content", str(content), "--out", str(clean), "--no-cache"],
        capture_output=True,
        check=True,
        cwd=tmp_path,
    )
    return tree_bytes(clean)


def tree_bytes(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_unknown_related_ids_get_a_bounded_did_you_mean(make_content) -> None:  # type: ignore[no-untyped-def]
    """A one-digit typo still finds its id; a thousand unknown ids do not each compare
    themselves with every id of the site (3,000 here)."""
    import time

    files = {}
    for index in range(3000):
        files[f"errors/r{index}.yaml"] = valid_record(f'"a{index:015x}"', f"widget {index}")
    typo = f"b{1:015x}"  # a000…001 with its first digit mistyped
    files["errors/r1.yaml"] = (
        valid_record(f'"a{1:015x}"', "widget 1")
        + "related:\n"
        + "".join(f'  - "{i}"\n' for i in [typo, *[f"c{index:015x}" for index in range(1000)]])
    )
    content = make_content(files)
    started = time.perf_counter()
    result = subprocess.run(
        [*ERRPAGES, "check", "--content", str(content)],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        check=False,
    )
    elapsed = time.perf_counter() - started
    assert result.returncode == 1
    assert f"unknown error id {typo}" in result.stderr
    assert f"hint: did you mean 'a{1:015x}'?" in result.stderr
    assert result.stderr.count("unknown error id") == 1001
    assert elapsed < 60, elapsed  # was minutes for this many; the bound is the point


def wrong_types(value: Any) -> Any:
    """The same JSON with every string a number: well-formed, of the right shape, all wrong."""
    if isinstance(value, str):
        return 12345
    if isinstance(value, list):
        return [wrong_types(item) for item in value]
    if isinstance(value, dict):
        return {key: wrong_types(item) for key, item in value.items()}
    return value


@pytest.mark.parametrize(
    "part", ["nothing", "rows", "records", "unknown field", "outputs", "head", "state"]
)
def test_a_cache_of_the_wrong_types_is_not_used(part: str, make_content, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A cache folder holding valid JSON of the wrong types (as a pull request could add)
    gives no traceback from code trusting those types later: the build equals a clean one."""
    import json
    import sqlite3

    related = valid_record("00000000000000b2", "other widget") + "related: ['0123456789abcdef']\n"
    # In a file of its own: a's neighbour in widgets/core.py would show a's new title too.
    other = valid_record("00000000000000c3", "third widget").replace("core.py", "other.py")
    content = make_content(
        {"errors/a.yaml": valid_record(), "errors/b.yaml": related, "errors/c.yaml": other}
    )
    an_hour_ago = time.time() - 3600  # not written in the cache's own moment: b and c are reused
    for name in ("b.yaml", "c.yaml"):
        os.utime(content / "errors" / name, (an_hour_ago, an_hour_ago))
    out, cache = tmp_path / "site", tmp_path / "cache"
    build_args = [*ERRPAGES, "build", "--content", str(content), "--out", str(out)]
    build_args += ["--cache-dir", str(cache)]
    first = subprocess.run(build_args, capture_output=True, text=True, cwd=tmp_path, check=False)
    assert first.returncode == 0, first.stderr
    database = next(cache.glob("build-*.sqlite"))
    if part in ("rows", "records", "unknown field"):
        table, column = ("entries", "meta") if part == "rows" else ("records", "data")
        with sqlite3.connect(database) as db:
            for file, data in db.execute(f"SELECT file, {column} FROM {table}").fetchall():
                if part == "unknown field":
                    crafted = data.replace(b'"message":', b'"__class__":', 1)
                    assert crafted != data
                else:
                    crafted = json.dumps(wrong_types(json.loads(data))).encode()
                db.execute(f"UPDATE {table} SET {column} = ? WHERE file = ?", (crafted, file))
    elif part == "outputs":
        with sqlite3.connect(database) as db:
            db.execute("UPDATE outputs SET links = '[[1, 2]]', words = 3")
    elif part == "head":
        with sqlite3.connect(database) as db:
            (data,) = db.execute("SELECT data FROM head").fetchone()
            crafted = json.dumps(wrong_types(json.loads(data))).encode()
            db.execute("UPDATE head SET data = ?", (crafted,))
    elif part == "state":  # the publisher's: what it put in the output folder
        state = database.with_suffix(".site")
        live, tables = state.read_bytes().split(b"\n", 1)
        state.write_bytes(live + b"\n" + json.dumps(wrong_types(json.loads(tables))).encode())
    # A changed title: b's page, which links to a, is made again from b's cached record.
    (content / "errors" / "a.yaml").write_text(valid_record(message="worse widget"))
    again = subprocess.run(build_args, capture_output=True, text=True, cwd=tmp_path, check=False)
    assert again.returncode == 0, again.stderr
    assert "Traceback" not in again.stderr
    if part == "nothing":  # the cache is used: c's page is kept, b's made from its cached record
        assert "2 rendered, 1 unchanged" in again.stdout, again.stdout
    assert tree_bytes(out) == clean_tree(content, tmp_path)
