"""Incremental builds give the same bytes as clean ones and rewrite only what changed."""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import time
from contextlib import nullcontext
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from benchmarks.corpus import write_corpus
from generator import build as build_module
from generator import cache as cache_module
from generator import parallel as parallel_module
from generator.build import build
from generator.listing import shown_records_folder
from generator.model import summarize
from generator.outputs import pages as pages_module
from generator.outputs.records import record_words
from generator.outputs.search import search_files
from generator.parallel import Helper, Then, WaitingHelper
from tests.conftest import REPO_ROOT, leftovers


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def mtimes(folder: Path) -> dict[str, int]:
    return {
        str(p.relative_to(folder)): p.stat().st_mtime_ns for p in folder.rglob("*") if p.is_file()
    }


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, Path, Path]:
    content = tmp_path / "content"
    write_corpus(60, content)
    theme = tmp_path / "mytheme"
    shutil.copytree(REPO_ROOT / "themes" / "default", theme)
    (content / "site.yaml").write_text(
        "title: Incremental\nbase_url: https://inc.example.org/\ntheme: mytheme\n"
    )
    return content, tmp_path / "site", tmp_path / "cache"


def incremental(content: Path, out: Path, cache: Path) -> None:
    report = build(content, out, cache_dir=cache, jobs=2)
    assert report.written or report.unchanged, [d.format() for d in report.diagnostics]


def clean(content: Path, tmp_path: Path) -> dict[str, bytes]:
    out = tmp_path / "clean"
    if out.exists():
        shutil.rmtree(out)
    report = build(content, out, cache_dir=None, jobs=1)
    assert report.written, [d.format() for d in report.diagnostics]
    return snapshot(out)


def test_no_op_rebuild_touches_nothing(project: tuple[Path, Path, Path]) -> None:
    content, out, cache = project
    incremental(content, out, cache)
    before = mtimes(out)
    report = build(content, out, cache_dir=cache)
    assert report.unchanged
    assert mtimes(out) == before


def test_one_record_edited(project: tuple[Path, Path, Path], tmp_path: Path) -> None:
    content, out, cache = project
    incremental(content, out, cache)
    before = mtimes(out)
    record = sorted((content / "errors").rglob("*.yaml"))[7]
    text = record.read_text()
    record.write_text(text.replace("is checked while", "is checked early while", 1))
    report = build(content, out, cache_dir=cache)
    assert report.written and report.pages_rendered == 1 and report.pages_kept == 59
    assert snapshot(out) == clean(content, tmp_path)
    after = mtimes(out)
    changed = sorted(path for path in after if before.get(path) != after[path])
    error_id = text.split('id: "')[1].split('"')[0]
    assert f"errors/{error_id}/index.html" in changed
    assert f"api/errors/{error_id}.json" in changed
    assert "api/errors.ndjson" in changed and "assets/search-index.js" in changed
    assert len(changed) <= 8, changed


def test_related_title_change_reaches_the_pages_that_link_to_it(
    project: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    content, out, cache = project
    incremental(content, out, cache)
    target = sorted((content / "errors").rglob("*.yaml"))[3]
    error_id = target.read_text().split('id: "')[1].split('"')[0]
    target.write_text(target.read_text().replace("(case ", "(renamed case ", 1))
    incremental(content, out, cache)
    assert snapshot(out) == clean(content, tmp_path)
    linking = [
        p
        for p in (out / "errors").rglob("index.html")
        if f"../{error_id}/index.html" in p.read_text()
    ]
    assert linking and all("renamed case" in p.read_text() for p in linking)


@pytest.mark.parametrize("change", ["template", "css", "settings", "code", "snippet"])
def test_every_kind_of_input_change_shows_up(
    project: tuple[Path, Path, Path], tmp_path: Path, change: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    content, out, cache = project
    incremental(content, out, cache)
    theme = content.parent / "mytheme"
    if change == "template":
        error_html = theme / "templates" / "error.html"
        error_html.write_text(error_html.read_text().replace("Error message", "The message"))
    elif change == "css":
        (theme / "static" / "style.css").write_text("body { color: red; }\n")
    elif change == "settings":
        (content / "site.yaml").write_text(
            "title: Renamed\nbase_url: https://inc.example.org/\ntheme: mytheme\n"
        )
    elif change == "code":
        real = cache_module.code_version()
        monkeypatch.setattr("generator.build.code_version", lambda: real + "-next")
    else:
        snippet = sorted((content / "snippets").rglob("*.py"))[5]
        snippet.write_text(snippet.read_text().replace("keep going", "carry on"))
    report = build(content, out, cache_dir=cache)
    assert report.written
    assert snapshot(out) == clean(content, tmp_path)


def test_a_site_changed_by_hand_is_rebuilt_not_trusted(
    project: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    content, out, cache = project
    incremental(content, out, cache)
    shutil.rmtree(out)
    incremental(content, out, cache)
    assert snapshot(out) == clean(content, tmp_path)


def edit_record(content: Path, index: int, old: str, new: str) -> None:
    record = sorted((content / "errors").rglob("*.yaml"))[index]
    record.write_text(record.read_text().replace(old, new, 1))


def test_builds_in_a_row_edit_the_spare_and_match_clean_builds(
    project: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    """Each build stages into the previous site (the spare) and swaps; bytes equal a clean build."""
    content, out, cache = project
    spare = out.parent / f".{out.name}.spare"
    incremental(content, out, cache)
    assert (spare / ".errpages-spare").is_file()
    steps = [
        lambda: edit_record(content, 4, "is checked while", "is checked late while"),
        lambda: edit_record(content, 9, "analysis:", "retired:\n  since: v2\nanalysis:"),
        lambda: edit_record(content, 11, "(case ", "(renamed case "),
        lambda: (content / "site.yaml").write_text(
            "title: Other\nbase_url: https://inc.example.org/\ntheme: mytheme\n"
        ),
        lambda: edit_record(content, 20, "is checked while", "is checked again while"),
    ]
    for step in steps:
        spare_inode = spare.stat().st_ino
        step()
        incremental(content, out, cache)
        assert out.stat().st_ino == spare_inode, "the build did not stage into the spare"
        assert snapshot(out) == clean(content, tmp_path)
        assert (spare / ".errpages-spare").is_file()


def first_record_index(content: Path) -> int:
    """The place, among the record files in name order, of the one with the smallest id (the
    first line of the dump)."""
    files = sorted((content / "errors").rglob("*.yaml"))
    ids = [re.search(r'^id: "([0-9a-f]+)"', f.read_text(), re.M) for f in files]
    return min(range(len(files)), key=lambda i: ids[i][1] if ids[i] else "")


def test_a_first_build_links_its_site_into_the_spare(project: tuple[Path, Path, Path]) -> None:
    """The spare a first build makes holds every file of the new site (the marker too) as
    the very same file, and nothing else, in the same folders."""
    content, out, cache = project
    spare = out.parent / f".{out.name}.spare"
    incremental(content, out, cache)
    live = {str(p.relative_to(out)): p for p in out.rglob("*")}
    kept = {str(p.relative_to(spare)): p for p in spare.rglob("*")}
    assert kept.keys() == live.keys() | {".errpages-spare"}
    assert ".errpages-site" in kept and "api/errors.ndjson" in kept
    for name, path in live.items():
        if path.is_dir():
            assert kept[name].is_dir() and not kept[name].is_symlink(), name
        else:
            assert path.stat().st_ino == kept[name].stat().st_ino, name


def test_a_spare_that_cannot_be_made_leaves_the_build_whole(
    project: tuple[Path, Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Linking the first build's files into the spare fails (a file system without hard
    links, one full): the build still succeeds, without a spare and without leftovers, and
    the next build makes the spare and matches a clean build."""
    content, out, cache = project
    spare = out.parent / f".{out.name}.spare"

    def no_links(source: object, target: object) -> None:
        raise OSError(31, "Too many links")

    with monkeypatch.context() as patch:
        patch.setattr("generator.outputs.write.os.link", no_links)
        incremental(content, out, cache)
    assert not spare.exists()
    assert leftovers(out.parent) == []
    assert snapshot(out) == clean(content, tmp_path)
    edit_record(content, 4, "is checked while", "is checked late while")
    incremental(content, out, cache)
    assert (spare / ".errpages-spare").is_file()
    assert snapshot(out) == clean(content, tmp_path)


def test_the_spare_dump_is_changed_in_place(
    project: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    """The dump the spare holds (two builds old) is made into the new one in place: lines of
    the same length written over, the rest from the first line that moved on. Its inode
    stays, and the bytes are a clean build's."""
    content, out, cache = project
    dump = Path("api/errors.ndjson")
    spare = out.parent / f".{out.name}.spare"
    incremental(content, out, cache)
    edit_record(content, 3, "is checked while", "is checked soon while")  # the spare's dump is
    incremental(content, out, cache)  # the live one's hard link after a first build: not patched
    first = first_record_index(content)
    steps = [
        (5, "is checked while", "is checked whilE"),  # the same length: written over
        (7, "is checked while", "is checked later while"),  # longer: the rest from there
        (first, "is checked while", "is checked at first while"),  # the first line moves
        (first, "is checked at first while", "is checked while"),  # and back
        (12, "is checked while", "is checked whilE"),
    ]
    for index, old, new in steps:
        held = (spare / dump).stat()
        assert held.st_nlink == 1
        edit_record(content, index, old, new)
        incremental(content, out, cache)
        assert (out / dump).stat().st_ino == held.st_ino, "the spare's dump was not patched"
        assert snapshot(out) == clean(content, tmp_path)


@pytest.mark.parametrize("change", ["linked elsewhere", "changed by hand", "patch fails"])
def test_a_spare_dump_that_cannot_be_patched_is_written_anew(
    project: tuple[Path, Path, Path],
    tmp_path: Path,
    change: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A spare's dump with another link (it would change that file too), changed since the
    cache saw it, or whose patching fails halfway, is not used: a new file is written, and
    the other link keeps its bytes."""
    content, out, cache = project
    dump = Path("api/errors.ndjson")
    spare = out.parent / f".{out.name}.spare"
    incremental(content, out, cache)
    edit_record(content, 3, "is checked while", "is checked soon while")
    incremental(content, out, cache)  # the spare's dump: the first build's, its own file now
    held = spare / dump
    assert held.stat().st_nlink == 1
    other, tried = tmp_path / "elsewhere.ndjson", []
    if change == "linked elsewhere":
        os.link(held, other)
    elif change == "changed by hand":
        with open(held, "r+b") as stream:
            stream.write(b"[")
    else:

        def failing(stream: Any, **_: Any) -> None:
            tried.append(True)
            stream.write(b"half a dump")
            raise OSError("the disk is full")

        monkeypatch.setattr(build_module, "patch_ndjson", failing)
    before = held.read_bytes()
    inode = held.stat().st_ino
    edit_record(content, 5, "is checked while", "is checked whilE")
    incremental(content, out, cache)
    monkeypatch.undo()
    if change == "patch fails":  # (the new file may be given the removed one's inode number)
        assert tried, "the spare's dump was not patched"
    else:
        assert (out / dump).stat().st_ino != inode, "the spare's dump was patched"
    assert snapshot(out) == clean(content, tmp_path)
    if change == "linked elsewhere":
        assert other.read_bytes() == before


@pytest.mark.parametrize("looked", ["by a helper", "here"])
@pytest.mark.parametrize("change", ["file", "deep file", "folder", "deleted", "replaced"])
def test_the_output_changed_by_hand_is_put_right_within_two_builds(
    project: tuple[Path, Path, Path],
    tmp_path: Path,
    change: str,
    looked: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A site changed by hand becomes the spare; the build that stages into it finds the change
    (by its folders' mtimes, without listing every folder) and undoes it. The folders' times
    are taken by a helper process while the cache loads, or here when there is none."""
    content, out, cache = project
    from generator.outputs import write

    checked_here = []

    def check_folders(*args: Any) -> write.FolderCheck:
        checked_here.append(args)
        return real_check(*args)

    real_check = write.check_folders
    monkeypatch.setattr(write, "check_folders", check_folders)
    if looked == "here":
        monkeypatch.setattr("generator.build.early_spare_check", lambda state: nullcontext())
    incremental(content, out, cache)
    page = sorted(out.glob("errors/*/index.html"))[0]
    if change == "file":
        (out / "errors" / "stale.html").write_text("by hand")
    elif change == "deep file":
        (page.parent / "notes.txt").write_text("by hand")
    elif change == "folder":
        (out / "errors" / "extra" / "inner").mkdir(parents=True)
        (out / "errors" / "extra" / "inner" / "index.html").write_text("by hand")
    elif change == "deleted":
        page.unlink()
    else:  # another file in its place (a new inode, so the spare's hard link is not changed)
        page.unlink()
        page.write_text("by hand")
    for word in ("late", "later", "latest"):
        edit_record(content, 2, "is checked", f"is checked {word}")
        incremental(content, out, cache)
        assert snapshot(out) == clean(content, tmp_path), change
    assert bool(checked_here) == (looked == "here")


def test_a_failed_look_at_the_spare_by_the_helper_means_the_build_looks_itself(
    project: tuple[Path, Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    content, out, cache = project
    from generator.outputs import write

    incremental(content, out, cache)
    edit_record(content, 3, "is checked", "is checked soon")
    incremental(content, out, cache)  # now there is a spare
    (out / "errors" / "stale.html").write_text("by hand")
    checked_here = []
    real_check = write.check_folders

    def check_folders(*args: Any) -> write.FolderCheck:
        checked_here.append(args)
        return real_check(*args)

    def broken(*args: Any) -> None:
        raise OSError("the helper could not look")

    monkeypatch.setattr(write, "check_folders", check_folders)
    monkeypatch.setattr("generator.build.spare_check", broken)
    for word in ("late", "later"):
        edit_record(content, 2, "is checked", f"is checked {word}")
        incremental(content, out, cache)
        assert snapshot(out) == clean(content, tmp_path)
    assert checked_here


@pytest.mark.parametrize("damage", ["file", "token", "half-written"])
def test_a_damaged_spare_is_thrown_away_not_trusted(
    project: tuple[Path, Path, Path], tmp_path: Path, damage: str
) -> None:
    content, out, cache = project
    spare = out.parent / f".{out.name}.spare"
    incremental(content, out, cache)
    page = sorted(spare.glob("errors/*/index.html"))[0]
    if damage == "file":  # a different file in its place: the spare no longer holds what it says
        page.unlink()
        page.write_text("damaged")
        (spare / ".errpages-spare").write_text("not the token the cache remembers")
    elif damage == "token":
        (spare / ".errpages-spare").unlink()
    else:  # a build killed while editing the spare: token gone, files half changed
        (spare / ".errpages-spare").unlink()
        page.unlink()
    spare_inode = spare.stat().st_ino
    edit_record(content, 5, "is checked while", "is checked now while")
    incremental(content, out, cache)
    assert out.stat().st_ino != spare_inode, "a damaged spare was used"
    assert snapshot(out) == clean(content, tmp_path)
    assert (spare / ".errpages-spare").is_file()


def test_after_a_full_rebuild_the_next_build_is_incremental_again(
    project: tuple[Path, Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """New errpages code drops the cache; the build after that still finds a spare."""
    content, out, cache = project
    spare = out.parent / f".{out.name}.spare"
    incremental(content, out, cache)
    real = cache_module.code_version()
    monkeypatch.setattr("generator.build.code_version", lambda: real + "-next")
    incremental(content, out, cache)
    spare_inode = spare.stat().st_ino
    edit_record(content, 3, "is checked while", "is checked later while")
    report = build(content, out, cache_dir=cache)
    assert report.pages_rendered == 1
    assert out.stat().st_ino == spare_inode
    assert snapshot(out) == clean(content, tmp_path)


@pytest.mark.parametrize("kind", ["file", "folder"])
def test_something_else_named_like_the_spare_is_left_alone(
    project: tuple[Path, Path, Path], tmp_path: Path, kind: str
) -> None:
    content, out, cache = project
    spare = out.parent / f".{out.name}.spare"
    if kind == "file":
        spare.write_text("mine")
    else:
        spare.mkdir()
        (spare / "notes.txt").write_text("mine")
    for word in ("late", "later"):
        edit_record(content, 1, "is checked", f"is checked {word}")
        incremental(content, out, cache)
        assert snapshot(out) == clean(content, tmp_path)
    if kind == "file":
        assert spare.read_text() == "mine"
    else:
        assert sorted(p.name for p in spare.iterdir()) == ["notes.txt"]


def test_a_dump_changed_by_hand_is_not_copied_from(
    project: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    """Unchanged lines of api/errors.ndjson are copied from the last dump only if it is intact."""
    content, out, cache = project
    incremental(content, out, cache)
    dump = out / "api" / "errors.ndjson"
    text = dump.read_text()
    dump.unlink()  # a new file, not an edit through the spare's hard link
    dump.write_text(text.replace("acme", "ACME", 1))  # same size, other bytes
    edit_record(content, 6, "is checked while", "is checked soon while")
    incremental(content, out, cache)
    assert snapshot(out) == clean(content, tmp_path)


@pytest.mark.parametrize("damage", ["database", "head", "token", "entry", "missing head"])
def test_a_damaged_cache_means_a_full_build_not_a_wrong_one(
    project: tuple[Path, Path, Path], tmp_path: Path, damage: str
) -> None:
    """Whatever happens to the cache files, the next build is whole and says nothing odd."""
    content, out, cache = project
    incremental(content, out, cache)
    database = next(cache.glob("*.sqlite"))
    head = database.with_suffix(".headdata")
    if damage == "database":
        database.write_bytes(b"not a database at all" * 100)
        for extra in cache.glob("*.sqlite-*"):  # its write-ahead log
            extra.unlink()
    elif damage == "head":
        head.write_bytes(b"\x80\x04garbage")
    elif damage == "token":  # as if a build was killed after saving the rows, before the head
        with sqlite3.connect(database) as db:
            db.execute("UPDATE head SET data = 'another build'")
    elif damage == "entry":
        with sqlite3.connect(database) as db:
            db.execute("UPDATE entries SET meta = x'00ff'")
    else:
        head.unlink()
    edit_record(content, 8, "is checked while", "is checked anyway while")
    report = build(content, out, cache_dir=cache)
    assert report.written and not report.diagnostics, [d.format() for d in report.diagnostics]
    assert report.pages_rendered == 60
    assert snapshot(out) == clean(content, tmp_path)
    edit_record(content, 9, "is checked while", "is checked again while")
    report = build(content, out, cache_dir=cache)
    assert report.pages_rendered == 1, "the cache was not written again whole"
    assert snapshot(out) == clean(content, tmp_path)


def test_the_indexes_made_in_a_helper_process_are_the_same(
    project: tuple[Path, Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At thousands of errors the indexes are made in a forked child: same bytes as inline."""
    content, out, cache = project
    real_index_files = build_module.search_index_files
    made_here: list[bool] = []

    def index_files(*args: Any) -> Any:
        made_here.append(True)  # (a child's calls are not seen here)
        return real_index_files(*args)

    for change in (None, "first", "second"):
        if change:
            edit_record(content, 12, "is checked", f"is checked {change}")
        monkeypatch.setattr("generator.build.FORK_WORTH", 1)
        monkeypatch.setattr(build_module, "search_index_files", index_files)
        made_here.clear()
        incremental(content, out, cache)
        monkeypatch.undo()  # the clean build makes them inline
        assert snapshot(out) == clean(content, tmp_path)
        if change:  # the early child made the search index (an edit: few records changed)
            assert not made_here


def test_a_search_index_started_early_gives_way_when_a_record_has_no_unit(
    project: tuple[Path, Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The child that starts the search index early knows an error's words from its cached unit
    or its record read again; for one with neither (its unit lost), the index is made later."""
    content, out, cache = project
    incremental(content, out, cache)
    database = next(cache.glob("*.sqlite"))
    with sqlite3.connect(database) as db:
        name, meta = db.execute("SELECT file, meta FROM entries ORDER BY file LIMIT 1").fetchone()
        entry, _ = cache_module.decode_row(meta)
        db.execute(
            "UPDATE entries SET meta = ? WHERE file = ?",
            (cache_module.encode_row((entry, None)), name),
        )
    db.close()
    edit_record(content, 30, "is checked", "is checked meanwhile")
    started, made_here = [], []
    real_early, real_index_files = build_module.early_search_index, build_module.search_index_files

    def early_search_index(*args: Any) -> Any:
        started.append(real_early(*args))
        return started[-1]

    def index_files(*args: Any) -> Any:
        made_here.append(True)  # (the child's calls are not seen here)
        return real_index_files(*args)

    monkeypatch.setattr(build_module, "FORK_WORTH", 1)
    monkeypatch.setattr(build_module, "early_search_index", early_search_index)
    monkeypatch.setattr(build_module, "search_index_files", index_files)
    report = build(content, out, cache_dir=cache, jobs=2)
    assert report.written and report.pages_rendered == 2  # the edited one, the one without unit
    assert isinstance(started[0], WaitingHelper) and made_here, "not started early, made here"
    monkeypatch.undo()
    assert snapshot(out) == clean(content, tmp_path)
    # What the child found: a record that is neither kept nor read again.
    assert report.site is not None
    loaded = cache_module.load_cache(
        database, cache_module.code_version(), shown_records_folder(content)
    )
    assert loaded.rows is not None
    files = [record.file for record in report.site.records]
    order = build_module.SearchIndexOrder(loaded.token, files, {}, {}, "next")
    made = build_module.search_index_from_rows(loaded.rows, order)
    assert made is not None and made[0][0].content == (out / "assets/search-index.js").read_bytes()
    first = report.site.records[0].file
    loaded.rows[first] = (loaded.rows[first][0], None)
    assert build_module.search_index_from_rows(loaded.rows, order) is None
    loaded.close()


def test_a_helper_process_reports_what_went_wrong() -> None:

    assert Helper(lambda: {"answer": 42}).result() == {"answer": 42}

    def broken() -> None:
        raise ValueError("no index today")

    with pytest.raises(RuntimeError, match="no index today"):
        Helper(broken).result()


def test_a_helper_sends_its_result_before_the_work_that_comes_after(tmp_path: Path) -> None:
    go, done = tmp_path / "go", tmp_path / "done"

    def after() -> None:  # waits for this process, which must have the result by then
        deadline = time.monotonic() + 20
        while not go.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        done.write_text("went" if go.exists() else "timed out")

    with Helper(lambda: Then(42, after)) as helper:
        assert helper.result() == 42
        go.touch()
    assert done.read_text() == "went"  # and the end of the `with` waited for it


def test_a_waiting_helper_gets_its_message_or_none() -> None:
    def work(receive: Any) -> Any:
        return ("told", receive())

    told = WaitingHelper(work)
    # A child forked after it holds a copy of the pipe: the word still gets through.
    bystander = Helper(lambda: time.sleep(5))
    started = time.perf_counter()
    told.send({"files": ["a.yaml"]})
    assert told.result() == ("told", {"files": ["a.yaml"]})
    assert time.perf_counter() - started < 3, "the child waited for the bystander to end"
    bystander.__exit__()
    cancelled = WaitingHelper(work)
    cancelled.cancel()
    assert cancelled.result() == ("told", None)
    with WaitingHelper(work) as given_up:  # never told: ended, nothing left behind
        pid = given_up.helper.pid
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


def test_an_early_search_index_child_that_read_another_cache_gives_way(
    project: tuple[Path, Path, Path],
) -> None:
    """The child reads the rows itself: if they are not the rows this build loaded (another
    build saved the cache meanwhile), it makes nothing."""
    content, out, cache = project
    incremental(content, out, cache)
    database = next(cache.glob("*.sqlite"))
    code = cache_module.code_version()
    loaded = cache_module.load_cache(database, code, shown_records_folder(content))
    files = sorted(loaded.records)
    loaded.close()
    order = build_module.SearchIndexOrder(loaded.token, files, {}, {}, "next")
    folder = shown_records_folder(content)
    assert build_module.search_index_when_told(database, code, folder, lambda: order) is not None
    stale = order._replace(token="another build's")
    assert build_module.search_index_when_told(database, code, folder, lambda: stale) is None
    assert build_module.search_index_when_told(database, code, folder, lambda: None) is None
    assert (
        build_module.search_index_when_told(database, "other code", folder, lambda: order) is None
    )


def test_builds_in_a_row_with_render_workers_match_clean_builds(tmp_path: Path) -> None:
    """Enough records that worker processes render the pages (not this process): the staging
    folder must still know every folder they wrote into, build after build."""
    content, out, cache = tmp_path / "content", tmp_path / "site", tmp_path / "cache"
    write_corpus(120, content)
    report = build(content, out, cache_dir=cache, jobs=2)
    assert report.pages_rendered == 120
    for index, word in enumerate(("soon", "later", "again", "once more")):
        edit_record(content, 10 * index, "is checked while", f"is checked {word} while")
        report = build(content, out, cache_dir=cache, jobs=2)
        assert report.written and report.pages_rendered == 1
        assert snapshot(out) == clean(content, tmp_path), word
    # And a full rebuild through the workers, then edits again.
    report = build(content, out, cache_dir=cache, jobs=2, include_drafts=True)
    for word in ("first", "second"):
        edit_record(content, 7, "is checked", f"is checked {word}")
        build(content, out, cache_dir=cache, jobs=2)
        assert snapshot(out) == clean(content, tmp_path), word


def test_a_cache_folder_that_cannot_be_made_is_a_clear_error(tmp_path: Path) -> None:
    from tests.conftest import run_cli

    content = tmp_path / "content"
    write_corpus(5, content)
    (tmp_path / "a-file").write_text("not a folder")
    result = run_cli(
        "build", "--content", str(content), "--out", str(tmp_path / "site"),
        "--cache-dir", str(tmp_path / "a-file" / "cache"),
    )  # fmt: skip
    assert result.exit_code == 1
    assert "--cache-dir: cannot make the cache folder" in result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "site").exists()


def test_a_cache_that_cannot_be_saved_still_gives_the_site(
    project: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    """Saving the cache is best effort: the build says so, and the next one starts afresh."""
    content, out, cache = project
    incremental(content, out, cache)
    database = next(cache.glob("*.sqlite"))
    database.with_suffix(".headdatatmp").mkdir()  # the head cannot be written
    edit_record(content, 3, "is checked while", "is checked lately while")
    report = build(content, out, cache_dir=cache)
    assert report.written and report.cache_problem
    assert snapshot(out) == clean(content, tmp_path)
    database.with_suffix(".headdatatmp").rmdir()
    edit_record(content, 4, "is checked while", "is checked lately while")
    report = build(content, out, cache_dir=cache)
    assert report.written and report.cache_problem is None
    assert report.pages_rendered == 60  # the rows and the head disagreed: built from scratch
    assert snapshot(out) == clean(content, tmp_path)


def test_a_page_carried_over_still_has_its_links_to_anchors_checked(
    project: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    """A site-wide page made from the same inputs is not read through again, but its links to
    another page's anchor are checked again: that page can have lost the anchor."""
    content, out, cache = project
    record = sorted((content / "errors").rglob("*.yaml"))[5]
    error_id = re.search(r'^id: "([0-9a-f]{16})"', record.read_text(), re.M)[1]  # type: ignore[index]
    search = tmp_path / "mytheme" / "templates" / "search.html"
    link = f'<a href="../errors/{error_id}/index.html#when">when it happens</a>'
    search.write_text(search.read_text().replace("{% block main %}", "{% block main %}" + link))
    incremental(content, out, cache)
    edit_record(content, 12, "is checked", "is checked first")
    incremental(content, out, cache)  # the search page carried over, its links remembered
    before = snapshot(out)
    record.write_text(re.sub(r"\nwhen:\n(  .*\n)+", "\n", record.read_text()))
    report = build(content, out, cache_dir=cache, jobs=2)
    assert not report.written
    assert any(
        f"no anchor #when in errors/{error_id}/index.html" in d.message for d in report.diagnostics
    ), [d.format() for d in report.diagnostics]
    assert snapshot(out) == before


def test_the_home_page_feed_and_sitemap_are_made_again_only_when_what_they_show_changes(
    project: tuple[Path, Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The home page and feed list the newest errors, the sitemap every error's analysis date:
    an edit elsewhere leaves their files as they were (not even rewritten); moving an error's
    analysis date to the newest puts it on all three."""
    content, out, cache = project
    incremental(content, out, cache)
    records = sorted((content / "errors").rglob("*.yaml"))
    dates = {r: r.read_text().split("  date: ")[1][:10] for r in records}
    oldest = min(records, key=lambda r: dates[r])
    before = mtimes(out)
    oldest.write_text(oldest.read_text().replace("is checked while", "is checked early while", 1))
    sitemaps_made = []
    real_sitemap = build_module.sitemap_xml
    monkeypatch.setattr(
        build_module, "sitemap_xml", lambda site: sitemaps_made.append(1) or real_sitemap(site)
    )
    incremental(content, out, cache)
    assert not sitemaps_made, "the sitemap was made again for an edit it does not show"
    monkeypatch.undo()
    assert snapshot(out) == clean(content, tmp_path)
    after = mtimes(out)
    assert after["index.html"] == before["index.html"]
    assert after["feed.xml"] == before["feed.xml"]
    assert after["sitemap.xml"] == before["sitemap.xml"]
    text = oldest.read_text()
    oldest.write_text(text.replace(f"  date: {dates[oldest]}", "  date: 2027-01-01", 1))
    incremental(content, out, cache)
    assert snapshot(out) == clean(content, tmp_path)
    error_id = text.split('id: "')[1].split('"')[0]
    assert f"errors/{error_id}/" in (out / "index.html").read_text()
    assert f"errors/{error_id}/" in (out / "feed.xml").read_text()
    assert f"errors/{error_id}/</loc><lastmod>2027-01-01<" in (out / "sitemap.xml").read_text()


def test_the_errors_index_is_made_again_only_when_an_entry_changes(
    project: tuple[Path, Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An edit to what the errors index does not show leaves it as the last build made it (not
    made, not rewritten); a changed message, or an error in another place, makes it again."""
    content, out, cache = project
    incremental(content, out, cache)
    made: list[int] = []
    real_index = build_module.errors_index
    monkeypatch.setattr(
        build_module, "errors_index", lambda *args: made.append(1) or real_index(*args)
    )
    renamed = sorted((content / "errors").rglob("*.yaml"))[9]
    old_id = renamed.read_text().split('id: "')[1].split('"')[0]

    def rename() -> None:  # another id (the old one kept as an alias): another place in the order
        text = renamed.read_text().replace(old_id, "0000000000000abc", 1)
        renamed.write_text(f'{text}aliases: ["{old_id}"]\n')

    from generator.outputs.pages import PageMemo

    carried: list[str | None] = []
    real_carried = PageMemo.carried_over

    def carried_over(memo: PageMemo, path: str, held: str | None) -> str | None:
        carried.append(real_carried(memo, path, held))
        return carried[-1]

    monkeypatch.setattr(PageMemo, "carried_over", carried_over)
    steps = [  # (the spare holds the first build's index, then one older than the live one's)
        (lambda: edit_record(content, 5, "is checked while", "is checked soon while"), False),
        (lambda: edit_record(content, 5, 'message: "--', 'message: "now --'), True),
        (lambda: edit_record(content, 6, "is checked while", "is checked soon while"), False),
        (rename, True),
    ]
    for number, (step, changes) in enumerate(steps):
        step()
        before = (out / "api/errors/index.json").stat().st_mtime_ns
        made.clear()
        carried.clear()
        incremental(content, out, cache)
        assert bool(made) == changes
        assert bool(carried and carried[0]) == (number == 0), "not carried over from the spare"
        assert ((out / "api/errors/index.json").stat().st_mtime_ns != before) == changes
        monkeypatch.undo()
        assert snapshot(out) == clean(content, tmp_path)
        monkeypatch.setattr(
            build_module, "errors_index", lambda *args: made.append(1) or real_index(*args)
        )
        monkeypatch.setattr(PageMemo, "carried_over", carried_over)


def test_a_leftover_being_deleted_is_left_to_its_deletion(tmp_path: Path) -> None:
    """A staging folder whose deletion is under way (its `rm` holds a lock on it) gets no second
    `rm`; once nothing holds it, the next build deletes it."""
    import fcntl
    import os

    from generator.outputs.write import remove_leftovers

    out = tmp_path / "site"
    leftover = tmp_path / ".site.old-abcd1234"
    (leftover / "errors" / "x").mkdir(parents=True)
    (leftover / "errors" / "x" / "index.html").write_text("old page")
    handle = os.open(leftover, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)  # as the rm started by an earlier build does
        remove_leftovers(out)
        assert leftovers(tmp_path, timeout=1.0) == [leftover.name]
        assert (leftover / "errors" / "x" / "index.html").read_text() == "old page"
    finally:
        os.close(handle)
    remove_leftovers(out)
    assert leftovers(tmp_path) == []


def test_a_large_file_replaced_is_deleted_in_the_background(
    project: tuple[Path, Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The dump a build replaces is moved aside and deleted by a background rm (at ten thousand
    errors it is 94 MB): the site is the same, and nothing is left beside it."""
    monkeypatch.setattr("generator.outputs.write.SET_ASIDE_BYTES", 1)
    content, out, cache = project
    for index in (5, 6, 7):
        incremental(content, out, cache)
        edit_record(content, index, "is checked while", "is checked now while")
    incremental(content, out, cache)
    assert snapshot(out) == clean(content, tmp_path)
    assert [name for name in leftovers(tmp_path) if name.startswith(".site.")] == []


def test_a_build_run_from_another_working_folder_keeps_what_the_cache_holds(
    project: tuple[Path, Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Messages name record files from the working folder; the cache knows them by their name
    under errors/, so a build run from elsewhere renders nothing again, and what it says about
    a record it did not read again names the file as that folder shows it."""
    content, out, cache = project
    record = sorted((content / "errors").rglob("*.yaml"))[5]
    text = record.read_text()
    related = re.search(r'related: \["(\w+)"', text)
    assert related is not None
    first = related.group(1)
    record.write_text(text.replace(f'related: ["{first}"', f'related: ["{first}", "{first}"'))
    monkeypatch.chdir(tmp_path)
    report = build(content, out, cache_dir=cache, jobs=2)
    assert report.written
    listed_twice = [d for d in report.diagnostics if "listed twice" in d.message]
    assert [d.position.path for d in listed_twice] == [str(record.relative_to(tmp_path))]
    before = mtimes(out)

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    report = build(content, out, cache_dir=cache, jobs=2)
    assert report.records_read == 0 and report.pages_rendered == 0, "a record was read again"
    listed_twice = [d for d in report.diagnostics if "listed twice" in d.message]
    assert [d.position.path for d in listed_twice] == [str(record)]  # (outside: as given)
    assert mtimes(out) == before

    # An error whose message changes: the pages linking to it are rendered again, from their
    # records read back from the cache, and the site is a clean build's.
    edit_record(content, 30, "(case ", "(elsewhere case ")
    report = build(content, out, cache_dir=cache, jobs=2)
    assert report.records_read == 1
    assert 1 < report.pages_rendered < 20  # of 60: the edited one and its neighbours
    assert snapshot(out) == clean(content, tmp_path)
    monkeypatch.chdir(tmp_path)
    report = build(content, out, cache_dir=cache, jobs=2)
    assert report.records_read == 0 and report.pages_rendered == 0
    assert snapshot(out) == clean(content, tmp_path)


def test_a_record_read_back_is_named_as_this_build_shows_it(
    project: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    content, out, cache = project
    incremental(content, out, cache)
    database = next(cache.glob("*.sqlite"))
    code = cache_module.code_version()
    here = cache_module.load_cache(database, code, shown_records_folder(content))
    there = cache_module.load_cache(database, code, "somewhere/else/errors/")
    name = min(here.records)
    under = name[len(here.records_folder) :]
    moved = there.read_record("somewhere/else/errors/" + under)
    kept = here.read_record(name)
    assert kept.file == name and moved.file == "somewhere/else/errors/" + under
    assert moved.positions and {where.path for where in moved.positions.values()} == {moved.file}
    assert {where.path for where in kept.positions.values()} == {name}
    assert [p[1:] for p in moved.positions.values()] == [p[1:] for p in kept.positions.values()]
    assert there.records["somewhere/else/errors/" + under].summary.file.startswith("somewhere/")
    assert there.versions()["somewhere/else/errors/" + under] == here.versions()[name]
    here.close()
    there.close()


def test_a_repository_page_is_rendered_again_only_when_what_it_shows_changes(
    project: tuple[Path, Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The default theme's repository pages show what the records' summaries hold: an edit
    to a meaning leaves them unrendered, an edit to a message renders its repository's."""
    content, out, cache = project
    incremental(content, out, cache)
    rendered: list[str] = []
    real = pages_module.repo_page_context

    def counted(site: Any, repo: str, *args: Any) -> Any:
        rendered.append(repo)
        return real(site, repo, *args)

    monkeypatch.setattr(pages_module, "repo_page_context", counted)
    record = sorted((content / "errors").rglob("*.yaml"))[7]
    repo = record.read_text().split("repo: ")[1].split("\n")[0]
    edit_record(content, 7, "is checked while", "is checked early while")
    incremental(content, out, cache)
    assert rendered == []
    edit_record(content, 7, "(case ", "(renamed case ")
    incremental(content, out, cache)
    assert rendered == [repo]
    monkeypatch.undo()
    assert snapshot(out) == clean(content, tmp_path)


def test_a_theme_listing_page_that_shows_more_than_summaries_follows_every_edit(
    project: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    """A theme's repository page may show what only the full record holds, for some records
    only: from the build that first shows it, every edit to those records renders it."""
    content, out, cache = project
    repo_html = content.parent / "mytheme" / "templates" / "repo.html"
    shown = (
        '{% if "special" in item.record.message %}<p class="more">'
        "{{ item.record.meaning }} line {{ item.record.source.snippet.start_line }}"
        " by {{ item.record.analysis.by }}</p>{% endif %}\n"
        "    </li>"
    )
    repo_html.write_text(repo_html.read_text().replace("    </li>", shown, 1))
    incremental(content, out, cache)
    assert snapshot(out) == clean(content, tmp_path)
    assert 'class="more"' not in "".join(p.read_text() for p in (out / "repos").rglob("*.html"))
    edit_record(content, 7, "(case ", "(special case ")
    incremental(content, out, cache)
    assert snapshot(out) == clean(content, tmp_path)
    edit_record(content, 7, "is checked while", "is checked early while")
    incremental(content, out, cache)
    assert snapshot(out) == clean(content, tmp_path)
    pages = "".join(p.read_text() for p in (out / "repos").rglob("*.html"))
    assert pages.count('class="more"') == 1 and "is checked early while" in pages


def test_render_workers_are_forked_early_only_when_many_pages_are_expected(
    project: tuple[Path, Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An edit forks no render workers (it renders its few pages here); a build that finds
    many pages to render although the files' mtimes said otherwise forks them then; a theme
    change forks them at the start."""
    content, out, cache = project
    forks: list[str] = []  # each build's render workers: forked "early", "late" or "none"
    pool_class = parallel_module.WorkerPool
    real_init, real_map = pool_class.__init__, pool_class.map

    def init(self: Any, jobs: int, early: bool = True) -> None:
        real_init(self, jobs, early)
        forks.append("early" if self.pool is not None else "none")

    def map_work(self: Any, *args: Any, **kwargs: Any) -> Any:
        forked_before = self.pool is not None
        for result in real_map(self, *args, **kwargs):
            if not forked_before and self.pool is not None:
                forks[-1], forked_before = "late", True
            yield result

    monkeypatch.setattr(pool_class, "__init__", init)
    monkeypatch.setattr(pool_class, "map", map_work)
    monkeypatch.setattr(parallel_module, "MIN_PER_PROCESS", 1)  # two pages make work for two
    incremental(content, out, cache)
    edit_record(content, 7, "is checked while", "is checked early while")
    incremental(content, out, cache)
    assert forks == ["early", "none"]
    assert snapshot(out) == clean(content, tmp_path)
    long_ago = time.time() - 10 * 24 * 3600
    for index in range(20):  # written back with old mtimes: they look unchanged to the guess
        record = sorted((content / "errors").rglob("*.yaml"))[index]
        record.write_text(record.read_text().replace("is checked", "is looked at", 1))
        os.utime(record, (long_ago, long_ago))
    report = build(content, out, cache_dir=cache, jobs=2)
    assert report.pages_rendered >= 20 and forks[-1] == "late", forks
    assert snapshot(out) == clean(content, tmp_path)
    css = content.parent / "mytheme" / "static" / "style.css"
    css.write_text(css.read_text() + "\nbody { margin: 0; }\n")
    edit_record(content, 7, "is checked early while", "is checked while")
    incremental(content, out, cache)
    assert forks[-1] == "early"
    monkeypatch.undo()
    assert snapshot(out) == clean(content, tmp_path)


def test_the_search_index_is_made_from_the_parts_the_last_build_kept(
    project: tuple[Path, Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The early search child keeps the index's parts beside the cache; the next child makes
    the index from them without reading the rows, redoing the entries of the records read
    afresh: the bytes of the index made whole. Parts kept for another cache are not used."""
    content, out, cache = project
    monkeypatch.setattr(build_module, "FORK_WORTH", 1)
    incremental(content, out, cache)
    edit_record(content, 3, "is checked while", "is checked early while")
    incremental(content, out, cache)  # an early child, no parts yet: made whole, kept
    edit_record(content, 5, "is checked while", "is checked early while")
    incremental(content, out, cache)  # from the parts
    assert snapshot(out) == clean(content, tmp_path)
    model = sorted((content / "errors").rglob("*.yaml"))[9]
    new_id = "0123456789abcdef"
    added = model.with_name("added.yaml")
    text = re.sub(r'id: "[0-9a-f]+"', f'id: "{new_id}"', model.read_text(), count=1)
    added.write_text(text.replace("(case ", "(added case ", 1))
    incremental(content, out, cache)  # an error added
    assert snapshot(out) == clean(content, tmp_path)
    added.unlink()
    incremental(content, out, cache)  # and gone
    assert snapshot(out) == clean(content, tmp_path)
    edit_record(content, 11, "is checked while", "is checked early while")
    incremental(content, out, cache)
    assert snapshot(out) == clean(content, tmp_path)
    database = next(cache.glob("*.sqlite"))
    code, folder = cache_module.code_version(), shown_records_folder(content)
    loaded = cache_module.load_cache(database, code, folder)
    assert loaded.rows is not None
    saved = cache_module.read_search_parts(database, code)
    assert saved is not None and saved[0] == loaded.token  # kept for the cache as saved
    assert cache_module.read_search_parts(database, "other code") is None
    site = sorted((entry.summary for entry, _ in loaded.rows.values()), key=lambda s: s.id)
    edited = site[7]
    unit = loaded.rows[edited.file][1]
    assert unit is not None
    record = loaded.read_record(edited.file)
    message = record.message + " </script> <b>'quoted'</b> & \\ \u2028"
    record = replace(record, message=message, meaning=record.meaning + " early", tags=("t&t",))
    order = build_module.SearchIndexOrder(
        loaded.token,
        [s.file for s in site],
        {edited.file: (summarize(record), record)},
        {edited.file: unit.meaning_words},
        "the next save's",
    )
    words = {e.summary.id: u.meaning_words for e, u in loaded.rows.values() if u is not None}
    words[edited.id] = record_words(record)
    now = tuple(summarize(record) if s.file == edited.file else s for s in site)
    whole = search_files(now, words)[0].content
    rows_read: list[str] = []
    real_rows = build_module.rows_for_helper

    def rows_for_helper(*args: Any) -> Any:
        rows_read.append("read")
        return real_rows(*args)

    def not_whole(*args: Any) -> Any:
        raise AssertionError("made whole")

    with monkeypatch.context() as patched:
        patched.setattr(build_module, "rows_for_helper", rows_for_helper)
        patched.setattr(build_module, "index_parts", not_whole)
        made = build_module.search_index_when_told(database, code, folder, lambda: order)
    assert isinstance(made, Then) and made.result is not None and not rows_read
    assert made.result[0].content == whole
    made.then()  # kept for the cache the build saves next, not for this one
    kept = cache_module.read_search_parts(database, code)
    assert kept is not None and kept[0] == "the next save's"
    with monkeypatch.context() as patched:  # so this build's child reads the rows
        patched.setattr(build_module, "rows_for_helper", rows_for_helper)
        made = build_module.search_index_when_told(database, code, folder, lambda: order)
    assert isinstance(made, Then) and made.result is not None and rows_read
    assert made.result[0].content == whole
    # The cache as saved, without the edit (the parts kept are of the edited records).
    unedited = order._replace(read_again={}, earlier_words={})
    made = build_module.search_index_when_told(database, code, folder, lambda: unedited)
    assert isinstance(made, Then) and made.result is not None
    assert made.result[0].content == (out / "assets" / "search-index.js").read_bytes()
    # Without the words the last index counted for the error read again: not from the parts.
    assert build_module.search_index_from_parts(saved[1], order._replace(earlier_words={})) is None
    loaded.close()
