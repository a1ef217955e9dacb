"""One build at a time per output folder: concurrent builds wait for each other, and
what a build cannot write is a clear error, never a traceback or a broken site."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from errpages.publish import MARKER, lock_file
from tests.conftest import REPO_ROOT, Served, run_cli, valid_record
from tests.test_content_errors import tree_digest

ERRPAGES = (sys.executable, "-m", "errpages")


def many_records(content: Path, count: int, word: str) -> None:
    for index in range(count):
        record = valid_record(f'"a{index:015x}"', f"widget {index} was {word}")
        (content / "errors" / f"r{index}.yaml").write_text(record)


def start_build(content: Path, out: Path, cache: Path, *flags: str) -> subprocess.Popen[str]:
    command = [*ERRPAGES, "build", "--content", str(content), "--out", str(out)]
    return subprocess.Popen(
        [*command, "--cache-dir", str(cache), *flags],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_builds_started_together_take_turns_and_leave_a_clean_site(
    make_content, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    content = make_content({})
    out = tmp_path / "site"
    for round_number, word in enumerate(("bad", "worse", "worst")):
        many_records(content, 300, word)
        builds = [
            start_build(content, out, tmp_path / "cache-a"),
            start_build(content, out, tmp_path / ("cache-b" if round_number % 2 else "cache-a")),
        ]
        while any(b.poll() is None for b in builds):  # the live site is whole at every moment
            if out.exists():
                assert (out / MARKER).is_file() or not out.exists()
            time.sleep(0.01)
        for b in builds:
            _, stderr = b.communicate()
            assert b.returncode == 0, stderr
            assert "Traceback" not in stderr
    assert tree_digest(out) == tree_digest(clean_build(content, tmp_path))


def clean_build(content: Path, tmp_path: Path) -> Path:
    clean = tmp_path / "clean"
    result = run_cli("build", "--content", str(content), "--out", str(clean), "--no-cache")
    assert result.exit_code == 0, result.output
    return clean


def test_a_second_build_waits_or_with_no_wait_fails_at_once(make_content, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    content = make_content({"errors/a.yaml": valid_record()})
    out = tmp_path / "site"
    assert run_cli("build", "--content", str(content), "--out", str(out)).exit_code == 0
    handle = os.open(lock_file(out), os.O_RDWR)
    fcntl.flock(handle, fcntl.LOCK_EX)  # as a build in progress holds it
    try:
        refused = run_cli("build", "--content", str(content), "--out", str(out), "--no-wait")
        assert refused.exit_code == 1
        assert f"{out}: another build is writing {out}" in refused.stderr
        waiting = start_build(content, out, tmp_path / "cache")
        time.sleep(1.5)
        assert waiting.poll() is None  # still waiting
    finally:
        fcntl.flock(handle, fcntl.LOCK_UN)
        os.close(handle)
    stdout, stderr = waiting.communicate(timeout=60)
    assert waiting.returncode == 0, stderr
    assert f"Waiting for another build of {out} to finish" in stderr
    assert stdout.startswith("Built 1 error into")


def test_a_cache_inside_the_output_is_refused(make_content, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    content = make_content({"errors/a.yaml": valid_record()})
    out = tmp_path / "site"
    for cache in (out / "cache", out):
        result = run_cli(
            "build", "--content", str(content), "--out", str(out), "--cache-dir", str(cache)
        )
        assert result.exit_code == 1
        assert "the cache folder is inside the output folder" in result.stderr
        assert not out.exists()


@pytest.mark.skipif(shutil.which("chattr") is None, reason="needs chattr (e2fsprogs)")
@pytest.mark.parametrize("frozen", ["spare", "parent"])
def test_a_folder_that_cannot_be_written_is_a_clear_error_and_keeps_the_site(
    make_content, tmp_path: Path, frozen: str
) -> None:  # type: ignore[no-untyped-def]
    """Made immutable (`chattr +i`: even root cannot write it), as a read-only mount is."""
    content = make_content({"errors/a.yaml": valid_record()})
    parent = tmp_path / "out"
    out = parent / "site"
    for _ in range(2):  # the second build leaves a spare
        assert run_cli("build", "--content", str(content), "--out", str(out)).exit_code == 0
    before = tree_digest(out)
    folder = parent / ".site.spare" if frozen == "spare" else parent
    assert folder.is_dir()
    (content / "errors" / "a.yaml").write_text(valid_record(message="worse widget"))
    subprocess.run(["chattr", "+i", str(folder)], check=True)
    try:
        result = subprocess.run(
            [*ERRPAGES, "build", "--content", str(content), "--out", str(out)],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
    finally:
        subprocess.run(["chattr", "-i", str(folder)], check=True)
    assert "Traceback" not in result.stderr
    if result.returncode == 1:
        assert "cannot write the site: Operation not permitted" in result.stderr
        assert tree_digest(out) == before
    else:
        assert result.returncode == 0, result.stderr
        assert tree_digest(out) == tree_digest(clean_build(content, tmp_path))
    assert run_cli("build", "--content", str(content), "--out", str(out)).exit_code == 0
    assert tree_digest(out) == tree_digest(clean_build(content, tmp_path))


def test_serve_updates_once_per_edit(make_content) -> None:  # type: ignore[no-untyped-def]
    content = make_content({"errors/a.yaml": valid_record()})
    served = Served("--content", str(content))
    try:
        served.wait_for("Serving")
        time.sleep(0.5)
        (content / "errors" / "a.yaml").write_text(valid_record(message="worse widget"))
        served.wait_for("Updated ")
        later = served.lines_within(3)
    finally:
        served.stop()
    assert not [line for line in later if line.startswith("Updated ")], later


def test_serve_reports_an_update_that_fails_and_goes_on_serving(make_content) -> None:  # type: ignore[no-untyped-def]
    content = make_content({"errors/a.yaml": valid_record()})
    served = Served("--content", str(content))
    try:
        served.wait_for("Serving")
        time.sleep(0.5)
        (content / "published-ids.txt").mkdir()  # was an IsADirectoryError out of the build
        (content / "errors" / "a.yaml").write_text(valid_record(message="bad widget again"))
        failed = served.wait_for("Not updated")
        time.sleep(0.5)
        (content / "published-ids.txt").rmdir()
        (content / "errors" / "a.yaml").write_text(valid_record(message="worse widget"))
        served.wait_for("Updated ")
    finally:
        served.stop()
    assert "1 error" in failed
    assert not [line for line in served.lines if "Traceback" in line], served.lines
