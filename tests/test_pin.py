"""`errpages pin`: snippets taken from a real repository at a commit."""

from __future__ import annotations

from pathlib import Path

import yaml

from tests.conftest import run_cli
from tests.gitrepo import GitRepo

MODULE = '''"""Server argument checks."""


def check(cfg):
    if cfg.decode and cfg.dcp_size > 1:
        if cfg.backend not in ("mooncake", "nixl"):
            raise ValueError(
                "PD decode DCP requires --transfer-backend mooncake or nixl, "
                f"got {cfg.backend!r}."
            )
    if cfg.offload and cfg.storage is None:
        raise ValueError("offload needs a storage backend")
    return cfg
'''

RECORD = """\
# The DCP check. This comment, the key order and the quoting must survive.
repo: acme/srv
exception: ValueError
message: "PD decode DCP requires --transfer-backend mooncake or nixl, got {backend!r}."
meaning: >-
  DCP needs a backend that can re-lay out the KV cache.  # not a comment: folded text
source:
  path: pkg/server.py
  line: 3
  commit: "0000000"
  start_line: 1
  snippet: |
    old text
    old text
    raise ValueError("old")
solutions:
  - Use mooncake.  # a comment on an item
tags: [pd, dcp]
"""


def setup(tmp_path: Path, make_content) -> tuple[GitRepo, str, Path, Path]:  # type: ignore[no-untyped-def]
    repo = GitRepo(tmp_path / "srv")
    repo.write("pkg/server.py", MODULE)
    commit = repo.commit("first")
    content = make_content({"errors/dcp.yaml": RECORD})
    return repo, commit, content, content / "errors" / "dcp.yaml"


def test_pin_takes_the_snippet_and_keeps_the_record_layout(tmp_path: Path, make_content) -> None:  # type: ignore[no-untyped-def]
    repo, commit, content, record = setup(tmp_path, make_content)
    before = repo.state()
    result = run_cli("pin", str(record), "--content", str(content), "--repo-dir", str(repo.path))
    assert result.exit_code == 0, result.output
    assert f"to pkg/server.py:7 at {commit[:12]}" in result.stdout
    text = record.read_text()
    assert text.startswith(
        "# The DCP check. This comment, the key order and the quoting must survive.\n"
    )
    assert "  - Use mooncake.  # a comment on an item\n" in text
    assert "tags: [pd, dcp]\n" in text
    data = yaml.safe_load(text)
    assert data["source"] == {
        "path": "pkg/server.py",
        "line": 7,
        "commit": commit,
        "snippet_file": f"acme/srv/pkg/server.L4-13@{commit[:10]}.py",
    }
    snippet = (content / "snippets" / data["source"]["snippet_file"]).read_text()
    header, code = snippet.split("---\n")[1:3]
    assert yaml.safe_load(header)["start_line"] == 4  # the function the raise is in
    assert code == MODULE.split("\n\n\n", 1)[1]
    assert repo.state() == before
    check = run_cli("check", "--content", str(content))
    assert check.exit_code == 0, check.stderr


def test_pin_prefers_the_recorded_line_and_follows_a_moved_raise(
    tmp_path: Path, make_content
) -> None:  # type: ignore[no-untyped-def]
    repo, _, content, record = setup(tmp_path, make_content)
    repo.write(
        "pkg/server.py",
        MODULE.replace("def check(cfg):\n", "def check(cfg):\n    cfg = cfg or {}\n    # more\n"),
    )
    moved = repo.commit("move")
    result = run_cli(
        "pin",
        str(record),
        "--content",
        str(content),
        "--repo-dir",
        str(repo.path),
        "--context",
        "2",
    )
    assert result.exit_code == 0, result.output
    data = yaml.safe_load(record.read_text())
    assert data["source"]["line"] == 9
    assert data["source"]["commit"] == moved
    snippet = (content / "snippets" / data["source"]["snippet_file"]).read_text()
    assert yaml.safe_load(snippet.split("---\n")[1])["start_line"] == 7
    assert snippet.split("---\n")[2].count("\n") == 2 + 4 + 2


def test_pin_errors_are_clear(tmp_path: Path, make_content) -> None:  # type: ignore[no-untyped-def]
    repo, commit, content, record = setup(tmp_path, make_content)

    def pin(*extra: str) -> str:
        result = run_cli("pin", str(record), "--content", str(content), *extra)
        assert result.exit_code == 1, result.output
        assert "Traceback" not in result.output
        return result.stderr.strip()

    plain = tmp_path / "plain"
    plain.mkdir()
    assert pin("--repo-dir", str(plain)) == f"errpages pin: {plain} is not a git repository"
    assert "unknown commit 'v9'" in pin("--repo-dir", str(repo.path), "--commit", "v9")
    record.write_text(RECORD.replace("pkg/server.py", "pkg/gone.py"))
    assert f"pkg/gone.py does not exist at commit {commit[:12]}" in pin(
        "--repo-dir", str(repo.path)
    )
    record.write_text(RECORD.replace("got {backend!r}.", "received {backend!r}."))
    message = pin("--repo-dir", str(repo.path))
    assert message.startswith(
        "errpages pin: message not found in pkg/server.py; closest: pkg/server.py:7 ValueError("
    )
    repo.write("pkg/server.py", "\0\1\2binary")
    repo.commit("binary")
    record.write_text(RECORD)
    assert pin("--repo-dir", str(repo.path)) == "errpages pin: pkg/server.py is a binary file"
    missing = run_cli("pin", "nope.yaml", "--content", str(content), "--repo-dir", str(repo.path))
    assert missing.exit_code == 1 and "no record 'nope.yaml'" in missing.stderr


def test_snippets_hold_whole_statements_of_real_code() -> None:
    """Every snippet of every raise in some large standard-library modules starts and ends on
    statement boundaries: a statement is inside it, around it, or apart from it."""
    import argparse
    import ast
    import configparser
    import datetime
    import inspect
    import ipaddress
    import tarfile

    from errpages.git.pinning import MAX_SNIPPET_LINES, snippet_span, source_lines
    from errpages.git.pyraises.library import scan_source
    from errpages.git.pyraises.nodes import statement_span

    checked = 0
    for module in (argparse, configparser, datetime, ipaddress, tarfile):
        source = inspect.getsource(module)
        lines = source_lines(source)
        statements = [
            statement_span(node)
            for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.stmt)
        ]
        sites, _ = scan_source(source)
        assert len(sites) > 10, module.__name__
        for site in sites:
            start, end = snippet_span(lines, site, None)
            assert start <= site.line <= site.end_line <= end, (module.__name__, site.line)
            assert end - start + 1 <= MAX_SNIPPET_LINES
            for first, last in statements:
                apart = last < start or first > end
                assert apart or start <= first <= last <= end or first <= start <= end <= last, (
                    module.__name__,
                    site.line,
                    (start, end),
                    (first, last),
                )
            checked += 1
    assert checked > 200
