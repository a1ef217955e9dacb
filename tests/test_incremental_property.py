"""The incremental invariant: any sequence of edits builds the bytes of a clean build.

Edits of every kind a site sees (a meaning, a message and so every title that
links to it, a snippet, the settings, a theme's style sheet and its error page
template, an alias, a retirement, a record added, deleted or renamed, and, in a
site with histories, a release added, a former wording changed, a history file
deleted) are applied one after another, each followed by a build with the
cache (`errpages build`, the cache read from disk each time), or by `errpages
serve`'s update (the records, the listing, the templates and the pages made
so far kept in memory, told the paths that changed as its watcher tells it).
After each, the output, or every file serve serves, must be byte for byte
what a build from scratch makes of the same content.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.corpus import write_corpus, write_histories
from errpages.build import build
from errpages.content.history import history_text, parse_history
from errpages.serve.session import Session
from errpages.site.model import Release
from tests.test_incremental import snapshot

REPO_ROOT = Path(__file__).resolve().parent.parent
RECORDS = 12

Edit = Callable[[Path, int], None]


def record_files(content: Path) -> list[Path]:
    return sorted((content / "errors").rglob("*.yaml"))


def nth(content: Path, index: int) -> Path:
    files = record_files(content)
    return files[index % len(files)]


def replace_in(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1))


def error_id(record: Path) -> str:
    found = re.search(r'^id: "([0-9a-f]{16})"', record.read_text(), re.M)
    assert found is not None
    return found[1]


def edit_meaning(content: Path, index: int) -> None:
    replace_in(nth(content, index), "meaning: >-\n  ", f"meaning: >-\n  Edit {index}. ")


def edit_message(content: Path, index: int) -> None:  # every page linking to it reads otherwise
    replace_in(nth(content, index), 'message: "', f'message: "edited {index} ')


def edit_snippet(content: Path, index: int) -> None:
    snippet = sorted((content / "snippets").rglob("*.py"))[index % RECORDS]
    snippet.write_text(f"{snippet.read_text()}# edited {index}\n")


def edit_settings(content: Path, index: int) -> None:
    replace_in(content / "site.yaml", "title: ", f"title: {index} ")


def edit_theme(content: Path, index: int) -> None:
    css = content.parent / "mytheme" / "static" / "style.css"
    css.write_text(f"{css.read_text()}\n/* edit {index} */\n")


def edit_template(content: Path, index: int) -> None:
    error_html = content.parent / "mytheme" / "templates" / "error.html"
    block = "{% block main %}"
    replace_in(error_html, block, f"{block}<!-- edit {index} -->")


def add_alias(content: Path, index: int) -> None:
    record = nth(content, index)
    if "aliases:" not in record.read_text():
        alias = f"{index:04x}aaaa{index:08x}"[-16:]
        record.write_text(f'{record.read_text()}aliases: ["{alias}"]\n')


def retire(content: Path, index: int) -> None:
    record = nth(content, index)
    if "retired:" not in record.read_text():
        record.write_text(f"{record.read_text()}retired:\n  since: v{index}\n")


def add_record(content: Path, index: int) -> None:
    source = nth(content, index)
    new_id = f"{index:02x}" + "b" * 14
    if any(error_id(record) == new_id for record in record_files(content)):
        return
    text = source.read_text().replace(error_id(source), new_id, 1)
    text = re.sub(r"^aliases: .*\n", "", text, flags=re.M)  # an alias names one error only
    source.with_name(f"added-{index}.yaml").write_text(text)


def delete_record(content: Path, index: int) -> None:
    if len(record_files(content)) <= 4:
        return
    gone = nth(content, index)
    gone_id = error_id(gone)
    gone.unlink()
    for record in record_files(content):  # no link may point to it now
        text = record.read_text()
        kept = re.sub(rf'"{gone_id}"(, )?|, "{gone_id}"', "", text)
        kept = kept.replace("related: []\n", "")
        if kept != text:
            record.write_text(kept)


def rename_record(content: Path, index: int) -> None:
    record = nth(content, index)
    record.rename(record.with_name(f"renamed-{index}-{record.name}"))


def history_files(content: Path) -> list[Path]:
    return sorted((content / "history").rglob("*.json"))


def add_release(content: Path, index: int) -> None:
    """A release that raises what the latest raised, but for one error (then marked retired,
    as `errpages check` asks)."""
    stopped = append_release(content, index, stop_one=True)
    for record in record_files(content):
        if error_id(record) == stopped[0] and "retired:" not in record.read_text():
            record.write_text(f"{record.read_text()}retired:\n  since: {stopped[1]}\n")


def add_release_raising_all(content: Path, index: int) -> None:
    append_release(content, index, stop_one=False)


def append_release(content: Path, index: int, stop_one: bool) -> tuple[str, str]:
    """Add a release to a history file that raises what the latest raised (but for one
    error, with `stop_one`); that error's id and the release's name."""
    files = history_files(content)
    if not files:
        return "", ""
    path = files[index % len(files)]
    stored = parse_history(path.read_text())
    latest = len(stored.releases)
    name = f"v9.{index}.{latest}"
    stored.releases.append(Release(name, f"{index:08x}" * 5))
    stopped = sorted(stored.runs)[index % len(stored.runs)] if stop_one else ""
    for record_id, runs in stored.runs.items():
        if runs and runs[-1].until == latest and record_id != stopped:
            stored.runs[record_id] = (*runs[:-1], runs[-1]._replace(until=latest + 1))
    path.write_text(history_text(stored))
    return stopped, name


def reword_in_history(content: Path, index: int) -> None:  # how one release said it
    files = history_files(content)
    if not files:
        return
    path = files[index % len(files)]
    stored = parse_history(path.read_text())
    record_id = sorted(stored.runs)[index % len(stored.runs)]
    runs = stored.runs[record_id]
    if runs:
        found = runs[0].found
        reworded = runs[0]._replace(found=found._replace(message=f"once {index} {found.message}"))
        stored.runs[record_id] = (reworded, *runs[1:])
        path.write_text(history_text(stored))


def delete_history(content: Path, index: int) -> None:
    files = history_files(content)
    if files:
        files[index % len(files)].unlink()


EDITS: list[Edit] = [
    edit_meaning,
    edit_message,
    edit_snippet,
    edit_settings,
    edit_theme,
    edit_template,
    add_alias,
    retire,
    add_record,
    delete_record,
    rename_record,
    add_release,
    add_release_raising_all,
    reword_in_history,
    delete_history,
]


def make_project(root: Path, histories: bool = False) -> tuple[Path, Path, Path]:
    content = root / "content"
    write_corpus(RECORDS, content)
    if histories:
        write_histories(RECORDS, content, releases=6)
    shutil.copytree(REPO_ROOT / "themes" / "default", root / "mytheme")
    (content / "site.yaml").write_text(
        "title: Property\nbase_url: https://prop.example.org/\ntheme: mytheme\n"
    )
    return content, root / "site", root / "cache"


def file_stats(root: Path) -> dict[str, tuple[int, int, int]]:
    """Every file of the project's content and theme, by its stat."""
    found = {}
    for path in [*(root / "content").rglob("*"), *(root / "mytheme").rglob("*")]:
        if path.is_file():
            st = path.stat()
            found[str(path)] = (st.st_size, st.st_mtime_ns, st.st_ino)
    return found


def changed_paths(before: Mapping[str, object], after: Mapping[str, object]) -> set[str]:
    """The paths added, deleted or changed (by stat: what a watcher reports; or by bytes)."""
    return {path for path in before.keys() | after.keys() if before.get(path) != after.get(path)}


def clean_build(content: Path, root: Path) -> dict[str, bytes]:
    out = root / "clean"
    shutil.rmtree(out, ignore_errors=True)
    report = build(content, out, cache_dir=None, jobs=1)
    assert report.written, [d.format() for d in report.diagnostics]
    made = snapshot(out)
    del made[".errpages-site"]  # the folder's mark, not a file of the site
    return made


def served(session: Session) -> dict[str, bytes]:
    """Every file serve serves, and that no page has a problem a build would refuse."""
    found = {path: session.read(path) for path in session.paths()}
    assert not [(path, f[1]) for path, f in found.items() if f is None or f[1]]
    return {path: f[0] for path, f in found.items() if f is not None}


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    st.lists(st.tuples(st.sampled_from(EDITS), st.integers(0, 40)), min_size=1, max_size=5),
    st.booleans(),
    st.booleans(),
)
def test_any_sequence_of_edits_builds_the_bytes_of_a_clean_build(
    edits: list[tuple[Edit, int]], serving: bool, histories: bool
) -> None:
    with tempfile.TemporaryDirectory(prefix="errpages-property-") as folder:
        root = Path(folder)
        content, out, cache = make_project(root, histories)
        session = Session(content) if serving else None
        if session is None:
            first = build(content, out, cache_dir=cache, jobs=1)
            assert first.written, [d.format() for d in first.diagnostics]
        else:
            assert not session.update(set()).diagnostics
        for edit, index in edits:
            before = file_stats(root)
            edit(content, index)
            if session is None:
                report = build(content, out, cache_dir=cache, jobs=1)
                assert report.written or report.unchanged, [d.format() for d in report.diagnostics]
                built = snapshot(out)
                del built[".errpages-site"]
            else:
                report = session.update(changed_paths(before, file_stats(root)))
                assert not report.diagnostics, [d.format() for d in report.diagnostics]
                built = served(session)
            assert built == clean_build(content, root), (edit.__name__, index)


@pytest.mark.parametrize("edit", [reword_in_history, delete_history])
def test_a_history_edit_makes_again_what_it_changes_and_no_more(edit: Edit, tmp_path: Path) -> None:
    content, out, cache = make_project(tmp_path, histories=True)
    assert build(content, out, cache_dir=cache, jobs=1).written
    before = snapshot(out)
    edit(content, 9)
    report = build(content, out, cache_dir=cache, jobs=1)
    assert report.written, [d.format() for d in report.diagnostics]
    changed = changed_paths(before, snapshot(out))
    assert set(report.made) == changed - {"api/errors.ndjson"}  # the dump: staged by ranges
    assert any(path.startswith("errors/") for path in changed)


def test_a_release_added_makes_again_only_what_shows_that_repository(tmp_path: Path) -> None:
    """Each of its errors' pages says which release is the latest; no other error's page
    says anything of it."""
    content, out, cache = make_project(tmp_path, histories=True)
    assert build(content, out, cache_dir=cache, jobs=1).written
    before = snapshot(out)
    history = history_files(content)[0]
    repo = history.relative_to(content / "history").with_suffix("").as_posix()
    ids = set(parse_history(history.read_text()).runs)
    add_release_raising_all(content, 0)
    report = build(content, out, cache_dir=cache, jobs=1)
    assert report.written, [d.format() for d in report.diagnostics]
    assert changed_paths(before, snapshot(out)) - {"api/errors.ndjson"} <= set(report.made)
    pages = {path.split("/")[1] for path in report.made if path.startswith("errors/")}
    assert pages and pages <= ids, (pages, ids)
    assert f"repos/{repo}/index.html" in report.made


def test_an_unchanged_history_file_is_read_only_to_make_a_page_of_its_errors(
    tmp_path: Path,
) -> None:
    """A build with a cache takes what the listings and the search index show of a history
    file from the cache while the file's stat is the same: bytes changed behind an unchanged
    stat go unseen until a page of that repository's errors is made again."""
    content, out, cache = make_project(tmp_path, histories=True)
    assert build(content, out, cache_dir=cache, jobs=1).written
    before = snapshot(out)
    unseen, read = history_files(content)[:2]
    st = unseen.stat()
    with unseen.open("r+b") as file:  # its size, inode and mtime kept
        file.write(b"x" * st.st_size)
    os.utime(unseen, ns=(st.st_atime_ns, st.st_mtime_ns))
    repo = read.relative_to(content / "history").with_suffix("")
    record = sorted((content / "errors" / repo).glob("*.yaml"))[0]
    replace_in(record, "meaning: >-\n  ", "meaning: >-\n  Edited. ")
    report = build(content, out, cache_dir=cache, jobs=1)
    assert report.written, [d.format() for d in report.diagnostics]
    page = f"errors/{error_id(record)}/index.html"
    assert page in report.made
    after = snapshot(out)
    assert b'class="releases"' in after[page]  # its own history file, read to make it
    assert changed_paths(before, after) - {"api/errors.ndjson"} <= set(report.made)


def test_a_history_file_changed_while_a_page_of_it_is_made_fails_the_build_and_no_more(
    tmp_path: Path,
) -> None:
    """The file is read to make the page after the build listed it: when it changed since,
    the build says so, as an error naming it, and leaves the site as it was."""
    content, out, cache = make_project(tmp_path, histories=True)
    assert build(content, out, cache_dir=cache, jobs=1).written
    before = snapshot(out)
    history = history_files(content)[1]
    repo = history.relative_to(content / "history").with_suffix("")
    record = sorted((content / "errors" / repo).glob("*.yaml"))[0]
    replace_in(record, "meaning: >-\n  ", "meaning: >-\n  Edited. ")

    def touch(done: int, total: int) -> None:  # told before the pages are made
        os.utime(history, ns=(0, history.stat().st_mtime_ns + 1_000_000))

    report = build(content, out, cache_dir=cache, jobs=1, progress=touch)
    assert not report.written
    assert report.failed() and [d.format() for d in report.diagnostics] == [
        f"{history}: changed while the site was made from it\n    hint: build again"
    ]
    assert snapshot(out) == before
    assert build(content, out, cache_dir=cache, jobs=1).written  # and the next build is whole
    assert b"Edited." in snapshot(out)[f"errors/{error_id(record)}/index.html"]


def test_a_history_of_none_of_a_repositorys_errors_offers_no_release_filter(
    tmp_path: Path,
) -> None:
    """A history file whose records are none of the site's (taken before they were written,
    say) gives its repository's page nothing to narrow: no release filter, no counts."""
    content, out, _ = make_project(tmp_path, histories=True)
    stranger, known = history_files(content)[:2]
    stored = parse_history(stranger.read_text())
    stored.runs = {"0" * 8 + key[8:]: runs for key, runs in stored.runs.items()}
    stored.pinned = {"0" * 8 + key[8:]: pinned for key, pinned in stored.pinned.items()}
    stranger.write_text(history_text(stored))
    assert build(content, out, cache_dir=None, jobs=1).written
    built = snapshot(out)
    for history, offered in ((stranger, False), (known, True)):
        repo = history.relative_to(content / "history").with_suffix("").as_posix()
        assert (b"data-release-empty" in built[f"repos/{repo}/index.html"]) is offered, repo
