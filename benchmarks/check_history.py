"""Check `errpages history --json` against git itself, not against errpages' own matching.

    errpages history --repo-dir REPO --content CONTENT --json > history.json
    python -m benchmarks.check_history REPO history.json

1. Every (record, release) pair listed: in `git show <release>:<path>` the line given says
   `raise` or `assert`, and every word of three letters or more of the message's literal
   text is within 80 lines above it (a message held in a variable) to 15 below (string
   literals joined across lines read as one).
2. Every pair not listed: `git grep -F` of the record's longest literal run (20 characters
   or more, with a space, on one source line) in that release's Python files (tests and
   docs left out), in a string and not in a comment. A hit is a miss unless another record
   of the history claims a raise within 15 lines of it in that release, or the history
   said that file could not be parsed there (Python 2 syntax).

Prints the counts and the first examples of each kind.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

PLACEHOLDER_RE = re.compile(r"\{\{|\}\}|\{[^{}]*\}")
# Two string literals joined across a line (`"…return"` then `f"character…"`): one text.
JOINED_RE = re.compile(r"[\"']\s*\n\s*[rRbBuUfF]{0,2}[\"']")


def main(repo_dir: str, history_file: str) -> None:
    data = json.loads(Path(history_file).read_text(encoding="utf-8"))
    commits: dict[str, str] = data["commits"]

    def git(*args: str) -> str:
        out = subprocess.run(["git", "-C", repo_dir, *args], capture_output=True)
        return out.stdout.decode("utf-8", "replace") if out.returncode == 0 else ""

    shown: dict[tuple[str, str], list[str]] = {}
    claimed: dict[str, set[tuple[str, int]]] = defaultdict(set)
    for record in data["records"]:
        for pair in record["raised"]:
            claimed[pair["release"]].add((pair["path"], pair["line"]))

    pairs, bad, from_variable, examples = 0, 0, 0, []
    for record in data["records"]:
        for pair in record["raised"]:
            pairs += 1
            key = (commits[pair["release"]], pair["path"])
            if key not in shown:
                shown[key] = git("show", f"{key[0]}:{key[1]}").splitlines()
            lines, at = shown[key], pair["line"]
            words = re.findall(r"[A-Za-z]{3,}", " ".join(PLACEHOLDER_RE.split(pair["message"])))
            near = JOINED_RE.sub("", "\n".join(lines[at - 1 : at + 15]))
            wide = JOINED_RE.sub("", "\n".join(lines[max(0, at - 80) : at + 15]))
            said = lines[at - 1] if at <= len(lines) else ""
            if any(w not in near for w in words) and all(w in wide for w in words):
                from_variable += 1
            if not re.search(r"\b(raise|assert)\b", said) or any(w not in wide for w in words):
                bad += 1
                examples.append((record["id"], pair["release"], pair["path"], at))
    print(
        f"listed pairs: {pairs}; not at the path and line given: {bad} "
        f"({from_variable} read a message assigned above the raise)"
    )
    for example in examples[:8]:
        print("  ", example)

    checked, misses, others, said, missed = 0, 0, 0, 0, []
    unparsed = {(u["release"], u["path"]) for u in data.get("unparsed", [])}
    for record in data["records"]:
        listed = {pair["release"] for pair in record["raised"]}
        unlisted = [name for name in data["releases"] if name not in listed]
        if not record["raised"] or not unlisted:
            continue
        runs = [r.strip() for r in PLACEHOLDER_RE.split(record["raised"][-1]["message"])]
        runs = [r for r in runs if len(r) >= 20 and " " in r and "\n" not in r]
        if not runs:
            continue
        chunk = max(runs, key=len)
        checked += len(unlisted)
        by_commit = {commits[name]: name for name in unlisted}
        out = git(
            "grep",
            "-F",
            "-n",
            "-e",
            chunk,
            *by_commit,
            "--",
            "*.py",
            ":!tests",
            ":!test*",
            ":!docs",
        )
        hits: dict[str, list[tuple[str, int]]] = defaultdict(list)
        for line in out.splitlines():
            commit, path, number, text = line.split(":", 3)
            before = text[: text.find(chunk)]
            if not text.lstrip().startswith("#") and ('"' in before or "'" in before):
                hits[by_commit[commit]].append((path, int(number)))
        for release, found in hits.items():
            near: Any = [
                1 for p, n in found for cp, cn in claimed[release] if p == cp and abs(n - cn) <= 15
            ]
            if near:
                others += 1
            elif all((release, path) in unparsed for path, _ in found):
                said += 1
            else:
                misses += 1
                missed.append((record["id"], release, found[:2], chunk))
    print(
        f"unlisted pairs checked with git grep: {checked}; the text found there: "
        f"{misses + others + said} ({others} at a raise another record claims, {said} in files "
        f"the history says it could not parse, {misses} unclaimed)"
    )
    for example in missed[:8]:
        print("  ", example)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
