"""Source links for GitHub, GitLab, Bitbucket, Codeberg and custom hosts, per repository."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import parse_html, run_cli, valid_record

SITE = """\
source_url: gitlab
repos:
  acme/bb:
    source_url: bitbucket
  acme/cb:
    source_url: codeberg
  acme/own:
    source_url: "https://git.example.org/{repo}/src/{commit}/{path}?lines={start}-{end}#L{line}"
    source_host: Example Git
"""


def link(out: Path, error_id: str) -> tuple[str, str]:
    anchor = parse_html(out / "errors" / error_id / "index.html").select_one(".source-link a")
    assert anchor is not None
    return str(anchor["href"]), " ".join(anchor.get_text().split())


def test_each_repository_links_to_its_own_host(make_content, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    records = {
        "errors/a.yaml": valid_record("000000000000000a", "a"),
        "errors/b.yaml": valid_record("000000000000000b", "b").replace("acme/widgets", "acme/bb"),
        "errors/c.yaml": valid_record("000000000000000c", "c").replace("acme/widgets", "acme/cb"),
        "errors/d.yaml": valid_record("000000000000000d", "d").replace("acme/widgets", "acme/own"),
        "site.yaml": SITE,
    }
    content = make_content(records)
    out = tmp_path / "site"
    result = run_cli("build", "--content", str(content), "--out", str(out))
    assert result.exit_code == 0, result.output
    commit = "abcdef1234567"
    assert link(out, "000000000000000a") == (
        f"https://gitlab.com/acme/widgets/-/blob/{commit}/widgets/core.py#L12",
        f"View on GitLab (pinned to {commit[:10]})",
    )
    assert link(out, "000000000000000b") == (
        f"https://bitbucket.org/acme/bb/src/{commit}/widgets/core.py#lines-12",
        f"View on Bitbucket (pinned to {commit[:10]})",
    )
    assert link(out, "000000000000000c") == (
        f"https://codeberg.org/acme/cb/src/commit/{commit}/widgets/core.py#L12",
        f"View on Codeberg (pinned to {commit[:10]})",
    )
    assert link(out, "000000000000000d") == (
        f"https://git.example.org/acme/own/src/{commit}/widgets/core.py?lines=10-12#L12",
        f"View on Example Git (pinned to {commit[:10]})",
    )


def test_unknown_host_and_placeholder_are_errors(make_content) -> None:  # type: ignore[no-untyped-def]
    site = "source_url: gitlba\nrepos:\n  acme/x:\n    source_url: 'https://h/{repo}/{sha}'\n"
    content = make_content({"errors/a.yaml": valid_record(), "site.yaml": site})
    result = run_cli("check", "--content", str(content))
    assert result.exit_code == 1
    assert "site.yaml:1:13: source_url: unknown source host 'gitlba'" in result.stderr
    assert "hint: did you mean 'gitlab'?" in result.stderr
    assert "repos.acme/x.source_url: unknown placeholder {sha}" in result.stderr
