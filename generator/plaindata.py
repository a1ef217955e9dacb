"""The build cache's structured data as plain JSON, read back only as the types it is declared.

A pull request can add a cache folder as easily as a record, so nothing read from one
may run code (as unpickling does: a crafted pickle calls any function it names). A
value is written as JSON: dataclasses as objects of their fields, tuples and sets as
arrays, enums as their values. Reading it back (`loads`, `conform`) follows the type it
is declared with, calling nothing but the constructors that type names; data of the
wrong shape is `ValueError`, and the cache is not used.
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


def plain(value: Any) -> Any:
    """What JSON cannot write itself: a dataclass as its fields, an enum as its value."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"cannot keep a {type(value).__name__} in the cache")


def dumps(value: Any) -> bytes:
    return json.dumps(value, default=plain, ensure_ascii=False, separators=(",", ":")).encode()


def loads(data: bytes, kind: Any) -> Any:
    """The value `dumps` wrote, as a `kind`; ValueError for anything else."""
    try:
        return conform(json.loads(data), kind)
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
        if not isinstance(value, dict) or not set(value) <= set(parts):
            raise wrong(value, kind)
        return kind(**{name: parts[name](v) for name, v in value.items()})

    return convert
