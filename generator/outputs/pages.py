"""HTML pages: one per repository, the home page and the search page; and the feed.

(Each error's page is a record output.) Each is planned with what it is made
from: the settings, its template, and each record it lists by its version
(what it was read from: a record read from the same files is the same record)
and its label, so a page is made again only when one of those changed.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from jinja2 import Environment

from errpages.outputs import Planned
from errpages.outputs.hosting import feed_updated, feed_xml
from errpages.render.templates import (
    group_by_repo,
    home_page_context,
    recent_records,
    repo_overview,
    repo_page_context,
    search_page_context,
)
from errpages.site import urls
from errpages.site.history import listed
from errpages.site.model import RecordSummary, Site

Version = Callable[[str], Any]  # a record file -> what it was read from (plain data)


def page_files(site: Site, env: Environment, version: Version) -> list[Planned]:
    """Plan the site-wide HTML pages and the feed, each with what it shows: the home page the
    repositories' counts and the newest errors, not every error."""
    config = site.config

    def shown(records: list[RecordSummary], history: bool = True) -> tuple[Any, ...]:
        labels = site.links.labels
        return tuple(
            (
                version(record.file),
                labels[record.id],
                listed(site.histories.face(record)) if history else None,
            )
            for record in records
        )

    def page(template: str, context: Callable[[], dict[str, Any]]) -> Callable[[], bytes]:
        return lambda: env.get_template(template).render(context()).encode()

    files = []
    groups = group_by_repo(site.records)
    overview = repo_overview(groups, site.histories)
    for (repo, records), (*_, releases) in zip(groups.items(), overview, strict=True):
        make = page("repo.html", partial(repo_page_context, site, repo, records, releases))
        inputs: tuple[Any, ...] = ("repo.html", config, repo, shown(records), releases)
        files.append(Planned(urls.repo_page(repo), f"repository {repo}", inputs, make))
    # The newest errors once, for the home page and the feed (each takes the first so many).
    newest = recent_records(site, max(config.recent_count, config.feed_count))
    recent = newest[: config.recent_count]
    make = page("index.html", partial(home_page_context, site, overview, recent))
    inputs = ("index.html", config, tuple(overview), len(site.records), shown(recent))
    files.append(Planned(urls.HOME_PAGE, "home page", inputs, make))
    make = page("search.html", partial(search_page_context, site))
    files.append(Planned(urls.SEARCH_PAGE, "search", ("search.html", config), make))
    if config.base_url:
        newest, updated = newest[: config.feed_count], feed_updated(site)
        make = partial(feed_xml, site, newest, updated)
        inputs = (config, updated, shown(newest, history=False))  # it says nothing of releases
        files.append(Planned(urls.FEED_XML, "feed", inputs, make))
    return files
