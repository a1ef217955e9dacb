"""Writers: one module per kind of output, each returning planned files."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class OutputFile:
    """A file to write: its site path (relative, '/'-separated) and its bytes."""

    path: str
    content: bytes
    origin: str  # what produced it, for collision messages
