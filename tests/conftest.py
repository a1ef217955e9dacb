"""Shared fixtures: build sites into temporary folders and parse what they produce."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from click.testing import CliRunner, Result

from errpages.cli import cli

REPO_ROOT = Path(__file__).resolve().parent.parent
EXAMPLE_CONTENT = REPO_ROOT / "content"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def run_cli(*args: str) -> Result:
    """Run the errpages command line in-process and return its result."""
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def leftovers(folder: Path, timeout: float = 10.0) -> list[str]:
    """Staging folders still beside the output once the detached clean-up had its time.

    The spare (the previous site, kept for the next build to edit) is not one, nor is the
    output's lock file (kept: see `output_lock`).
    """
    import time

    deadline = time.monotonic() + timeout
    while True:
        found = sorted(
            p.name
            for p in folder.iterdir()
            if p.name.startswith(".") and not p.name.endswith((".spare", ".lock"))
        )
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


def parse_html(path: Path) -> BeautifulSoup:
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


@pytest.fixture(scope="session")
def example_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example content built once for the whole session."""
    out = tmp_path_factory.mktemp("example") / "site"
    result = run_cli("build", "--content", str(EXAMPLE_CONTENT), "--out", str(out))
    assert result.exit_code == 0, result.output
    return out


VALID_RECORD = """\
id: {id}
repo: acme/widgets
exception: ValueError
message: {message}
meaning: It means the widget was bad.
source:
  path: widgets/core.py
  line: 12
  commit: abcdef1234567
  start_line: 10
  snippet: |
    def check(widget):
        if not widget:
            raise ValueError("bad widget")
solutions:
  - Pass a good widget.
"""


def valid_record(record_id: str = "0123456789abcdef", message: str = "bad widget") -> str:
    return VALID_RECORD.format(id=record_id, message=message)


@pytest.fixture
def make_content(tmp_path: Path) -> Callable[[dict[str, str]], Path]:
    """Write a small content folder from {relative path: text} and return its path."""

    def make(files: dict[str, str]) -> Path:
        root = tmp_path / "content"
        if root.exists():
            shutil.rmtree(root)
        for name, text in files.items():
            path = root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(textwrap.dedent(text), encoding="utf-8")
        (root / "errors").mkdir(parents=True, exist_ok=True)
        return root

    return make


class Served:
    """`errpages serve` in a child process, its output read line by line as it comes."""

    def __init__(self, *args: str) -> None:
        import queue
        import subprocess
        import sys
        import threading

        self.process = subprocess.Popen(
            [sys.executable, "-u", "-m", "errpages", "serve", "--port", "0", *args],
            cwd=REPO_ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.printed: queue.Queue[str] = queue.Queue()
        self.lines: list[str] = []
        stdout = self.process.stdout
        assert stdout is not None
        threading.Thread(target=lambda: [self.printed.put(x) for x in stdout], daemon=True).start()

    def wait_for(self, start: str, timeout: float = 30) -> str:
        """Read lines until one starts with `start` (at least one line is read)."""
        self.lines.append(self.printed.get(timeout=timeout))
        while not self.lines[-1].startswith(start):
            self.lines.append(self.printed.get(timeout=timeout))
        return self.lines[-1]

    def lines_within(self, seconds: float) -> list[str]:
        """Every line printed in the next `seconds`."""
        import queue
        import time

        deadline, got = time.monotonic() + seconds, []
        while (left := deadline - time.monotonic()) > 0:
            try:
                got.append(self.printed.get(timeout=left))
            except queue.Empty:
                break
        self.lines += got
        return got

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


def install_wheel(wheel: Path, target: Path) -> None:
    """Install a wheel (and nothing it depends on) into a folder of its own."""
    command = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target"]
    subprocess.run([*command, str(target), str(wheel)], check=True, capture_output=True)
