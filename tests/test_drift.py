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
        f"{IDS['b']} changed:\n  was: ValueError: beta needs {{x!r}}\n"
        "  now: ValueError: beta requires {x!r}" in table.stdout
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


# Shapes found on real repositories (pydantic, httpx): each history is built here.


def scanned_project(tmp_path: Path, make_content, files: dict[str, str]) -> tuple[GitRepo, Path]:  # type: ignore[no-untyped-def]
    """A repository with these files, and content with a draft record per raise (`scan`)."""
    repo = GitRepo(tmp_path / "proj")
    for name, text in files.items():
        repo.write(name, text)
    repo.commit("first")
    content = make_content({})
    result = run_cli("scan", str(repo.path), "--content", str(content), "--repo", "acme/proj")
    assert result.exit_code == 0, result.output
    return repo, content


def rows_by_message(content: Path, repo: GitRepo, *extra: str) -> dict[str, dict]:  # type: ignore[type-arg]
    report = drift_json(content, repo, *extra)
    return {row["message"]: row for row in report["records"]}


def record_of(content: Path, message: str) -> Path:
    for path in (content / "errors").rglob("*.yaml"):
        if yaml.safe_load(path.read_text())["message"] == message:
            return path
    raise AssertionError(f"no record of {message!r}")


def test_a_changed_exception_class_is_changed_and_never_repinned(
    tmp_path: Path, make_content
) -> None:  # type: ignore[no-untyped-def]
    shadow = "Field name {name!r} shadows an attribute in parent {base!r}"
    body = '        raise {}(f"Field name {{name!r}} shadows an attribute in parent {{base!r}}")\n'
    module = "def inspect(name, base, namespace):\n    if name in namespace:\n" + body
    repo, content = scanned_project(
        tmp_path, make_content, {"pkg/model.py": module.format("NameError")}
    )
    record = record_of(content, shadow)
    repo.write("pkg/model.py", "import os\n\n" + module.format("PydanticUserError"))
    head = repo.commit("a class of its own")
    row = rows_by_message(content, repo)[shadow]
    assert row["status"] == "changed"
    assert row["now"] == f"pkg/model.py:5@{head[:10]}"
    assert row["detail"] == "exception NameError → PydanticUserError"
    assert (row["exception"], row["new_exception"]) == ("NameError", "PydanticUserError")
    before = record.read_bytes()
    assert drift_json(content, repo, "--update")["updated"] == []
    assert record.read_bytes() == before


def test_a_raise_moved_to_another_file_is_moved_there_or_changed_when_reworded(
    tmp_path: Path, make_content
) -> None:  # type: ignore[no-untyped-def]
    annotation = "Field {name!r} requires a type annotation"
    default = "Default value {default!r} is not valid for field {name!r}"
    gone = "this check is gone for good"
    annotations = (
        "def annotated(name, kind):\n"
        "    if kind is None:\n"
        '        raise TypeError(f"Field {name!r} requires a type annotation")\n'
    )
    fields = (
        "def check(name, default, kind):\n"
        "    if default is None:\n"
        '        raise ValueError(f"Default value {default!r} is not valid for field {name!r}")\n'
        "    if kind == 3:\n"
        '        raise RuntimeError("this check is gone for good")\n'
    )
    files = {"pkg/annotations.py": annotations, "pkg/fields.py": fields}
    repo, content = scanned_project(tmp_path, make_content, files)
    moved_record = record_of(content, annotation)
    old_snippet = yaml.safe_load(moved_record.read_text())["source"]["snippet_file"]
    shared_snippet = yaml.safe_load(record_of(content, gone).read_text())["source"]["snippet_file"]
    assert (content / "snippets" / old_snippet).is_file()
    repo.write("pkg/annotations.py", "ANNOTATIONS = {}\n")
    repo.write(
        "pkg/fields.py", "from pkg._internal._fields import collect\n\n__all__ = ['collect']\n"
    )
    repo.write(
        "pkg/_internal/_fields.py",
        "import sys\n\n\ndef collect(name, default, kind):\n    sys.audit('collect')\n"
        "    if kind is None:\n"
        '        raise TypeError(f"Field {name!r} requires a type annotation")\n'
        "    if default is None:\n"
        "        raise ValueError(\n"
        '            f"Default value {default!r} is not a valid value for the field {name!r}"\n'
        "        )\n",
    )
    head = repo.commit("moved into _internal")
    rows = rows_by_message(content, repo)
    assert rows[annotation]["status"] == "moved"
    assert rows[annotation]["now"] == f"pkg/_internal/_fields.py:7@{head[:10]}"
    assert rows[annotation]["detail"] == "moved to another file"
    assert rows[default]["status"] == "changed"
    assert rows[default]["now"] == f"pkg/_internal/_fields.py:9@{head[:10]}"
    assert rows[default]["detail"] == "reworded, in another file"
    assert rows[default]["new_message"] == (
        "Default value {default!r} is not a valid value for the field {name!r}"
    )
    assert rows[gone]["status"] == "removed"

    snippets = content / "snippets"
    stale = snippets / "acme/proj/pkg/old.L1-3@0123456789.py"  # left by an older errpages
    stale.write_text("---\nrepo: acme/proj\npath: pkg/old.py\n---\nx = 1\n")
    other = snippets / "acme/other/pkg/old.L1-3@0123456789.py"  # another repository's
    other.parent.mkdir(parents=True)
    other.write_text(stale.read_text().replace("acme/proj", "acme/other"))
    mine = snippets / "acme/proj/notes.py"  # not a pin's name: the author's own file
    mine.write_text("---\nrepo: acme/proj\n---\n")
    report = drift_json(content, repo, "--update")
    assert report["updated"] == [rows[annotation]["id"]]
    assert report["removed_snippets"] == [old_snippet, "acme/proj/pkg/old.L1-3@0123456789.py"]
    assert other.is_file() and mine.is_file()
    other.unlink()
    mine.unlink()
    text = moved_record.read_text()
    source = yaml.safe_load(text)["source"]
    assert (source["path"], source["line"], source["commit"]) == (
        "pkg/_internal/_fields.py",
        7,
        head,
    )
    assert text.splitlines()[0] == (
        f"# Scaffolded by `errpages scan` from pkg/_internal/_fields.py:7 at {head[:12]}."
    )
    assert not (content / "snippets" / old_snippet).exists()  # no record uses it any more
    assert (content / "snippets" / shared_snippet).is_file()  # two records still do
    assert (content / "snippets" / source["snippet_file"]).is_file()
    assert len(list((content / "snippets").rglob("*.py"))) == 2
    again = rows_by_message(content, repo)
    assert [again[m]["status"] for m in (annotation, default, gone)] == [
        "same",
        "changed",
        "removed",
    ]
    check = run_cli("check", "--content", str(content), "--drafts")
    assert check.exit_code == 0, check.output


TYPES = """\
class Choice:
    def convert(self, value, choice):
        if value != choice:
            raise ValueError(f"{value!r} is not {choice}.")


def version_option(package):
    def decorator(f):
        def callback(value):
            if value is None:
                raise RuntimeError("Could not determine version")

        return callback

    return decorator
"""


def test_a_message_reworded_in_its_class_or_function_is_found_and_one_alike_elsewhere_is_not(
    tmp_path: Path, make_content
) -> None:  # type: ignore[no-untyped-def]
    # As in click 8.0 → 8.1: the Choice message is now looked up (nothing scan can see), and
    # the Path class below gained a message of much the same shape; in
    # version_option the check was reworded with its nested functions rearranged.
    choice, version = "{value!r} is not {choice}.", "Could not determine version"
    repo, content = scanned_project(tmp_path, make_content, {"pkg/types.py": TYPES})
    repo.write(
        "pkg/types.py",
        "class Choice:\n"
        "    def convert(self, value, choice):\n"
        "        if value != choice:\n"
        "            raise ValueError(MESSAGES[value])\n"
        "\n"
        "\n"
        "\n"
        "\n"
        "\n"
        "class Path:\n"
        "    def convert(self, name, filename):\n"
        '        raise ValueError(f"{name} {filename!r} is not executable.")\n'
        "\n"
        "\n"
        "def version_option(package):\n"
        "    def callback(value):\n"
        "        if value is None:\n"
        '            raise RuntimeError(f"Could not determine the version for {package!r}.")\n'
        "\n"
        "    return callback\n",
    )
    head = repo.commit("reworded")
    rows = rows_by_message(content, repo)
    assert rows[choice]["status"] == "removed"
    assert rows[version]["status"] == "changed"
    assert rows[version]["now"] == f"pkg/types.py:18@{head[:10]}"
    assert rows[version]["new_message"] == "Could not determine the version for {package!r}."


def test_a_raise_alike_in_another_function_is_the_records_only_if_it_keeps_its_words(
    tmp_path: Path, make_content
) -> None:  # type: ignore[no-untyped-def]
    # As in pydantic 0.9 → 0.11: list_validator's raise is gone (it raises a class of its own
    # now), and dict_validator's, beside it, reads much like it.
    listed = "value is not a valid list"
    validators = (
        "def dict_validator(v):\n"
        "    return dict(v)\n"
        "\n"
        "\n"
        "def list_validator(v):\n"
        "    if not isinstance(v, list):\n"
        '        raise TypeError("value is not a valid list")\n'
        "    return v\n"
    )
    repo, content = scanned_project(tmp_path, make_content, {"pkg/validators.py": validators})
    repo.write(
        "pkg/validators.py",
        "def dict_validator(v):\n"
        "    if not isinstance(v, dict):\n"
        '        raise TypeError(f"value is not a valid dict, got {type(v)}")\n'
        "    return v\n"
        "\n"
        "\n"
        "def list_validator(v):\n"
        "    return list(v)\n",
    )
    repo.commit("list_validator converts")
    assert rows_by_message(content, repo)[listed]["status"] == "removed"
    # Moved to another function with its words, and more, it is the record's.
    repo.write(
        "pkg/validators.py",
        "def sequence_validator(v):\n"
        "    if not isinstance(v, list):\n"
        '        raise TypeError(f"Value is not a valid list, got {type(v)}")\n'
        "    return v\n",
    )
    head = repo.commit("one validator")
    row = rows_by_message(content, repo)[listed]
    assert (row["status"], row["now"]) == ("changed", f"pkg/validators.py:3@{head[:10]}")


def test_a_raise_that_was_beside_the_records_is_not_the_record_reworded_or_moved(
    tmp_path: Path, make_content
) -> None:  # type: ignore[no-untyped-def]
    # As in tornado 2.1 → 2.2, read the other way: the template parser's comment branch and
    # its raise are gone; the function's other raise of the same class and shape, whose
    # draft the maintainer did not keep, was there beside it all along.
    comment = "Missing end comment #}} on line {line}"
    parser = (
        "class ParseError(Exception):\n"
        "    pass\n"
        "\n"
        "\n"
        "def parse(reader, start, line):\n"
        '    if start == "{{":\n'
        '        end = reader.find("}}")\n'
        "        if not reader.read(end).strip():\n"
        '            raise ParseError(f"Empty expression on line {line}")\n'
        "BRANCH"
    )
    branch = (
        '    if start == "{#":\n'
        '        if reader.find("#}") == -1:\n'
        '            raise ParseError(f"Missing end comment #}} on line {line}")\n'
    )
    files = {"pkg/template.py": parser.replace("BRANCH", branch)}
    repo, content = scanned_project(tmp_path, make_content, files)
    record_of(content, "Empty expression on line {line}").unlink()
    repo.write("pkg/template.py", parser.replace("BRANCH", ""))
    repo.commit("comments are text")
    assert rows_by_message(content, repo)[comment]["status"] == "removed"
    # Reworded, it is the record's.
    repo.write(
        "pkg/template.py",
        parser.replace("BRANCH", branch.replace("Missing end comment", "Comment not closed with")),
    )
    head = repo.commit("reworded")
    row = rows_by_message(content, repo)[comment]
    assert (row["status"], row["now"]) == ("changed", f"pkg/template.py:12@{head[:10]}")
    # As in aiohttp 3.14: a new function's "Connection lost" is not the protocol's, of another
    # class, which was raised beside it; the protocol's raise moved there would be.
    lost = "def lost():\n    raise {}('Connection lost')\n"
    repo.write("pkg/files.py", lost.format("ConnectionResetError"))
    repo.write("pkg/protocol.py", "import os\n\n\n" + lost.format("ConnectionError"))
    repo.commit("two errors")
    run_cli("scan", str(repo.path), "--content", str(content), "--repo", "acme/proj")
    for path in (content / "errors").rglob("*.yaml"):
        if "pkg/protocol.py" in path.read_text():
            path.unlink()
    repo.write("pkg/files.py", "def lost():\n    return None\n")
    repo.commit("files never lose the connection")
    assert rows_by_message(content, repo)["Connection lost"]["status"] == "removed"
    # The branch gone in the commit that moves the package under src/ (as pdm 2.1.2 moved):
    # the raise beside it, read at its old path, is not the record reworded either.
    repo.write("pkg/template.py", parser.replace("BRANCH", branch))
    repo.commit("comments again")
    run_cli("scan", str(repo.path), "--content", str(content), "--repo", "acme/proj")
    record_of(content, "Empty expression on line {line}").unlink()
    repo.git("mv", "pkg", "src")
    repo.write("src/template.py", parser.replace("BRANCH", ""))
    repo.commit("comments are text, under src/")
    assert rows_by_message(content, repo)[comment]["status"] == "removed"


def test_a_raise_found_elsewhere_by_words_that_follow_escapes(tmp_path: Path, make_content) -> None:  # type: ignore[no-untyped-def]
    """Files are picked by the words of the record's message, found once per file: a word
    right after `\\n` or `\\t` in the code is a word all the same."""
    message = "Unsupported value:\nExpected\tinteger or fraction, got {value!r}"
    raising = (
        "def parse(value):\n"
        "    if not isinstance(value, int):\n"
        '        raise TypeError(f"Unsupported value:\\nExpected\\tinteger or fraction, '
        'got {value!r}")\n'
    )
    repo, content = scanned_project(tmp_path, make_content, {"pkg/parse.py": raising})
    repo.write("pkg/parse.py", "from pkg.numbers import parse\n")
    repo.write("pkg/numbers.py", "import sys\n\n\n" + raising)
    repo.write("pkg/other.py", '"""Unsupported value: an integer, a fraction; expected."""\n')
    head = repo.commit("moved")
    row = rows_by_message(content, repo)[message]
    assert (row["status"], row["now"]) == ("moved", f"pkg/numbers.py:6@{head[:10]}")


def test_two_records_never_claim_one_raise(tmp_path: Path, make_content) -> None:  # type: ignore[no-untyped-def]
    ipv4, ipv6 = "Invalid IPv4 address: {host!r}", "Invalid IPv6 address: {host!r}"
    module = (
        "def parse(host, kind):\n"
        "    if kind == 4:\n"
        '        raise InvalidURL(f"Invalid IPv4 address: {host!r}")\n'
        "    if kind == 6:\n"
        '        raise InvalidURL(f"Invalid IPv6 address: {host!r}")\n'
    )
    repo, content = scanned_project(tmp_path, make_content, {"pkg/urls.py": module})
    repo.write(
        "pkg/urls.py",
        "def parse(host, kind):\n"
        "    if kind == 4:\n"
        '        raise InvalidURL(f"Invalid IPv4 host address: {host!r}")\n'
        "    host = host.strip()\n"
        "    if kind == 6:\n"
        '        raise InvalidURL(f"Invalid IPv6 address: {host!r}")\n',
    )
    head = repo.commit("reworded")
    rows = rows_by_message(content, repo)
    assert rows[ipv6]["status"] == "moved"
    assert rows[ipv6]["now"] == f"pkg/urls.py:6@{head[:10]}"
    # The IPv6 raise reads more like the old IPv4 message than the reworded one does, but
    # it is the IPv6 record's: the IPv4 record is matched to its own successor.
    assert rows[ipv4]["status"] == "changed"
    assert rows[ipv4]["now"] == f"pkg/urls.py:3@{head[:10]}"
    assert rows[ipv4]["new_message"] == "Invalid IPv4 host address: {host!r}"


def test_a_message_built_in_a_variable_is_followed(tmp_path: Path, make_content) -> None:  # type: ignore[no-untyped-def]
    message = "Invalid URL {url!r}: no scheme given"
    module = (
        "def parse(url):\n"
        "    if not url.scheme:\n"
        '        msg = f"Invalid URL {url!r}: no scheme given"\n'
        "        raise InvalidURL(msg)\n"
        "    return url\n"
    )
    repo, content = scanned_project(tmp_path, make_content, {"pkg/urls.py": module})
    source = yaml.safe_load(record_of(content, message).read_text())["source"]
    assert (source["path"], source["line"]) == ("pkg/urls.py", 4)
    repo.write("pkg/urls.py", '"""URLs."""\n\n' + module)
    head = repo.commit("a docstring")
    row = rows_by_message(content, repo)[message]
    assert row["status"] == "moved"
    assert row["now"] == f"pkg/urls.py:6@{head[:10]}"


def test_the_docs_examples_and_benchmarks_do_not_raise_a_records_error(
    tmp_path: Path, make_content
) -> None:  # type: ignore[no-untyped-def]
    # As in pydantic 2.4: a docs plugin's raise is not the library's, as scan leaves it out.
    message = "heading with slug {slug!r} not found in {path}"
    raising = f'def find(slug, path):\n    raise ValueError(f"{message}")\n'
    repo, content = scanned_project(tmp_path, make_content, {"pkg/links.py": raising})
    repo.write("pkg/links.py", "def find(slug, path):\n    return None\n")
    for folder in ("docs/plugins", "examples", "benchmarks"):
        repo.write(f"{folder}/links.py", raising)
    repo.commit("only the docs look for headings")
    assert rows_by_message(content, repo)[message]["status"] == "removed"
    repo.write("pkg/headings.py", raising)
    head = repo.commit("the library does again")
    row = rows_by_message(content, repo)[message]
    assert (row["status"], row["now"]) == ("moved", f"pkg/headings.py:2@{head[:10]}")


def test_a_raise_under_the_same_conditions_in_its_function_is_the_record_reworded(
    tmp_path: Path, make_content
) -> None:  # type: ignore[no-untyped-def]
    # As in tornado 4.1 → 4.2: the message lost its advice, words and all; what it tests
    # did not change. Another raise of the function, testing something else, is not it.
    long = (
        "finish() called twice.  May be caused by using async operations without the "
        "@asynchronous decorator."
    )
    handler = (
        "class RequestHandler:\n"
        "    def finish(self, chunk=None):\n"
        "        if self._finished:\n"
        "            raise RuntimeError(MESSAGE)\n"
        "        if chunk is not None and self._closed:\n"
        '            raise RuntimeError("Cannot finish a closed request")\n'
    )
    files = {"pkg/web.py": handler.replace("MESSAGE", repr(long))}
    repo, content = scanned_project(tmp_path, make_content, files)
    repo.write("pkg/web.py", handler.replace("MESSAGE", repr("finish() called twice")))
    head = repo.commit("shorter")
    row = rows_by_message(content, repo)[long]
    assert (row["status"], row["now"]) == ("changed", f"pkg/web.py:4@{head[:10]}")
    assert row["new_message"] == "finish() called twice"
    assert rows_by_message(content, repo)["Cannot finish a closed request"]["status"] == "same"
    repo.write(
        "pkg/web.py",
        handler.replace(
            "        if self._finished:\n            raise RuntimeError(MESSAGE)\n", ""
        ),
    )
    repo.commit("finish twice, quietly")
    assert rows_by_message(content, repo)[long]["status"] == "removed"


def test_drift_right_after_scan_finds_every_draft_where_scan_left_it(
    tmp_path: Path, make_content
) -> None:  # type: ignore[no-untyped-def]
    # Each shape once: pydantic's two forms of one message at one raise, an error raised in
    # two files of the package and in tornado's demos, a future's exception, one held first.
    typing_extra = (
        "def eval_type(value, forward):\n"
        "    try:\n"
        "        return value()\n"
        "    except TypeError as e:\n"
        "        if forward:\n"
        "            message = f'Unable to evaluate type annotation {value.__forward_arg__!r}.'\n"
        "        else:\n"
        "            message = f'Unable to evaluate type annotation {value!r}.'\n"
        "        raise TypeError(message) from e\n"
    )
    web = (
        "class HTTPError(Exception):\n"
        "    def __init__(self, status_code):\n"
        "        super().__init__(f'HTTP {status_code}: request failed')\n"
        "\n"
        "\n"
        "def get(found, waiter):\n"
        "    if not found:\n"
        "        raise HTTPError(404)\n"
        "    if waiter.done():\n"
        "        waiter.set_exception(ConnectionError('Connection lost'))\n"
        "    exc = ValueError('Not enough data')\n"
        "    raise exc\n"
    )
    handler = "from pkg.web import HTTPError\n\n\ndef post(ok):\n    if not ok:\n        raise HTTPError(403)\n"
    files = {
        "pkg/typing_extra.py": typing_extra,
        "pkg/web.py": web,
        "pkg/auth.py": handler,
        "demos/blog.py": handler,
        "examples/chat.py": handler,
    }
    repo = GitRepo(tmp_path / "proj")
    for name, text in files.items():
        repo.write(name, text)
    repo.commit("first")
    content = make_content({})
    scan = ("scan", str(repo.path), "--content", str(content), "--repo", "acme/proj")
    assert run_cli(*scan, "--path", "pkg").exit_code == 0
    report = drift_json(content, repo)
    assert {row["message"]: row["status"] for row in report["records"]} == {
        "Unable to evaluate type annotation {value_forward_arg!r}.": "same",
        "HTTP {status_code}: request failed": "same",
        "Connection lost": "same",
        "Not enough data": "same",
    }
    assert (
        run_cli(
            "drift", "--strict", "--content", str(content), "--repo-dir", str(repo.path)
        ).exit_code
        == 0
    )


def test_errors_yielded_for_the_caller_to_raise_are_drafted_checked_and_followed(
    tmp_path: Path, make_content
) -> None:  # type: ignore[no-untyped-def]
    # jsonschema's keywords yield the errors `validate()` raises, one message from two texts.
    keywords = (
        "def required(validator, required, instance, schema):\n"
        "    for property in required:\n"
        "        if property not in instance:\n"
        "            yield ValidationError(f'{property!r} is a required property')\n"
        "\n"
        "\n"
        "def minItems(validator, mI, instance, schema):\n"
        "    if len(instance) < mI:\n"
        "        message = 'should be non-empty' if mI == 1 else 'is too short'\n"
        "        yield ValidationError(f'{instance!r} {message}')\n"
    )
    repo = GitRepo(tmp_path / "proj")
    repo.write("pkg/keywords.py", keywords)
    repo.commit("first")
    repo.git("tag", "1.0")
    repo.write("pkg/keywords.py", keywords.replace("is too short", "is too short to be valid"))
    repo.commit("reworded")
    content = make_content({})
    scan = ("scan", str(repo.path), "--content", str(content), "--repo", "acme/proj", "--json")
    assert json.loads(run_cli(*scan).stdout)["records_created"] == 3
    drafts = [yaml.safe_load(p.read_text()) for p in (content / "errors").rglob("*.yaml")]
    assert {d["message"]: "It is yielded there" in d["when"]["trigger"] for d in drafts} == {
        "{property!r} is a required property": True,
        "{instance!r} should be non-empty": True,
        "{instance!r} is too short to be valid": True,
    }
    where = ("--content", str(content), "--repo-dir", str(repo.path))
    checked = run_cli("check", "--drafts", "--strict", "--content", str(content))
    assert checked.exit_code == 0, checked.output
    assert run_cli("drift", "--strict", *where).exit_code == 0
    history = json.loads(run_cli("history", *where, "--json").stdout)
    raised = {
        r["id"]: [(x["release"], x["message"]) for x in r["raised"]] for r in history["records"]
    }
    short = next(d["id"] for d in drafts if d["message"].endswith("to be valid"))
    assert raised[short] == [
        ("1.0", "{instance!r} is too short"),
        ("unreleased", "{instance!r} is too short to be valid"),
    ]


def drafted_first_release(
    tmp_path: Path,
    make_content,  # type: ignore[no-untyped-def]
    file: str,
    releases: list[tuple[str, str]],
) -> tuple[GitRepo, Path, Path]:
    """A project whose one file is tagged release by release, and the one draft `scan` makes
    of its first release."""
    repo = GitRepo(tmp_path / "proj")
    for tag, text in releases:
        repo.release(tag, {file: text})
    content = make_content({})
    scan = ("scan", str(repo.path), "--content", str(content), "--repo", "acme/proj")
    assert run_cli(*scan, "--commit", releases[0][0]).exit_code == 0
    [path] = (content / "errors").rglob("*.yaml")
    return repo, content, path


def test_a_warning_is_drafted_pinned_and_followed_through_releases(
    tmp_path: Path,
    make_content,  # type: ignore[no-untyped-def]
) -> None:
    # click's and httpx's deprecations: issued through `warnings`, reworded, made an error
    # in place, then dropped with the option.
    core = (
        "import warnings\n"
        "\n"
        "\n"
        "def load(path, strict=None):\n"
        "    if strict is not None:\n"
        "        warnings.warn(\n"
        "            \"The 'strict' argument is deprecated; use 'mode' instead.\",\n"
        "            DeprecationWarning,\n"
        "            stacklevel=2,\n"
        "        )\n"
        "    return path\n"
    )
    reworded = core.replace("deprecated;", "deprecated and will be removed in 4.0;")
    raised = (
        "def load(path, strict=None):\n"
        "    if strict is not None:\n"
        "        raise TypeError(\n"
        "            \"The 'strict' argument is deprecated and will be removed in 4.0; use 'mode' \"\n"
        '            "instead."\n'
        "        )\n"
        "    return path\n"
    )
    releases = [
        ("1.0", core),
        ("2.0", "\n" + reworded),
        ("3.0", raised),
        ("4.0", "def load(path):\n    return path\n"),
    ]
    repo, content, path = drafted_first_release(tmp_path, make_content, "pkg/core.py", releases)
    draft = yaml.safe_load(path.read_text())
    assert (draft["kind"], draft["exception"]) == ("warning", "DeprecationWarning")
    assert draft["source"]["conditions"] == ["strict is not None"]
    assert draft["when"]["trigger"].startswith("Issued in `load` when `strict is not None`.")
    checked = run_cli("check", "--drafts", "--strict", "--content", str(content))
    assert checked.exit_code == 0, checked.output
    where = ("--content", str(content), "--repo-dir", str(repo.path))
    statuses = {
        to: [r["status"] for r in drift_json(content, repo, "--to", to)["records"]]
        for to in ("1.0", "2.0", "3.0", "4.0")
    }
    assert statuses == {"1.0": ["same"], "2.0": ["changed"], "3.0": ["changed"], "4.0": ["removed"]}
    # its author takes 2.0's wording, and pins it there
    path.write_text(
        path.read_text().replace("deprecated;", "deprecated and will be removed in 4.0;")
    )
    pinned = run_cli("pin", str(path), *where, "--commit", "2.0")
    assert pinned.exit_code == 0, pinned.output
    assert yaml.safe_load(path.read_text())["source"]["line"] == 7
    [record] = json.loads(run_cli("history", *where, "--json").stdout)["records"]
    assert [(r["release"], r["line"], r.get("kind")) for r in record["raised"]] == [
        ("1.0", 6, "warning"),
        ("2.0", 7, "warning"),
        ("3.0", 3, None),
    ]
    assert record["not_raised_since"] == "4.0"
    # what Python prints for it finds its page, in the wording of the release it came from
    printed = (
        "/srv/app/run.py:4: DeprecationWarning: The 'strict' argument is deprecated; use "
        "'mode' instead.\n  load('x', strict=True)\n"
    )
    found = run_cli("lookup", "--content", str(content), "--drafts", "--json", "--text", printed)
    best = json.loads(found.stdout)["matches"][0]
    assert (best["id"], best["exact"], best["former"]["releases"]) == (draft["id"], True, "1.0")
    # its page says it was issued, then raised, and what the code does with it now
    out = tmp_path / "site"
    built = run_cli("build", "--content", str(content), "--out", str(out), "--drafts")
    assert built.exit_code == 0, built.output
    assert "this warning is not issued in the latest release (4.0)" in built.output
    page = parse_html(out / "errors" / draft["id"] / "index.html")
    assert page.select_one(".releases").get_text() == (
        "Issued in 1.0 – 3.0 · reworded in 2.0 · raised as TypeError in 3.0 · not raised since 4.0"
    )
    rows = [
        [c.get_text(" ", strip=True) for c in tr.find_all(["th", "td"])][:2]
        for tr in page.select("table.history tbody tr")
    ]
    assert rows == [
        ["1.0", "issued"],
        ["2.0", "reworded"],
        ["3.0", "raised as TypeError"],
        ["4.0", "no longer raised"],
    ]
    banner = page.select_one(".retired-banner").get_text(" ", strip=True)
    assert banner.startswith("No longer raised since 4.0")
    api = json.loads((out / "api" / "errors" / f"{draft['id']}.json").read_text())
    kinds = [run.get("kind") for run in api["resolved"]["history"]["raised"]]
    assert kinds == ["warning", "warning", None]


def test_a_deprecated_decorator_is_drafted_checked_and_followed_through_releases(
    tmp_path: Path,
    make_content,  # type: ignore[no-untyped-def]
) -> None:
    # PEP 702's decorator, reworded and moved in 2.0, the function gone in 3.0.
    connect = (
        "from typing_extensions import deprecated\n"
        "\n"
        "\n"
        '@deprecated("connect() is deprecated; use open() instead.")\n'
        "def connect(url):\n"
        "    return url\n"
    )
    reworded = connect.replace("deprecated;", "deprecated and will be removed in 4.0;")
    releases = [("1.0", connect), ("2.0", "\n\n" + reworded), ("3.0", "VERSION = 3\n")]
    repo, content, path = drafted_first_release(tmp_path, make_content, "pkg/net.py", releases)
    draft = yaml.safe_load(path.read_text())
    assert (draft["kind"], draft["exception"]) == ("warning", "DeprecationWarning")
    assert (draft["source"]["line"], draft["source"]["function"]) == (4, "connect")
    assert "decorator issues it each time the function is called" in draft["when"]["trigger"]
    checked = run_cli("check", "--drafts", "--strict", "--content", str(content))
    assert checked.exit_code == 0, checked.output
    statuses = {
        to: [r["status"] for r in drift_json(content, repo, "--to", to)["records"]]
        for to in ("1.0", "2.0", "3.0")
    }
    assert statuses == {"1.0": ["same"], "2.0": ["changed"], "3.0": ["removed"]}
    where = ("--content", str(content), "--repo-dir", str(repo.path))
    [record] = json.loads(run_cli("history", *where, "--json").stdout)["records"]
    assert [(r["release"], r["line"], r.get("kind")) for r in record["raised"]] == [
        ("1.0", 4, "warning"),
        ("2.0", 6, "warning"),
    ]
    out = tmp_path / "site"
    built = run_cli("build", "--content", str(content), "--out", str(out), "--drafts")
    assert built.exit_code == 0, built.output
    page = parse_html(out / "errors" / draft["id"] / "index.html")
    assert page.select_one(".releases").get_text() == (
        "Issued in 1.0 – 2.0 · reworded in 2.0 · not issued since 3.0"
    )
    banner = page.select_one(".retired-banner").get_text(" ", strip=True)
    assert banner.startswith("No longer issued since 3.0")


def test_the_deprecated_packages_warning_is_worded_as_it_words_it_and_followed_to_pep_702(
    tmp_path: Path,
    make_content,  # type: ignore[no-untyped-def]
) -> None:
    # PyGithub: the Deprecated package's decorator until 2.6, PEP 702's from 2.7. The
    # package words the warning itself around the reason given; the decorator of the same
    # method is the same warning, whatever the words (2.7 keeps the reason alone).
    def release(imported: str, decorator: str) -> str:
        return (
            f"{imported}\n"
            "\n"
            "\n"
            "class Github:\n"
            f"    @{decorator}\n"
            "    def get_installation(self, id):\n"
            "        return id\n"
        )

    releases = [
        ("1.0", release("import deprecated", 'deprecated.deprecated("Use get_repo_installation")')),
        (
            "2.0",
            release(
                "from typing_extensions import deprecated",
                'deprecated("Use get_repo_installation")',
            ),
        ),
        (
            "3.0",
            release(
                "from deprecated.sphinx import deprecated as _deprecated",
                '_deprecated("Use :meth:`get_repo_installation`", "3.0")',
            ),
        ),
    ]
    repo, content, path = drafted_first_release(tmp_path, make_content, "pkg/main.py", releases)
    draft = yaml.safe_load(path.read_text())
    assert (draft["kind"], draft["exception"], draft["message"]) == (
        "warning",
        "DeprecationWarning",
        "Call to deprecated method get_installation. (Use get_repo_installation)",
    )
    assert (draft["source"]["line"], draft["source"]["function"]) == (5, "Github.get_installation")
    checked = run_cli("check", "--drafts", "--strict", "--content", str(content))
    assert checked.exit_code == 0, checked.output
    statuses = [r["status"] for r in drift_json(content, repo, "--to", "2.0")["records"]]
    assert statuses == ["changed"]
    where = ("--content", str(content), "--repo-dir", str(repo.path))
    [record] = json.loads(run_cli("history", *where, "--json").stdout)["records"]
    assert [(r["release"], r["line"], r["message"]) for r in record["raised"]] == [
        ("1.0", 5, "Call to deprecated method get_installation. (Use get_repo_installation)"),
        ("2.0", 5, "Use get_repo_installation"),
        (
            "3.0",
            5,
            "Call to deprecated method get_installation. (Use `get_repo_installation`)"
            " -- Deprecated since version 3.0.",
        ),
    ]
