"""The user's own files: written whole or not at all, never through a link, never over an
edit made meanwhile, with the umask's mode; a full disk is a one-line error."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from errpages.content.files import FileChanged, atomic_write_text
from tests.conftest import REPO_ROOT, run_cli, valid_record
from tests.gitrepo import GitRepo

ERRPAGES = (sys.executable, "-m", "errpages")


def errpages(*args: str, umask: int | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ERRPAGES, *args],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=False,
        preexec_fn=(lambda: os.umask(umask)) if umask is not None else None,
    )


def test_an_edit_made_since_the_file_was_read_is_never_written_over(tmp_path: Path) -> None:
    record = tmp_path / "a.yaml"
    record.write_text("id: x\n")
    before = record.read_text()
    record.write_text(before + "# a line the author added meanwhile\n")
    with pytest.raises(FileChanged):
        atomic_write_text(record, "id: y\n", expected=before)
    assert record.read_text() == "id: x\n# a line the author added meanwhile\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.yaml"]  # no temporary file left
    atomic_write_text(record, "id: y\n", expected=record.read_text())
    assert record.read_text() == "id: y\n"


@pytest.mark.parametrize("umask", [0o022, 0o027, 0o077])
def test_new_records_get_the_umasks_mode(make_content, umask: int) -> None:  # type: ignore[no-untyped-def]
    content = make_content({})
    args = ["new", "--content", str(content), "--repo", "a/b", "--exception", "E"]
    result = errpages(*args, "--message", "m", umask=umask)
    assert result.returncode == 0, result.stderr
    assert (content / "errors" / "a" / "b" / "m.yaml").stat().st_mode & 0o777 == 0o666 & ~umask


def test_pin_never_replaces_a_linked_record_with_a_file(make_content, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    repo = GitRepo(tmp_path / "widgets")
    repo.write(
        "widgets/core.py",
        "def check(widget):\n    if not widget:\n        raise ValueError('bad widget')\n",
    )
    repo.commit("first")
    content = make_content({"errors/real/a.yaml": valid_record()})
    link = content / "errors" / "a-link.yaml"
    link.symlink_to("real/a.yaml")
    before = (content / "errors" / "real" / "a.yaml").read_text()
    result = errpages("pin", str(link), "--content", str(content), "--repo-dir", str(repo.path))
    assert result.returncode == 1
    assert (
        "is a symbolic link; errpages does not replace links; no file was damaged" in result.stderr
    )
    assert "Traceback" not in result.stderr
    assert link.is_symlink() and (content / "errors" / "real" / "a.yaml").read_text() == before
    assert not (content / "snippets").exists()  # refused before anything was written


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 256 KiB tmpfs, nearly full."""
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(disk)], check=False
    )
    if mounted.returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        yield disk
    finally:
        subprocess.run(["umount", str(disk)], check=True)


def fill(disk: Path) -> None:
    handle = os.open(disk / "filler", os.O_WRONLY | os.O_CREAT)
    try:
        while True:
            os.write(handle, b"x" * 4096)
    except OSError:
        pass
    finally:
        os.close(handle)


def test_a_full_disk_is_one_line_and_damages_nothing(
    small_disk: Path, make_content, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    content = make_content({"errors/a.yaml": valid_record()})  # on the usual disk
    full = small_disk / "content"  # a content folder on the small disk
    (full / "errors").mkdir(parents=True)
    (full / "errors" / "a.yaml").write_text(valid_record())
    out = small_disk / "site"
    assert (
        run_cli("build", "--content", str(content), "--out", str(out), "--no-cache").exit_code == 0
    )
    site_before = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    fill(small_disk)

    args = ("--repo", "a/b", "--exception", "E", "--message", "m")
    new = errpages("new", "--content", str(full), *args)
    assert new.returncode == 1
    assert "errpages new: cannot write" in new.stderr and "No space left on device" in new.stderr
    assert "no file was damaged" in new.stderr and "Traceback" not in new.stderr
    assert [p.name for p in (full / "errors").rglob("*") if p.is_file()] == ["a.yaml"]

    ids = errpages("ids", "record", "--content", str(full))
    assert ids.returncode == 1 and "no file was damaged" in ids.stderr
    assert not (full / "published-ids.txt").exists()

    project = GitRepo(tmp_path / "project")  # on the usual disk: only drift.json is written
    project.write("widgets/core.py", 'def check(widget):\n    raise ValueError("bad widget")\n')
    project.commit("widgets")
    drift = errpages("drift", "--content", str(full), "--repo-dir", str(project.path), "--save")
    assert drift.returncode == 1
    assert "errpages drift --save: cannot write" in drift.stderr
    assert "No space left on device; no file was damaged" in drift.stderr
    assert "Traceback" not in drift.stderr
    assert not (full / "drift.json").exists()

    (content / "errors" / "a.yaml").write_text(valid_record(message="worse widget"))
    build = errpages("build", "--content", str(content), "--out", str(out), "--no-cache")
    assert build.returncode == 1
    assert "cannot write the site: No space left on device" in build.stderr
    assert "Traceback" not in build.stderr
    assert {
        p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()
    } == site_before
