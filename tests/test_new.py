"""`errpages new` scaffolds a record with a fresh id and never overwrites one."""

from __future__ import annotations

from pathlib import Path

import yaml

from errpages.content.schema import derive_id
from tests.conftest import run_cli, valid_record


def test_new_writes_a_record_with_derived_id(make_content) -> None:  # type: ignore[no-untyped-def]
    content = make_content({})
    args = [
        "new",
        "--content",
        str(content),
        "--repo",
        "acme/widgets",
        "--exception",
        "KeyError",
        "--message",
        "no widget named {name!r}",
    ]
    result = run_cli(*args)
    assert result.exit_code == 0, result.output
    path = content / "errors" / "acme" / "widgets" / "no-widget-named-name.yaml"
    data = yaml.safe_load(path.read_text())
    record_id = derive_id("acme/widgets", "KeyError", "no widget named {name!r}")
    assert data["id"] == record_id
    assert data["message"] == "no widget named {name!r}"
    assert data["exception"] == "KeyError"
    assert path.stat().st_mode & 0o777 == 0o644
    again = run_cli(*args)
    assert again.exit_code == 1
    assert f"This error already has a record: {path} (id {record_id})" in again.stderr
    assert "use --force to write it anew" in again.stderr
    path.write_text(path.read_text().replace("TO BE WRITTEN: in a few", "Started: in a few"))
    forced = run_cli(*args, "--force")
    assert forced.exit_code == 0, forced.output
    assert yaml.safe_load(path.read_text())["id"] == record_id  # written anew, same id
    assert "Started:" not in path.read_text()


def test_two_errors_never_share_a_file(make_content) -> None:  # type: ignore[no-untyped-def]
    """The same message raised as another exception gets a file of its own, even forced."""
    content = make_content({})
    folder = content / "errors" / "acme" / "widgets"
    base = ["new", "--content", str(content), "--repo", "acme/widgets", "--message", "got {size!r}"]
    assert run_cli(*base, "--exception", "KeyError").exit_code == 0
    key_error = (folder / "got-size.yaml").read_text()
    for flags in ((), ("--force",)):
        result = run_cli(*base, "--exception", "TypeError", *flags)
        assert result.exit_code == 0, result.output
    type_id = derive_id("acme/widgets", "TypeError", "got {size!r}")
    assert {p.name for p in folder.iterdir()} == {"got-size.yaml", f"got-size-{type_id[:6]}.yaml"}
    assert (folder / "got-size.yaml").read_text() == key_error
    assert yaml.safe_load((folder / f"got-size-{type_id[:6]}.yaml").read_text())["exception"] == (
        "TypeError"
    )


def test_new_record_fails_check_until_filled_in(make_content) -> None:  # type: ignore[no-untyped-def]
    content = make_content({})
    run_cli("new", "--content", str(content), "--repo", "a/b", "--exception", "E", "--message", "m")
    result = run_cli("check", "--content", str(content))
    # The scaffold is a valid record whose placeholders are there to be replaced.
    assert result.exit_code == 0, result.stderr


def test_new_refuses_bad_repo_and_missing_flags(make_content) -> None:  # type: ignore[no-untyped-def]
    content = make_content({})
    bad = run_cli(
        "new", "--content", str(content), "--repo", "../x", "--exception", "E", "--message", "m"
    )
    assert bad.exit_code == 2
    missing = run_cli("new", "--content", str(content), "--repo", "a/b")
    assert missing.exit_code == 2
    assert "missing --exception" in missing.stderr


def test_new_picks_another_id_when_derived_one_is_taken(make_content) -> None:  # type: ignore[no-untyped-def]
    taken = derive_id("acme/widgets", "ValueError", "bad widget")
    content = make_content({"errors/a.yaml": valid_record(taken, "another message")})
    result = run_cli(
        "new",
        "--content",
        str(content),
        "--repo",
        "acme/widgets",
        "--exception",
        "ValueError",
        "--message",
        "bad widget",
    )
    assert result.exit_code == 0, result.output
    text = Path(content / "errors" / "acme" / "widgets" / "bad-widget.yaml").read_text()
    assert yaml.safe_load(text)["id"] != taken


def test_new_record_names_the_schema_for_editors(make_content) -> None:  # type: ignore[no-untyped-def]
    content = make_content({})
    run_cli("new", "--content", str(content), "--repo", "a/b", "--exception", "E", "--message", "m")
    first = (content / "errors" / "a" / "b" / "m.yaml").read_text().splitlines()[0]
    # No repository copy of the schema next to this content, and no base_url: nothing to name.
    assert not first.startswith("# yaml-language-server")


def test_new_record_in_the_repository_points_at_its_schema(tmp_path: Path) -> None:
    from tests.conftest import REPO_ROOT

    content = REPO_ROOT / "content"
    result = run_cli(
        "new",
        "--content",
        str(content),
        "--repo",
        "zz-test/scratch",
        "--exception",
        "E",
        "--message",
        "schema line test",
    )
    path = content / "errors" / "zz-test" / "scratch" / "schema-line-test.yaml"
    try:
        assert result.exit_code == 0, result.output
        first = path.read_text().splitlines()[0]
        assert first == "# yaml-language-server: $schema=../../../../schema/record.schema.json"
        assert (path.parent / "../../../../schema/record.schema.json").resolve().is_file()
    finally:
        path.unlink(missing_ok=True)
        for folder in (path.parent, path.parent.parent):
            folder.rmdir()


def test_check_github_format(make_content) -> None:  # type: ignore[no-untyped-def]
    content = make_content({"errors/a.yaml": valid_record() + "soltuions: [x]\nkind: 'a,b:c'\n"})
    result = run_cli("check", "--content", str(content), "--format", "github")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert any(
        line.startswith("::error file=")
        and ",line=17,col=1,title=soltuions::unknown field 'soltuions'" in line
        for line in lines
    ), lines
    assert any("'a,b:c' is not a kind" in line and ",title=kind::" in line for line in lines), lines
