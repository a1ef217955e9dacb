"""Drift speed: many records over many files, and many records in one large file.

    python -m benchmarks.drift [--errpages=DIR] [--runs=R]

Builds two git repositories in a temporary folder, scans each into a content
folder (`errpages scan`: a draft record per raise, pinned), then commits a
second revision that moves most raises by a few lines, rewords some, moves
some into another file and deletes some, and times `errpages drift --json`
against it as a subprocess (wall, start-up included; median of R runs,
default 3):

1. many files: 450 modules of about 120 lines, 400 of which raise once;
2. one file: a 13,000-line module with 100 raises;
3. a rewrite: 1,500 modules of about 330 lines, 500 of which raise once, every
   message reworded (so every record is looked for in every other file).

With --errpages=DIR, drift runs from DIR's checkout (to compare two versions
of the code); the statuses it reports are counted either way.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FILLER = "    total = total + {n}  # keep going\n    total = total * 2 - {n}\n"


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def function(name: str, n: int, message: str | None, exception: str = "ValueError") -> str:
    """A function of about 12 lines, raising `message` (an f-string) when given."""
    body = f"\n\ndef {name}(cfg, value):\n    total = 0\n"
    body += "".join(FILLER.format(n=n + i) for i in range(3))
    if message is not None:
        body += f'    if cfg.flag_{n}:\n        raise {exception}(f"{message}")\n'
    return body + "    return total\n"


def message(n: int) -> str:
    return f"setting number {n} needs the option {{cfg.option_{n}!r}} when mode {n % 7} is on"


def many_files() -> tuple[dict[str, str], dict[str, str]]:
    """450 modules, 400 raising once; then the second revision's files."""
    first, second = {}, {}
    for index in range(450):
        path = f"pkg/sub{index % 30:02d}/mod{index:03d}.py"
        raises = message(index) if index < 400 else None
        parts = [function(f"helper_{index}_{k}", index * 10 + k, None) for k in range(8)]
        parts.insert(4, function(f"check_{index}", index, raises))
        first[path] = '"""Generated module."""\n' + "".join(parts)
        if index % 2:
            parts.insert(0, "\nimport os\n")  # every raise below moves down
        if index < 10 and raises:  # reworded
            parts[parts.index(function(f"check_{index}", index, raises))] = function(
                f"check_{index}", index, raises.replace("needs the option", "requires option")
            )
        if 10 <= index < 20:  # moved into the module after it
            parts.remove(function(f"check_{index}", index, raises))
        if 21 <= index < 30 and index % 2:  # deleted (and the module before gets the moved one)
            parts = [p for p in parts if "raise" not in p]
        if 11 <= index < 21:
            parts.append(function(f"check_{index - 1}", index - 1, message(index - 1)))
        second[path] = '"""Generated module."""\n' + "".join(parts)
    return first, second


def one_file() -> tuple[dict[str, str], dict[str, str]]:
    """A 13,000-line module with 100 raises; the second revision shifts them all."""
    count, raises = 1160, 100
    parts = [
        function(
            f"f_{k}",
            k,
            message(k) if k * raises // count != (k + 1) * raises // count else None,
            "RuntimeError",
        )
        for k in range(count)
    ]
    text = '"""Generated module."""\n' + "".join(parts)
    return {"pkg/server_args.py": text}, {"pkg/server_args.py": "import os\n\n" + text}


def rewrite() -> tuple[dict[str, str], dict[str, str]]:
    """1,500 modules, 500 raising once; in the second revision every message is reworded."""
    first, second = {}, {}
    for index in range(1500):
        raises = message(index) if index % 3 == 0 else None
        parts = [function(f"helper_{index}_{k}", index * 30 + k, None) for k in range(25)]
        text = '"""Generated module."""\n' + "".join(parts)
        path = f"pkg/sub{index % 50:02d}/mod{index:04d}.py"
        first[path] = text + function(f"check_{index}", index, raises)
        reworded = raises and raises.replace("needs the option", "now wants").replace("is on", "")
        second[path] = text + function(f"check_{index}", index, reworded)
    return first, second


def make_repo(folder: Path, first: dict[str, str], second: dict[str, str]) -> tuple[Path, Path]:
    repo, content = folder / "repo", folder / "content"
    repo.mkdir(parents=True)
    git(repo, "init", "-q")
    git(repo, "config", "user.email", "bench@example.org")
    git(repo, "config", "user.name", "bench")
    for files, label in ((first, "first"), (second, "second")):
        for name, text in files.items():
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            (repo / name).write_text(text, encoding="utf-8")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", label)
        if label == "first":
            (content / "errors").mkdir(parents=True)
            errpages(ROOT, "scan", str(repo), "--content", str(content), "--repo", "bench/repo")
    return repo, content


def errpages(code: Path, *args: str) -> str:
    """Run errpages from `code` (from a folder of its own: `-m` imports from the working one)."""
    env = {**os.environ, "PYTHONPATH": str(code)}
    command = [sys.executable, "-m", "errpages", *args]
    with tempfile.TemporaryDirectory() as elsewhere:
        run = subprocess.run
        return run(
            command, env=env, cwd=elsewhere, check=True, capture_output=True, text=True
        ).stdout


def time_drift(code: Path, repo: Path, content: Path, runs: int) -> tuple[float, Counter[str]]:
    times, statuses = [], Counter[str]()
    for _ in range(runs):
        start = time.perf_counter()
        out = errpages(code, "drift", "--repo-dir", str(repo), "--content", str(content), "--json")
        times.append(time.perf_counter() - start)
        statuses = Counter(row["status"] for row in json.loads(out)["records"])
    return statistics.median(times), statuses


def main(argv: list[str]) -> None:
    code, runs = ROOT, 3
    for arg in argv:
        if arg.startswith("--errpages="):
            code = Path(arg.removeprefix("--errpages=")).resolve()
        elif arg.startswith("--runs="):
            runs = int(arg.removeprefix("--runs="))
    cases = {
        "many files (450 modules)": many_files(),
        "one 13,000-line file": one_file(),
        "a rewrite (1,500 modules, every message reworded)": rewrite(),
    }
    with tempfile.TemporaryDirectory(prefix="errpages-drift-bench-") as temp:
        for number, (label, (first, second)) in enumerate(cases.items()):
            repo, content = make_repo(Path(temp) / str(number), first, second)
            lines = sum(text.count("\n") for text in second.values())
            records = len(list((content / "errors").rglob("*.yaml")))
            seconds, statuses = time_drift(code, repo, content, runs)
            counts = ", ".join(f"{n} {status}" for status, n in sorted(statuses.items()))
            print(
                f"{label}: {records} records, {len(second)} files, {lines} lines: "
                f"{seconds:.2f} s (median of {runs}); {counts}"
            )


if __name__ == "__main__":
    main(sys.argv[1:])
