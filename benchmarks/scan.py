"""Scan speed: one large module, and a repository of many files.

    python -m benchmarks.scan [FILES]     (default 2000)

1. A 9,000-line module with 1,860 raise sites (made here, every raise
   form), scanned with `scan_source` alone: median of 5.
2. The largest Python files found on this machine (site-packages), the same way.
3. A git repository of FILES modules (about 150 lines and 6 raises each),
   scanned end to end with `errpages scan` into an empty content folder:
   records and snippet files written. Then once more (nothing to create).
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

from errpages.git.pyraises.library import scan_source
from errpages.git.scan import scan_repository

RAISES = [
    'raise ValueError("plain message number {n} of module {seed}")',
    'raise ValueError(f"value {{cfg.value_{n}!r}} is not allowed in case {n}.{seed}")',
    'raise TypeError("expected int for field {n}.{seed}, got " + type(x).__name__)',
    'raise KeyError("no item %s in table {n}.{seed}" % (x,))',
    'raise RuntimeError("{{}} workers exceed limit {n}.{seed}".format(x))',
    'assert x > {n}, f"x must exceed {n}.{seed}, got {{x}}"',
]


def module(functions: int, seed: int = 0) -> str:
    parts = ['"""Generated module."""\n']
    for f in range(functions):
        parts.append(f"\n\ndef check_{seed}_{f}(cfg, x):\n    total = 0\n")
        for r, raise_form in enumerate(RAISES):
            n = f * 10 + r
            parts.append(f"    if cfg.flag_{n}:\n        {raise_form.format(n=n, seed=seed)}\n")
            parts.append(f"    total += {n}  # keep going\n    x = x + {r}\n")
        parts.append("    return total\n")
    return "".join(parts)


def timed_scan(source: str, runs: int = 5) -> tuple[float, int]:
    times = []
    sites = 0
    for _ in range(runs):
        start = time.perf_counter()
        found, _ = scan_source(source)
        times.append(time.perf_counter() - start)
        sites = len(found)
    return statistics.median(times), sites


def largest_python_files(count: int = 3) -> list[Path]:
    """Among the 40 largest modules installed here, those that raise the most."""
    root = Path(sysconfig.get_paths()["purelib"])
    unique = {(p.name, p.stat().st_size): p for p in root.rglob("*.py")}  # vendored copies once
    files = sorted(unique.values(), key=lambda p: p.stat().st_size, reverse=True)[:40]
    files.sort(key=lambda p: p.read_text(encoding="utf-8", errors="replace").count("raise "))
    return files[-count:][::-1]


def report(name: str, lines: int, sites: int, seconds: float) -> None:
    print(f"{name}: {lines} lines, {sites} raise sites, {seconds * 1000:.0f} ms (median of 5)")


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def main(file_count: int) -> None:
    big = module(310)
    seconds, sites = timed_scan(big)
    report("generated module", big.count("\n"), sites, seconds)
    for path in largest_python_files():
        try:
            text = path.read_text(encoding="utf-8")
            seconds, sites = timed_scan(text)
        except (SyntaxError, UnicodeDecodeError):
            continue
        report(f"{path.parent.name}/{path.name}", text.count("\n"), sites, seconds)

    with tempfile.TemporaryDirectory() as temp:
        repo = Path(temp) / "repo"
        repo.mkdir()
        git(repo, "init", "-q")
        git(repo, "config", "user.email", "bench@example.org")
        git(repo, "config", "user.name", "bench")
        for index in range(file_count):
            target = repo / "pkg" / f"sub{index % 40:02d}" / f"mod{index:04d}.py"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(module(1 + index % 3, seed=index), encoding="utf-8")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "corpus")
        content = Path(temp) / "content"
        (content / "errors").mkdir(parents=True)
        for label in ("first scan", "second scan"):
            start = time.perf_counter()
            summary = scan_repository(content, repo, "bench/repo")
            seconds = time.perf_counter() - start
            print(
                f"{label}: {summary.files_scanned} files, {summary.raise_sites} raise sites, "
                f"{len(summary.created)} records created, {summary.already_covered} covered, "
                f"{seconds:.1f} s"
            )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
