"""`errpages serve`: how long from saving a record to the served page showing the edit.

    python -m benchmarks.serve [N] [--edits=K] [--errpages=DIR] [--history]

Writes N records (default 10,000; the corpus of `benchmarks.corpus`, kept in
benchmarks/out/), starts `errpages serve` on them (from DIR's checkout when
given, to compare two versions of the code), waits until it serves, then
K times (default 5) adds a word to a different record's meaning and polls
that record's page over HTTP every 10 ms until it shows the word. Prints
each edit's seconds (the watcher's debounce included), the update's own
seconds as serve printed them (the rest is the watcher, making the page and
the poll), and the medians. Code from before serve kept the site in memory
built into a folder on each save ("Built …" lines): it is given one. With
--history, the records have histories too (`corpus.write_histories`).
"""

from __future__ import annotations

import os
import queue
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from benchmarks.corpus import corpus_folder, write_histories

POLL_SECONDS = 0.01
TIMEOUT_SECONDS = 120.0


def fetch(url: str) -> str:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return str(response.read().decode("utf-8", "replace"))
    except OSError:
        return ""


def start(code: Path, content: Path, folder: Path) -> tuple[subprocess.Popen[str], str]:
    """`errpages serve` of this content (in a folder of its own); its address once it serves."""
    command = [sys.executable, "-m", "errpages", "serve", "--content", str(content)]
    env = {**os.environ, "PYTHONPATH": str(code)}
    usage = subprocess.run([*command, "--help"], env=env, capture_output=True, text=True).stdout
    if "--out" in usage:  # code that builds into a folder
        command += ["--out", str(folder / "site"), "--cache-dir", str(folder / "cache")]
    command += ["--port", "0"]
    server = subprocess.Popen(
        command, cwd=folder, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    assert server.stdout is not None
    for line in server.stdout:
        found = re.search(r"at (http://\S+/)", line)
        if found:
            return server, found[1]
    raise SystemExit("errpages serve ended before it served")


def update_seconds(server: subprocess.Popen[str]) -> queue.Queue[float]:
    """The seconds of each update, as serve prints them ("Updated …, 0.15s"), as they come."""
    found: queue.Queue[float] = queue.Queue()

    def read() -> None:
        assert server.stdout is not None
        for line in server.stdout:
            seconds = re.search(r"^(?:Updated|Built) .*, ([0-9.]+)s$", line.strip())
            if seconds:
                found.put(float(seconds[1]))

    threading.Thread(target=read, daemon=True).start()
    return found


def edit_and_wait(record: Path, url: str, word: str) -> float:
    """Add `word` to the record's meaning; seconds until its page at `url` shows it."""
    text = record.read_text()
    started = time.perf_counter()
    record.write_text(text.replace("meaning: >-\n  ", f"meaning: >-\n  {word} ", 1))
    while word not in fetch(url):
        if time.perf_counter() - started > TIMEOUT_SECONDS:
            raise SystemExit(f"the page never showed the edit: {url}")
        time.sleep(POLL_SECONDS)
    return time.perf_counter() - started


def main(argv: list[str]) -> None:
    count, edits, code = 10_000, 5, Path(__file__).resolve().parent.parent
    history = "--history" in argv
    for arg in (arg for arg in argv if arg != "--history"):
        if arg.startswith("--edits="):
            edits = int(arg.removeprefix("--edits="))
        elif arg.startswith("--errpages="):
            code = Path(arg.removeprefix("--errpages=")).resolve()
        else:
            count = int(arg)
    source = corpus_folder(count)
    with tempfile.TemporaryDirectory(prefix="errpages-serve-bench-") as temp:
        folder = Path(temp)
        content = folder / "content"
        shutil.copytree(source, content, ignore=shutil.ignore_patterns("history"))
        if history:
            write_histories(count, content)
        started = time.perf_counter()
        server, address = start(code, content, folder)
        print(f"{count} records: serving after {time.perf_counter() - started:.1f} s")
        updates = update_seconds(server)
        try:
            records = sorted((content / "errors").rglob("*.yaml"))
            times, updated = [], []
            for number in range(edits):
                record = records[(number * 7919) % len(records)]
                error_id = re.search(r'^id: "([0-9a-f]{16})"', record.read_text(), re.M)
                assert error_id is not None
                url = f"{address}errors/{error_id[1]}/"
                time.sleep(1.0)  # the last update has settled
                seconds = edit_and_wait(record, url, f"benchmarkedit{number}x")
                times.append(seconds)
                updated.append(updates.get(timeout=TIMEOUT_SECONDS))
                print(f"edit {number + 1}: {seconds:.2f} s (its update {updated[-1]:.2f} s)")
            print(
                f"median of {edits} edits: {statistics.median(times):.2f} s, of the updates "
                f"{statistics.median(updated):.2f} s (code: {code})"
            )
        finally:
            server.terminate()
            server.wait(timeout=30)


if __name__ == "__main__":
    main(sys.argv[1:])
