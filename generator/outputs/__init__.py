"""Writers: one module per kind of output, each returning planned files."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from errpages.outputs.linkcheck import CrossLink


@dataclass(frozen=True)
class OutputFile:
    """A file to write: its site path (relative, '/'-separated) and its bytes."""

    path: str
    content: bytes
    origin: str  # what produced it, for collision messages
    # The very page the last build made from the same inputs (and so the same links, to
    # pages made from those inputs too): only its links to anchors need checking again.
    unchanged: bool = False
    sha: str | None = None  # its sha256, when already known
    # Of an unchanged page, when known: its links to other pages' anchors, the only ones that
    # can have broken since (the page is then not read through again).
    cross_links: tuple[CrossLink, ...] | None = None


@dataclass(frozen=True)
class Planned:
    """A file to make, with what it is made from: plain data whose digest says whether the
    last build's file still holds (`memo.Memo.made`)."""

    path: str
    origin: str
    inputs: tuple[Any, ...]
    make: Callable[[], bytes]
