"""The Sphinx extension: the error pages inside a project's own docs.

In conf.py::

    extensions = ["errpages.sphinx"]
    errpages_content = "../content"     # the content folder, from conf.py's folder

Before Sphinx reads the sources, the errors are written into the source folder as MyST
pages (`errors/index.md` and one page per error: see errpages.outputs.markdown), only
the files whose bytes changed, so Sphinx reads again only the pages an edit changed, as
autosummary does with its stubs. The docs' toctree names `errors/index`. After an HTML
build, each alias gets a page that redirects to its error's page, and the JSON API is
written beside the pages (`errors/api/`). A problem in a record is a Sphinx warning at
the record's file and line (so `-W` fails on it), and no page is written for it.
"""

from __future__ import annotations

import html
import posixpath
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.transforms import SphinxTransform
from sphinx.util import logging

from errpages import __version__
from errpages.diagnostics import Level, printable
from errpages.site.model import Site

logger = logging.getLogger(__name__)
FOLDER = "errors"
LOADED: dict[int, Site] = {}  # by Sphinx application: the site its build wrote pages of


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value("errpages_content", "content", "env", str)
    app.add_config_value("errpages_base_url", "", "env", str)
    app.setup_extension("myst_parser")
    app.add_transform(ExactText)
    app.connect("builder-inited", write_sources)
    app.connect("build-finished", write_outputs)
    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True}


class ExactText(SphinxTransform):
    """The errors' pages keep their text as written: an error message's `--` or quotes are
    not made typographic (smart quotes run after this, and skip what it marks)."""

    default_priority = 700

    def apply(self, **kwargs: Any) -> None:
        if self.env.docname.startswith(f"{FOLDER}/"):
            self.document["support_smartquotes"] = False


def load(app: Sphinx) -> Site | None:
    """The content's site; its problems logged as warnings at their file and line."""
    from errpages.report import BuildReport
    from errpages.stages import load_site

    content = (Path(app.confdir) / app.config.errpages_content).resolve()
    report = BuildReport()
    if not content.is_dir():
        logger.warning(printable(f"errpages: no content folder at {content}"), type="errpages")
        return None
    site = load_site(content, app.config.errpages_base_url or None, report, False, False)
    for diagnostic in report.diagnostics:
        position = diagnostic.position
        where = Path(position.path)
        shown = str(where if where.is_absolute() else Path.cwd() / where)
        location = f"{shown}:{position.shown_line}" if position.shown_line else shown
        text = (
            f"{diagnostic.field}: {diagnostic.message}" if diagnostic.field else diagnostic.message
        )
        hint = f" (hint: {diagnostic.hint})" if diagnostic.hint else ""
        level = "error" if diagnostic.level is Level.ERROR else "warning"
        said = printable(f"errpages {level}: {text}{hint}")
        logger.warning(said, location=printable(location), type="errpages")
    return None if report.failed() else site


def write_sources(app: Sphinx) -> None:
    """Write the errors' MyST pages into the source folder (changed files only)."""
    from errpages.outputs.markdown import ExportConflict, markdown_export, write_pages

    site = load(app)
    if site is None:
        return
    try:
        write_pages(Path(app.srcdir) / FOLDER, markdown_export(site, "myst"))
    except (ExportConflict, OSError) as exc:
        logger.warning(printable(f"errpages: {exc}"), type="errpages")
    LOADED[id(app)] = site


def write_outputs(app: Sphinx, exception: BaseException | None) -> None:
    """After an HTML build: the aliases' redirect pages and the JSON API."""
    site = LOADED.pop(id(app), None)
    if exception is not None or site is None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    for record in site.records:
        target = app.builder.get_target_uri(f"{FOLDER}/{record.id}")
        for alias in () if record.draft else record.aliases:
            source = app.builder.get_target_uri(f"{FOLDER}/{alias}")
            write_if_changed(
                out / source / "index.html" if source.endswith("/") else out / source,
                redirect_page(relative_uri(source, target)).encode(),
            )
    for output in api_outputs(site):
        write_if_changed(out / FOLDER / output[0], output[1])


def relative_uri(source: str, target: str) -> str:
    """The link from one page of the output to another, by their builder URIs (`a/b.html`,
    or `a/b/` for dirhtml, whose page is that folder's index.html)."""
    here = source.rstrip("/") if source.endswith("/") else posixpath.dirname(source)
    relative = posixpath.relpath(target.rstrip("/"), here or ".")
    return relative + "/" if target.endswith("/") else relative


def redirect_page(url: str) -> str:
    """A page that sends the reader on to the error's page (the alias's page moved there)."""
    quoted = html.escape(url, quote=True)
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="refresh" content="0; url={quoted}">\n'
        f'<link rel="canonical" href="{quoted}">\n<meta name="robots" content="noindex">\n'
        f"<title>Moved</title>\n</head>\n<body>\n<p>This error's page is now "
        f'<a href="{quoted}">here</a>.</p>\n</body>\n</html>\n'
    )


def api_outputs(site: Site) -> list[tuple[str, bytes]]:
    """The site's JSON API: each error's file, the errors index and the record schema."""
    from errpages.outputs.api import api_files, errors_index, index_entry
    from errpages.outputs.records import error_line
    from errpages.site import urls

    config = site.config
    files = [
        (
            urls.error_json(summary.id),
            error_line(site.record(summary), site.links[summary.id], config, site.history(summary)),
        )
        for summary in site.records
    ]
    index = errors_index(site, lambda summary: index_entry(summary, config))
    files += [(output.path, output.content) for output in [index, *api_files()]]
    return files


def write_if_changed(path: Path, data: bytes) -> None:
    """Write a file of the output unless it holds these bytes already."""
    try:
        if path.read_bytes() == data:
            return
    except OSError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
