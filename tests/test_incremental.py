"""Incremental builds give the same bytes as clean ones and rewrite only what changed."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from benchmarks.corpus import write_corpus
from errpages.build import build
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
        patch.setattr(os, "link", no_links)
        incremental(content, out, cache)
    assert not spare.exists()
    assert leftovers(out.parent) == []
    assert snapshot(out) == clean(content, tmp_path)
    edit_record(content, 4, "is checked while", "is checked late while")
    incremental(content, out, cache)
    assert (spare / ".errpages-spare").is_file()
    assert snapshot(out) == clean(content, tmp_path)


def test_a_file_deleted_from_the_output_is_put_right_by_the_next_build(
    project: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    """A page deleted by hand from the output: the next build finds it gone (by its folder's
    mtime, without listing every folder) and puts it back; and the site that build replaces,
    kept as the spare, is known to lack it, so the build after that is whole too."""
    content, out, cache = project
    incremental(content, out, cache)
    sorted(out.glob("errors/*/index.html"))[0].unlink()
    for word in ("late", "later", "latest"):
        edit_record(content, 2, "is checked", f"is checked {word}")
        incremental(content, out, cache)
        assert snapshot(out) == clean(content, tmp_path)


@pytest.mark.parametrize("change", ["file", "deep file", "folder", "replaced", "top"])
def test_what_was_put_into_the_output_is_never_dropped_unsaid(
    project: tuple[Path, Path, Path], tmp_path: Path, change: str
) -> None:
    """A file or folder put into the output by hand, or one of its files replaced: the build
    refuses, names it and leaves the site as it is; once it is moved out, builds go on."""
    content, out, cache = project
    incremental(content, out, cache)
    page = sorted(out.glob("errors/*/index.html"))[0]
    named = {
        "file": out / "errors" / "stale.html",
        "deep file": page.parent / "notes.txt",
        "folder": out / "errors" / "extra",
        "replaced": page,
        "top": out / "CNAME",
    }[change]
    if change == "folder":
        (named / "inner").mkdir(parents=True)
        (named / "inner" / "index.html").write_text("by hand")
    else:  # another file in a page's place: a new inode, so the spare's hard link is kept
        named.unlink(missing_ok=True)
        named.write_text("by hand")
    before = snapshot(out)
    edit_record(content, 2, "is checked", "is checked late")
    report = build(content, out, cache_dir=cache)
    assert not report.written
    shown = str(named.relative_to(out)) + ("/" if change == "folder" else "")
    [problem] = [d.format() for d in report.diagnostics]
    assert f"--out: holds files errpages did not write there, or changed since: {shown}" in problem
    assert snapshot(out) == before
    shutil.rmtree(named) if named.is_dir() else named.unlink()
    for word in ("later", "latest"):
        edit_record(content, 2, "is checked", f"is checked {word}")
        incremental(content, out, cache)
        assert snapshot(out) == clean(content, tmp_path), change


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
    held = os.open(spare, os.O_RDONLY)  # so its inode is not given to a new folder meanwhile
    try:
        edit_record(content, 5, "is checked while", "is checked now while")
        incremental(content, out, cache)
        assert out.stat().st_ino != spare_inode, "a damaged spare was used"
    finally:
        os.close(held)
    assert snapshot(out) == clean(content, tmp_path)
    assert (spare / ".errpages-spare").is_file()


def test_after_a_full_rebuild_the_next_build_is_incremental_again(
    project: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    """A build without the cache (deleted, or of other errpages code) replaces the site
    whole; the build after that still finds a spare and renders only what changed."""
    content, out, cache = project
    spare = out.parent / f".{out.name}.spare"
    incremental(content, out, cache)
    shutil.rmtree(cache)
    report = build(content, out, cache_dir=cache)
    assert report.pages_rendered == 60
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
    with open(dump, "r+") as stream:  # edited in place: its folder's mtime does not move
        stream.write(text.replace("acme", "ACME", 1))  # same size, other bytes
    edit_record(content, 6, "is checked while", "is checked soon while")
    incremental(content, out, cache)
    assert snapshot(out) == clean(content, tmp_path)


def cache_files(cache: Path) -> list[Path]:
    return sorted(path for path in cache.rglob("*") if path.is_file())


def damage_cache(cache: Path, damage: str, earlier: dict[str, bytes], index: int) -> None:
    """Damage the cache folder as a disk, a kill or a pull request could."""
    files = cache_files(cache)
    if damage == "garbage":
        for path in files:
            path.write_bytes(b"\x80\x04not what errpages wrote" * 100)
    elif damage == "truncated":
        for path in files:
            path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    elif damage == "one file gone":
        files[index % len(files)].unlink()
    else:  # one file as an earlier build left it: a build killed while saving
        name = sorted(earlier)[index % len(earlier)]
        (cache / name).write_bytes(earlier[name])


@pytest.mark.parametrize("index", [0, 1, 2, 3])
@pytest.mark.parametrize("damage", ["garbage", "truncated", "one file gone", "one file earlier"])
def test_a_damaged_cache_means_a_full_build_not_a_wrong_one(
    project: tuple[Path, Path, Path], tmp_path: Path, damage: str, index: int
) -> None:
    """Whatever happens to the cache files, the next build is whole and says nothing odd, and
    the one after it is incremental again."""
    content, out, cache = project
    incremental(content, out, cache)
    earlier = {str(path.relative_to(cache)): path.read_bytes() for path in cache_files(cache)}
    edit_record(content, 7, "is checked while", "is checked first while")
    incremental(content, out, cache)
    damage_cache(cache, damage, earlier, index)
    edit_record(content, 8, "is checked while", "is checked anyway while")
    report = build(content, out, cache_dir=cache)
    assert report.written and not report.diagnostics, [d.format() for d in report.diagnostics]
    assert snapshot(out) == clean(content, tmp_path)
    edit_record(content, 9, "is checked while", "is checked again while")
    report = build(content, out, cache_dir=cache)
    assert report.pages_rendered == 1, "the cache was not written again whole"
    assert snapshot(out) == clean(content, tmp_path)


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
    files = cache_files(cache)
    for path in files:  # nothing can be written where a folder is
        path.unlink()
        path.mkdir()
    edit_record(content, 3, "is checked while", "is checked lately while")
    report = build(content, out, cache_dir=cache)
    assert report.written and report.cache_problem
    assert snapshot(out) == clean(content, tmp_path)
    for path in files:
        path.rmdir()
    edit_record(content, 4, "is checked while", "is checked lately while")
    report = build(content, out, cache_dir=cache)
    assert report.written and report.cache_problem is None
    assert report.pages_rendered == 60  # nothing was kept: built from scratch
    assert snapshot(out) == clean(content, tmp_path)
    edit_record(content, 5, "is checked while", "is checked lately while")
    report = build(content, out, cache_dir=cache)
    assert report.pages_rendered == 1
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
    project: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    """The home page and feed list the newest errors, the sitemap every error's analysis date:
    an edit elsewhere leaves their files as they were (not made, not rewritten); moving an
    error's analysis date to the newest puts it on all three."""
    content, out, cache = project
    incremental(content, out, cache)
    records = sorted((content / "errors").rglob("*.yaml"))
    dates = {r: r.read_text().split("  date: ")[1][:10] for r in records}
    oldest = min(records, key=lambda r: dates[r])
    before = mtimes(out)
    oldest.write_text(oldest.read_text().replace("is checked while", "is checked early while", 1))
    report = build(content, out, cache_dir=cache)
    error_id = oldest.read_text().split('id: "')[1].split('"')[0]
    page, data = f"errors/{error_id}/index.html", f"api/errors/{error_id}.json"
    assert page in report.made and data in report.made
    assert not {"index.html", "feed.xml", "sitemap.xml"} & set(report.made), report.made
    assert snapshot(out) == clean(content, tmp_path)
    after = mtimes(out)
    assert after["index.html"] == before["index.html"]
    assert after["feed.xml"] == before["feed.xml"]
    assert after["sitemap.xml"] == before["sitemap.xml"]
    text = oldest.read_text()
    oldest.write_text(text.replace(f"  date: {dates[oldest]}", "  date: 2027-01-01", 1))
    report = build(content, out, cache_dir=cache)
    assert {"index.html", "feed.xml", "sitemap.xml"} <= set(report.made), report.made
    assert snapshot(out) == clean(content, tmp_path)
    assert f"errors/{error_id}/" in (out / "index.html").read_text()
    assert f"errors/{error_id}/" in (out / "feed.xml").read_text()
    assert f"errors/{error_id}/</loc><lastmod>2027-01-01<" in (out / "sitemap.xml").read_text()


def test_the_errors_index_is_made_again_only_when_an_entry_changes(
    project: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    """An edit to what the errors index does not show leaves it as the last build made it (not
    made, not rewritten); a changed message, or an error in another place, makes it again."""
    content, out, cache = project
    incremental(content, out, cache)
    renamed = sorted((content / "errors").rglob("*.yaml"))[9]
    old_id = renamed.read_text().split('id: "')[1].split('"')[0]

    def rename() -> None:  # another id (the old one kept as an alias): another place in the order
        text = renamed.read_text().replace(old_id, "0000000000000abc", 1)
        renamed.write_text(f'{text}aliases: ["{old_id}"]\n')

    steps = [
        (lambda: edit_record(content, 5, "is checked while", "is checked soon while"), False),
        (lambda: edit_record(content, 5, 'message: "--', 'message: "now --'), True),
        (lambda: edit_record(content, 6, "is checked while", "is checked soon while"), False),
        (rename, True),
    ]
    for number, (step, changes) in enumerate(steps):
        step()
        before = (out / "api/errors/index.json").stat().st_mtime_ns
        report = build(content, out, cache_dir=cache)
        assert report.written and report.pages_rendered >= 1, number
        assert ("api/errors/index.json" in report.made) == changes, number
        assert ((out / "api/errors/index.json").stat().st_mtime_ns != before) == changes
        assert snapshot(out) == clean(content, tmp_path)


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


def test_a_repository_page_is_rendered_again_only_when_what_it_shows_changes(
    project: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    """A repository's page is made again when one of its records changed, and only then; the
    default theme's shows what the records' summaries hold, so an edit to a meaning leaves
    its file as it was (not rewritten), an edit to a message changes it."""
    content, out, cache = project
    incremental(content, out, cache)
    record = sorted((content / "errors").rglob("*.yaml"))[7]
    repo = record.read_text().split("repo: ")[1].split("\n")[0]
    page = out / "repos" / repo / "index.html"
    before = page.stat().st_mtime_ns

    def repo_pages_made() -> list[str]:
        report = build(content, out, cache_dir=cache)
        assert report.written, [d.format() for d in report.diagnostics]
        return [path for path in report.made if path.startswith("repos/")]

    edit_record(content, 7, "is checked while", "is checked early while")
    assert repo_pages_made() == [f"repos/{repo}/index.html"]
    assert page.stat().st_mtime_ns == before, "rewritten, though what it shows is the same"
    edit_record(content, 7, "(case ", "(renamed case ")
    assert repo_pages_made() == [f"repos/{repo}/index.html"]
    assert page.stat().st_mtime_ns != before
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
