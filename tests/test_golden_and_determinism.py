"""Output is byte-for-byte stable: golden files match, and two builds are identical."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import EXAMPLE_CONTENT, run_cli
from tests.golden import FILES, GOLDEN


@pytest.mark.parametrize("name", FILES)
def test_golden_file(example_site: Path, name: str) -> None:
    expected = (GOLDEN / name).read_bytes()
    actual = (example_site / name).read_bytes()
    assert actual == expected, f"{name} changed; if intended, run `make golden` and review the diff"


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def test_two_builds_are_byte_identical(example_site: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    result = run_cli("build", "--content", str(EXAMPLE_CONTENT), "--out", str(again))
    assert result.exit_code == 0
    assert snapshot(again) == snapshot(example_site)
