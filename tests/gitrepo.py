"""Real git repositories in temporary folders, for pin, scan and drift tests."""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path


class GitRepo:
    """A repository we commit into; `state()` fingerprints every byte of it, .git included."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "main")
        self.git("config", "user.email", "dev@example.org")
        self.git("config", "user.name", "Dev")

    def git(self, *args: str) -> str:
        result = subprocess.run(
            ["git", "-C", str(self.path), *args], capture_output=True, text=True, check=True
        )
        return result.stdout.strip()

    def write(self, name: str, text: str) -> None:
        target = self.path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")

    def commit(self, message: str) -> str:
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message)
        return self.git("rev-parse", "HEAD")

    def release(self, tag: str, files: dict[str, str]) -> str:
        """Write these files, commit them and tag the commit with that name."""
        for name, text in files.items():
            self.write(name, text)
        commit = self.commit(tag)
        self.git("tag", tag)
        return commit

    def state(self) -> str:
        """A digest of every file (work tree and .git) plus refs and status."""
        digest = hashlib.sha256()
        for path in sorted(self.path.rglob("*")):
            digest.update(str(path.relative_to(self.path)).encode())
            if path.is_file():
                digest.update(path.read_bytes())
        digest.update(self.git("for-each-ref").encode())
        digest.update(self.git("status", "--porcelain").encode())
        return digest.hexdigest()
