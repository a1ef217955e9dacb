"""The content folder's listing, and the copy of it made while `errpages build` starts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.corpus import write_corpus
from generator import listing
from generator.build import build
from generator.listing import (
    EarlyChild,
    content_argument,
    early_listing,
    list_content,
    packed_files,
    start_early_listing,
    stop_early_listing,
    unpacked_files,
)
from tests.conftest import valid_record
from tests.test_incremental import clean, snapshot

LISTED_EARLY = "(the content folder was listed while errpages started)"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ([], "content"),
        (["--out", "site"], "content"),
        (["--content", "docs/errors-site", "-q"], "docs/errors-site"),
        (["--content=elsewhere", "-v"], "elsewhere"),
        (["--content", "first", "--content=second"], "second"),  # click keeps the last
        (["--content"], "content"),  # click will refuse it; the guess does no harm
        (["-q", "--", "--content", "not-an-option"], "content"),
    ],
)
def test_the_content_folder_is_read_from_the_arguments_as_click_reads_it(
    args: list[str], expected: str
) -> None:
    assert content_argument(args) == expected


def run_build(content: Path, out: Path, cache: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "generator", "build", "-v", "--content", str(content)]
    command += ["--out", str(out), "--cache-dir", str(cache)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return result


def test_a_build_from_the_command_line_uses_the_early_listing_and_matches_clean_builds(
    tmp_path: Path,
) -> None:
    content, out, cache = tmp_path / "content", tmp_path / "site", tmp_path / "cache"
    write_corpus(40, content)
    first = run_build(content, out, cache)
    assert LISTED_EARLY in first.stderr
    assert snapshot(out) == clean(content, tmp_path)
    record = sorted((content / "errors").rglob("*.yaml"))[5]
    record.write_text(record.read_text().replace("is checked while", "is checked later while"))
    (content / "errors" / "added.yaml").write_text(valid_record("fedcba9876543210"))
    second = run_build(content, out, cache)
    assert LISTED_EARLY in second.stderr
    assert "1 rendered" not in second.stdout  # the added record is built too
    assert snapshot(out) == clean(content, tmp_path)


def test_a_build_of_a_folder_named_otherwise_lists_it_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The arguments guessed one folder, the build was asked for another: the early listing is
    not used, and its child is ended and reaped."""
    (tmp_path / "content" / "errors").mkdir(parents=True)
    (tmp_path / "other" / "errors").mkdir(parents=True)
    (tmp_path / "other" / "errors" / "a.yaml").write_text("id: x\n")
    monkeypatch.chdir(tmp_path)
    start_early_listing(["build", "--out", "site"])
    assert listing._early is not None
    child = listing._early[1]
    assert early_listing(Path("other")) is None
    with pytest.raises(ChildProcessError):
        os.waitpid(child.pid, os.WNOHANG)
    assert early_listing(Path("content")) is None  # given once at most
    start_early_listing(["serve"])  # other commands list nothing early
    assert listing._early is None


def test_the_early_listing_is_the_listing_problems_and_all(tmp_path: Path) -> None:
    content = tmp_path / "content"
    write_corpus(12, content)
    outside = tmp_path / "outside.yaml"
    outside.write_text("TOP SECRET\n")
    os.symlink(outside, content / "errors" / "link.yaml")
    (content / "errors" / "folder.yaml").mkdir()
    (content / "notes").mkdir()
    os.symlink(content / "snippets", content / "notes" / "snippets-again")
    expected = list_content(content)
    assert len(expected.problems) == 2 and len(expected.files) > 24
    assert EarlyChild(str(content)).result() == expected


def test_a_child_that_fails_gives_no_listing_and_the_build_lists_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    content = tmp_path / "content"
    write_corpus(12, content)

    def broken(_root: Path) -> listing.ContentFiles:
        raise RuntimeError("the child fails")

    monkeypatch.setattr(listing, "list_content", broken)  # the build has its own name for it
    assert EarlyChild(str(content)).result() is None
    monkeypatch.setattr(listing, "_early", (str(content), EarlyChild(str(content))))
    report = build(content, tmp_path / "site", cache_dir=None)
    assert report.written and not report.listed_early and len(report.site.records) == 12
    assert listing._early is None


def test_a_listing_never_taken_is_stopped_when_the_command_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "content" / "errors").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    start_early_listing(["build", "--content", "content"])
    assert listing._early is not None
    child = listing._early[1]
    stop_early_listing()
    assert listing._early is None
    with pytest.raises(ChildProcessError):
        os.waitpid(child.pid, os.WNOHANG)
    stop_early_listing()  # nothing to stop: nothing happens


def test_a_packed_listing_unpacks_to_the_same_files_and_a_cut_one_is_refused(
    tmp_path: Path,
) -> None:
    content = tmp_path / "content"
    write_corpus(12, content)
    (content / "errors" / "naïve name.yaml").write_text("id: x\n")
    files = list_content(content).files
    names, sizes, mtimes, inodes = packed_files(files)
    assert unpacked_files(str(content), names, sizes, mtimes, inodes) == files
    with pytest.raises(ValueError):
        unpacked_files(str(content), names, sizes[:-8], mtimes, inodes)
    assert unpacked_files(str(content), *packed_files([])) == []
