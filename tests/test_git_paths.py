"""Paths in a commit are untrusted: a tree whose entries hold `..` (git lists and serves
them; `git mktree` makes them) never makes scan, pin or drift write outside content/."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.conftest import run_cli
from tests.gitrepo import GitRepo

OK = 'def ok(x):\n    if x:\n        raise ValueError("plain file raises")\n'
EVIL = 'def evil(x):\n    if x:\n        raise ValueError("escaping file raises")\n'


def object_of(repo: GitRepo, kind: str, text: str) -> str:
    command = [
        "git",
        "-C",
        str(repo.path),
        kind,
        *(["-w", "--stdin"] if kind == "hash-object" else []),
    ]
    return subprocess.run(
        command, input=text, capture_output=True, text=True, check=True
    ).stdout.strip()


def commit_tree(repo: GitRepo, files: dict[str, str], dotdot: dict[str, str]) -> str:
    """A commit whose root holds `files` and a subtree named `..` holding `dotdot`."""

    def tree(entries: dict[str, str]) -> str:
        lines = [
            f"100644 blob {object_of(repo, 'hash-object', t)}\t{n}" for n, t in entries.items()
        ]
        return "\n".join(lines) + "\n"

    inner = object_of(repo, "mktree", tree(dotdot))
    outer = object_of(repo, "mktree", tree(files) + f"040000 tree {inner}\t..\n")
    parent = repo.git("rev-parse", "-q", "--verify", "HEAD") if repo.git("branch") else ""
    args = ["commit-tree", outer, "-m", "tree with .."] + (["-p", parent] if parent else [])
    commit = repo.git(*args)
    repo.git("update-ref", "refs/heads/main", commit)
    return commit


def written_outside(tmp_path: Path, content: Path, project: Path) -> list[str]:
    return sorted(
        str(p.relative_to(tmp_path))
        for p in tmp_path.rglob("*")
        if p.is_file() and content not in p.parents and project not in p.parents
    )


def test_scan_skips_paths_that_leave_the_tree(tmp_path: Path, make_content) -> None:  # type: ignore[no-untyped-def]
    content = make_content({})
    repo = GitRepo(tmp_path / "project")
    commit_tree(repo, {"ok.py": OK}, {"evil.py": EVIL})
    assert "../evil.py" in repo.git("ls-tree", "-r", "--name-only", "HEAD").splitlines()
    before = written_outside(tmp_path, content, repo.path)
    result = run_cli("scan", str(repo.path), "--content", str(content), "--repo", "o/p", "--json")
    assert result.exit_code == 0, result.output
    assert written_outside(tmp_path, content, repo.path) == before
    assert '"records_created": 1' in result.stdout
    assert "not a plain path" in result.stdout and "../evil.py" in result.stdout
    assert not (tmp_path / "content" / "evil.py").exists()


def test_drift_update_does_not_follow_a_rename_out_of_the_tree(
    tmp_path: Path, make_content
) -> None:  # type: ignore[no-untyped-def]
    content = make_content({})
    repo = GitRepo(tmp_path / "project")
    repo.write("ok.py", OK)
    first = repo.commit("first")
    assert (
        run_cli("scan", str(repo.path), "--content", str(content), "--repo", "o/p").exit_code == 0
    )
    record = next((content / "errors").rglob("*.yaml"))
    record.write_text(record.read_text().replace("draft: true\n", ""))
    moved = commit_tree(repo, {"other.py": "x = 1\n"}, {"ok.py": OK})  # ok.py renamed to ../ok.py
    renames = repo.git("diff-tree", "-r", "-M", "--name-status", first, moved)
    assert "../ok.py" in renames
    before = written_outside(tmp_path, content, repo.path)
    snippets = sorted(p.name for p in (content / "snippets").rglob("*") if p.is_file())
    result = run_cli(
        "drift", "--content", str(content), "--repo-dir", str(repo.path), "--update", "--json"
    )
    assert result.exit_code == 0, result.output
    assert '"status": "removed"' in result.stdout
    assert written_outside(tmp_path, content, repo.path) == before
    assert sorted(p.name for p in (content / "snippets").rglob("*") if p.is_file()) == snippets
