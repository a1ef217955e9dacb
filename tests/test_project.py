"""[tool.errpages] in pyproject.toml: found from any folder of the project; options win."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import EXAMPLE_CONTENT, parse_html, valid_record
from tests.gitrepo import GitRepo


def errpages(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "errpages", *args], cwd=cwd, capture_output=True, text=True
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project whose errors live in docs/errors and whose site goes to build/errors."""
    root = tmp_path / "project"
    shutil.copytree(EXAMPLE_CONTENT, root / "docs" / "errors")
    (root / "src" / "deep").mkdir(parents=True)
    (root / "pyproject.toml").write_text(
        '[project]\nname = "widgets"\n\n[tool.ruff]\nline-length = 99\n\n'
        "[tool.errpages]\n"
        'content = "docs/errors"\n'
        'out = "build/errors"\n'
        'base-url = "https://widgets.example/errors/"\n'
        "strict = true\n"
    )
    return root


def canonical(page: Path) -> str:
    link = parse_html(page).find("link", rel="canonical")
    assert link is not None
    return str(link["href"])


def test_settings_apply_from_any_folder_of_the_project(project: Path) -> None:
    # A pyproject.toml without the table, nearer, is passed over (as ruff does).
    (project / "src" / "pyproject.toml").write_text('[project]\nname = "inner"\n')
    built = errpages(project / "src" / "deep", "build")
    assert built.returncode == 0, built.stderr
    site = project / "build" / "errors"
    assert canonical(site / "index.html") == "https://widgets.example/errors/"
    # The cache is the project's, not the working folder's.
    assert (project / ".errpages-cache").is_dir()
    assert not (project / "src" / "deep" / ".errpages-cache").exists()
    assert not (project / "src" / "deep" / "site").exists()
    checked = errpages(project / "docs", "check")
    assert checked.returncode == 0 and "9 records OK" in checked.stdout, checked.stderr
    assert "[default: docs/errors]" in " ".join(errpages(project, "build", "--help").stdout.split())


def test_options_on_the_command_line_win(project: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    built = errpages(
        project / "src", "build", "--out", str(other), "--base-url", "https://other.example/"
    )
    assert built.returncode == 0, built.stderr
    assert canonical(other / "index.html") == "https://other.example/"
    assert not (project / "build").exists()
    # strict = true fails on a warning (a related error listed twice); --no-strict wins.
    errors = project / "docs" / "errors" / "errors"
    (errors / "a.yaml").write_text(valid_record("00000000000000aa", "first widget"))
    twice = "solutions:\n  - Pass a good widget.\nrelated: [00000000000000aa, 00000000000000aa]\n"
    (errors / "b.yaml").write_text(
        valid_record("00000000000000bb", "second widget").replace(
            "solutions:\n  - Pass a good widget.\n", twice
        )
    )
    strict = errpages(project, "check")
    assert strict.returncode == 1 and "listed twice" in strict.stderr, strict.stderr
    lenient = errpages(project, "check", "--no-strict")
    assert lenient.returncode == 0 and "listed twice" in lenient.stderr, lenient.stderr


def test_the_repository_setting_serves_scan_drift_and_history(tmp_path: Path) -> None:
    widgets = GitRepo(tmp_path / "widgets")
    widgets.write("widgets/core.py", 'def get(name):\n    raise KeyError(f"no widget {name}")\n')
    widgets.commit("first")
    widgets.git("tag", "v1.0")
    widgets.write("widgets/version.py", "VERSION = 2\n")
    widgets.commit("second")
    widgets.git("tag", "widgets_2_0")  # named another way, as pyparsing's older tags are
    root = tmp_path / "docs-site"
    (root / "content").mkdir(parents=True)
    (root / "pyproject.toml").write_text(
        '[tool.errpages]\nrepo-dir = "../widgets"\nrepo = "acme/widgets"\n'
        'tags = ["v*", "widgets_*"]\n'
    )
    scanned = errpages(root, "scan")
    assert scanned.returncode == 0, scanned.stderr
    (draft,) = (root / "content" / "errors" / "acme" / "widgets").rglob("*.yaml")
    assert "no widget {name}" in draft.read_text()
    drift = errpages(root / "content", "drift")
    assert drift.returncode == 0, drift.stderr
    assert "same" in drift.stdout
    history = errpages(root, "history", "--json")
    assert history.returncode == 0, history.stderr
    assert json.loads(history.stdout)["releases"] == ["v1.0", "widgets_2_0"]
    one = errpages(root, "history", "--json", "--tags", "widgets_*")  # the command line wins
    assert json.loads(one.stdout)["releases"] == ["widgets_2_0"]


@pytest.mark.parametrize(
    ("table", "said"),
    [
        ('colour = "red"', "pyproject.toml:2: [tool.errpages] has no setting 'colour'"),
        (
            'jobs = "many"',
            "pyproject.toml:2: [tool.errpages] jobs: expected an integer, got 'many'",
        ),
        ("strict = 1", "pyproject.toml:2: [tool.errpages] strict: expected true or false, got 1"),
        ("content = 3", "pyproject.toml:2: [tool.errpages] content: expected a folder"),
        (
            'base-url = "javascript:alert(1)"',
            "pyproject.toml:2: [tool.errpages] base-url: 'javascript:alert(1)' is not an http(s) URL",
        ),
        ('repo = "../x"', "pyproject.toml:2: [tool.errpages] repo: '../x' is not owner/name"),
        (
            'tags = ["v*", 2]',
            "pyproject.toml:2: [tool.errpages] tags: expected a string or a list of strings",
        ),
        ("content = [", "pyproject.toml: not valid TOML: "),
    ],
)
def test_a_bad_setting_is_a_clear_usage_error(tmp_path: Path, table: str, said: str) -> None:
    (tmp_path / "pyproject.toml").write_text(f"[tool.errpages]\n{table}\n")
    result = errpages(tmp_path, "check")
    assert result.returncode == 2
    assert said in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
