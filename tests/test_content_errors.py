"""Bad content: every case in tests/invalid/ fails with its exact diagnostic and writes nothing.

Each case folder holds `content/` and `expected.txt`, the exact diagnostics
printed (paths relative to the case folder).
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT, leftovers, parse_html, run_cli, valid_record

INVALID = Path(__file__).resolve().parent / "invalid"
CASES = sorted(p.name for p in INVALID.iterdir() if (p / "expected.txt").is_file())


def test_there_are_cases() -> None:
    assert len(CASES) >= 20


@pytest.mark.parametrize("case", CASES)
def test_invalid_case(case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(INVALID / case)
    out = tmp_path / "site"
    result = run_cli("build", "--content", "content", "--out", str(out))
    assert result.exit_code == 1
    expected = (INVALID / case / "expected.txt").read_text(encoding="utf-8")
    printed = result.stderr.split("Build failed (")[0]
    assert printed == expected
    assert not out.exists()


def tree_digest(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        digest.update(str(path.relative_to(folder)).encode())
        if path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()


def test_failed_build_leaves_previous_site_untouched(make_content, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    content = make_content({"errors/a.yaml": valid_record()})
    out = tmp_path / "site"
    assert run_cli("build", "--content", str(content), "--out", str(out)).exit_code == 0
    before = tree_digest(out)
    (content / "errors" / "b.yaml").write_text(valid_record(message="other"))  # duplicate id
    result = run_cli("build", "--content", str(content), "--out", str(out))
    assert result.exit_code == 1
    assert "duplicate id 0123456789abcdef" in result.stderr
    assert tree_digest(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        ".site.lock",
        ".site.spare",
        "content",
        "site",
    ]


def test_all_problems_reported_in_one_run(make_content, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    broken = valid_record().replace("abcdef1234567", "xyz").replace("line: 12", "line: 'x'")
    content = make_content(
        {"errors/a.yaml": broken, "errors/b.yaml": "id: [unclosed\n", "errors/c.yaml": "- a list"}
    )
    result = run_cli("check", "--content", str(content))
    assert result.exit_code == 1
    assert "a.yaml:9:11: source.commit: 'xyz' is not valid" in result.stderr
    assert "a.yaml:8:9: source.line: expected a whole number, got text" in result.stderr
    assert "b.yaml:2:1: YAML syntax error" in result.stderr
    assert "c.yaml:1:1: a record must be a mapping of fields, got a list" in result.stderr
    assert "Check failed: 4 errors, 0 warnings." in result.stderr


def test_output_folder_not_written_by_errpages_is_refused(make_content, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    content = make_content({"errors/a.yaml": valid_record()})
    precious = tmp_path / "home"
    precious.mkdir()
    (precious / "thesis.txt").write_text("years of work")
    result = run_cli("build", "--content", str(content), "--out", str(precious))
    assert result.exit_code == 1
    assert "not empty and was not written by errpages; refusing to replace it" in result.stderr
    assert (precious / "thesis.txt").read_text() == "years of work"
    assert sorted(p.name for p in precious.iterdir()) == ["thesis.txt"]


def test_rebuild_replaces_a_site_errpages_wrote(make_content, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    content = make_content({"errors/a.yaml": valid_record()})
    out = tmp_path / "site"
    assert run_cli("build", "--content", str(content), "--out", str(out)).exit_code == 0
    (out / "stale.html").write_text("old")
    (content / "errors" / "a.yaml").unlink()
    renamed = valid_record("fedcba9876543210", "new") + "aliases: [0123456789abcdef]\n"
    (content / "errors" / "b.yaml").write_text(renamed)
    refused = run_cli("build", "--content", str(content), "--out", str(out))
    assert refused.exit_code == 1  # a file it did not write is never dropped unsaid
    assert "did not write there, or changed since: stale.html" in refused.stderr
    assert (out / "stale.html").read_text() == "old"
    (out / "stale.html").unlink()
    assert run_cli("build", "--content", str(content), "--out", str(out)).exit_code == 0
    assert (out / "errors" / "fedcba9876543210" / "index.html").is_file()
    redirect = (out / "errors" / "0123456789abcdef" / "index.html").read_text()
    assert "url=../fedcba9876543210/index.html" in redirect
    assert leftovers(tmp_path) == []


def test_a_published_id_must_keep_a_page(make_content, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    content = make_content({"errors/a.yaml": valid_record()})
    out = tmp_path / "site"
    assert run_cli("build", "--content", str(content), "--out", str(out)).exit_code == 0
    assert run_cli("ids", "record", "--content", str(content)).exit_code == 0
    manifest = (content / "published-ids.txt").read_text().splitlines()
    assert manifest[-1] == "0123456789abcdef"
    before = tree_digest(out)
    (content / "errors" / "a.yaml").write_text(valid_record("fedcba9876543210", "new"))
    result = run_cli("build", "--content", str(content), "--out", str(out))
    assert result.exit_code == 1
    assert "published-ids.txt:5:1: published id 0123456789abcdef has no page" in result.stderr
    assert "mark it `retired`" in result.stderr
    assert tree_digest(out) == before
    retired = valid_record() + "retired:\n  since: v2.0\n  note: Removed in **v2.0**.\n"
    (content / "errors" / "old.yaml").write_text(retired)
    again = run_cli("build", "--content", str(content), "--out", str(out))
    assert again.exit_code == 0, again.output
    page = parse_html(out / "errors" / "0123456789abcdef" / "index.html")
    banner = page.select_one(".retired-banner")
    assert banner is not None and "No longer raised since v2.0" in " ".join(
        banner.get_text().split()
    )
    data = json.loads((out / "api" / "errors" / "0123456789abcdef.json").read_text())
    assert data["retired"] == {"since": "v2.0", "note": "Removed in **v2.0**."}
    assert run_cli("ids", "record", "--content", str(content)).exit_code == 0
    assert (content / "published-ids.txt").read_text().splitlines()[-2:] == [
        "0123456789abcdef",
        "fedcba9876543210",
    ]


def test_exit_codes_from_the_real_command(make_content, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    content = make_content({"errors/a.yaml": valid_record()})

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "errpages", *args],
            capture_output=True,
            text=True,
            cwd=REPO_ROOT,
            check=False,
        )

    ok = run("build", "--content", str(content), "--out", str(tmp_path / "site"))
    assert ok.returncode == 0, ok.stderr
    assert "Built 1 error into" in ok.stdout
    (content / "errors" / "a.yaml").write_text("id: [\n")
    bad = run("check", "--content", str(content))
    assert bad.returncode == 1
    assert "Traceback" not in bad.stderr
    usage = run("build", "--no-such-option")
    assert usage.returncode == 2
    assert "No such option" in usage.stderr
