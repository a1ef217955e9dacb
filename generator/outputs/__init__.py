"""Makers: one module per kind of output, each planning files with what they are made from."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class OutputFile:
    """A file made: its site path (relative, '/'-separated), its bytes, what produced it."""

    path: str
    content: bytes
    origin: str  # what produced it, for collision messages


@dataclass(frozen=True)
class Planned:
    """A file to make, with what it is made from: plain data whose digest says whether the
    last build's file still holds (`memo.Memo.split`)."""

    path: str
    origin: str
    inputs: tuple[Any, ...]
    make: Callable[[], bytes]
