"""`errpages drift` against a repository whose code moved on after pinning."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from tests.conftest import parse_html, run_cli
from tests.gitrepo import GitRepo

FILES = {
    "pkg/a.py": 'def a(x):\n    if x:\n        raise ValueError("alpha failed")\n',
    "pkg/b.py": 'def b(x):\n    if x:\n        raise ValueError(f"beta needs {x!r}")\n',
    "pkg/c.py": 'def c(x):\n    if x:\n        raise KeyError("gamma broken")\n',
    "pkg/d.py": 'def d(x):\n    if x:\n        raise ValueError("delta gone")\n',
    "pkg/e.py": 'def e(value):\n    if value:\n        raise TypeError(f"epsilon got {value!r}.")\n',
}
MESSAGES = {
    "a": ("ValueError", "alpha failed"),
    "b": ("ValueError", "beta needs {x!r}"),
    "c": ("KeyError", "gamma broken"),
    "d": ("ValueError", "delta gone"),
    "e": ("TypeError", "epsilon got {value!r}."),
}
IDS = {name: f"{index:016x}" for index, name in enumerate("abcde", start=10)}


def record_text(name: str) -> str:
    exception, message = MESSAGES[name]
    return f"""\
id: "{IDS[name]}"
repo: acme/srv
exception: {exception}
message: "{message}"
meaning: Something about {name}.
source:
  path: pkg/{name}.py
  line: 3
  commit: "0000000"
  start_line: 3
  snippet: |
    raise
solutions:
  - Fix {name}.
"""


def pinned_project(tmp_path: Path, make_content) -> tuple[GitRepo, str, Path]:  # type: ignore[no-untyped-def]
    repo = GitRepo(tmp_path / "srv")
    for name, text in FILES.items():
        repo.write(name, text)
    first = repo.commit("first")
    content = make_content({f"errors/{n}.yaml": record_text(n) for n in MESSAGES})
    for name in MESSAGES:
        result = run_cli(
            "pin",
            str(content / "errors" / f"{name}.yaml"),
            "--content",
            str(content),
            "--repo-dir",
            str(repo.path),
        )
        assert result.exit_code == 0, result.output
    repo.write("pkg/a.py", "import os\n\n\n" + FILES["pkg/a.py"])
    repo.write("pkg/b.py", FILES["pkg/b.py"].replace("beta needs", "beta requires"))
    repo.git("mv", "pkg/c.py", "pkg/gamma.py")
    repo.write("pkg/d.py", "def d(x):\n    return x\n")
    repo.commit("second")
    return repo, first, content


def drift_json(content: Path, repo: GitRepo, *extra: str) -> dict:  # type: ignore[type-arg]
    result = run_cli(
        "drift", "--content", str(content), "--repo-dir", str(repo.path), "--json", *extra
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def test_statuses_after_the_code_moved(tmp_path: Path, make_content) -> None:  # type: ignore[no-untyped-def]
    repo, first, content = pinned_project(tmp_path, make_content)
    head = repo.git("rev-parse", "HEAD")
    before = repo.state()
    rows = {r["id"]: r for r in drift_json(content, repo)["records"]}
    status = {name: rows[IDS[name]]["status"] for name in MESSAGES}
    assert status == {"a": "moved", "b": "changed", "c": "moved", "d": "removed", "e": "same"}
    assert rows[IDS["a"]]["now"] == f"pkg/a.py:6@{head[:10]}"
    assert rows[IDS["c"]]["now"] == f"pkg/gamma.py:3@{head[:10]}"
    assert rows[IDS["c"]]["detail"] == "renamed"
    assert rows[IDS["b"]]["new_message"] == "beta requires {x!r}"
    assert rows[IDS["e"]]["pinned"] == f"pkg/e.py:3@{first[:10]}"
    assert repo.state() == before

    table = run_cli("drift", "--content", str(content), "--repo-dir", str(repo.path))
    assert table.exit_code == 0
    assert table.stdout.splitlines()[0].split() == ["STATUS", "ID", "PINNED", "NOW", "DETAIL"]
    assert (
        f"{IDS['b']} changed:\n  was: beta needs {{x!r}}\n  now: beta requires {{x!r}}"
        in table.stdout
    )
    strict = run_cli("drift", "--content", str(content), "--repo-dir", str(repo.path), "--strict")
    assert strict.exit_code == 1
    old = run_cli(
        "drift", "--content", str(content), "--repo-dir", str(repo.path), "--to", first, "--strict"
    )
    assert old.exit_code == 0, old.output


def test_update_repins_same_and_moved_only(tmp_path: Path, make_content) -> None:  # type: ignore[no-untyped-def]
    (
        repo,
        _,
        content,
    ) = pinned_project(tmp_path, make_content)
    head = repo.git("rev-parse", "HEAD")
    untouched = {n: (content / "errors" / f"{n}.yaml").read_bytes() for n in ("b", "d")}
    before = repo.state()
    report = drift_json(content, repo, "--update")
    assert sorted(report["updated"]) == sorted(IDS[n] for n in ("a", "c", "e"))
    for name in ("b", "d"):
        assert (content / "errors" / f"{name}.yaml").read_bytes() == untouched[name]
    moved = yaml.safe_load((content / "errors" / "c.yaml").read_text())["source"]
    assert (moved["path"], moved["line"], moved["commit"]) == ("pkg/gamma.py", 3, head)
    again = {r["id"]: r["status"] for r in drift_json(content, repo)["records"]}
    assert [again[IDS[n]] for n in "abcde"] == ["same", "changed", "same", "removed", "same"]
    assert repo.state() == before


def test_corrupt_mismatch_and_saved_notes_on_pages(tmp_path: Path, make_content) -> None:  # type: ignore[no-untyped-def]
    repo, _, content = pinned_project(tmp_path, make_content)
    a = yaml.safe_load((content / "errors" / "a.yaml").read_text())
    snippet = content / "snippets" / a["source"]["snippet_file"]
    lines = snippet.read_text().splitlines(keepends=True)
    snippet.write_text(
        "".join(line for line in lines if not line.startswith("sha256:")).replace(
            "alpha failed", "alpha FAILED"
        )
    )
    e = content / "errors" / "e.yaml"
    e.write_text(e.read_text().replace("line: 3", "line: 2"))
    rows = {r["id"]: r for r in drift_json(content, repo, "--save")["records"]}
    assert rows[IDS["a"]]["status"] == "corrupt"
    assert rows[IDS["e"]]["status"] == "mismatch"
    saved = json.loads((content / "drift.json").read_text())
    assert saved["records"][IDS["d"]]["status"] == "removed"
    out = tmp_path / "site"
    result = run_cli(
        "build", "--content", str(content), "--out", str(out), "--base-url", "https://x.org/"
    )
    assert result.exit_code == 0, result.output
    note = parse_html(out / "errors" / IDS["d"] / "index.html").select_one(".drift-note")
    assert note is not None
    assert "no longer raises this message" in note.get_text()
    assert (
        parse_html(out / "errors" / IDS["b"] / "index.html").select_one(".drift-note") is not None
    )
    assert (
        parse_html(out / "errors" / IDS["c"] / "index.html").select_one(".drift-note") is not None
    )
