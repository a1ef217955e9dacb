"""The build cache's structured data as JSON, whose loading builds only known data types.

A pull request can add a cache folder as easily as a record, so nothing read from one
may run code (as unpickling does: a crafted pickle calls any function it names). A
value is written as JSON with its type named: frozen dataclasses and named tuples of
the model by name, tuples, sets, dicts with any keys, enums and paths. Reading it back
calls nothing but the constructors of the types listed here; a name not listed, or
data of the wrong shape, is `ValueError`, and the cache is not used.
"""

from __future__ import annotations

import dataclasses
import json
from enum import Enum
from pathlib import Path
from typing import Any

from generator.diagnostics import Diagnostic, Level, Position
from generator.model import (
    Analysis,
    DriftNote,
    ExampleFix,
    LinkRef,
    Record,
    RecordSummary,
    Retired,
    SiteConfig,
    Snippet,
    Source,
    TextFile,
    When,
)

KNOWN: dict[str, type] = {
    kind.__name__: kind
    for kind in (
        Analysis,
        Diagnostic,
        DriftNote,
        ExampleFix,
        Level,
        LinkRef,
        Position,
        Record,
        RecordSummary,
        Retired,
        SiteConfig,
        Snippet,
        Source,
        TextFile,
        When,
    )
}


def plain(value: Any) -> Any:
    """The value as JSON-ready data, each structured value tagged with its type."""
    if value is None or isinstance(value, (bool, str, int, float)):
        return value
    kind = type(value)
    if isinstance(value, Enum):
        return {"enum": kind.__name__, "value": value.value}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return {"data": kind.__name__, "fields": fields}
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return {"tuple": kind.__name__, "items": [plain(item) for item in value]}
    if isinstance(value, tuple):
        return {"tuple": "", "items": [plain(item) for item in value]}
    if isinstance(value, list):
        return [plain(item) for item in value]
    if isinstance(value, (set, frozenset)):
        items = sorted((plain(item) for item in value), key=repr)
        return {"set": "frozenset" if isinstance(value, frozenset) else "set", "items": items}
    if isinstance(value, dict):
        return {"dict": [[plain(key), plain(item)] for key, item in value.items()]}
    if isinstance(value, Path):
        return {"path": str(value)}
    raise TypeError(f"cannot keep a {kind.__name__} in the cache")


def known(name: object) -> type:
    kind = KNOWN.get(name) if isinstance(name, str) else None
    if kind is None:
        raise ValueError(f"unknown type {name!r} in the cache")
    return kind


def rebuilt(data: Any) -> Any:
    """A value from `plain`'s data: only the types in KNOWN (and the built-in ones) are made."""
    if data is None or isinstance(data, (bool, str, int, float)):
        return data
    if isinstance(data, list):
        return [rebuilt(item) for item in data]
    if not isinstance(data, dict):
        raise ValueError("not cache data")
    if "data" in data:
        fields = data["fields"]
        if not isinstance(fields, dict):
            raise ValueError("not cache data")
        return known(data["data"])(**{str(k): rebuilt(v) for k, v in fields.items()})
    if "tuple" in data:
        items = tuple(rebuilt(item) for item in data["items"])
        return known(data["tuple"])(*items) if data["tuple"] else items
    if "enum" in data:
        return known(data["enum"])(data["value"])
    if "set" in data:
        members = [rebuilt(item) for item in data["items"]]
        return frozenset(members) if data["set"] == "frozenset" else set(members)
    if "dict" in data:
        return {rebuilt(key): rebuilt(item) for key, item in data["dict"]}
    if "path" in data:
        return Path(str(data["path"]))
    raise ValueError("not cache data")


def dumps(value: Any) -> bytes:
    return json.dumps(plain(value), ensure_ascii=False, separators=(",", ":")).encode()


def loads(data: bytes) -> Any:
    """The value `dumps` wrote; ValueError (or TypeError) for anything else."""
    try:
        return rebuilt(json.loads(data))
    except (KeyError, TypeError, RecursionError, UnicodeDecodeError) as exc:
        raise ValueError(f"not cache data: {exc}") from exc
