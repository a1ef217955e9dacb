"""Read-only access to a local git repository.

Everything here reads objects (`rev-parse`, `cat-file`, `ls-tree`, `diff-tree`);
nothing checks out, stashes, or writes into `.git`. GIT_OPTIONAL_LOCKS=0 keeps
git from taking the index lock it may otherwise take to refresh stat data.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from generator.content.schema import is_repo_path


class GitError(Exception):
    """A git question that has no answer: not a repository, unknown commit, missing path."""


@dataclass(frozen=True)
class Repository:
    path: Path

    def run(self, *args: str, input_bytes: bytes | None = None) -> bytes:
        env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}
        try:
            result = subprocess.run(
                ["git", "-C", str(self.path), "-c", "core.quotepath=off", *args],
                input=input_bytes,
                capture_output=True,
                env=env,
                check=False,
            )
        except FileNotFoundError as exc:
            raise GitError("git is not installed") from exc
        if result.returncode != 0:
            message = result.stderr.decode(errors="replace").strip().splitlines()
            raise GitError(message[-1] if message else f"git {args[0]} failed")
        return result.stdout


def open_repository(path: Path) -> Repository:
    """Check that path is inside a git work tree (or is a bare repository)."""
    if not path.is_dir():
        raise GitError(f"{path} is not a folder")
    repository = Repository(path)
    try:
        repository.run("rev-parse", "--git-dir")
    except GitError as exc:
        raise GitError(f"{path} is not a git repository") from exc
    return repository


def resolve_commit(repository: Repository, rev: str) -> str:
    """The full hash of the commit REV names."""
    if rev.startswith("-"):
        raise GitError(f"unknown commit {rev!r}")
    try:
        out = repository.run(
            "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"
        )
    except GitError as exc:
        raise GitError(f"unknown commit {rev!r} in {repository.path}") from exc
    return out.decode().strip()


def read_file(repository: Repository, commit: str, path: str) -> bytes:
    """The bytes of path at commit."""
    try:
        kind = repository.run("cat-file", "-t", f"{commit}:{path}").decode().strip()
    except GitError as exc:
        raise GitError(f"{path} does not exist at commit {commit[:12]}") from exc
    if kind != "blob":
        raise GitError(f"{path} is a {kind} at commit {commit[:12]}, not a file")
    return repository.run("cat-file", "blob", f"{commit}:{path}")


def list_files(repository: Repository, commit: str, under: str = "") -> list[str]:
    """Every file path in the commit's tree (below `under`), sorted."""
    args = ["ls-tree", "-r", "-z", "--name-only", commit]
    if under:
        args += ["--", under.rstrip("/") + "/"]
    out = repository.run(*args)
    return sorted(p for p in out.decode("utf-8", errors="surrogateescape").split("\0") if p)


def read_files(repository: Repository, commit: str, paths: list[str]) -> dict[str, bytes]:
    """Read many files at one commit with a single `git cat-file --batch`."""
    if not paths:
        return {}
    request = "".join(f"{commit}:{path}\n" for path in paths).encode("utf-8", "surrogateescape")
    out = repository.run("cat-file", "--batch", input_bytes=request)
    files: dict[str, bytes] = {}
    at = 0
    for path in paths:
        header_end = out.index(b"\n", at)
        header = out[at:header_end].split()
        at = header_end + 1
        if len(header) < 3 or header[1] != b"blob":
            continue  # missing, or not a file
        size = int(header[2])
        files[path] = out[at : at + size]
        at += size + 1
    return files


def renamed_path(repository: Repository, old_commit: str, new_commit: str, path: str) -> str | None:
    """Where path went between two commits, following git's rename detection."""
    out = repository.run("diff-tree", "-r", "-M", "-z", "--name-status", old_commit, new_commit)
    fields = out.decode("utf-8", errors="surrogateescape").split("\0")
    at = 0
    while at < len(fields) - 1:
        status = fields[at]
        if status.startswith(("R", "C")):
            source, target = fields[at + 1], fields[at + 2]
            if source == path and status.startswith("R"):
                return target if is_repo_path(target) else None  # `..` in a tree: untrusted
            at += 3
        else:
            at += 2
    return None
