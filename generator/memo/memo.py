"""One memo for the site-wide outputs: what each was last made from, and what it came to.

An output is planned with its inputs (plain data: settings, the summaries and
versions of the records it shows, a template's name); the memo keeps the
digest of those inputs and the sha256 of the bytes made from them. Asked for
an output whose inputs digest as before, it takes the previous build's file
(when that still has the sha) instead of making it again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from errpages.outputs import OutputFile, Planned
from errpages.outputs.linkcheck import CrossLink

# An output as the memo keeps it: its inputs' digest, its sha256, and (for a page) its links
# to other pages' anchors, found when its links were checked (None until then).
Made = tuple[str, str, tuple[CrossLink, ...] | None]


def digest(inputs: Any) -> str:
    """The digest of plain data (tuples, strings, numbers, frozen dataclasses), by its repr:
    equal values give equal digests."""
    return hashlib.sha256(repr(inputs).encode()).hexdigest()


@dataclass
class Digests:
    """Digests of plain data by key (an output's path, an error's id), each kept with the data
    it was made from: data equal to it (in `serve`, mostly the very objects of the last
    update) is compared, not digested again. A digest of a value holds whatever builds did
    since, so nothing here is ever invalidated."""

    known: dict[str, tuple[Any, str]] = field(default_factory=dict)

    def of(self, key: str, inputs: Any) -> str:
        known = self.known.get(key)
        if known is not None and known[0] == inputs:
            return known[1]
        value = digest(inputs)
        self.known[key] = (inputs, value)
        return value


@dataclass
class Memo:
    """The outputs of the last build (`previous`) and of this one (`current`)."""

    previous: dict[str, Made] = field(default_factory=dict)
    read: Callable[[str], bytes | None] = lambda _path: None  # a file of the previous output
    digests: Digests = field(default_factory=Digests)
    current: dict[str, Made] = field(default_factory=dict)
    fresh: list[str] = field(default_factory=list)  # the paths made now, not reused

    def made(self, planned: Planned) -> OutputFile:
        """The planned file: the previous build's, when made from inputs with the same digest
        and still there; else made now."""
        inputs = self.digests.of(planned.path, planned.inputs)
        earlier = self.previous.get(planned.path)
        if earlier is not None and earlier[0] == inputs:
            content = self.read(planned.path)
            if content is not None and hashlib.sha256(content).hexdigest() == earlier[1]:
                self.current[planned.path] = earlier
                return OutputFile(
                    planned.path,
                    content,
                    planned.origin,
                    unchanged=True,
                    sha=earlier[1],
                    cross_links=earlier[2],
                )
        content = planned.make()
        sha = hashlib.sha256(content).hexdigest()
        self.current[planned.path] = (inputs, sha, None)
        self.fresh.append(planned.path)
        return OutputFile(planned.path, content, planned.origin, sha=sha)

    def links_checked(self, path: str, cross_links: tuple[CrossLink, ...]) -> None:
        """Remember a page's links to other pages' anchors, found as its links were checked."""
        made = self.current.get(path)
        if made is not None:
            self.current[path] = (made[0], made[1], cross_links)
