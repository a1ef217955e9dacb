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
import functools
import json
import types
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import Any, Union, get_args, get_origin, get_type_hints

from generator.diagnostics import Diagnostic, Level, Position
from generator.site.model import (
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


def loads(data: bytes, kind: Any) -> Any:
    """The value `dumps` wrote, checked to be a `kind`; ValueError for anything else."""
    try:
        return conform(rebuilt(json.loads(data)), kind)
    except (KeyError, TypeError, RecursionError, UnicodeDecodeError) as exc:
        raise ValueError(f"not cache data: {exc}") from exc


def conform(value: Any, kind: Any) -> Any:
    """The value as the type annotation `kind` says it is, every part checked down to its
    strings and numbers: a list read from JSON becomes the tuple, set or named tuple the
    annotation names. ValueError when it does not fit, so that data of the wrong shape in a
    cache is not used rather than met, later, by code that trusts its types."""
    return converter(kind)(value)


Convert = Callable[[Any], Any]
SCALARS = (str, int, float, bool, type(None))


def wrong(value: Any, kind: Any) -> ValueError:
    return ValueError(f"not cache data: {type(value).__name__} where {kind} belongs")


@functools.cache
def converter(kind: Any) -> Convert:
    """The function `conform` applies for one annotation, made once per annotation."""
    origin, args = get_origin(kind), get_args(kind)
    if kind is Any:
        return lambda value: value
    if kind in SCALARS:
        return scalar(kind)
    if origin in (Union, types.UnionType):
        return union([converter(arg) for arg in args], kind)
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        return homogeneous(tuple, args[0], kind)
    if origin is tuple:
        return fixed(tuple, args, kind)
    if origin in (list, frozenset, set):
        return homogeneous(origin, args[0], kind)
    if origin is dict:
        return mapping(converter(args[0]), converter(args[1]), kind)
    if isinstance(kind, type) and issubclass(kind, tuple) and hasattr(kind, "_fields"):
        hints = tuple(get_type_hints(kind).values())
        return fixed(lambda items: tuple.__new__(kind, items), hints, kind)
    if dataclasses.is_dataclass(kind):
        return data_class(kind)
    if isinstance(kind, type) and issubclass(kind, Enum):
        return lambda value: kind(value)
    if kind is Path:
        return lambda value: Path(scalar(str)(value))
    raise TypeError(f"no cache data of type {kind}")


def scalar(kind: type) -> Convert:
    def convert(value: Any) -> Any:
        # bool is an int in Python; a float field may hold an int written as one.
        if type(value) is kind or (kind is float and type(value) is int):
            return value
        raise wrong(value, kind)

    return convert


def union(options: list[Convert], kind: Any) -> Convert:
    optional = type(None) in get_args(kind)

    def convert(value: Any) -> Any:
        if value is None and optional:
            return None
        for option in options:
            try:
                return option(value)
            except ValueError:
                continue
        raise wrong(value, kind)

    return convert


def homogeneous(make: Any, item_kind: Any, kind: Any) -> Convert:
    item = converter(item_kind)
    plain = item_kind if item_kind in (str, int, bool) else None

    def convert(value: Any) -> Any:
        if type(value) not in (list, tuple, set, frozenset):
            raise wrong(value, kind)
        if plain is not None:
            for v in value:
                if type(v) is not plain:
                    raise wrong(v, item_kind)
            return make(value)
        return make([item(v) for v in value])

    return convert


def fixed(make: Any, kinds: tuple[Any, ...], kind: Any) -> Convert:
    size = len(kinds)
    plain = [(i, k) for i, k in enumerate(kinds) if k in (str, int, bool)]
    nested = [(i, converter(k)) for i, k in enumerate(kinds) if k not in (str, int, bool)]

    def convert(value: Any) -> Any:
        if isinstance(value, tuple):  # rebuilt by `loads` rather than read as JSON
            value = list(value)
        if type(value) is not list or len(value) != size:
            raise wrong(value, kind)
        for i, k in plain:
            if type(value[i]) is not k:
                raise wrong(value[i], k)
        for i, part in nested:
            value[i] = part(value[i])
        return make(value)

    return convert


def mapping(key: Convert, item: Convert, kind: Any) -> Convert:
    def convert(value: Any) -> Any:
        if not isinstance(value, dict):
            raise wrong(value, kind)
        return {key(k): item(v) for k, v in value.items()}

    return convert


def data_class(kind: Any) -> Convert:
    hints = get_type_hints(kind)
    parts = {f.name: converter(hints[f.name]) for f in dataclasses.fields(kind)}

    def convert(value: Any) -> Any:
        if isinstance(value, kind):
            value = {name: getattr(value, name) for name in parts}
        if not isinstance(value, dict) or not set(value) <= set(parts):
            raise wrong(value, kind)
        return kind(**{name: parts[name](v) for name, v in value.items()})

    return convert
