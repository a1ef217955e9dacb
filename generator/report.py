"""What a build, a check or one of serve's updates found and did."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from errpages.diagnostics import Diagnostic, Level, has_errors, plural

if TYPE_CHECKING:  # the model is more than a build with nothing to do needs to import
    from errpages.site.model import Site


@dataclass
class BuildReport:
    """What a build or check found and did."""

    diagnostics: list[Diagnostic] = field(default_factory=list)
    site: Site | None = None
    timings: dict[str, float] = field(default_factory=dict)  # seconds, by stage
    written: bool = False
    unchanged: bool = False  # a no-op build: nothing read, nothing written
    records_read: int = 0  # record files read and validated; the others' rows were kept
    pages_rendered: int = 0  # error pages made (their JSON files with them)
    pages_kept: int = 0  # error pages the last build made of the same inputs
    made: list[str] = field(default_factory=list)  # the outputs made again from their inputs
    files_total: int = 0
    cache_problem: str | None = None  # why the cache could not be saved, if it could not
    cache_refused: str | None = None  # why the cache found was not used: not errpages' own
    dropped: list[str] = field(default_factory=list)  # replaced files not known to be ours

    def failed(self, strict: bool = False) -> bool:
        return has_errors(self.diagnostics, strict)

    def warning_count(self) -> int:
        return sum(1 for d in self.diagnostics if d.level is Level.WARNING)

    def problem_counts(self) -> str:
        """`2 errors, 1 warning`."""
        warnings = self.warning_count()
        errors = len(self.diagnostics) - warnings
        return f"{plural(errors, 'error')}, {plural(warnings, 'warning')}"

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        """Time what runs inside, under the stage's name."""
        start = time.perf_counter()
        try:
            yield
        finally:
            self.timings[name] = self.timings.get(name, 0.0) + time.perf_counter() - start
