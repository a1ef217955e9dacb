"""The build, as a list of stages: load → validate → link → render → write.

Nothing is written until every record has been validated and linked and every
output rendered and planned; a build with errors leaves the previous output
exactly as it was.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

from jinja2 import TemplateError, TemplateSyntaxError

from generator.config import normalise_base_url, read_config
from generator.diagnostics import (
    Diagnostic,
    Position,
    error,
    has_errors,
    sorted_diagnostics,
    with_source_lines,
)
from generator.linkcheck import check_links
from generator.links import link_records
from generator.loader import display_path, load_content
from generator.model import Site, SiteConfig
from generator.outputs import OutputFile
from generator.outputs.api import api_files
from generator.outputs.assets import asset_files
from generator.outputs.hosting import hosting_files, source_date
from generator.outputs.pages import page_files
from generator.outputs.search import search_files
from generator.outputs.write import check_collisions, check_output_folder, write_site
from generator.published import Manifest, check_published, update_manifest
from generator.render import make_environment
from generator.schema import validate_records

BUILTIN_THEMES = Path(__file__).resolve().parent.parent / "themes"


@dataclass
class BuildReport:
    """What a build or check found and did."""

    diagnostics: list[Diagnostic] = field(default_factory=list)
    site: Site | None = None
    files: list[OutputFile] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    written: bool = False
    manifest: Manifest | None = None
    manifest_updated: bool = False

    def failed(self, strict: bool = False) -> bool:
        return has_errors(self.diagnostics, strict)


@contextmanager
def timed(report: BuildReport, stage: str) -> Iterator[None]:
    start = time.perf_counter()
    yield
    report.timings[stage] = time.perf_counter() - start


def find_theme(config: SiteConfig, content_root: Path) -> tuple[Path | None, list[Diagnostic]]:
    """Resolve the theme setting: a built-in theme name, or a folder beside content/."""
    candidates = [BUILTIN_THEMES / config.theme] if "/" not in config.theme else []
    candidates.append((content_root.parent / config.theme).resolve())
    for candidate in candidates:
        if (candidate / "templates").is_dir():
            return candidate, []
    where = Position(display_path(content_root / "site.yaml"))
    return None, [
        error(
            where,
            "theme",
            f"no theme {config.theme!r} (expected a folder with "
            "templates/, or the name of a built-in theme such as 'default')",
        )
    ]


def load_site(
    content_root: Path, base_url: str | None, report: BuildReport, include_drafts: bool = False
) -> tuple[Site | None, Path | None]:
    """Run load → validate → link; return the site and its theme when there are no errors."""
    with timed(report, "load"):
        loaded, problems = load_content(content_root)
        report.diagnostics += problems
    with timed(report, "validate"):
        config, problems = read_config(loaded.config)
        report.diagnostics += problems
        if base_url is not None:
            config = replace(config, base_url=normalise_base_url(base_url))
        config = replace(
            config,
            build_date=source_date(os.environ.get("SOURCE_DATE_EPOCH")),
            include_drafts=include_drafts,
        )
        records, problems = validate_records(loaded.records, loaded.snippets)
        report.diagnostics += problems
    with timed(report, "link"):
        ordered, links, problems = link_records(records, include_drafts)
        report.diagnostics += problems
        report.manifest = loaded.manifest
        if loaded.manifest is not None:
            report.diagnostics += check_published(
                loaded.manifest,
                display_path(loaded.manifest.path),
                {r.id for r in ordered} | {a for r in ordered for a in r.aliases},
                {r.id for r in records if r.draft},
            )
    theme_dir, problems = find_theme(config, content_root)
    report.diagnostics += problems
    report.diagnostics = with_source_lines(sorted_diagnostics(report.diagnostics), loaded.texts)
    if report.failed() or theme_dir is None:
        return None, None
    site = Site(config, tuple(ordered), links, loaded.drift)
    report.site = site
    return site, theme_dir


def template_diagnostic(exc: TemplateError, theme_dir: Path) -> Diagnostic:
    if isinstance(exc, TemplateSyntaxError):
        where = Position(str(exc.filename or theme_dir), exc.lineno or 0)
    else:
        where = Position(display_path(theme_dir / "templates"))
    return error(where, "template", f"{type(exc).__name__}: {exc.message or exc}")


def render_site(site: Site, theme_dir: Path, report: BuildReport) -> list[OutputFile]:
    """Render every output in memory and check the planned paths."""
    try:
        env = make_environment(theme_dir)
        files = page_files(site, env) + api_files(site) + asset_files(theme_dir)
        files += search_files(site)
        hosting, problems = hosting_files(site, env)
        files += hosting
        report.diagnostics += problems
    except TemplateError as exc:
        report.diagnostics.append(template_diagnostic(exc, theme_dir))
        return []
    report.diagnostics += check_collisions(files)
    return files


def build(
    content_root: Path,
    out_dir: Path | None,
    base_url: str | None = None,
    strict: bool = False,
    include_drafts: bool = False,
) -> BuildReport:
    """Build the site from content_root into out_dir (None: check only, write nothing)."""
    report = BuildReport()
    if out_dir is not None:
        report.diagnostics += check_output_folder(out_dir)
    if not content_root.is_dir():
        report.diagnostics.append(
            error(Position(str(content_root)), "--content", "content folder not found")
        )
        return report
    site, theme_dir = load_site(content_root, base_url, report, include_drafts)
    if site is None or theme_dir is None:
        return report
    with timed(report, "render"):
        report.files = render_site(site, theme_dir, report)
    with timed(report, "linkcheck"):
        report.diagnostics += check_links(report.files)
    if report.failed(strict) or out_dir is None:
        return report
    with timed(report, "write"):
        write_site(report.files, out_dir)
        report.written = True
        if report.manifest is not None:
            published = {r.id for r in site.records} | {a for r in site.records for a in r.aliases}
            report.manifest_updated = update_manifest(report.manifest, published)
    return report
