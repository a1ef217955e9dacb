"""Search at scale: index size and time to first result in Chromium, from disk.

    python -m benchmarks.search [N]     (default 10000)

Builds N synthetic records (benchmarks/corpus.py), then opens the search page
over file:// in headless Chromium and reads `window.ERRPAGES_FIRST_RESULT_MS`
(milliseconds from navigation start to the first rendered result), for a word
query and for a pasted traceback. Prints the median of 5 page loads each.
"""

from __future__ import annotations

import gzip
import shutil
import statistics
import sys
import time
from pathlib import Path
from urllib.parse import urlencode

from playwright.sync_api import sync_playwright

from benchmarks.corpus import identity, write_corpus
from errpages.build import build

OUT = Path(__file__).resolve().parent / "out"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]


def first_result_ms(page_url: str, runs: int = 5) -> list[float]:
    chromium = shutil.which("chromium") or "chromium"
    times = []
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=chromium, args=FLAGS)
        for _ in range(runs):
            page = browser.new_page()
            page.goto(page_url)
            page.wait_for_function("window.ERRPAGES_FIRST_RESULT_MS !== undefined", timeout=60000)
            times.append(float(page.evaluate("window.ERRPAGES_FIRST_RESULT_MS")))
            page.close()
        browser.close()
    return times


def main(count: int) -> None:
    content = OUT / f"corpus-{count}"
    site = OUT / f"site-{count}"
    write_corpus(count, content)
    started = time.perf_counter()
    report = build(content, site)
    assert report.written, [d.format() for d in report.diagnostics[:5]]
    print(f"records: {count}; build: {time.perf_counter() - started:.1f} s")
    index = (site / "assets" / "search-index.js").read_bytes()
    print(
        f"search index: {len(index) / 1e6:.2f} MB, {len(gzip.compress(index)) / 1e6:.2f} MB gzipped"
    )
    _repo, exception, message = identity(count // 2)
    traceback = (
        'Traceback (most recent call last):\n  File "launch.py", line 9, in <module>\n'
        f"{exception}: {message.replace('{value!r}', repr('mori'))}\n"
    )
    search = (site / "search" / "index.html").resolve().as_uri()
    for label, query in [
        ("word query 'cache backend'", {"q": "cache backend"}),
        ("pasted traceback", {"tb": traceback}),
    ]:
        times = first_result_ms(f"{search}?{urlencode(query)}")
        print(
            f"time to first result, {label}: median {statistics.median(times):.0f} ms "
            f"(min {min(times):.0f}, max {max(times):.0f}, {len(times)} loads)"
        )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10000)
