"""Traceback lookup: message templates match pasted text with placeholders as wildcards."""

from __future__ import annotations

import faulthandler
import json

import pytest

from tests.conftest import EXAMPLE_CONTENT, run_cli
from tests.lookup_cases import LookupCase, load_cases, python_matches

CASES = load_cases()


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_lookup_cases(case: LookupCase) -> None:
    """The shared table: the browser's lookup.js is held to the same (tests/browser)."""
    faulthandler.dump_traceback_later(30, exit=True)  # a matcher that hangs fails the run
    try:
        assert python_matches(case) == list(case.matches)
    finally:
        faulthandler.cancel_dump_traceback_later()


@pytest.mark.parametrize("as_json", [False, True])
def test_lookup_command_on_example_content(as_json: bool) -> None:
    text = (
        "ValueError: PD decode DCP requires --disaggregation-transfer-backend mooncake, "
        "nixl, or fake for synthetic benchmarking, got 'mori'."
    )
    args = ["lookup", "--content", str(EXAMPLE_CONTENT), "--text", text]
    result = run_cli(*args, *(["--json"] if as_json else []))
    assert result.exit_code == 0, result.output
    url = "https://errors.example.org/errors/b0e9a9c158a0b982/?backend=mori"
    if as_json:
        first = json.loads(result.stdout)["matches"][0]
        assert first["id"] == "b0e9a9c158a0b982"
        assert first["values"] == {"backend": "mori"}  # the page quotes it: {backend!r}
        assert first["url"] == url
    else:
        assert result.stdout.splitlines()[0].startswith("b0e9a9c158a0b982  ValueError: PD decode")
        assert "    backend = mori" in result.stdout
        assert url in result.stdout


def test_lookup_command_reads_stdin_and_exits_1_without_match() -> None:
    from click.testing import CliRunner

    from errpages.cli import cli

    runner = CliRunner()
    result = runner.invoke(cli, ["lookup", "--content", str(EXAMPLE_CONTENT)], input="all good\n")
    assert result.exit_code == 1
    assert "No known error matches this text." in result.stderr
    hit = runner.invoke(
        cli,
        ["lookup", "--content", str(EXAMPLE_CONTENT), "--json"],
        input="ValueError: MiniCPM SALA does not support hierarchical cache\n",
    )
    assert hit.exit_code == 0
    assert json.loads(hit.stdout)["matches"][0]["id"] == "fdffa8e3ed0ceedb"
