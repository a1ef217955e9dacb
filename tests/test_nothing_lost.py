"""Nothing the user keeps is lost or misreported: another tool's output folder, a spare that is
a link, the registry's bytes, `init` that checks before it writes, two edits at once."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.corpus import write_corpus
from tests.conftest import REPO_ROOT, run_cli, valid_record

ERRPAGES = [sys.executable, "-m", "errpages"]


def errpages(*args: str, cwd: Path = REPO_ROOT) -> subprocess.CompletedProcess[str]:
    result = subprocess.run([*ERRPAGES, *args], capture_output=True, text=True, cwd=cwd)
    assert "Traceback" not in result.stderr, result.stderr
    return result


def tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def as_mkdocs_builds(site: Path) -> None:
    """What `mkdocs build` does to its site/: empty it but for dot files, write its pages."""
    for entry in site.iterdir():
        if not entry.name.startswith("."):
            shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
    (site / "index.html").write_text("<p>the project's manual</p>")
    (site / "css").mkdir()
    (site / "css" / "theme.css").write_text("body {}")
    (site / "sitemap.xml.gz").write_bytes(b"\x1f\x8b")
    (site / "CNAME").write_text("docs.example.org\n")


def test_an_output_folder_another_tool_wrote_is_not_up_to_date_nor_dropped(
    tmp_path: Path,
) -> None:
    content, out = tmp_path / "content", tmp_path / "site"
    write_corpus(12, content)
    build = ["build", "--content", str(content), "--out", str(out)]
    assert errpages(*build, "--cache-dir", str(tmp_path / "cache")).returncode == 0
    as_mkdocs_builds(out)
    theirs = tree(out)
    for _ in range(2):  # nothing changed in content/; then once more, the same
        result = errpages(*build, "--cache-dir", str(tmp_path / "cache"))
        assert result.returncode == 1, result.stdout
        assert "Nothing changed" not in result.stdout
        assert (
            "site: --out: holds files errpages did not write there, or changed since: "
            "CNAME, css/, index.html, sitemap.xml.gz" in result.stderr
        )
        assert "hint: a build replaces" in result.stderr
        assert tree(out) == theirs
        spare = tmp_path / ".site.spare"
        assert not spare.exists() or "CNAME" not in os.listdir(spare)
    # Without a record of what the last build wrote (--no-cache), the build says what it removes.
    without = errpages(*build, "--no-cache")
    assert without.returncode == 0, without.stderr
    assert (
        f"note: {out} held files the new site does not have, which the build removed (it had no "
        "record of what the last build wrote): CNAME, css/theme.css, sitemap.xml.gz"
    ) in without.stderr


def test_a_spare_that_is_a_dangling_link_is_left_and_the_build_says_what_it_did(
    tmp_path: Path,
) -> None:
    content, out = tmp_path / "content", tmp_path / "site"
    write_corpus(12, content)
    build = ["build", "--content", str(content), "--out", str(out)]
    build += ["--cache-dir", str(tmp_path / "cache")]
    spare = tmp_path / ".site.spare"
    spare.symlink_to(tmp_path / "nowhere")
    for word in ("first", "second", "third"):
        record = sorted((content / "errors").rglob("*.yaml"))[0]
        record.write_text(record.read_text().replace("is checked", f"is checked {word}", 1))
        result = errpages(*build)
        assert result.returncode == 0, result.stderr
        assert result.stdout.startswith("Built 12 errors")
        assert spare.is_symlink() and not (tmp_path / "nowhere").exists()
    clean = tmp_path / "clean"
    assert errpages(*build[:3], "--out", str(clean), "--no-cache").returncode == 0
    assert tree(out) == tree(clean)


ID_A, ID_B, ID_C = "0123456789abcdef", "00000000000000b2", "00000000000000c3"


@pytest.mark.parametrize(
    "registry",
    [
        f"\ufeff# ids\r\n{ID_A}\r\n{ID_B}  # kept\r\n{ID_C}\r\n",
        f"# ids\r{ID_A}\r{ID_B}  # kept\r{ID_C}",
        f"# a comment\u0085{ID_B} is not listed here\n# page\x0cbreak\n{ID_A}\n{ID_B}\n{ID_C}\n",
    ],
    ids=["bom-crlf", "cr-no-final", "nel-formfeed"],
)
def test_ids_forget_keeps_every_other_line_byte_for_byte(registry: str, make_content) -> None:  # type: ignore[no-untyped-def]
    records = {
        "errors/a.yaml": valid_record(ID_A),
        "errors/b.yaml": valid_record(ID_B, "other").replace("core.py", "b.py"),
        "errors/c.yaml": valid_record(ID_C, "third").replace("core.py", "c.py"),
    }
    content = make_content(records)
    path = content / "published-ids.txt"
    path.write_bytes(registry.encode())
    checked = run_cli("check", "--content", str(content))
    assert checked.exit_code == 0, checked.output  # no comment read as a line of its own
    result = run_cli("ids", "forget", ID_A, "--content", str(content))
    assert result.exit_code == 0, result.output
    end = "\r\n" if "\r\n" in registry else "\r" if "\r" in registry else "\n"
    assert path.read_bytes() == registry.replace(ID_A + end, "").encode()
    (content / "errors" / "z.yaml").write_text(
        valid_record("00000000000000d4", "fourth").replace("core.py", "d.py")
    )
    recorded = run_cli("ids", "record", "--content", str(content))
    assert recorded.exit_code == 0, recorded.output
    after = registry.replace(ID_A + end, "")
    after += ("" if after.endswith(end) else end) + "00000000000000d4" + end + ID_A + end
    assert path.read_bytes() == after.encode()


def test_two_ids_forget_at_once_both_take_effect(make_content) -> None:  # type: ignore[no-untyped-def]
    content = make_content({"errors/a.yaml": valid_record()})
    ids = [f"{n:016x}" for n in range(1, 25)]
    path = content / "published-ids.txt"
    path.write_text("# ids\n" + "".join(f"{i}\n" for i in ids))
    for first, second in zip(ids[::2], ids[1::2], strict=True):
        both = [
            subprocess.Popen(
                [*ERRPAGES, "ids", "forget", gone, "--content", str(content)],
                cwd=REPO_ROOT,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for gone in (first, second)
        ]
        for process in both:
            out, err = process.communicate(timeout=60)
            assert process.returncode == 0, err
            assert out.startswith("Took back")
        left = path.read_text()
        assert first not in left and second not in left
    assert path.read_text() == "# ids\n"


@pytest.mark.parametrize("where", ["content", "schema", "schema file", ".gitignore"])
def test_init_checks_everything_before_it_writes_anything(where: str, tmp_path: Path) -> None:
    folder = tmp_path / "proj"
    folder.mkdir()
    (folder / "README").write_text("mine\n")
    link = {
        "content": folder / "content",
        "schema": folder / "schema",
        "schema file": folder / "schema" / "record.schema.json",
        ".gitignore": folder / ".gitignore",
    }[where]
    link.parent.mkdir(exist_ok=True)
    link.symlink_to(tmp_path / "nowhere")
    before = sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))
    result = run_cli("init", str(folder))
    assert result.exit_code == 1
    assert f"{link} is a symbolic link; errpages init writes through no link; nothing was " in (
        result.stderr
    )
    assert sorted(str(p.relative_to(folder)) for p in folder.rglob("*")) == before
    assert not (tmp_path / "nowhere").exists()
