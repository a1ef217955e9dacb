"""Traceback lookup: message templates match pasted text with placeholders as wildcards."""

from __future__ import annotations

import json

import pytest

from generator.lookup import compile_matchers, lookup
from generator.model import Record, Snippet, Source
from tests.conftest import EXAMPLE_CONTENT, run_cli


def record(record_id: str, message: str, exception: str = "ValueError") -> Record:
    snippet = Snippet("raise X()", 1, "python")
    return Record(
        id=record_id,
        repo="a/b",
        kind="error",
        exception=exception,
        message=message,
        title=message,
        meaning="m",
        source=Source("x.py", 1, "abcdef1", snippet),
        solutions=("s",),
        file="x.yaml",
    )


RECORDS = [
    record("000000000000000a", "PD decode DCP requires mooncake, nixl, or fake, got {backend!r}."),
    record("000000000000000b", "cannot open {path}: {reason}", "OSError"),
    record("000000000000000c", "{count} workers are too many for {host}", "RuntimeError"),
    record("000000000000000d", "value {{braces}} must be {kind}"),
    record("000000000000000e", "timeout"),
]
MATCHERS = compile_matchers(RECORDS)


def best(text: str) -> tuple[str, bool, dict[str, str]]:
    found = lookup(text, MATCHERS)
    assert found, text
    return found[0].record.id, found[0].exact, found[0].values


def test_varying_part_at_the_end_runs_to_end_of_line() -> None:
    text = (
        'Traceback (most recent call last):\n  File "a.py", line 1, in <module>\n'
        "ValueError: PD decode DCP requires mooncake, nixl, or fake, got 'mori'.\nnext line"
    )
    assert best(text) == ("000000000000000a", True, {"backend": "'mori'"})


def test_several_placeholders_and_one_at_the_start() -> None:
    assert best("OSError: cannot open /etc/x.conf: permission denied") == (
        "000000000000000b",
        True,
        {"path": "/etc/x.conf", "reason": "permission denied"},
    )
    assert best("RuntimeError: 64 workers are too many for db-1") == (
        "000000000000000c",
        True,
        {"count": "64", "host": "db-1"},
    )


def test_wrapped_message_and_literal_braces() -> None:
    wrapped = "ValueError: PD decode DCP requires mooncake,\n   nixl, or fake, got 'x'."
    assert best(wrapped)[0] == "000000000000000a"
    assert best("ValueError: value {braces} must be positive") == (
        "000000000000000d",
        True,
        {"kind": "positive"},
    )


def test_changed_message_is_a_partial_match() -> None:
    found = lookup("ValueError: PD decode DCP requires mooncake or nixl, got 'mori'.", MATCHERS)
    assert [(m.record.id, m.exact) for m in found] == [("000000000000000a", False)]


def test_nothing_matches_unrelated_text() -> None:
    assert lookup("KeyError: 'foo'\nall is well", MATCHERS) == []


def test_exception_name_before_the_message_ranks_higher() -> None:
    text = "log: timeout\nValueError: PD decode DCP requires mooncake, nixl, or fake, got 1."
    ids = [m.record.id for m in lookup(text, MATCHERS)]
    assert ids[0] == "000000000000000a"
    assert "000000000000000e" in ids


@pytest.mark.parametrize("as_json", [False, True])
def test_lookup_command_on_example_content(as_json: bool) -> None:
    text = (
        "ValueError: PD decode DCP requires --disaggregation-transfer-backend mooncake, "
        "nixl, or fake for synthetic benchmarking, got 'mori'."
    )
    args = ["lookup", "--content", str(EXAMPLE_CONTENT), "--text", text]
    result = run_cli(*args, *(["--json"] if as_json else []))
    assert result.exit_code == 0, result.output
    url = "https://errors.example.org/errors/b0e9a9c158a0b982/?backend=%27mori%27"
    if as_json:
        first = json.loads(result.stdout)["matches"][0]
        assert first["id"] == "b0e9a9c158a0b982"
        assert first["values"] == {"backend": "'mori'"}
        assert first["url"] == url
    else:
        assert result.stdout.splitlines()[0].startswith("b0e9a9c158a0b982  ValueError: PD decode")
        assert "    backend = 'mori'" in result.stdout
        assert url in result.stdout


def test_lookup_command_reads_stdin_and_exits_1_without_match() -> None:
    from click.testing import CliRunner

    from generator.cli import cli

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
