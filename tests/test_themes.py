"""User themes override single files of the default theme and inherit the rest."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT, install_wheel, parse_html, run_cli, valid_record


def test_a_theme_overrides_one_template_and_one_asset(make_content, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    theme = tmp_path / "mytheme"
    (theme / "templates").mkdir(parents=True)
    (theme / "static").mkdir()
    base = (REPO_ROOT / "themes" / "default" / "templates" / "index.html").read_text()
    (theme / "templates" / "index.html").write_text(
        base.replace("Recently analysed", "Newest errors")
    )
    (theme / "static" / "style.css").write_text("body { font-family: serif; }\n")
    content = make_content({"errors/a.yaml": valid_record(), "site.yaml": "theme: mytheme\n"})
    out = tmp_path / "site"
    result = run_cli("build", "--content", str(content), "--out", str(out))
    assert result.exit_code == 0, result.output
    home = parse_html(out / "index.html")
    assert "Newest errors" in home.get_text()
    assert (out / "assets" / "style.css").read_text() == "body { font-family: serif; }\n"
    default_js = (REPO_ROOT / "themes" / "default" / "static" / "site.js").read_bytes()
    assert (out / "assets" / "site.js").read_bytes() == default_js
    error_page = parse_html(out / "errors" / "0123456789abcdef" / "index.html")
    assert error_page.select_one("#message") is not None  # error.html comes from the default


def test_eject_copies_the_default_theme_and_builds_the_same_site(
    make_content, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    result = run_cli("theme", "eject", "themes/mine")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "themes" / "mine" / "templates" / "error.html").is_file()
    again = run_cli("theme", "eject", "themes/mine")
    assert again.exit_code == 1 and "use --force" in again.stderr
    content = make_content({"errors/a.yaml": valid_record(), "site.yaml": "theme: themes/mine\n"})
    ejected_out = tmp_path / "ejected"
    assert (
        run_cli(
            "build", "--content", str(content), "--out", str(ejected_out), "--no-cache"
        ).exit_code
        == 0
    )
    (content / "site.yaml").write_text("theme: default\n")
    default_out = tmp_path / "default"
    assert (
        run_cli(
            "build", "--content", str(content), "--out", str(default_out), "--no-cache"
        ).exit_code
        == 0
    )
    for page in default_out.rglob("*.html"):
        assert (ejected_out / page.relative_to(default_out)).read_bytes() == page.read_bytes()


def test_installed_package_builds_outside_the_repository(tmp_path: Path) -> None:
    """`pip install .` ships the default theme: build a site in a folder far from the repo."""
    wheel_dir = tmp_path / "wheel"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "-w",
            str(wheel_dir),
            str(REPO_ROOT),
        ],
        check=True,
        capture_output=True,
    )
    wheel = next(wheel_dir.glob("errpages-*.whl"))
    target = tmp_path / "installed"
    install_wheel(wheel, target)
    work = tmp_path / "elsewhere"
    (work / "content" / "errors").mkdir(parents=True)
    (work / "content" / "errors" / "a.yaml").write_text(valid_record())
    # The installed copy comes first on the path; the dependencies come from this environment.
    code = "import errpages, sys; print(errpages.__file__, file=sys.stderr); from errpages.cli import main; main()"
    env = {**os.environ, "PYTHONPATH": str(target)}
    result = subprocess.run(
        [sys.executable, "-c", code, "build", "--no-cache"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
    )
    assert str(target / "errpages" / "__init__.py") in result.stderr
    assert result.returncode == 0, result.stderr
    assert (work / "site" / "errors" / "0123456789abcdef" / "index.html").is_file()
    assert (work / "site" / "assets" / "search.js").is_file()


def test_a_broken_theme_template_is_a_clean_error(make_content, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    theme = tmp_path / "broken"
    (theme / "templates").mkdir(parents=True)
    (theme / "templates" / "error.html").write_text(
        "{% extends 'base.html' %}{% block main %}{{ record.nope }}{% endblock %}"
    )
    content = make_content({"errors/a.yaml": valid_record(), "site.yaml": "theme: broken\n"})
    out = tmp_path / "site"
    result = run_cli("build", "--content", str(content), "--out", str(out), "--no-cache")
    assert result.exit_code == 1
    assert "template: UndefinedError:" in result.stderr and "nope" in result.stderr
    assert "Traceback" not in result.output
    assert not out.exists()
    (theme / "templates" / "error.html").write_text("{% block main %}{% endblock")
    result = run_cli("build", "--content", str(content), "--out", str(out), "--no-cache")
    assert result.exit_code == 1
    assert "error.html:1:" in result.stderr and "template: TemplateSyntaxError" in result.stderr


ESCAPES = [
    "{{ cycler.__init__.__globals__.os.system('touch MARK') }}",
    "{{ ().__class__.__mro__[1].__subclasses__() }}",
    "{{ lipsum.__globals__['os'].system('touch MARK') }}",
    "{{ self._TemplateReference__context }}",
    "{{ record.__class__.__init__.__globals__ }}",
    "{{ site.repos.update({'x': 1}) }}",
    "{{ ''.format.__self__ }}",
    "{{ '{0.__class__}'.format(record) }}",
    "{% set x = namespace() %}{{ x.__init__.__globals__ }}",
]


@pytest.mark.parametrize("payload", ESCAPES)
def test_a_theme_from_a_pull_request_runs_no_code(
    make_content, tmp_path: Path, payload: str
) -> None:  # type: ignore[no-untyped-def]
    """A theme folder inside content/ (what a pull request can add) renders in Jinja's
    sandbox: reaching Python's internals or changing data is a clean build error."""
    content = make_content({"errors/a.yaml": valid_record(), "site.yaml": "theme: content/t\n"})
    (content / "t" / "templates").mkdir(parents=True)
    base = (REPO_ROOT / "themes" / "default" / "templates" / "error.html").read_text()
    inside_main = base.replace("{% block main %}", "{% block main %}" + payload, 1)
    (content / "t" / "templates" / "error.html").write_text(inside_main)
    out = tmp_path / "site"
    result = subprocess.run(
        [sys.executable, "-m", "errpages", "build", "--content", str(content), "--out", str(out)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert "error.html" in result.stderr or "template" in result.stderr, result.stderr
    assert not (tmp_path / "MARK").exists()
    assert not out.exists()


def test_what_a_theme_needs_still_works_in_the_sandbox(make_content, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    content = make_content({"errors/a.yaml": valid_record(), "site.yaml": "theme: content/t\n"})
    (content / "t" / "templates").mkdir(parents=True)
    base = (REPO_ROOT / "themes" / "default" / "templates" / "error.html").read_text()
    extra = (
        "{% set parts = record.message.split(' ') %}"
        "<p id='t'>{{ parts | map('upper') | join('-') }} {{ '%s/%d' | format('x', 3) }} "
        "{{ record.tags | length }} {{ {'a': 1}.items() | list }} {{ range(3) | sum }}</p>"
    )
    inside_main = base.replace("{% block main %}", "{% block main %}" + extra, 1)
    (content / "t" / "templates" / "error.html").write_text(inside_main)
    out = tmp_path / "site"
    result = run_cli("build", "--content", str(content), "--out", str(out))
    assert result.exit_code == 0, result.output
    page = parse_html(out / "errors" / "0123456789abcdef" / "index.html")
    assert page.select_one("#t").get_text() == "BAD-WIDGET x/3 0 [('a', 1)] 3"
