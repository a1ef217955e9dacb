"""No input of ours becomes a traceback or a file name: names that are not UTF-8, values with a
final line break, a base URL from the command line, and where a forbidden character is."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import EXAMPLE_CONTENT, REPO_ROOT, run_cli, valid_record

ERRPAGES = [sys.executable, "-m", "errpages"]


def errpages(*args: str | bytes, cwd: Path) -> subprocess.CompletedProcess[str]:
    """errpages in a child process (its arguments may be bytes that are not UTF-8)."""
    result = subprocess.run(
        [*ERRPAGES, *args],
        capture_output=True,
        text=True,
        errors="backslashreplace",
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        check=False,
    )
    assert "Traceback" not in result.stderr, result.stderr
    return result


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        (b"errors/x\xff.yaml", r"errors/x\xff.yaml"),
        (b"errors/acme/d\xfe/a.yaml", r"errors/acme/d\xfe"),
        (b"snippets/s\xff.py", r"snippets/s\xff.py"),
    ],
)
def test_a_record_or_snippet_named_in_bytes_that_are_not_utf8_is_an_error(
    name: bytes, shown: str, tmp_path: Path
) -> None:
    content = tmp_path / "content"
    (content / "errors").mkdir(parents=True)
    (content / "errors" / "a.yaml").write_text(valid_record())
    path = os.fsencode(content) + b"/" + name
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as stream:
        stream.write(valid_record("00000000000000b2", "other widget").encode())
    for command in ("build", "check"):
        result = errpages(command, "--content", "content", cwd=tmp_path)
        assert result.returncode == 1
        assert f"content/{shown}: the name is not UTF-8; rename it, or it is not read" in (
            result.stderr
        )


def test_a_content_folder_named_in_bytes_that_are_not_utf8_builds(tmp_path: Path) -> None:
    """Its name shown with the byte escaped; build (and again, from the cache), check and
    lookup all work; a stray file elsewhere in it, so named, is not read."""
    folder = os.fsencode(tmp_path) + b"/c\xff"
    shutil.copytree(EXAMPLE_CONTENT, folder.decode("utf-8", "surrogateescape"))
    with open(folder + b"/notes-\xfe.txt", "wb") as stream:
        stream.write(b"a stray file\n")
    content, out = b"c\xff", b"s\xfe"
    built = errpages("build", "--content", content, "--out", out, cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    assert built.stdout.startswith(r"Built 9 errors into s\xfe: 9 rendered")
    record = next(Path(folder.decode("utf-8", "surrogateescape"), "errors").rglob("*.yaml"))
    record.write_text(record.read_text().replace("meaning: ", "meaning: Edited. ", 1))
    again = errpages("build", "--content", content, "--out", out, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert "1 rendered, 8 unchanged" in again.stdout
    assert errpages("check", "--content", content, cwd=tmp_path).returncode == 0
    found = errpages(
        "lookup", "--content", content, "--text",
        "ValueError: MiniCPM SALA does not support hierarchical cache", cwd=tmp_path,
    )  # fmt: skip
    assert found.returncode == 0 and "fdffa8e3ed0ceedb" in found.stdout


def test_init_in_a_folder_named_in_bytes_that_are_not_utf8_starts_a_site_that_checks(
    tmp_path: Path,
) -> None:
    folder = os.fsencode(tmp_path) + b"/proj\xff"
    os.mkdir(folder)
    started = errpages("init", b"proj\xff", cwd=tmp_path)
    assert started.returncode == 0, started.stderr
    with open(folder + b"/content/site.yaml", "rb") as stream:
        assert b'title: "proj\\ufffd error reference"' in stream.read()
    checked = errpages("check", "--strict", "--content", b"proj\xff/content", cwd=tmp_path)
    assert checked.returncode == 0, checked.stderr


# A value that a pattern validates, with a line break at its end (which `$` lets by).
LINE_BREAK_CASES = {
    "id": (
        valid_record().replace("id: 0123456789abcdef", 'id: "0123456789abcdef\\n"'),
        "a.yaml:1:5: id: '0123456789abcdef\\n' is not valid (expected 16 lowercase hex digits)",
    ),
    "repo": (
        valid_record().replace("repo: acme/widgets", 'repo: "acme/widgets\\n"'),
        "a.yaml:2:7: repo: 'acme/widgets\\n' is not valid (expected owner/name)",
    ),
    "alias": (
        valid_record() + 'aliases: ["00000000000000c3\\n"]\n',
        "a.yaml:17:11: aliases[0]: '00000000000000c3\\n' is not valid",
    ),
    "related": (
        valid_record() + 'related: ["00000000000000c3\\n"]\n',
        "a.yaml:17:11: related[0]: '00000000000000c3\\n' is not valid",
    ),
    "commit": (
        valid_record().replace("commit: abcdef1234567", 'commit: "abcdef1234567\\n"'),
        "a.yaml:9:11: source.commit: 'abcdef1234567\\n' is not valid",
    ),
    "analysis date": (
        valid_record() + 'analysis: {by: me, date: "2026-01-02\\n"}\n',
        "a.yaml:17:26: analysis.date: '2026-01-02\\n' is not valid",
    ),
    "base_url": (
        'base_url: "https://errors.example.org/\\n"\n',
        "site.yaml:1:11: base_url: 'https://errors.example.org/\\n' is not valid",
    ),
    "repos": (
        'repos: {"acme/widgets\\n": {source_url: gitlab}}\n',
        "site.yaml:1:9: repos.acme/widgets\\n: 'acme/widgets\\n' is not owner/name",
    ),
}


@pytest.mark.parametrize("case", sorted(LINE_BREAK_CASES))
def test_a_value_with_a_final_line_break_is_refused(case: str, make_content) -> None:  # type: ignore[no-untyped-def]
    text, expected = LINE_BREAK_CASES[case]
    in_site = expected.startswith("site.yaml")
    files = {"site.yaml": text, "errors/a.yaml": valid_record()} if in_site else {}
    content = make_content(files or {"errors/a.yaml": text})
    result = run_cli("check", "--content", str(content))
    assert result.exit_code == 1
    assert f"{'' if in_site else 'errors/'}{expected}" in result.stderr, result.stderr


def test_cli_values_with_a_final_line_break_are_refused(tmp_path: Path) -> None:
    content = tmp_path / "content"
    (content / "errors").mkdir(parents=True)
    (content / "published-ids.txt").write_text("0123456789abcdef\n")
    forget = run_cli("ids", "forget", "0123456789abcdef\n", "--content", str(content))
    assert forget.exit_code == 2 and "is not an id" in forget.output
    new = run_cli(
        "new", "--content", str(content), "--repo", "acme/widgets\n",
        "--exception", "ValueError", "--message", "bad widget",
    )  # fmt: skip
    assert new.exit_code != 0
    assert list((content / "errors").iterdir()) == []


@pytest.mark.parametrize(
    "url", ["javascript:alert(document.domain)//", "https://x.example/\n", "https://x.example/\nb"]
)
def test_a_base_url_on_the_command_line_is_held_to_what_site_yaml_allows(
    url: str, tmp_path: Path, make_content
) -> None:  # type: ignore[no-untyped-def]
    content = make_content({"errors/a.yaml": valid_record()})
    for command in (
        ["build", "--out", str(tmp_path / "site")],
        ["lookup", "--text", "ValueError: bad widget"],
        ["export", "python", str(tmp_path / "links.py")],
    ):
        result = run_cli(*command, "--content", str(content), "--base-url", url)
        assert result.exit_code == 2, (command, result.output)
        assert f"Invalid value for '--base-url': {url!r} is not an http(s) URL" in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["content"]


def test_the_action_refuses_a_base_url_that_is_not_one(tmp_path: Path) -> None:
    from tests.test_ci_tools import script

    shutil.copytree(EXAMPLE_CONTENT, tmp_path / "content")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "errpages").write_text(f'#!/bin/sh\nexec {sys.executable} -m errpages "$@"\n')
    (bin_dir / "errpages").chmod(0o755)
    env = {
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "PYTHONPATH": str(REPO_ROOT),
        "ERRPAGES_BASE_URL": "javascript:alert(document.domain)//",
    }
    built = script("build.sh", env, tmp_path)
    assert built.returncode == 2
    assert "is not an http(s) URL" in built.stderr
    assert not (tmp_path / "site").exists()


@pytest.mark.parametrize("before", ["日本語", "a\u200bb", "😀😀", "plain"])
def test_a_forbidden_character_is_placed_at_its_column_in_characters(
    before: str, make_content
) -> None:  # type: ignore[no-untyped-def]
    content = make_content({"errors/a.yaml": valid_record(message=f'"{before}\ufffe widget"')})
    result = run_cli("check", "--content", str(content))
    assert result.exit_code == 1
    column = len('message: "') + len(before) + 1
    assert f"errors/a.yaml:4:{column}: character U+FFFE is not allowed" in result.stderr
