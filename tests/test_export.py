"""`errpages export python`: a vendored module that links raised errors to their pages."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlencode

import pytest
import yaml

from errpages.content.schema import derive_id
from errpages.site.messages import message_parts
from tests.conftest import EXAMPLE_CONTENT, run_cli, valid_record

BASE_URL = "https://errors.example.org/"

# Runs in a fresh interpreter that sees nothing but the module (-I: no user site, no
# environment; -S: no site-packages).
PROBE = """
import json, sys
sys.path.insert(0, sys.argv[1])
import errpages_links as links
cases = json.loads(sys.stdin.read())
print(json.dumps([links.url_for(getattr(__builtins__, kind)(message)) for kind, message in cases]))
"""


def export(content: Path, target: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "errpages", "export", "python", str(target)]
    return subprocess.run(
        [*command, "--content", str(content), *extra], capture_output=True, text=True, check=False
    )


def fresh_python(folder: Path, code: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-I", "-S", "-c", code, str(folder)],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=folder,
        check=False,
    )


def example_errors() -> list[dict[str, str]]:
    """The example site's published errors, each with its message filled with real values, and
    the URL `url_for` should give for it."""
    records = []
    for path in sorted((EXAMPLE_CONTENT / "errors").rglob("*.yaml")):
        data = yaml.safe_load(path.read_text())
        if data.get("draft") or data.get("retired"):
            continue
        values, message = {}, ""
        for part in message_parts(data["message"]):
            if part.is_placeholder:
                values[part.name] = f"value-{len(values)}"
                shown = repr(values[part.name]) if part.conversion == "r" else values[part.name]
                message += shown
            else:
                message += part.text
        query = f"?{urlencode(values)}" if values else ""
        error_id = data.get("id") or derive_id(data["repo"], data["exception"], data["message"])
        records.append(
            {
                "exception": data["exception"],
                "message": message,
                "url": f"{BASE_URL}errors/{error_id}/{query}",
            }
        )
    return records


@pytest.fixture(scope="module")
def module(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("vendored")
    result = export(EXAMPLE_CONTENT, folder / "errpages_links.py")
    assert result.returncode == 0, result.stderr
    assert "Wrote" in result.stdout and "9 errors of https://errors.example.org/" in result.stdout
    return folder


def test_url_for_gives_each_raised_errors_page_with_its_values(module: Path) -> None:
    errors = example_errors()
    assert len(errors) == 9
    cases = [[e["exception"], e["message"]] for e in errors]
    cases += [
        ["ValueError", "an error nobody wrote a page for"],
        ["TypeError", errors[0]["message"]],
    ]
    result = fresh_python(module, PROBE, json.dumps(cases))
    assert result.returncode == 0, result.stderr
    urls = json.loads(result.stdout)
    assert urls == [e["url"] for e in errors] + [None, None]  # other text, other class: none


def test_a_real_value_reaches_the_page_as_the_site_reads_it(module: Path) -> None:
    message = (
        "PD decode DCP requires --disaggregation-transfer-backend mooncake, nixl, or fake for "
        "synthetic benchmarking, got 'mori'."
    )
    result = fresh_python(module, PROBE, json.dumps([["ValueError", message]]))
    assert json.loads(result.stdout) == [f"{BASE_URL}errors/b0e9a9c158a0b982/?backend=mori"]


def test_an_uncaught_error_ends_with_its_page_and_other_hooks_still_run(module: Path) -> None:
    raising = (
        "import sys\nsys.path.insert(0, sys.argv[1])\nimport errpages_links\n"
        "def earlier(kind, value, traceback):\n    sys.__excepthook__(kind, value, traceback)\n"
        "    sys.stderr.write('the earlier hook ran\\n')\n"
        "sys.excepthook = earlier\nerrpages_links.install_excepthook()\n"
        "errpages_links.install_excepthook()\n"
        "raise ValueError('MiniCPM SALA does not support hierarchical cache')\n"
    )
    result = fresh_python(module, raising)
    assert result.returncode == 1
    lines = result.stderr.splitlines()
    assert lines[0] == "Traceback (most recent call last):"
    assert lines[-3:] == [
        "ValueError: MiniCPM SALA does not support hierarchical cache",
        "the earlier hook ran",
        f"See {BASE_URL}errors/fdffa8e3ed0ceedb/",
    ]
    other = fresh_python(module, raising.replace("MiniCPM SALA", "Something else"))
    assert other.stderr.splitlines()[-1] == "the earlier hook ran"  # left alone
    assert "See " not in other.stderr


@pytest.mark.skipif(sys.version_info < (3, 11), reason="exception notes are Python 3.11's")
def test_add_note_puts_the_page_on_the_exception(module: Path) -> None:
    code = (
        "import sys, traceback\nsys.path.insert(0, sys.argv[1])\nimport errpages_links\n"
        "try:\n    raise errpages_links.add_note(ValueError("
        "'MiniCPM SALA does not support hierarchical cache'))\n"
        "except ValueError as exc:\n    errpages_links.add_note(exc)\n"
        "    print(exc.__notes__)\n    traceback.print_exc()\n"
    )
    result = fresh_python(module, code)
    assert result.stdout.strip() == f"['See {BASE_URL}errors/fdffa8e3ed0ceedb/']"  # once
    assert result.stderr.splitlines()[-1] == f"See {BASE_URL}errors/fdffa8e3ed0ceedb/"


def test_the_module_is_the_same_bytes_built_twice_and_needs_a_base_url(
    module: Path, tmp_path: Path, make_content
) -> None:  # type: ignore[no-untyped-def]
    again = tmp_path / "again.py"
    assert export(EXAMPLE_CONTENT, again).returncode == 0
    assert again.read_bytes() == (module / "errpages_links.py").read_bytes()
    content = make_content({"errors/a.yaml": valid_record()})
    refused = export(content, tmp_path / "x.py")
    assert refused.returncode == 1
    assert "sets no base_url" in refused.stderr and "pass --base-url" in refused.stderr
    assert not (tmp_path / "x.py").exists()


def test_content_is_data_in_the_module_never_code(tmp_path: Path, make_content) -> None:  # type: ignore[no-untyped-def]
    title = 'x"""\nimport os; os.system("touch pwned")\n"""'
    message = '"a message with \\"\\"\\" and \\\\ and {name}"'
    content = make_content(
        {
            "site.yaml": f"title: {json.dumps(title)}\n",
            "errors/a.yaml": valid_record(message=message),
        }
    )
    target = tmp_path / "errpages_links.py"
    assert export(content, target, "--base-url", "https://x.example/").returncode == 0
    code = "import sys\nsys.path.insert(0, sys.argv[1])\nimport errpages_links as m\nprint(m.SITE_TITLE)"
    result = fresh_python(tmp_path, code)
    assert result.returncode == 0, result.stderr
    assert result.stdout == title + "\n"
    assert not (tmp_path / "pwned").exists()


def imported_modules(source: str) -> set[str]:
    """The top-level modules a module imports; it must parse as Python 3.8 does (written for
    the oldest Python a library may still support)."""
    import ast

    tree = ast.parse(source, feature_version=(3, 8))
    return {
        alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in (
            node.names if isinstance(node, ast.Import) else [ast.alias(node.module or "")]
        )
    }


def test_the_module_is_python_3_8(module: Path) -> None:
    source = (module / "errpages_links.py").read_text()
    assert imported_modules(source) <= {"json", "sys", "urllib", "warnings"}  # the stdlib only


HOSTILE_EXCEPTIONS = """
import sys
sys.path.insert(0, sys.argv[1])
import errpages_links as links
TEMPLATE = ("PD decode DCP requires --disaggregation-transfer-backend mooncake, nixl, or fake "
            "for synthetic benchmarking, got {}.")
class BrokenStr(ValueError):
    def __str__(self):
        raise RuntimeError("no message for you")
class NotAString(ValueError):
    def __str__(self):
        return 5
class BrokenArgs(KeyError):
    @property
    def args(self):
        raise RuntimeError("no args either")
class BrokenNotes(ValueError):
    __notes__ = 5
CASES = {
    "file name": ValueError(TEMPLATE.format("'caf\\udce9'")),
    "lone surrogate": ValueError(TEMPLATE.format("'\\ud800x'")),
    "__str__ raises": BrokenStr("x"),
    "__str__ not a string": NotAString("x"),
    "args raise": BrokenArgs("x"),
    "notes not a list": BrokenNotes(TEMPLATE.format("'mori'")),
}
"""


def test_the_hooks_never_raise(module: Path) -> None:
    """A value Python cannot encode (a lone surrogate) and an exception whose message cannot be
    had: url_for gives the page or None, add_note gives the exception back, the hook prints."""
    code = HOSTILE_EXCEPTIONS + (
        "import json\n"
        "urls = {name: links.url_for(exc) for name, exc in CASES.items()}\n"
        "noted = {name: links.add_note(exc) is exc for name, exc in CASES.items()}\n"
        "print(json.dumps([urls, noted]))\n"
    )
    result = fresh_python(module, code)
    assert result.returncode == 0, result.stderr
    urls, noted = json.loads(result.stdout)
    page = f"{BASE_URL}errors/b0e9a9c158a0b982/?backend="
    assert urls == {
        "file name": page + "caf%E9",  # the byte the file system named it with
        "lone surrogate": page + "%3Fx",  # no bytes stand for it
        "__str__ raises": None,
        "__str__ not a string": None,
        "args raise": None,
        "notes not a list": page + "mori",
    }
    assert all(noted.values())


@pytest.mark.parametrize("case", ["file name", "lone surrogate", "__str__ raises", "args raise"])
def test_an_uncaught_error_the_hook_cannot_read_still_ends_cleanly(module: Path, case: str) -> None:
    code = HOSTILE_EXCEPTIONS + f"links.install_excepthook()\nraise CASES[{case!r}]\n"
    result = fresh_python(module, code)
    assert result.returncode == 1
    assert result.stderr.startswith("Traceback (most recent call last):")
    assert "Error in sys.excepthook" not in result.stderr
    assert "UnicodeEncodeError" not in result.stderr
    if case in ("file name", "lone surrogate"):
        assert result.stderr.splitlines()[-1].startswith(f"See {BASE_URL}errors/")
    else:
        assert "See " not in result.stderr


def test_a_record_naming_its_class_dotted_is_found_by_the_class_raised(
    tmp_path: Path, make_content
) -> None:  # type: ignore[no-untyped-def]
    record = valid_record(message="No route exists for name {name!r}.").replace(
        "exception: ValueError", "exception: starlette.routing.NoMatchFound"
    )
    assert "starlette.routing.NoMatchFound" in record
    content = make_content({"errors/a.yaml": record})
    target = tmp_path / "errpages_links.py"
    assert export(content, target, "--base-url", "https://x.example/").returncode == 0
    code = (
        "import sys\nsys.path.insert(0, sys.argv[1])\nimport errpages_links as m\n"
        "class NoMatchFound(Exception): pass\n"
        "print(m.url_for(NoMatchFound(\"No route exists for name 'home'.\")))"
    )
    result = fresh_python(tmp_path, code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("https://x.example/errors/0123456789abcdef/?name=home"), (
        result.stdout
    )


def test_of_two_templates_a_message_matches_whole_the_page_is_the_one_lookup_ranks_first(
    tmp_path: Path, make_content
) -> None:  # type: ignore[no-untyped-def]
    """`{value}` runs to the end of the message, so both templates match it whole; the one
    that pins down more of it is its error, though the other's id comes first."""
    loose = valid_record("000000000000000a", '"Invalid value: {value}"')
    strict = valid_record("000000000000000b", '"Invalid value: {value} (expected {kind})"')
    content = make_content({"errors/a.yaml": loose, "errors/b.yaml": strict})
    target = tmp_path / "errpages_links.py"
    assert export(content, target, "--base-url", "https://x.example/").returncode == 0
    message = "Invalid value: 'x' (expected int)"
    result = fresh_python(tmp_path, PROBE, json.dumps([["ValueError", message]]))
    assert result.returncode == 0, result.stderr
    url = "https://x.example/errors/000000000000000b/?value=%27x%27&kind=int"
    assert json.loads(result.stdout) == [url]
    ranked = run_cli(
        "lookup", "--content", str(content), "--json", "--text", f"ValueError: {message}"
    )
    assert json.loads(ranked.stdout)["matches"][0]["id"] == "000000000000000b"


@pytest.fixture(scope="module")
def explaining(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("explaining")
    result = export(EXAMPLE_CONTENT, folder / "errpages_links.py", "--explain")
    assert result.returncode == 0, result.stderr
    return folder


def explain(
    folder: Path, *args: str, stdin: str = "", columns: int = 80
) -> subprocess.CompletedProcess[str]:
    """`python -m errpages_links explain …` in a fresh interpreter that sees only the module."""
    code = "import runpy, sys\nsys.path.insert(0, sys.argv[1])\nsys.argv[1:2] = []\nrunpy.run_module('errpages_links', run_name='__main__')"
    return subprocess.run(
        [sys.executable, "-I", "-S", "-c", code, str(folder), "explain", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env={"COLUMNS": str(columns), "LINES": "24"},
        check=False,
    )


def code_blocks(data: object) -> list[str]:
    """The code a record holds: its example fix and the fenced blocks of its Markdown."""
    if isinstance(data, dict):
        fix = data.get("example_fix") or {}
        found = [fix.get("before", ""), fix.get("after", "")]
        return found + [block for value in data.values() for block in code_blocks(value)]
    if isinstance(data, list):
        return [block for value in data for block in code_blocks(value)]
    return re.findall(r"```[^\n]*\n(.*?)```", data, re.S) if isinstance(data, str) else []


def test_explain_prints_the_page_of_a_pasted_traceback_wrapped_to_the_terminal(
    explaining: Path,
) -> None:
    records = {
        path: yaml.safe_load(path.read_text())
        for path in sorted((EXAMPLE_CONTENT / "errors").rglob("*.yaml"))
    }
    for error, (path, data) in zip(example_errors(), records.items(), strict=True):
        traceback = (
            "Traceback (most recent call last):\n"
            '  File "serve.py", line 3, in <module>\n    main()\n'
            f"{error['exception']}: {error['message']}\n"
        )
        shown = explain(explaining, stdin=traceback, columns=60)
        assert shown.returncode == 0, (path, shown.stderr)
        lines = shown.stdout.splitlines()
        assert lines[0] == f"{data['exception']}: {' '.join(data['message'].split())}"
        assert error["url"] in lines[1:3]
        text = " ".join(shown.stdout.split())
        assert "What it means" in lines and "Solutions" in lines
        first_words = " ".join(data["solutions"][0].replace("`", "").split()[:3])
        assert first_words in text.replace("`", ""), path
        code = {line.strip() for block in code_blocks(data) for line in block.splitlines()}
        for line in lines[1:]:
            # Prose is wrapped to the width; only code and a word longer than it may pass.
            assert len(line) <= 59 or line.strip() in code or " " not in line.strip(), line
    assert (
        explain(
            explaining, "--text", example_errors()[0]["message"].join(["ValueError: ", ""])
        ).returncode
        == 0
    )


def test_explain_by_id_and_alias_and_nothing_matching_exits_1(explaining: Path) -> None:
    error = example_errors()[0]
    error_id = error["url"].split("/errors/")[1].split("/")[0]
    by_id = explain(explaining, error_id)
    assert (
        by_id.returncode == 0
        and by_id.stdout.splitlines()[1:3].count(f"{BASE_URL}errors/{error_id}/") == 1
    )
    missing = explain(explaining, "ffffffffffffffff")
    assert missing.returncode == 1 and "no error has the id 'ffffffffffffffff'" in missing.stderr
    nothing = explain(
        explaining, stdin="Traceback (most recent call last):\nValueError: not ours\n"
    )
    assert nothing.returncode == 1 and nothing.stdout == ""
    assert "matches that text" in nothing.stderr
    both = explain(explaining, error_id, "--text", "x")
    assert both.returncode == 2


def test_explain_prints_content_as_text_never_terminal_codes(tmp_path: Path, make_content) -> None:  # type: ignore[no-untyped-def]
    hostile = valid_record(message="bad \x1b[2J widget").replace(
        "meaning: It means the widget was bad.",
        'meaning: "Red \\e[31mtext\\e[0m, a \\rreturn, <script>x</script> and [a link](javascript:alert(1))\\u202e"',
    )
    content = make_content(
        {
            "errors/a.yaml": hostile.replace(
                "message: bad \x1b[2J widget", 'message: "bad \\e[2J widget"'
            )
        }
    )
    target = tmp_path / "errpages_links.py"
    assert export(content, target, "--base-url", "https://x.example/", "--explain").returncode == 0
    shown = explain(tmp_path, "0123456789abcdef")
    assert shown.returncode == 0, shown.stderr
    assert "\x1b" not in shown.stdout and "\r" not in shown.stdout and "\u202e" not in shown.stdout
    assert "[U+001B" in shown.stdout and "<script>x</script>" in shown.stdout
    assert "javascript:" in shown.stdout and "<javascript:" not in shown.stdout  # text, not a link
    # A pasted value is printed escaped too.
    pasted = explain(tmp_path, "--text", "ValueError: bad \x1b[2J widget and \x07more")
    assert "\x07" not in pasted.stdout + pasted.stderr


def test_without_explain_the_module_has_no_text_and_with_it_stays_python_3_8(
    module: Path, explaining: Path
) -> None:
    small = (module / "errpages_links.py").read_text()
    assert "_TEXT" not in small and "def main" not in small and "What it means" not in small
    source = (explaining / "errpages_links.py").read_text()
    assert imported_modules(source) <= {
        "json",
        "sys",
        "urllib",
        "warnings",
        "re",
        "textwrap",
        "shutil",
        "argparse",
    }
    assert small[small.index("\nSITE_TITLE") :] in source  # the same module, text added


def test_a_shown_warning_that_has_a_page_ends_with_it(tmp_path: Path, make_content) -> None:  # type: ignore[no-untyped-def]
    record = (
        valid_record(message='"The {name!r} argument is deprecated."')
        .replace("exception: ValueError", "kind: warning\nexception: DeprecationWarning")
        .replace('raise ValueError("bad widget")', 'warnings.warn("…", DeprecationWarning)')
    )
    content = make_content({"errors/a.yaml": record})
    exported = export(content, tmp_path / "errpages_links.py", "--base-url", "https://x.example/")
    assert exported.returncode == 0, exported.stderr
    code = (
        "import sys, warnings\nsys.path.insert(0, sys.argv[1])\nimport errpages_links\n"
        "def earlier(message, category, filename, lineno, file=None, line=None):\n"
        "    sys.stderr.write(f'{category.__name__}: {message} (the earlier function)\\n')\n"
        "warnings.showwarning = earlier\n"
        "errpages_links.install_showwarning()\nerrpages_links.install_showwarning()\n"
        "warnings.simplefilter('always')\n"
        "warnings.warn(\"The 'strict' argument is deprecated.\", DeprecationWarning)\n"
        "warnings.warn('Something else.', DeprecationWarning)\n"
        "warnings.warn(\"The 'strict' argument is deprecated.\", UserWarning)\n"
        "warnings.simplefilter('error')\n"
        "warnings.warn(\"The 'mode' argument is deprecated.\", DeprecationWarning)\n"
    )
    result = fresh_python(tmp_path, code)
    assert result.returncode == 1  # raised, as the filters say: the excepthook's to link
    assert result.stderr.splitlines()[:4] == [
        "DeprecationWarning: The 'strict' argument is deprecated. (the earlier function)",
        "See https://x.example/errors/0123456789abcdef/?name=strict",
        "DeprecationWarning: Something else. (the earlier function)",
        "UserWarning: The 'strict' argument is deprecated. (the earlier function)",
    ]
    assert "Traceback" in result.stderr.splitlines()[4]
