"""The exported module (`errpages export python`) of a large site: its size, its import, url_for.

    python -m benchmarks.export [N]     (default 10000)

Writes N records (the corpus of `benchmarks.corpus`), exports the module, then in fresh
interpreters (`python -I -S`: nothing on the path but the module) times its import, first
compiled from source, then from its cached bytecode (as an installed package has it),
median of 5 each, and url_for on 1,000 messages of the site (each filled with values) and
1,000 that match nothing. Then the same module with `--explain` (each error's text in it):
its size, its import, and `python -m errpages_links explain` of one traceback.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.corpus import corpus_folder

TIMING = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
started = time.perf_counter()
import errpages_links as links
imported = time.perf_counter() - started
cases = json.loads(sys.stdin.read())
found = 0
started = time.perf_counter()
for kind, message in cases:
    found += links.url_for(getattr(__builtins__, kind)(message)) is not None
each = (time.perf_counter() - started) / len(cases)
print(json.dumps([imported, each, found]))
"""


def messages(content: Path, count: int) -> list[list[str]]:
    """Messages of the site's errors as raised, with values in their placeholders."""
    import yaml

    from errpages.site.messages import message_parts

    found = []
    for path in sorted((content / "errors").rglob("*.yaml"))[:count]:
        data = yaml.safe_load(path.read_text())
        text = "".join(
            ("'mori'" if part.conversion == "r" else "7") if part.is_placeholder else part.text
            for part in message_parts(data["message"])
        )
        found.append([data["exception"], text])
    return found


def run(folder: Path, cases: list[list[str]]) -> tuple[float, float, int]:
    result = subprocess.run(
        [sys.executable, "-I", "-S", "-c", TIMING, str(folder)],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        check=True,
    )
    imported, each, found = json.loads(result.stdout)
    return imported, each, found


def export(content: Path, target: Path, *extra: str) -> float:
    """Export the module; the seconds it took."""
    command = [sys.executable, "-m", "errpages", "export", "python", str(target), *extra]
    started = time.perf_counter()
    subprocess.run(
        [*command, "--content", str(content), "--base-url", "https://x.example/"],
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - started


def imports(folder: Path, case: list[list[str]]) -> tuple[float, float]:
    """The import's median time compiled from source, then from its cached bytecode."""
    cold = []
    for _ in range(5):
        for cached in folder.glob("__pycache__/*"):
            cached.unlink()
        cold.append(run(folder, case)[0])
    warm = [run(folder, case)[0] for _ in range(5)]  # the bytecode is cached now
    return statistics.median(cold), statistics.median(warm)


def main(count: int) -> None:
    content = corpus_folder(count)
    with tempfile.TemporaryDirectory(prefix="errpages-export-bench-") as temp:
        folder = Path(temp)
        target = folder / "errpages_links.py"
        print(f"{count} errors: export {export(content, target):.2f} s")
        size = target.stat().st_size
        print(f"module: {size:,} bytes ({size / count:.0f} bytes per error)")
        matching = messages(content, 1000)
        others = [["ValueError", f"no page for message number {n}"] for n in range(1000)]
        cold, warm = imports(folder, matching[:1])
        _, hit, found = run(folder, matching)
        _, miss, none = run(folder, others)
        print(f"import from source: {cold * 1000:.0f} ms (median of 5)")
        print(f"import from bytecode: {warm * 1000:.0f} ms (median of 5)")
        print(
            f"url_for, a message of the site: {hit * 1e6:.0f} µs per call ({found} of 1000 found)"
        )
        print(f"url_for, a message of no page: {miss * 1e6:.0f} µs per call ({none} found)")

        print(f"with --explain: export {export(content, target, '--explain'):.2f} s")
        explained = target.stat().st_size
        print(
            f"module: {explained:,} bytes ({explained / count:.0f} bytes per error, "
            f"{(explained - size) / count:.0f} more than without)"
        )
        cold, warm = imports(folder, matching[:1])
        print(f"import from source: {cold * 1000:.0f} ms (median of 5)")
        print(f"import from bytecode: {warm * 1000:.0f} ms (median of 5)")
        kind, message = matching[-1]
        traceback = (
            f"Traceback (most recent call last):\n  File 'x.py', line 1\n{kind}: {message}\n"
        )
        times = []
        for _ in range(5):
            started = time.perf_counter()
            shown = subprocess.run(
                [sys.executable, "-E", "-s", "-S", "-m", "errpages_links", "explain"],
                input=traceback,
                cwd=folder,
                capture_output=True,
                text=True,
                check=True,
            )
            times.append(time.perf_counter() - started)
        print(
            f"explain of a traceback, the whole process: {statistics.median(times) * 1000:.0f} ms "
            f"(median of 5; {len(shown.stdout.splitlines())} lines printed)"
        )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000)
