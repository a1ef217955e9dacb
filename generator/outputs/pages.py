"""HTML pages: one per error, one per repository, and the home page."""

from __future__ import annotations

from jinja2 import Environment

from generator import urls
from generator.model import Site
from generator.outputs import OutputFile
from generator.render import (
    group_by_repo,
    render_home_page,
    render_repo_page,
    render_search_page,
)


def page_files(site: Site, env: Environment) -> list[OutputFile]:
    """Render the site-wide HTML pages (each error's page is a record output)."""
    files = []
    for repo, records in group_by_repo(site.records).items():
        html = render_repo_page(env, site, repo, records)
        files.append(OutputFile(urls.repo_page(repo), html.encode(), f"repository {repo}"))
    files.append(OutputFile(urls.HOME_PAGE, render_home_page(env, site).encode(), "home page"))
    files.append(OutputFile(urls.SEARCH_PAGE, render_search_page(env, site).encode(), "search"))
    return files
