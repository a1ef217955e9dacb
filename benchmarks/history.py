"""History speed: `errpages history` over a real project's release tags, first and after a tag.

    python -m benchmarks.history REPO_DIR [--path=pydantic] [--repo=pydantic/pydantic] [--tags=GLOB]

REPO_DIR is a clone of the project (e.g. one `fetch` brought: a bare repository works).
In a temporary folder: a clone of it sharing its objects (`git clone --shared --bare`,
so its tags can be changed) with the newest release tag taken away; `errpages scan
--path PATH` of its HEAD into a fresh content folder (a draft record per raise, pinned);
then, as subprocesses (wall time, start-up included):

1. first run: `errpages history` over every release tag but the newest;
2. after one more tag: the newest tag put back, `errpages history` again (it reads the
   history file and looks at the new tag only);
3. nothing new: `errpages history` once more.

Prints the figures, the records and releases followed, how many releases each run
looked at, and the peak memory (maximum resident set) of the first run. `--tags` is
handed to `errpages history` (SQLAlchemy's releases are `rel_*`).
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def errpages(*args: str) -> tuple[float, str]:
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "errpages", *args], capture_output=True, text=True, cwd=ROOT
    )
    took = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"errpages {args[0]} failed:\n{result.stderr}")
    said = (result.stderr.strip() or result.stdout.strip()).splitlines()
    return took, said[-1] if said else ""


def git(repo: Path, *args: str) -> str:
    out = subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)
    return out.stdout.decode().strip()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("repo_dir", type=Path)
    parser.add_argument("--path", default="pydantic")
    parser.add_argument("--repo", default="pydantic/pydantic")
    parser.add_argument("--tags", action="append", default=[])
    options = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from errpages.git.history import release_tags
    from errpages.git.repo import open_repository

    with tempfile.TemporaryDirectory() as folder:
        clone, content = Path(folder) / "clone.git", Path(folder) / "content"
        git(Path(folder), "clone", "-q", "--shared", "--bare", str(options.repo_dir), str(clone))
        newest = release_tags(open_repository(clone), options.tags)[-1]
        git(clone, "tag", "-d", newest.name)
        content.mkdir()
        errpages(
            "scan",
            str(clone),
            "--repo",
            options.repo,
            "--path",
            options.path,
            "--content",
            str(content),
        )
        records = len(list((content / "errors").rglob("*.yaml")))
        history = ("history", "--repo-dir", str(clone), "--content", str(content))
        history += tuple(option for glob in options.tags for option in ("--tags", glob))
        scanned = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        first, said_first = errpages(*history)
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # KiB, on Linux
        git(clone, "tag", newest.name, newest.commit)
        again, said_again = errpages(*history)
        nothing, said_nothing = errpages(*history)
    print(f"{options.repo_dir}: {records} records; {newest.name} put back after the first run")
    print(f"first run:            {first:6.2f} s  ({said_first})")
    largest = "" if peak > scanned else " (or less: the scan before it took as much)"
    print(f"first run's peak:     {peak / 1024:6.0f} MiB resident{largest}")
    print(f"after one more tag:   {again:6.2f} s  ({said_again})")
    print(f"nothing new:          {nothing:6.2f} s  ({said_nothing})")


if __name__ == "__main__":
    main()
