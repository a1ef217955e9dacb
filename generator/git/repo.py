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

from errpages.content.schema import is_repo_path


def git_environment() -> dict[str, str]:
    """No index lock taken, no prompt for credentials, messages in English."""
    return {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}


class GitError(Exception):
    """A git question that has no answer: not a repository, unknown commit, missing path."""


@dataclass(frozen=True)
class Repository:
    path: Path

    def run(self, *args: str) -> bytes:
        try:
            result = subprocess.run(
                ["git", "-C", str(self.path), "-c", "core.quotepath=off", *args],
                capture_output=True,
                env=git_environment(),
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


class ObjectReader:
    """One `git cat-file --batch` process that answers every read of a command: starting a
    git process per file read would cost more than parsing the file."""

    def __init__(self, repository: Repository) -> None:
        try:
            self.process = subprocess.Popen(
                ["git", "-C", str(repository.path), "cat-file", "--batch"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env=git_environment(),
            )
        except FileNotFoundError as exc:
            raise GitError("git is not installed") from exc

    def __enter__(self) -> ObjectReader:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.close()
        self.process.stdout.close()
        self.process.wait()

    def read(self, name: str) -> tuple[str, str, bytes] | None:
        """The object `name` (`commit:path`, a commit, …) as (hash, type, bytes); None when
        there is none. Names come from records and trees: one with a line break is refused."""
        stdin, stdout = self.process.stdin, self.process.stdout
        assert stdin is not None and stdout is not None
        if "\n" in name or "\r" in name:
            return None
        try:
            stdin.write(name.encode("utf-8", "surrogateescape") + b"\n")
            stdin.flush()
        except BrokenPipeError as exc:
            raise GitError("git cat-file stopped") from exc
        header = stdout.readline().split()
        if len(header) != 3 or not header[2].isdigit():
            if not header:
                raise GitError("git cat-file stopped")
            return None  # "<name> missing", "<name> ambiguous"
        data = stdout.read(int(header[2]))
        stdout.read(1)  # the line feed after each object
        return header[0].decode(), header[1].decode(), data

    def blob(self, commit: str, path: str) -> tuple[str, bytes]:
        """The hash and bytes of path at commit."""
        found = self.read(f"{commit}:{path}")
        if found is None:
            raise GitError(f"{path} does not exist at commit {commit[:12]}")
        sha, kind, data = found
        if kind != "blob":
            raise GitError(f"{path} is a {kind} at commit {commit[:12]}, not a file")
        return sha, data

    def tree(self, sha: str) -> list[tuple[str, str, str]]:
        """The entries of a tree object: (mode, name, hash) each."""
        found = self.read(sha)
        if found is None or found[1] != "tree":
            raise GitError(f"{sha[:12]} is not a tree")
        data, entries, at = found[2], [], 0
        while at < len(data):
            space, nul = data.find(b" ", at), data.find(b"\0", at)
            if not 0 <= space < nul or nul + 21 > len(data):
                raise GitError(f"tree {sha[:12]} is malformed")
            name = data[space + 1 : nul].decode("utf-8", errors="surrogateescape")
            mode = data[at:space].decode("ascii", errors="replace")
            entries.append((mode, name, data[nul + 1 : nul + 21].hex()))
            at = nul + 21
        return entries

    def commit(self, rev: str) -> str | None:
        """The full hash of the commit `rev` names (a hash or part of one), or None."""
        if rev.startswith("-"):
            return None
        found = self.read(f"{rev}^{{commit}}")
        return found[0] if found is not None and found[1] == "commit" else None


def read_file(repository: Repository, commit: str, path: str) -> bytes:
    """The bytes of path at commit."""
    with ObjectReader(repository) as objects:
        return objects.blob(commit, path)[1]


def path_exists(repository: Repository, commit: str, path: str) -> bool:
    """Whether the commit's tree has a file or folder at path."""
    with ObjectReader(repository) as objects:
        return objects.read(f"{commit}:{path.rstrip('/')}") is not None


def list_files(repository: Repository, commit: str, under: str = "") -> list[str]:
    """Every regular file's path in the commit's tree (below `under`), sorted: no symbolic
    link, and no submodule (a commit of another repository, whatever it is named)."""
    args = ["ls-tree", "-r", "-z", commit]
    if under:
        args += ["--", under.rstrip("/")]
    out = repository.run(*args).decode("utf-8", errors="surrogateescape")
    entries = (entry.split("\t", 1) for entry in out.split("\0") if "\t" in entry)
    return sorted(path for info, path in entries if info[:6] in REGULAR_FILE_MODES)


REGULAR_FILE_MODES = ("100644", "100755")  # a file (a link is 120000, a submodule 160000)
TREE_MODE = "40000"  # a folder, as a tree object writes it (ls-tree writes 040000)


def renamed_paths(
    repository: Repository, old_commit: str, new_commit: str, suffixes: tuple[str, ...]
) -> dict[str, str]:
    """Where files whose names end in one of the suffixes went between two commits, following
    git's rename detection among those files only (so no other file's blob is read, which a
    partial clone or a mirror may lack), and only to plain paths (a rename into a `..`
    entry of a tree is untrusted, and not followed)."""
    patterns = [f"*{suffix}" for suffix in suffixes]
    out = repository.run(
        "diff-tree", "-r", "-M", "-z", "--name-status", old_commit, new_commit, "--", *patterns
    )
    fields = out.decode("utf-8", errors="surrogateescape").split("\0")
    renames = {}
    at = 0
    while at < len(fields) - 1:
        status = fields[at]
        if status.startswith(("R", "C")):
            source, target = fields[at + 1], fields[at + 2]
            if status.startswith("R") and is_repo_path(target):
                renames[source] = target
            at += 3
        else:
            at += 2
    return renames
