"""HTML pages: one per repository, the home page and the search page; and the feed.

(Each error's page is a record output.) These list many records, so at tens
of thousands of errors rendering them is a visible part of an incremental
build; a page whose inputs (the settings and the records it is made from)
equal the last build's is not rendered again. A record stands in the inputs
by its version (its file and the stats of what it was read from): a record
read from the same files is the same record; or, for a page whose template
asked only what the records' summaries hold, by its summary
(`PageMemo.render_listing`). A page's records' versions or summaries are
kept as one hash, and the page itself not at all: it is read back from the
previous output when its inputs are the same.
"""

from __future__ import annotations

import hashlib
import marshal
import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from jinja2 import Environment

from generator.outputs import OutputFile
from generator.outputs.hosting import feed_updated, feed_xml
from generator.outputs.linkcheck import CrossLink
from generator.render.templates import (
    FullReads,
    group_by_repo,
    home_page_context,
    recent_records,
    repo_overview,
    repo_page_context,
    search_page_context,
)
from generator.site import urls
from generator.site.model import RecordSummary, Site

# Inputs (the template first, for a page), sha256, and the page's links to other pages'
# anchors (None until its links were checked).
Rendered = tuple[tuple[Any, ...], str, tuple[CrossLink, ...] | None]


@dataclass
class PageMemo:
    """Site-wide pages of the last build (same theme, settings and code) and their inputs.

    The pages themselves are not kept: a page rendered from the same inputs
    is read back from the previous output (`read`), if it still has the hash.
    """

    previous: dict[str, Rendered] = field(default_factory=dict)
    current: dict[str, Rendered] = field(default_factory=dict)
    # A record file -> what it was read from (plain data: tuples, strings, numbers);
    # by default unlike anything remembered.
    version: Callable[[str], Any] = lambda _file: secrets.token_hex(8)
    read: Callable[[str], bytes | None] = lambda _path: None  # a page of the previous output

    def versions(self, records: Iterable[RecordSummary]) -> str:
        """What the records were read from, as one hash (small to keep, quick to compare)."""
        versions = tuple(map(self.version, [record.file for record in records]))
        # marshal format 2 writes no back-references, so equal values give equal bytes.
        return hashlib.sha256(marshal.dumps(versions, 2)).hexdigest()

    def render(
        self,
        env: Environment,
        path: str,
        template: str,
        inputs: tuple[Any, ...],
        context: Callable[[], dict[str, Any]],
        origin: str,
    ) -> OutputFile:
        """The page, rendered from context() unless the last build rendered it from these inputs."""

        def render() -> bytes:
            return env.get_template(template).render(context()).encode()

        return self.made(path, (template, *inputs), render, origin)

    def render_listing(
        self,
        env: Environment,
        path: str,
        template: str,
        inputs: tuple[Any, ...],
        records: list[RecordSummary],
        context: Callable[[FullReads], dict[str, Any]],
        origin: str,
    ) -> OutputFile:
        """A page listing records, rendered from context() unless the last build rendered it
        from these inputs and what it showed of these records.

        What it showed: the records' summaries, when rendering it read no full
        record (its template asked only what a summary holds: `ListedRecord`),
        else the records' versions. Which of the two the last build found is
        kept with its inputs; the same template showing the same summaries
        takes the same path through them, and reads no full record again.
        """
        earlier = self.previous.get(path)
        by_summaries = earlier is not None and shown_by_summaries(earlier[0])
        shown = self.shown(records, by_summaries)
        reads = FullReads()

        def render() -> bytes:
            return env.get_template(template).render(context(reads)).encode()

        file = self.made(path, (template, *inputs, shown), render, origin)
        if not file.unchanged and by_summaries != (reads.count == 0):
            shown = self.shown(records, reads.count == 0)
            self.current[path] = ((template, *inputs, shown), self.current[path][1], None)
        return file

    def shown(self, records: list[RecordSummary], by_summaries: bool) -> tuple[str, str]:
        """What a listing page shows of its records, as one hash: their summaries, or (when
        it read their full records) the versions they were read from."""
        if not by_summaries:
            return "versions", self.versions(records)
        summaries = [tuple(record) for record in records]
        return "summaries", hashlib.sha256(marshal.dumps(summaries, 2)).hexdigest()

    def made(
        self, path: str, inputs: tuple[Any, ...], make: Callable[[], bytes], origin: str
    ) -> OutputFile:
        """The file make() makes, unless the last build made it from these very inputs."""
        earlier = self.previous.get(path)
        if earlier is not None and earlier[0] == inputs:
            page = self.read(path)
            if page is not None and hashlib.sha256(page).hexdigest() == earlier[1]:
                self.current[path] = earlier
                return OutputFile(
                    path, page, origin, unchanged=True, sha=earlier[1], cross_links=earlier[2]
                )
        page = make()
        sha = hashlib.sha256(page).hexdigest()
        self.current[path] = (inputs, sha, None)
        return OutputFile(path, page, origin, sha=sha)

    def made_here(
        self, path: str, inputs: tuple[Any, ...], content: bytes, origin: str, sha: str
    ) -> OutputFile:
        """A file made already, from these inputs (known only once it was made: its hash)."""
        self.current[path] = (inputs, sha, None)
        return OutputFile(path, content, origin, sha=sha)

    def carried_over(self, path: str, held: str | None) -> str | None:
        """The hash of the last build's file at path, when the staging folder holds that very
        file (`held`: the hash of what it holds there): it is carried over as it is, neither
        made, read nor written. None when it is not so."""
        earlier = self.previous.get(path)
        if earlier is None or held is None or earlier[1] != held:
            return None
        self.current[path] = earlier
        return held

    def links_checked(self, path: str, cross_links: tuple[CrossLink, ...]) -> None:
        """Remember a page's links to other pages' anchors, found as its links were checked."""
        made = self.current.get(path)
        if made is not None:
            self.current[path] = (made[0], made[1], cross_links)


def shown_by_summaries(inputs: tuple[Any, ...]) -> bool:
    """Whether a listing page's inputs, as kept, say it showed its records' summaries only."""
    last = inputs[-1] if inputs else None
    return isinstance(last, tuple) and len(last) == 2 and last[0] == "summaries"


def page_files(site: Site, env: Environment, memo: PageMemo | None = None) -> list[OutputFile]:
    """Render the site-wide HTML pages (each error's page is a record output), and the feed.

    Each is made from what it shows: the home page from the repositories'
    counts and the newest errors, not from every error.
    """
    memo = memo or PageMemo()
    files = []
    config = site.config
    groups = group_by_repo(site.records)
    for repo, records in groups.items():
        path, origin = urls.repo_page(repo), f"repository {repo}"
        listing = partial(repo_page_context, site, repo, records)
        page = memo.render_listing(env, path, "repo.html", (config, repo), records, listing, origin)
        files.append(page)
    # The newest errors once, for the home page and the feed (each takes the first so many).
    newest = recent_records(site, max(config.recent_count, config.feed_count))
    overview, recent = repo_overview(groups), newest[: config.recent_count]
    counts = (config, tuple(overview), len(site.records))
    listing = partial(home_page_context, site, overview, recent)
    files.append(
        memo.render_listing(env, urls.HOME_PAGE, "index.html", counts, recent, listing, "home page")
    )
    context = partial(search_page_context, site)
    files.append(memo.render(env, urls.SEARCH_PAGE, "search.html", (config,), context, "search"))
    if config.base_url:
        newest, updated = newest[: config.feed_count], feed_updated(site)
        feed = partial(feed_xml, site, newest, updated)
        files.append(
            memo.made(urls.FEED_XML, (config, updated, memo.versions(newest)), feed, "feed")
        )
    return files
