"""The GitHub Action and the pre-commit hook, run here as GitHub and pre-commit run them."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from tests.conftest import EXAMPLE_CONTENT, REPO_ROOT, valid_record
from tests.gitrepo import GitRepo

ACTION = REPO_ROOT / "action.yml"


def script(name: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """One of the Action's steps, as its `run` line calls it."""
    environment = {**os.environ, "GITHUB_ACTION_PATH": str(REPO_ROOT), **env}
    return subprocess.run(
        ["bash", "-c", f'"$GITHUB_ACTION_PATH/action/{name}"'],
        env=environment,
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )


def test_every_step_of_the_action_is_a_script_given_its_inputs_as_data() -> None:
    action = yaml.safe_load(ACTION.read_text())
    assert action["runs"]["using"] == "composite"
    steps = action["runs"]["steps"]
    runs = [step["run"] for step in steps if "run" in step]
    assert runs == [f'"$GITHUB_ACTION_PATH/action/{n}.sh"' for n in ("install", "check", "build")]
    for step in steps:
        # An input written into a `run` line would be shell code a workflow's caller controls.
        assert "${{" not in step.get("run", "")
    assert set(action["inputs"]) >= {"content", "out", "base-url", "strict", "shard"}
    assert steps[-1]["uses"].startswith("actions/upload-pages-artifact@")
    for name in ("install", "check", "build"):
        assert os.access(REPO_ROOT / "action" / f"{name}.sh", os.X_OK)


def test_the_actions_steps_install_check_and_build_the_example_site(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    path = {"PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    installed = script("install.sh", path, tmp_path)
    assert installed.returncode == 0, installed.stderr
    assert installed.stdout.strip().endswith("version 0.1.0")
    shutil.copytree(EXAMPLE_CONTENT, tmp_path / "content")
    inputs = {"ERRPAGES_CONTENT": "content", "ERRPAGES_STRICT": "true", **path}
    checked = script("check.sh", inputs, tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    built = script(
        "build.sh",
        {**inputs, "ERRPAGES_OUT": "site", "ERRPAGES_BASE_URL": "https://x.example/docs/"},
        tmp_path,
    )
    assert built.returncode == 0, built.stderr
    assert built.stdout.startswith("Built 9 errors into site:")
    # The same command line by hand builds the same bytes.
    by_hand = tmp_path / "by-hand"
    args = ["--content", "content", "--out", str(by_hand), "--no-cache", "--strict"]
    errpages = [str(venv / "bin" / "errpages"), "build", *args]
    subprocess.run([*errpages, "--base-url", "https://x.example/docs/"], cwd=tmp_path, check=True)
    files = sorted(p.relative_to(by_hand) for p in by_hand.rglob("*") if p.is_file())
    assert files == sorted(
        p.relative_to(tmp_path / "site") for p in (tmp_path / "site").rglob("*") if p.is_file()
    )
    for name in files:
        assert (tmp_path / "site" / name).read_bytes() == (by_hand / name).read_bytes()

    (tmp_path / "content" / "errors" / "broken.yaml").write_text("id: 12\n")
    failed = script("check.sh", inputs, tmp_path)
    assert failed.returncode == 1
    assert re.search(
        r"^::error file=content/errors/broken\.yaml,line=1,col=5,title=id::", failed.stdout, re.M
    )


def test_pre_commit_reports_the_bad_record_at_its_line(tmp_path: Path) -> None:
    project = GitRepo(tmp_path / "project")
    project.write("content/errors/good.yaml", valid_record())
    bad = valid_record("00000000000000b1", "other widget").replace("meaning:", "meening:")
    project.write("content/errors/bad.yaml", bad)
    project.commit("records")
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home")}
    command = [sys.executable, "-m", "pre_commit", "try-repo", str(REPO_ROOT), "errpages-check"]
    result = subprocess.run(
        [*command, "--all-files"], cwd=project.path, env=env, capture_output=True, text=True
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "content/errors/bad.yaml:5:1: meening: unknown field 'meening'" in result.stdout
    assert "good.yaml" not in result.stdout
    project.git("rm", "-q", "content/errors/bad.yaml")
    project.commit("the good one only")
    passed = subprocess.run(
        [*command, "--all-files"], cwd=project.path, env=env, capture_output=True, text=True
    )
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert re.search(r"errpages check\.+Passed", passed.stdout)

    # Each file a build reads, changed alone in a commit, runs the hook: the registry of
    # published ids, a theme's template, and a record whose name is not UTF-8.
    staged = {
        "content/published-ids.txt": (
            "00000000000000d4\n",
            "published id 00000000000000d4 has no page",
        ),
        "themes/mine/templates/error.html": ("{% if %}", "error.html:1:"),
    }
    project.write("content/site.yaml", "theme: themes/mine\n")
    project.write("themes/mine/templates/error.html", '{% extends "base.html" %}\n')
    project.commit("a theme of our own")
    for name, (text, said) in staged.items():
        project.write(name, text)
        project.git("add", name)
        hooked = subprocess.run(command, cwd=project.path, env=env, capture_output=True, text=True)
        assert hooked.returncode == 1, (name, hooked.stdout)
        assert said in hooked.stdout, hooked.stdout
        project.git("reset", "-q", "--hard")
    # pre-commit itself cannot stage a name that is not UTF-8; one beside the staged files is
    # still read by the check.
    (project.path / "content" / "errors").joinpath(os.fsdecode(b"x\xff.yaml")).write_text("x: 1\n")
    project.write("content/errors/good.yaml", valid_record(message="good widget"))
    project.git("add", "content/errors/good.yaml")
    hooked = subprocess.run(command, cwd=project.path, env=env, capture_output=True, text=True)
    assert hooked.returncode == 1
    assert "content/errors/x\\xff.yaml: the name is not UTF-8" in hooked.stdout, hooked.stdout
    assert "Traceback" not in hooked.stdout


def test_every_revision_the_readme_pins_exists_and_has_the_hook_and_the_action() -> None:
    readme = (REPO_ROOT / "README.md").read_text()
    pins = re.findall(r"^\s*rev: (\S+)", readme, re.M)
    pins += re.findall(r"OWNER/errpages@([0-9a-f]{7,40})\b", readme)
    assert len(pins) >= 5, pins  # pre-commit, the Action twice, pip in the examples
    assert "@v1" not in readme and "rev: v1" not in readme
    for rev in set(pins):

        def at(path: str, rev: str = rev) -> str:
            shown = subprocess.run(
                ["git", "-C", str(REPO_ROOT), "show", f"{rev}:{path}"],
                capture_output=True,
                text=True,
                check=False,
            )
            assert shown.returncode == 0, f"README pins {rev}, which has no {path}"
            return shown.stdout

        hooks = yaml.safe_load(at(".pre-commit-hooks.yaml"))
        assert "errpages-check" in [hook["id"] for hook in hooks]
        assert yaml.safe_load(at("action.yml"))["runs"]["using"] == "composite"
        assert 'name = "errpages"' in at("pyproject.toml")
        ancestor = ["git", "-C", str(REPO_ROOT), "merge-base", "--is-ancestor", rev, "HEAD"]
        assert subprocess.run(ancestor, check=False).returncode == 0, rev
