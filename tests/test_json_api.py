"""The JSON API mirrors each YAML record and adds what the build resolved."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from errpages.content.record_schema import record_schema
from errpages.content.schema import derive_id
from tests.conftest import EXAMPLE_CONTENT, REPO_ROOT


def example_records() -> list[tuple[Path, dict[str, Any]]]:
    files = sorted((EXAMPLE_CONTENT / "errors").rglob("*.yaml"))
    return [(path, yaml.safe_load(path.read_text(encoding="utf-8"))) for path in files]


def record_id(raw: dict[str, Any]) -> str:
    return str(raw.get("id") or derive_id(raw["repo"], raw["exception"], raw["message"]))


def test_each_json_matches_its_yaml(example_site: Path) -> None:
    records = example_records()
    assert len(records) == 9
    for path, raw in records:
        data = json.loads((example_site / "api" / "errors" / f"{record_id(raw)}.json").read_text())
        for key in ("repo", "exception", "message", "meaning", "solutions", "tags"):
            assert data[key] == raw[key], (path, key)
        assert data["kind"] == raw.get("kind", "error")
        assert data["title"] == raw.get("title", raw["message"])
        assert data["source"]["line"] == raw["source"]["line"]
        assert data["related"] == raw.get("related", [])
        assert data["when"]["trigger"] == raw["when"]["trigger"]
        assert data["when"]["situations"] == raw["when"]["situations"]
        assert data["example_fix"]["before"] == raw["example_fix"]["before"]
        assert data["analysis"] == {"by": "AI-assisted", "date": "2026-08-28"}
        snippet_lines = data["source"]["snippet"].split("\n")
        raising = snippet_lines[data["source"]["line"] - data["source"]["start_line"]]
        assert "raise" in raising, (path, raising)


def test_resolved_links_and_backlinks(example_site: Path) -> None:
    by_id = {
        record_id(raw): json.loads(
            (example_site / "api" / "errors" / f"{record_id(raw)}.json").read_text()
        )
        for _, raw in example_records()
    }
    for error_id, data in by_id.items():
        resolved = data["resolved"]
        assert resolved["url"] == f"errors/{error_id}/"
        assert resolved["canonical_url"] == f"https://errors.example.org/errors/{error_id}/"
        assert resolved["json_url"] == f"api/errors/{error_id}.json"
        assert resolved["source_url"].startswith("https://github.com/sgl-project/sglang/blob/")
        assert [r["id"] for r in resolved["related"]] == data["related"]
        for link in resolved["related"]:
            assert link["message"] == by_id[link["id"]]["message"]
            assert link["title"].rstrip("…") in link["message"]
        expected_back = sorted(i for i, other in by_id.items() if error_id in other["related"])
        assert [b["id"] for b in resolved["backlinks"]] == expected_back


def test_index_lists_every_error_in_id_order(example_site: Path) -> None:
    index = json.loads((example_site / "api" / "errors" / "index.json").read_text())
    ids = [row["id"] for row in index["errors"]]
    assert ids == sorted(record_id(raw) for _, raw in example_records())
    assert all(row["url"] == f"errors/{row['id']}/" for row in index["errors"])


def test_schema_file_is_current_and_published(example_site: Path) -> None:
    committed = json.loads((REPO_ROOT / "schema" / "record.schema.json").read_text())
    assert committed == record_schema(), "run `make schema` to rewrite schema/record.schema.json"
    published = json.loads((example_site / "api" / "schema.json").read_text())
    assert published == committed


def test_example_records_validate_against_schema() -> None:
    schema = record_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    for path, raw in example_records():
        raw = json.loads(json.dumps(raw, default=str))  # YAML dates become strings
        errors = [e.message for e in validator.iter_errors(raw)]
        assert errors == [], (path, errors)


def test_schema_rejects_what_the_validator_rejects() -> None:
    validator = jsonschema.Draft202012Validator(record_schema())
    _, raw = example_records()[0]
    raw = json.loads(json.dumps(raw, default=str))
    assert not validator.is_valid({**raw, "id": "XYZ"})
    assert not validator.is_valid({**raw, "colour": "red"})
    assert not validator.is_valid({**raw, "source": {**raw["source"], "commit": "zz"}})
