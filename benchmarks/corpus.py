"""A deterministic corpus of realistic error records, for benchmarks.

`python -m benchmarks.corpus N DIR` writes N records (40-line Python
snippets, bash before/after, Markdown sections, 4–5 related links) into
DIR/errors and DIR/snippets, with a site.yaml. The same N gives the same bytes.
"""

from __future__ import annotations

import random
import shutil
import sys
from pathlib import Path

from errpages.content.schema import derive_id

EXCEPTIONS = ["ValueError", "TypeError", "RuntimeError", "KeyError", "NotImplementedError"]
WORDS = (
    "cache backend decode prefill scheduler tensor parallel pipeline expert memory pool "
    "quantization attention kernel batch request token speculative draft radix offload storage "
    "transfer config model server launch device rank worker shard stream graph capture"
).split()
FLAGS = [f"--{a}-{b}" for a in WORDS[:12] for b in WORDS[12:24]]


def sentence(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words))


def snippet(rng: random.Random, flag: str, message: str) -> str:
    lines = []
    for i in range(40):
        if i == 20:
            lines.append("            raise ValueError(")
        elif i == 21:
            lines.append(f'                f"{message}"')
        elif i == 22:
            lines.append("            )")
        elif i % 7 == 0:
            lines.append(f"        if cfg.{rng.choice(WORDS)}_{rng.choice(WORDS)} is None:")
        elif i % 5 == 0:
            lines.append(f"        # {sentence(rng, 8)}")
        else:
            name = f"{rng.choice(WORDS)}_{rng.choice(WORDS)}"
            lines.append(
                f"        {name} = cfg.{rng.choice(WORDS)}({rng.randint(0, 99)}, {flag!r})"
            )
    return "\n".join(lines)


def record(index: int, count: int, rng: random.Random) -> tuple[str, str, str]:
    repo, exception, message = identity(index)
    flag = FLAGS[index % len(FLAGS)]
    record_id = derive_id(repo, exception, message)
    related = sorted({derive_id(*identity(j)) for j in rng.sample(range(count), 5) if j != index})
    start = 100 + index % 900
    path = f"src/project/module_{index % 50:02d}.py"
    text = f"""\
id: "{record_id}"
repo: {repo}
exception: {exception}
message: "{message}"
meaning: >-
  `{flag}` is checked while the server validates its arguments. {sentence(rng, 20)}.
  The {sentence(rng, 3)} path needs `{rng.choice(FLAGS)}`, so the combination is refused
  before anything starts. {sentence(rng, 25)}.
source:
  snippet_file: {repo}/{index:06d}.py
  line: {start + 20}
solutions:
  - Add `{rng.choice(FLAGS)}` alongside `{flag}`
  - Remove `{flag}` if {sentence(rng, 6)}
  - Check the {sentence(rng, 3)} configuration before relaunching
example_fix:
  before: python -m project.launch {flag} {rng.choice(FLAGS)} ...
  after: python -m project.launch {flag} {rng.choice(FLAGS)} {rng.choice(FLAGS)} ...
  notes: |
    Check it in your own launcher:

    ```python
    def validate(cfg):
        assert cfg.{rng.choice(WORDS)} is not None, "{sentence(rng, 5)}"
    ```
when:
  trigger: Launching with `{flag}` but without `{rng.choice(FLAGS)}`.
  situations:
    - {sentence(rng, 10).capitalize()}
    - {sentence(rng, 9).capitalize()}
related: [{", ".join(f'"{r}"' for r in related)}]
tags: [{rng.choice(WORDS)}, {rng.choice(WORDS)}]
analysis:
  by: AI-assisted
  date: 2026-{1 + index % 12:02d}-{1 + index % 28:02d}
"""
    snip = (
        f'---\nrepo: {repo}\npath: {path}\ncommit: "{derive_id(repo, "c", str(index))[:12]}"\n'
        f"start_line: {start}\n---\n{snippet(rng, flag, message)}\n"
    )
    return f"{repo}/{index:06d}", text, snip


def identity(index: int) -> tuple[str, str, str]:
    """Repo, exception and message of record `index` (to derive its id for related links)."""
    rng = random.Random(index)
    repo = f"acme/project-{index % 20:02d}"
    exception = EXCEPTIONS[index % len(EXCEPTIONS)]
    flag = FLAGS[index % len(FLAGS)]
    message = (
        f"{flag} requires {rng.choice(FLAGS)} when {sentence(rng, 4)} is enabled "
        f"(case {index}), got {{value!r}}."
    )
    return repo, exception, message


def write_corpus(count: int, folder: Path) -> None:
    """Write `count` records into folder (replacing what is there)."""
    if folder.exists():
        shutil.rmtree(folder)
    for index in range(count):
        rng = random.Random(index)
        name, text, snip = record(index, count, rng)
        record_path = folder / "errors" / f"{name}.yaml"
        record_path.parent.mkdir(parents=True, exist_ok=True)
        record_path.write_text(text, encoding="utf-8")
        snippet_path = folder / "snippets" / f"{name}.py"
        snippet_path.parent.mkdir(parents=True, exist_ok=True)
        snippet_path.write_text(snip, encoding="utf-8")
    (folder / "site.yaml").write_text(
        "title: Benchmark errors\nbase_url: https://bench.example.org/\n", encoding="utf-8"
    )


def write_histories(count: int, folder: Path, releases: int = 60) -> None:
    """A history file per repository (as `errpages history` writes them): `releases`
    releases; each error first raised in one of them, its line moved every few releases,
    reworded once, and one in ten not raised in the last few (its record marked retired, as
    `errpages check` asks)."""
    from errpages.content.history import Pinned, StoredHistory, history_text, runs_of
    from errpages.site.model import Found, Release

    names = [f"v1.{n}.0" for n in range(releases)]
    tags = {
        repo: [Release(n, derive_id(repo, "tag", n) * 2 + "0" * 8) for n in names]
        for repo in {identity(i)[0] for i in range(count)}
    }
    stored = {repo: StoredHistory(repo, tags[repo]) for repo in tags}
    for index in range(count):
        repo, exception, message = identity(index)
        rng, record_id = random.Random(index), derive_id(repo, exception, message)
        path, line = f"src/project/module_{index % 50:02d}.py", 120 + index % 900
        first, reworded = rng.randrange(releases // 2), rng.randrange(releases // 2, releases)
        last = releases - 1 - (rng.randrange(1, 5) if index % 10 == 0 else 0)
        if last < releases - 1:
            record = folder / "errors" / repo / f"{index:06d}.yaml"
            since = names[last + 1]
            record.write_text(record.read_text() + f"retired:\n  since: {since}\n")
        by_release: dict[str, Found | None] = dict.fromkeys(names)
        for number in range(first, last + 1):
            said = message if number >= reworded else message.replace("requires", "needs")
            by_release[names[number]] = Found(said, exception, path, line + number // 7)
        history = stored[repo]
        history.runs[record_id] = runs_of(by_release, tags[repo])
        history.pinned[record_id] = Pinned("0" * 40, path, line, exception, message)
    for repo, history in stored.items():
        target = folder / "history" / f"{repo}.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(history_text(history), encoding="utf-8")


def corpus_folder(count: int) -> Path:
    """The corpus of `count` records kept in benchmarks/out/ (written when missing)."""
    content = Path(__file__).resolve().parent / "out" / f"bench-corpus-{count}"
    if not (content / "errors").is_dir():
        write_corpus(count, content)
    return content


if __name__ == "__main__":
    write_corpus(int(sys.argv[1]), Path(sys.argv[2]))
