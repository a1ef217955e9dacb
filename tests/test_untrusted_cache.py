"""A cache folder from a pull request: nothing written through it lands outside it, nothing
read from it hangs or runs a statement of its choosing, and the site is a clean build's.

Every build runs in a subprocess under a memory and a time limit, as in test_hostile.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from tests.conftest import valid_record
from tests.test_hostile import build as hostile_build
from tests.test_hostile import tree_bytes

OTHER = valid_record("00000000000000b2", "other widget").replace("core.py", "other.py")


def build(content: Path, out: Path, cache: Path | None) -> subprocess.CompletedProcess[str]:
    return hostile_build(content, out, *(["--cache-dir", str(cache)] if cache else ["--no-cache"]))


class Project:
    """Content with two records, its site and its cache folder; `stem` names the cache's files."""

    def __init__(self, tmp_path: Path) -> None:
        self.tmp = tmp_path
        self.content = tmp_path / "content"
        (self.content / "errors").mkdir(parents=True)
        (self.content / "errors" / "a.yaml").write_text(valid_record())
        (self.content / "errors" / "b.yaml").write_text(OTHER)
        self.out, self.cache = tmp_path / "site", tmp_path / "cache"
        first = build(self.content, self.out, self.cache)
        assert first.returncode == 0, first.stderr
        self.stem = next(self.cache.glob("build-*.sqlite")).with_suffix("")

    def file(self, suffix: str) -> Path:
        return self.stem.with_name(self.stem.name + suffix)

    def edit(self, message: str) -> None:
        (self.content / "errors" / "a.yaml").write_text(valid_record(message=message))

    def build(self) -> subprocess.CompletedProcess[str]:
        result = build(self.content, self.out, self.cache)
        assert result.returncode == 0, result.stderr
        assert "Traceback" not in result.stderr, result.stderr
        return result

    def clean(self) -> dict[str, bytes]:
        clean = self.tmp / "clean"
        shutil.rmtree(clean, ignore_errors=True)
        assert build(self.content, clean, None).returncode == 0
        return tree_bytes(clean)


def user_database(path: Path) -> None:
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE notes (body TEXT)")
        db.execute("INSERT INTO notes VALUES ('mine')")
    sqlite3.connect(path).close()


# Each file a build writes or opens in the cache folder, as a link to a file of the user's.
LINKED = [".sqlite", ".head", ".site"]
LINKED += [".sqlite-wal", ".sqlite-shm", ".sqlite-journal"]


@pytest.mark.parametrize("beside", ["alone", "beside a cache"])
@pytest.mark.parametrize(
    ("suffix", "victim"),
    [(suffix, "text") for suffix in LINKED] + [(".sqlite", "empty"), (".sqlite", "database")],
)
def test_no_file_of_the_cache_is_written_through_a_link(
    suffix: str, victim: str, beside: str, tmp_path: Path
) -> None:
    """A link where the cache keeps a file, alone in the folder (as a pull request adds it) or
    beside a cache of errpages' own, to a text file, an empty file or a SQLite database of the
    user's: what it leads to is left as it was."""
    project = Project(tmp_path)
    mine = tmp_path / "mine"
    if victim == "database":
        user_database(mine)
    else:
        mine.write_bytes(b"" if victim == "empty" else b"the user's own notes\n")
    before = mine.read_bytes()
    if beside == "alone":
        shutil.rmtree(project.cache)
        project.cache.mkdir()
    project.file(suffix).unlink(missing_ok=True)
    project.file(suffix).symlink_to(mine)
    project.edit("worse widget")
    result = project.build()
    assert mine.read_bytes() == before
    if victim == "database":
        with sqlite3.connect(mine) as db:
            assert db.execute("PRAGMA journal_mode").fetchone() == ("delete",)
            assert db.execute("SELECT body FROM notes").fetchall() == [("mine",)]
    assert tree_bytes(project.out) == project.clean()
    if suffix == ".sqlite":
        assert "note: the build cache was not used" in result.stderr
        assert "is a symbolic link" in result.stderr
        assert not project.file(".sqlite").is_symlink()
    # What the build saved is errpages' own, and used next time.
    project.edit("worst widget")
    again = project.build()
    assert "not used" not in again.stderr
    assert "1 rendered, 1 unchanged" in again.stdout, again.stdout
    assert tree_bytes(project.out) == project.clean()


ENDLESS = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c"
FOREIGN = {
    "trigger with a cross join": (
        "CREATE TRIGGER slow BEFORE INSERT ON entries BEGIN SELECT count(*) FROM "
        "entries a, entries b, entries c, entries d, entries e, entries f, entries g, "
        "entries h, entries i, entries j, entries k, entries l; END"
    ),
    "trigger with an endless query": (
        f"CREATE TRIGGER endless BEFORE INSERT ON entries BEGIN SELECT max(x) FROM ({ENDLESS}); END"
    ),
    "head as an endless view": (
        "DROP TABLE head; CREATE VIEW head AS "
        f"SELECT x AS id, 'token' AS data FROM ({ENDLESS}) WHERE x > 0"
    ),
    "a table of its own": "CREATE TABLE other (x)",
}


@pytest.mark.parametrize("case", sorted(FOREIGN))
def test_a_database_errpages_did_not_make_is_not_used_said_once_and_replaced(
    case: str, tmp_path: Path
) -> None:
    project = Project(tmp_path)
    with sqlite3.connect(project.file(".sqlite")) as db:
        # Enough rows that the cross join would run for ages.
        db.executemany(
            "INSERT INTO entries (file, meta) VALUES (?, x'00')", [(f"x{i}",) for i in range(20)]
        )
        db.executescript(FOREIGN[case])
    project.edit("worse widget")
    started = time.monotonic()
    result = project.build()
    assert time.monotonic() - started < 30
    assert result.stderr.count("note: the build cache was not used") == 1, result.stderr
    assert "views or triggers that errpages does not make; it was replaced" in result.stderr
    assert tree_bytes(project.out) == project.clean()
    with sqlite3.connect(project.file(".sqlite")) as db:
        kinds = {kind for (kind,) in db.execute("SELECT type FROM sqlite_master")}
    assert kinds == {"table", "index"}
    project.edit("worst widget")
    again = project.build()
    assert "not used" not in again.stderr
    assert "1 rendered, 1 unchanged" in again.stdout, again.stdout


def test_a_cache_an_earlier_errpages_left_is_started_again_without_a_word(
    tmp_path: Path,
) -> None:
    """An upgrade: the database has fewer of errpages' tables, of an older format. It is
    errpages' own: emptied and used, not refused as foreign."""
    project = Project(tmp_path)
    with sqlite3.connect(project.file(".sqlite")) as db:
        db.execute("DROP TABLE outputs")
        db.execute("PRAGMA user_version = 19")
    project.edit("worse widget")
    result = project.build()
    assert "not used" not in result.stderr, result.stderr
    assert "2 rendered, 0 unchanged" in result.stdout, result.stdout
    assert tree_bytes(project.out) == project.clean()
    project.edit("worst widget")
    assert "1 rendered, 1 unchanged" in project.build().stdout


def nested(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


HEADS = {
    ".head linked to /dev/zero": (".head", "/dev/zero"),
    ".head as a FIFO": (".head", "fifo"),
    ".site linked to /dev/zero": (".site", "/dev/zero"),
    ".site as a FIFO": (".site", "fifo"),
    ".site nested 200,000 deep": (".site", nested(200_000)),
    ".site's tables nested 200,000 deep": (".site", "tables"),
    ".head nested 200,000 deep": (".head", nested(200_000)),
}


@pytest.mark.parametrize("case", sorted(HEADS))
def test_a_head_file_is_read_within_bounds(case: str, tmp_path: Path) -> None:
    project = Project(tmp_path)
    suffix, what = HEADS[case]
    path = project.file(suffix)
    if what == "tables":
        head = path.read_bytes().split(b"\n", 1)[0]
        path.write_bytes(head + b"\n" + nested(200_000))
    else:
        path.unlink()
        if what == "fifo":
            os.mkfifo(path)
        elif isinstance(what, str):
            path.symlink_to(what)
        else:
            path.write_bytes(what)
    project.edit("worse widget")
    project.build()
    assert tree_bytes(project.out) == project.clean()


def test_a_cache_folder_that_is_a_link_is_not_used(tmp_path: Path) -> None:
    project = Project(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.txt").write_text("mine")
    shutil.rmtree(project.cache)
    project.cache.symlink_to(elsewhere)
    project.edit("worse widget")
    result = project.build()
    assert "note: the build cache was not used" in result.stderr
    assert "cache is a symbolic link" in result.stderr
    assert sorted(p.name for p in elsewhere.iterdir()) == ["keep.txt"]
    assert tree_bytes(project.out) == project.clean()
    project.cache.unlink()
    project.cache.symlink_to(tmp_path / "nowhere")  # dangling: not made, not an error
    result = project.build()
    assert not (tmp_path / "nowhere").exists()


def test_a_statement_that_runs_too_long_is_interrupted() -> None:
    from errpages.memo.cache import time_limit

    db = sqlite3.connect(":memory:")
    time_limit(db, 0.5)
    started = time.monotonic()
    with pytest.raises(sqlite3.OperationalError, match="interrupted"):
        db.execute(f"SELECT max(x) FROM ({ENDLESS})").fetchone()
    assert time.monotonic() - started < 5
