"""Published ids: a build only reads content/published-ids.txt; `errpages ids` keeps it.

Each test is a session a new user has: commands in a row on one content folder,
asserting what each prints and that a build never writes into content/.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from errpages.content.published import HEADER, OLD_HEADER
from errpages.content.schema import derive_id
from tests.conftest import run_cli, valid_record
from tests.gitrepo import GitRepo
from tests.test_content_errors import tree_digest

SCRATCH_ID = derive_id("acme/widgets", "ValueError", "scratch test")


class Session:
    """errpages commands on one content folder and output folder, as a user types them."""

    def __init__(self, content: Path, out: Path) -> None:
        self.content, self.out = content, out

    def run(self, *args: str, expect: int = 0) -> str:
        command, rest = args[0], list(args[1:])
        where = ["--content", str(self.content)]
        if command in ("build", "serve"):
            where += ["--out", str(self.out), "--cache-dir", str(self.out.parent / "cache")]
        if command == "ids":
            rest = [rest[0], *where, *rest[1:]]
            where = []
        result = run_cli(command, *where, *rest)
        assert result.exit_code == expect, result.output
        return result.stdout + result.stderr

    def build(self, *args: str, expect: int = 0) -> str:
        """A build, which must leave content/ exactly as it was."""
        before = tree_digest(self.content)
        printed = self.run("build", *args, expect=expect)
        assert tree_digest(self.content) == before
        return printed


@pytest.fixture
def session(make_content, tmp_path: Path) -> Session:  # type: ignore[no-untyped-def]
    return Session(make_content({}), tmp_path / "site")


def registry(session: Session) -> Path:
    return session.content / "published-ids.txt"


def test_new_build_delete_build_never_fails(session: Session) -> None:
    session.run(
        "new", "--repo", "acme/widgets", "--exception", "ValueError", "--message", "scratch test"
    )
    assert "Built 1 error into" in session.build()
    (session.content / "errors" / "acme" / "widgets" / "scratch-test.yaml").unlink()
    assert "Built 0 errors into" in session.build()
    assert not registry(session).exists()  # nothing was published, so nothing is recorded


def test_a_recorded_id_keeps_its_page_or_is_taken_back(session: Session) -> None:
    (session.content / "errors" / "a.yaml").write_text(valid_record())
    session.build()
    printed = session.run("ids", "record")
    assert "Recorded 1 new id in" in printed and "(1 id in all)" in printed
    assert registry(session).read_text() == HEADER + "0123456789abcdef\n"
    assert "Every published id is recorded already" in session.run("ids", "record")

    (session.content / "errors" / "a.yaml").unlink()
    failed = session.build(expect=1)
    assert "published-ids.txt:5:1: published id 0123456789abcdef has no page" in failed
    for remedy in ("restore its record", "`aliases`", "`retired`"):
        assert remedy in failed
    assert "errpages ids forget 0123456789abcdef" in failed
    assert "1 error, 0 warnings" in failed

    assert "Not in" in session.run("ids", "forget", "fedcba9876543210", expect=1)
    assert "Took back 0123456789abcdef" in session.run("ids", "forget", "0123456789abcdef")
    assert registry(session).read_text() == HEADER  # the comments stay
    session.build()


def test_scan_then_a_drafts_build_then_a_build(session: Session, tmp_path: Path) -> None:
    project = GitRepo(tmp_path / "project")
    project.write(
        "pkg/core.py",
        "def f(x):\n    if x < 0:\n        raise ValueError(f'negative: {x}')\n"
        "    if x > 9:\n        raise ValueError('too big')\n",
    )
    project.commit("first")
    scanned = run_cli("scan", str(project.path), "--content", str(session.content), "--repo", "o/p")
    assert scanned.exit_code == 0, scanned.output
    assert "Built 2 errors into" in session.build("--drafts")
    assert "Built 0 errors into" in session.build()
    drafts = sorted((session.content / "errors").rglob("*.yaml"))
    drafts[0].unlink()  # a junk draft goes
    session.build()
    session.build("--drafts")
    assert "Every published id is recorded already" in session.run("ids", "record")
    assert not registry(session).exists()  # drafts are never published
    looked_up = session.run("lookup", "--drafts", "--text", "ValueError: too big")
    assert "o/p" in looked_up
    session.run("lookup", "--text", "ValueError: too big", expect=1)  # drafts are not in the site


def test_a_published_error_made_a_draft_again_fails_plain_builds_only(session: Session) -> None:
    (session.content / "errors" / "a.yaml").write_text(valid_record())
    session.run("ids", "record")
    (session.content / "errors" / "a.yaml").write_text(valid_record() + "draft: true\n")
    failed = session.build(expect=1)
    assert "published id 0123456789abcdef is now a draft, which is not published" in failed
    session.build("--drafts")


def test_a_typo_in_a_published_record_is_one_error(session: Session) -> None:
    record = session.content / "errors" / "a.yaml"
    record.write_text(valid_record())
    session.run("ids", "record")
    record.write_text(valid_record().replace("solutions:", "solution:"))
    failed = session.build(expect=1)
    problems = [line for line in failed.splitlines() if line.startswith(str(session.content))]
    assert len(problems) == 1, failed
    assert problems[0].endswith("a.yaml:15:1: solution: unknown field 'solution'")
    assert "did you mean 'solutions'?" in failed
    assert "published id" not in failed and "missing required field" not in failed
    assert "1 error, 0 warnings" in failed


def test_a_record_that_does_not_load_is_not_reported_again_as_vanished(session: Session) -> None:
    record = session.content / "errors" / "a.yaml"
    record.write_text(valid_record())
    session.run("ids", "record")
    record.write_text("id: [unclosed\n")
    failed = session.build(expect=1)
    assert "YAML syntax error" in failed and "published id" not in failed


def test_a_registry_written_by_the_first_version_is_read_as_it_is(session: Session) -> None:
    (session.content / "errors" / "a.yaml").write_text(valid_record())
    old = OLD_HEADER + "0123456789abcdef\n# taken from the 1.0 docs\nfedcba9876543210\n"
    registry(session).write_text(old)
    failed = session.build(expect=1)
    assert "published-ids.txt:6:1: published id fedcba9876543210 has no page" in failed
    renamed = valid_record("aaaabbbbccccdddd", "renamed") + "aliases: [fedcba9876543210]\n"
    (session.content / "errors" / "b.yaml").write_text(renamed)
    session.build()
    session.run("ids", "record")
    body = old[len(OLD_HEADER) :]
    assert registry(session).read_text() == HEADER + body + "aaaabbbbccccdddd\n"


def test_a_registry_that_is_not_a_text_file_is_a_clear_error(session: Session) -> None:
    registry(session).mkdir()
    failed = session.build(expect=1)
    assert "published-ids.txt: expected a text file of ids" in failed
    registry(session).rmdir()
    registry(session).write_bytes(b"\xff\xfe0123\n")
    assert "published-ids.txt:1:1: file is not valid UTF-8" in session.build(expect=1)
    registry(session).write_text("0123456789abcdef\nnot-an-id\n")
    assert "published-ids.txt:2:1: 'not-an-id' is not an id" in session.build(expect=1)


def test_recording_needs_content_that_builds(session: Session) -> None:
    (session.content / "errors" / "a.yaml").write_text("repo: [unclosed\n")
    printed = session.run("ids", "record", expect=1)
    assert "Nothing recorded: the content has 1 error, 0 warnings." in printed
    assert not registry(session).exists()
