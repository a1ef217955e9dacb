"""`--shard K/N`: N disjoint parts that, copied into one folder, are the full build byte for byte."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from benchmarks.corpus import write_corpus
from errpages.build import build
from tests.conftest import run_cli
from tests.test_incremental import snapshot


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, bytes]]:
    content = tmp_path_factory.mktemp("shards") / "content"
    write_corpus(50, content)
    for number, record in enumerate(sorted((content / "errors").rglob("*.yaml"))[:12]):
        with record.open("a", encoding="utf-8") as stream:  # a former id: two redirect files
            stream.write(f'aliases:\n  - "{number:016x}"\n')
    full = content.parent / "full"
    report = build(content, full, cache_dir=None)
    assert report.written
    return content, snapshot(full)


@pytest.mark.parametrize("count", [1, 2, 3, 7])
def test_shards_add_up_to_the_full_build(
    corpus: tuple[Path, dict[str, bytes]], count: int, tmp_path: Path
) -> None:
    content, full = corpus
    merged = tmp_path / "merged"
    merged.mkdir()
    seen: set[str] = set()
    for k in range(1, count + 1):
        out = tmp_path / f"shard-{k}"
        result = run_cli(
            "build",
            "--content",
            str(content),
            "--out",
            str(out),
            "--shard",
            f"{k}/{count}",
            "--no-cache",
        )
        assert result.exit_code == 0, result.output
        files = {p for p in snapshot(out) if p != ".errpages-site"}
        assert not files & seen, "shards overlap"
        seen |= files
        shutil.copytree(out, merged, dirs_exist_ok=True)
    assert snapshot(merged) == full
    assert sum(1 for path in full if path.startswith("errors/00000000")) == 12  # the redirects


def test_bad_shard_is_a_usage_error(corpus: tuple[Path, dict[str, bytes]], tmp_path: Path) -> None:
    content, _ = corpus
    for value in ("0/3", "4/3", "x", "1/0"):
        result = run_cli(
            "build", "--content", str(content), "--out", str(tmp_path / "s"), "--shard", value
        )
        assert result.exit_code == 2, value


def test_no_progress_bar_in_pipes(corpus: tuple[Path, dict[str, bytes]], tmp_path: Path) -> None:
    content, _ = corpus
    result = run_cli("build", "--content", str(content), "--out", str(tmp_path / "s"), "--no-cache")
    assert result.exit_code == 0
    assert "Rendering" not in result.stderr and "page/s" not in result.stderr
    assert result.stdout.startswith("Built 50 errors into ")
    assert ": 50 rendered, 0 unchanged, " in result.stdout
