"""Kill the build at random moments: the previous site is always whole.

Each round starts `errpages build` of changed content over a built site and
SIGKILLs it after a random delay. Afterwards the output folder must be byte
for byte the old site or the new one, never a mix, and the next build must
clean up what the killed one left. ERRPAGES_KILLS sets the number of rounds.
"""

from __future__ import annotations

import hashlib
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.corpus import write_corpus
from tests.conftest import REPO_ROOT, leftovers

ROUNDS = int(os.environ.get("ERRPAGES_KILLS", "20"))


def digest(folder: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        h.update(str(path.relative_to(folder)).encode())
        if path.is_file():
            h.update(path.read_bytes())
    return h.hexdigest()


def build_command(content: Path, out: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "errpages",
        "build",
        "-q",
        "--content",
        str(content),
        "--out",
        str(out),
    ]


SETTINGS = {
    "A": "title: Site A\nbase_url: https://bench.example.org/\n",
    "B": "title: Site B\nbase_url: https://bench.example.org/\n",
}


def test_killed_builds_leave_the_previous_site_whole(tmp_path: Path) -> None:
    content = tmp_path / "content"
    write_corpus(40, content)
    expected = {}
    duration = 0.0
    for name, settings in SETTINGS.items():
        (content / "site.yaml").write_text(settings)
        started = time.perf_counter()
        reference = tmp_path / f"reference-{name}"
        subprocess.run(
            build_command(content, reference), check=True, cwd=REPO_ROOT, capture_output=True
        )
        duration = max(duration, time.perf_counter() - started)
        expected[name] = digest(reference)
    out = tmp_path / "site"
    (content / "site.yaml").write_text(SETTINGS["A"])
    subprocess.run(build_command(content, out), check=True, cwd=REPO_ROOT, capture_output=True)
    current = "A"
    rng = random.Random(7)
    kept = replaced = 0
    for _ in range(ROUNDS):
        target = "B" if current == "A" else "A"
        (content / "site.yaml").write_text(SETTINGS[target])
        process = subprocess.Popen(
            build_command(content, out),
            cwd=REPO_ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(rng.uniform(0, duration * 1.2))
        process.send_signal(signal.SIGKILL)
        process.wait()
        now = digest(out)
        assert now in (expected[current], expected[target]), "the site is neither old nor new"
        if now == expected[target]:
            replaced += 1
            current = target
        else:
            kept += 1
    print(f"\n{ROUNDS} kills: {kept} left the previous site, {replaced} the new one; all whole")
    subprocess.run(build_command(content, out), check=True, cwd=REPO_ROOT, capture_output=True)
    assert [name for name in leftovers(tmp_path) if name.startswith(".site.")] == []
