"""HTML pages: one per repository, the home page and the search page.

(Each error's page is a record output.) These list many records, so at tens
of thousands of errors rendering them is a visible part of an incremental
build; a page whose inputs (the settings and the records it is made from)
equal the last build's is not rendered again. Records reused from the cache
are the very objects the last build held, so the comparison is mostly
identity checks, and keeping the inputs in the cache costs a reference each.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from jinja2 import Environment

from generator import urls
from generator.model import Site
from generator.outputs import OutputFile
from generator.render import (
    group_by_repo,
    home_page_context,
    repo_page_context,
    search_page_context,
)

Rendered = tuple[str, tuple[Any, ...], bytes]  # template, inputs, page


@dataclass
class PageMemo:
    """Site-wide pages of the last build (same theme, settings and code) and their inputs."""

    previous: dict[str, Rendered] = field(default_factory=dict)
    current: dict[str, Rendered] = field(default_factory=dict)

    def render(
        self,
        env: Environment,
        path: str,
        template: str,
        inputs: tuple[Any, ...],
        context: Callable[[], dict[str, Any]],
    ) -> bytes:
        """The page, rendered from context() unless the last build rendered it from these inputs."""
        earlier = self.previous.get(path)
        if earlier is not None and earlier[0] == template and earlier[1] == inputs:
            page = earlier[2]
        else:
            page = env.get_template(template).render(context()).encode()
        self.current[path] = (template, inputs, page)
        return page


def page_files(site: Site, env: Environment, memo: PageMemo | None = None) -> list[OutputFile]:
    """Render the site-wide HTML pages (each error's page is a record output)."""
    memo = memo or PageMemo()
    files = []
    config = site.config
    for repo, records in group_by_repo(site.records).items():
        path = urls.repo_page(repo)
        html = memo.render(
            env,
            path,
            "repo.html",
            (config, repo, tuple(records)),
            partial(repo_page_context, site, repo, records),
        )
        files.append(OutputFile(path, html, f"repository {repo}"))
    home = memo.render(
        env, urls.HOME_PAGE, "index.html", (config, site.records), partial(home_page_context, site)
    )
    files.append(OutputFile(urls.HOME_PAGE, home, "home page"))
    search = memo.render(
        env, urls.SEARCH_PAGE, "search.html", (config,), partial(search_page_context, site)
    )
    files.append(OutputFile(urls.SEARCH_PAGE, search, "search"))
    return files
