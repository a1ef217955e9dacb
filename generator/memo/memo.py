"""One memo for every output: what each was last made from, and what it came to.

Each output is planned with its inputs (plain data: settings, the summaries
and versions of the records it shows, a template's name); the memo keeps the
digest of those inputs and the sha256 of the bytes made from them. Given the
plan, it splits it into the outputs it reuses (made from inputs that digest
as before, and still held where they were put) and those to make.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from errpages.outputs import Planned
from errpages.outputs.linkcheck import CrossLink


class Made(NamedTuple):
    """An output as the memo keeps it."""

    inputs: str  # the digest of what it was made from
    sha: str  # the sha256 of its bytes
    links: tuple[CrossLink, ...] | None = None  # a page's links to other pages' anchors, once found
    words: str = ""  # an error page's words for the search index


def digest(inputs: Any) -> str:
    """The digest of plain data (tuples, strings, numbers, frozen dataclasses), by its repr:
    equal values give equal digests."""
    return hashlib.sha256(repr(inputs).encode()).hexdigest()


@dataclass
class Digests:
    """Digests of plain data by key (an output's path, an error's id), each kept with the data
    it was made from: data equal to it (in `serve`, mostly the very objects of the last
    update) is compared, not digested again."""

    known: dict[str, tuple[Any, str]] = field(default_factory=dict)

    def of(self, key: str, inputs: Any) -> str:
        known = self.known.get(key)
        if known is not None and known[0] == inputs:
            return known[1]
        value = digest(inputs)
        self.known[key] = (inputs, value)
        return value


Held = Callable[[str, str], bool]  # whether the file made last time (path, sha) is still there


@dataclass
class Memo:
    """The outputs of the last build (`previous`) and of this one (`current`)."""

    previous: dict[str, Made] = field(default_factory=dict)
    digests: Digests = field(default_factory=Digests)
    current: dict[str, Made] = field(default_factory=dict)
    made: list[str] = field(default_factory=list)  # the paths made this time, not reused

    def split(self, plan: Iterable[Planned], held: Held) -> list[Planned]:
        """Reuse what the last build made of the same inputs and is still `held`; what is
        left to make."""
        to_make = []
        for planned in plan:
            inputs = self.digests.of(planned.path, planned.inputs)
            earlier = self.previous.get(planned.path)
            if earlier is not None and earlier.inputs == inputs and held(planned.path, earlier.sha):
                self.current[planned.path] = earlier
            else:
                to_make.append(planned)
        return to_make

    def keep(
        self,
        planned: Planned,
        sha: str,
        links: tuple[CrossLink, ...] | None = None,
        words: str = "",
    ) -> None:
        """Remember an output just made from its planned inputs (its bytes' sha256)."""
        inputs = self.digests.of(planned.path, planned.inputs)
        self.current[planned.path] = Made(inputs, sha, links, words)
        self.made.append(planned.path)

    def sha_by_path(self) -> dict[str, str]:
        """Every output of this build, by path: its bytes' sha256."""
        return {path: made.sha for path, made in self.current.items()}

    def links_found(self, path: str, links: tuple[CrossLink, ...]) -> None:
        """Remember a page's links to other pages' anchors, found as its links were checked."""
        made = self.current.get(path)
        if made is not None:
            self.current[path] = made._replace(links=links)
