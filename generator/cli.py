"""Command line: every `errpages` command. Exit 0 on success, 1 on content errors, 2 on usage."""

from __future__ import annotations

import json
import os
import re
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from errpages import __version__
from errpages.content.listing import display_path
from errpages.diagnostics import (
    Diagnostic,
    Level,
    diagnostic_data,
    github_annotation,
    plural,
    printable,
)
from errpages.memo.fingerprint import DEFAULT_CACHE_DIR
from errpages.project import FOLDER_SETTINGS, ProjectError, ProjectSettings, project_settings
from errpages.site import urls
from errpages.site.model import Site

# Each command imports what only it needs (building, scanning, pinning, serving, ...) when it
# runs: `errpages build` with nothing to do ends before the renderers would be imported.
if TYPE_CHECKING:
    from tqdm import tqdm

    from errpages.report import BuildReport

CONTENT_OPTION = click.option(
    "--content",
    "content",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("content"),
    show_default=True,
    help="The content folder (site.yaml, errors/, snippets/).",
)
STRICT_OPTION = click.option(
    "--strict/--no-strict", default=False, help="Treat warnings as errors."
)
CACHE_DIR_OPTION = click.option(
    "--cache-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=DEFAULT_CACHE_DIR,
    show_default=True,
    help="Where the build cache lives.",
)
DRAFTS_OPTION = click.option(
    "--drafts/--no-drafts",
    default=False,
    help="Include records marked 'draft: true' (left out by default).",
)


class ProgressBar:
    """A progress bar on a terminal (tqdm); nothing in pipes, CI or with --quiet."""

    def __init__(self, label: str, enabled: bool, unit: str = "page") -> None:
        self.label = label
        self.unit = unit
        self.enabled = enabled and sys.stderr.isatty() and not os.environ.get("CI")
        self.bar: tqdm[Any] | None = None

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled or total < 50:
            return
        if self.bar is None:
            from tqdm import tqdm  # imported only when a bar is shown

            self.bar = tqdm(
                total=total, desc=self.label, unit=self.unit, leave=False, file=sys.stderr
            )
        self.bar.n = done
        self.bar.refresh()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def print_diagnostics(report: BuildReport, shown: set[Diagnostic] | None = None) -> None:
    """Print every problem; with `shown`, warnings already in it are not repeated."""
    for diagnostic in report.diagnostics:
        if shown is not None and diagnostic.level is Level.WARNING:
            if diagnostic in shown:
                continue
            shown.add(diagnostic)
        click.echo(diagnostic.format(), err=True)


def say_on_stderr(text: str) -> None:
    click.echo(text, err=True)


def built_line(report: BuildReport, out: Path, elapsed: float, shard: tuple[int, int]) -> str:
    """The line that ends a build."""
    warnings = report.warning_count()
    errors = len(report.site.records) if report.site else 0
    part = f" (shard {shard[0]}/{shard[1]})" if shard != (1, 1) else ""
    return (
        f"Built {plural(errors, 'error')}{part} into {display_path(out)}: "
        f"{report.pages_rendered} rendered, {report.pages_kept} unchanged, "
        f"{plural(report.files_total, 'file')}, {plural(warnings, 'warning')}, {elapsed:.2f}s"
    )


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="errpages")
@click.pass_context
def cli(ctx: click.Context) -> None:
    """errpages: build a static site with a page behind every error message.

    Settings a project uses on every run (content, out, base-url, ...) can live in
    [tool.errpages] of its pyproject.toml; an option given here wins.
    """
    try:
        settings = project_settings()
    except ProjectError as exc:
        click.echo(f"errpages: {printable(str(exc))}", err=True)
        sys.exit(2)
    if settings is not None:
        ctx.default_map = option_defaults(cli, settings)


def option_defaults(command: click.Command, settings: ProjectSettings) -> dict[str, Any]:
    """click's default map: each setting for every command with a parameter of its name, and
    the other folders' defaults (content, site, ...) in the project's folder too."""
    if isinstance(command, click.Group):
        return {name: option_defaults(sub, settings) for name, sub in command.commands.items()}
    defaults: dict[str, Any] = {}
    for param in command.params:
        if param.name in settings.defaults:
            defaults[param.name] = settings.defaults[param.name]
        elif param.name in FOLDER_SETTINGS and isinstance(param.default, Path):
            defaults[param.name] = settings.folder(param.default)
    return defaults


def base_url_argument(_ctx: click.Context, _param: click.Parameter, value: Any) -> Any:
    """--base-url, held to what base_url in site.yaml must be."""
    if not value:
        return value  # without importing the settings' reader: a no-op build never needs it
    if not urls.URL_RE.fullmatch(value):
        raise click.BadParameter(f"{value!r} is not an http(s) URL")
    return value


def parse_shard(_ctx: click.Context, _param: click.Parameter, value: str | None) -> tuple[int, int]:
    """`K/N` with 1 <= K <= N."""
    if value is None:
        return (1, 1)
    match = re.fullmatch(r"(\d+)/(\d+)", value)
    if not match or not 1 <= int(match.group(1)) <= int(match.group(2)):
        raise click.BadParameter(f"{value!r} is not K/N with 1 <= K <= N (e.g. 2/4)")
    return int(match.group(1)), int(match.group(2))


@cli.command("build")
@CONTENT_OPTION
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("site"),
    show_default=True,
    help="The output folder; replaced whole by a successful build.",
)
@click.option(
    "--base-url",
    help="The site's public URL (overrides base_url in site.yaml).",
    callback=base_url_argument,
)
@STRICT_OPTION
@DRAFTS_OPTION
@click.option(
    "--jobs",
    "-j",
    default=0,
    type=click.IntRange(0, 256),
    help="Worker processes (default: one per core).",
)
@CACHE_DIR_OPTION
@click.option("--no-cache", is_flag=True, help="Build from scratch, ignoring the cache.")
@click.option(
    "--shard",
    callback=parse_shard,
    metavar="K/N",
    help="Render only part K of N of the error pages (shard 1 adds the site-wide files).",
)
@click.option(
    "--no-wait", is_flag=True, help="Fail at once when another build is writing the output."
)
@click.option("--quiet", "-q", is_flag=True, help="Print only problems.")
@click.option("--verbose", "-v", is_flag=True, help="Print the time each stage took.")
def build_command(
    content: Path,
    out: Path,
    base_url: str | None,
    strict: bool,
    drafts: bool,
    jobs: int,
    cache_dir: Path,
    no_cache: bool,
    shard: tuple[int, int],
    no_wait: bool,
    quiet: bool,
    verbose: bool,
) -> None:
    """Build the site from the content folder."""
    started = time.perf_counter()
    from errpages.build import build

    progress = ProgressBar("Rendering", enabled=not quiet)
    try:
        report = build(
            content,
            out,
            base_url=base_url,
            strict=strict,
            include_drafts=drafts,
            jobs=jobs,
            cache_dir=None if no_cache else cache_dir,
            shard=shard,
            progress=progress,
            wait=not no_wait,
            waiting=say_on_stderr,
        )
    finally:
        progress.close()
    print_diagnostics(report)
    if report.cache_refused:
        click.echo(
            f"note: the build cache was not used ({report.cache_refused}); built from scratch",
            err=True,
        )
    if report.dropped:
        named = ", ".join(report.dropped[:5])
        more = f" and {len(report.dropped) - 5} more" if len(report.dropped) > 5 else ""
        click.echo(
            f"note: {display_path(out)} held files the new site does not have, which the build "
            f"removed (it had no record of what the last build wrote): {printable(named)}{more}",
            err=True,
        )
    if report.cache_problem:
        click.echo(
            f"note: the build cache could not be saved ({report.cache_problem}); "
            "the next build starts from scratch",
            err=True,
        )
    if verbose:
        for stage, seconds in report.timings.items():
            click.echo(f"  {stage:<9} {seconds * 1000:8.1f} ms", err=True)
    elapsed = time.perf_counter() - started
    if report.unchanged:
        if not quiet:
            click.echo(f"Nothing changed; {display_path(out)} is up to date ({elapsed:.2f}s).")
        return
    if report.failed(strict) or not report.written:
        click.echo(
            f"Build failed ({report.problem_counts()}); {display_path(out)} was left as it was.",
            err=True,
        )
        sys.exit(1)
    if not quiet:
        click.echo(built_line(report, out, elapsed, shard))


@cli.command("check")
@CONTENT_OPTION
@STRICT_OPTION
@DRAFTS_OPTION
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json", "github"]),
    default="text",
    show_default=True,
    help="github: workflow commands that annotate the lines in a pull request.",
)
def check_command(content: Path, strict: bool, drafts: bool, output_format: str) -> None:
    """Validate, render and link-check the content as a build does, writing nothing of yours."""
    from errpages.build import build

    report = build(content, None, strict=strict, include_drafts=drafts)
    if output_format == "json":
        problems = list(map(diagnostic_data, report.diagnostics))
        click.echo(json.dumps({"ok": not report.failed(strict), "problems": problems}, indent=2))
    elif output_format == "github":
        for diagnostic in report.diagnostics:
            click.echo(github_annotation(diagnostic))
    else:
        print_diagnostics(report)
        if report.failed(strict):
            click.echo(f"Check failed: {report.problem_counts()}.", err=True)
        else:
            count = len(report.site.records) if report.site else 0
            click.echo(f"{plural(count, 'record')} OK, {plural(report.warning_count(), 'warning')}")
    sys.exit(1 if report.failed(strict) else 0)


def ask(value: str | None, label: str) -> str:
    """Take a flag's value, or ask for it on a terminal; without either it is a usage error."""
    if value:
        return value
    if sys.stdin.isatty():
        return str(click.prompt(label))
    raise click.UsageError(f"missing --{label.lower()} (or run in a terminal to be asked)")


@cli.command("new")
@CONTENT_OPTION
@click.option("--repo", help="owner/name of the project that raises the error.")
@click.option("--exception", help="The exception type, e.g. ValueError.")
@click.option("--message", help="The exact message, with {placeholders} for parts that vary.")
@click.option("--force", is_flag=True, help="Write this error's record anew (its id is kept).")
def new_command(
    content: Path, repo: str | None, exception: str | None, message: str | None, force: bool
) -> None:
    """Scaffold a new error record with a fresh id."""
    from errpages.content.scaffold import (
        place_new_record,
        record_text,
        schema_reference,
        write_new_record,
    )
    from errpages.content.schema import REPO_RE
    from errpages.report import BuildReport
    from errpages.stages import load_site

    repo = ask(repo, "Repo")
    if not REPO_RE.fullmatch(repo):
        raise click.BadParameter(f"{repo!r} is not owner/name", param_hint="--repo")
    exception = ask(exception, "Exception")
    message = ask(message, "Message")
    report = BuildReport()
    site = None
    if content.is_dir():  # drafts too: their errors have records as well
        site = load_site(content, None, report, True, check_registry=False)
        if site is None:
            click.echo(f"note: the content has {report.problem_counts()} (see `errpages check`)")
    records = site.records if site else ()
    path, record_id, existing = place_new_record(content, records, repo, exception, message)
    if existing and not force:
        click.echo(
            f"This error already has a record: {path} (id {record_id}); edit it, "
            "or use --force to write it anew.",
            err=True,
        )
        sys.exit(1)
    schema = schema_reference(path, content, site.config.base_url if site else "")
    try:
        write_new_record(path, record_text(repo, exception, message, record_id, schema), force)
    except FileExistsError:
        click.echo(f"{display_path(path)} already exists; it was left as it is.", err=True)
        sys.exit(1)
    except OSError as exc:
        fail_to_write("new", exc)
    click.echo(f"Wrote {display_path(path)} (id {record_id}). Fill in the fields it marks.")


@cli.command("lookup")
@CONTENT_OPTION
@click.option("--text", help="The traceback or log text (default: read standard input).")
@click.option("--json", "as_json", is_flag=True, help="Print the matches as JSON.")
@click.option("--limit", default=5, show_default=True, type=click.IntRange(1, 100))
@click.option(
    "--base-url",
    help="Print absolute URLs under this base (default: base_url).",
    callback=base_url_argument,
)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("site"),
    show_default=True,
    help="The built site whose pages are named when no base_url is set.",
)
@DRAFTS_OPTION
def lookup_command(
    content: Path,
    text: str | None,
    as_json: bool,
    limit: int,
    base_url: str | None,
    out: Path,
    drafts: bool,
) -> None:
    """Find the errors a traceback or log shows. Exit 1 when nothing matches."""
    from errpages.content.listing import content_folder_missing
    from errpages.site.history import site_wordings
    from errpages.site.lookup import compile_matchers, lookup, match_data

    if not content.is_dir():
        fail_on(content_folder_missing(content))
    if text is None:
        if sys.stdin.isatty():
            click.echo("Paste the traceback, then press Ctrl-D.", err=True)
        text = sys.stdin.read()
    # Looking an error up needs the records, not a registry that a build would check.
    site = site_or_exit(content, base_url, "Cannot look anything up", drafts, check_registry=False)
    wordings = site_wordings(site.records, site.histories)
    matches = lookup(text, compile_matchers(site.records, wordings), limit)
    rows = [match_data(match, site.config, out) for match in matches]
    if as_json:
        click.echo(json.dumps({"matches": rows}, indent=2, ensure_ascii=False))
    elif not rows:
        click.echo("No known error matches this text.", err=True)
    for match, row in [] if as_json else zip(matches, rows, strict=True):  # made printable
        click.echo(f"{row['id']}  {printable(row['exception'])}: {printable(row['message'])}")
        click.echo(f"    {match.kind}; {row['repo']}")
        if row["former"]:
            former = row["former"]
            click.echo(
                f"    as {printable(former['releases'])} worded it: "
                f"{printable(former['exception'])}: {printable(former['message'])}"
            )
        for name, value in row["values"].items():
            click.echo(f"    {printable(name)} = {printable(value)}")
        click.echo(f"    {printable(row['url'])}")
    if rows and not as_json and not site.config.base_url and not (out / "index.html").is_file():
        click.echo(f"(no site in {display_path(out)} yet: `errpages build` makes it)", err=True)
    sys.exit(0 if rows else 1)


def fail_to_write(command: str, exc: OSError) -> NoReturn:
    """A file the command could not write (a full disk, a read-only folder): one line, exit 1.
    Every write goes through a temporary file and a rename, so no file was damaged."""
    what = (
        f"cannot write {display_path(exc.filename)}: {exc.strerror}" if exc.filename else str(exc)
    )
    click.echo(f"errpages {command}: {printable(what)}; no file was damaged.", err=True)
    sys.exit(1)


def fail_on(diagnostic: Diagnostic) -> NoReturn:
    """Print one problem that stops a command before it starts, and exit 1."""
    click.echo(diagnostic.format(), err=True)
    sys.exit(1)


def site_or_exit(
    content: Path,
    base_url: str | None,
    refusal: str,
    drafts: bool = False,
    check_registry: bool = True,
) -> Site:
    """The records of the content, linked; or its problems printed, `refusal` said, exit 1."""
    from errpages.content.listing import content_folder_missing
    from errpages.report import BuildReport
    from errpages.stages import load_site

    if not content.is_dir():
        fail_on(content_folder_missing(content))
    report = BuildReport()
    site = load_site(content, base_url, report, drafts, check_registry)
    if site is None:
        print_diagnostics(report)
        click.echo(f"{refusal}: the content has {report.problem_counts()}.", err=True)
        sys.exit(1)
    return site


REPO_DIR = click.option(
    "--repo-dir",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="A local clone of the project (read only: nothing is checked out or written).",
)


@cli.command("export")
@click.argument("language", type=click.Choice(["python", "markdown"]))
@click.argument("target", type=click.Path(path_type=Path))
@CONTENT_OPTION
@click.option(
    "--base-url", help="The site's public address (default: base_url).", callback=base_url_argument
)
@click.option(
    "--explain",
    is_flag=True,
    help="python: embed each error's text, for `python -m MODULE explain` in a terminal.",
)
@click.option(
    "--flavor",
    type=click.Choice(["mkdocs", "myst"]),
    default="mkdocs",
    show_default=True,
    help="markdown: Python-Markdown with pymdownx (MkDocs, ProperDocs, Zensical) or MyST.",
)
def export_command(
    language: str, target: Path, content: Path, base_url: str | None, explain: bool, flavor: str
) -> None:
    """Write the errors for another tool: `python OUT.py`, a module that links raised errors
    to their pages, for a library to vendor; `markdown OUT_DIR`, a page per error for MkDocs
    or MyST docs."""
    if language == "markdown":
        if explain:
            raise click.BadParameter("--explain is for `export python`", param_hint="--explain")
        export_markdown(content, target, base_url, flavor)
        return
    given = click.get_current_context().get_parameter_source("flavor")
    if given is click.core.ParameterSource.COMMANDLINE:
        raise click.BadParameter("--flavor is for `export markdown`", param_hint="--flavor")
    from errpages.content.config import no_base_url
    from errpages.content.files import atomic_write_text
    from errpages.outputs.export import python_module

    site = site_or_exit(content, base_url, "Cannot export")
    if not site.config.base_url:
        problem = no_base_url(content)
        click.echo(
            f"errpages export: the module links to the published site, and {content / 'site.yaml'}"
            f" sets no base_url; {problem.hint}",
            err=True,
        )
        sys.exit(1)
    module, count = python_module(site, explain)
    try:
        atomic_write_text(target, module.decode())
    except OSError as exc:
        fail_to_write("export", exc)
    click.echo(
        f"Wrote {display_path(target)} ({len(module):,} bytes): "
        f"{plural(count, 'error')} of {site.config.base_url}."
    )


def export_markdown(content: Path, folder: Path, base_url: str | None, flavor: str) -> None:
    """`errpages export markdown OUT_DIR`: write the pages, say what changed."""
    from errpages.outputs.markdown import (
        ExportConflict,
        docs_prefix,
        markdown_export,
        write_pages,
    )

    site = site_or_exit(content, base_url, "Cannot export")
    pages = markdown_export(site, flavor, docs_prefix(folder))
    try:
        summary = write_pages(folder, pages)
    except ExportConflict as exc:
        click.echo(f"errpages export: {printable(str(exc))}; nothing was written.", err=True)
        sys.exit(1)
    except OSError as exc:
        fail_to_write("export", exc)
    removed = f", {len(summary.removed)} removed" if summary.removed else ""
    click.echo(
        f"Wrote {display_path(folder)}: {plural(len(summary.written), 'file')} changed, "
        f"{summary.unchanged} unchanged{removed} ({flavor})."
    )


@cli.command("pin")
@click.argument("record")
@CONTENT_OPTION
@REPO_DIR
@click.option("--commit", "rev", default="HEAD", show_default=True, help="The commit to pin to.")
@click.option("--context", type=click.IntRange(0, 500), help="Lines either side of the raise.")
@click.option("--force", is_flag=True, help="Replace a snippet file that holds other text.")
def pin_command(
    record: str, content: Path, repo_dir: Path, rev: str, context: int | None, force: bool
) -> None:
    """Pin RECORD (a record file or id) to a commit of the project's repository."""
    from errpages.git.pin import pin_record
    from errpages.git.pinning import PinError
    from errpages.git.repo import GitError

    try:
        result = pin_record(content, record, repo_dir, rev, context, force)
    except (PinError, GitError) as exc:
        click.echo(f"errpages pin: {exc}", err=True)
        sys.exit(1)
    except OSError as exc:
        fail_to_write("pin", exc)
    pin = result.pin
    click.echo(
        f"Pinned {display_path(result.record_file)} to {pin.path}:{pin.line} at "
        f"{pin.commit[:12]} (lines {pin.start_line}–{pin.end_line}, "
        f"snippet {display_path(result.snippet_file)})"
    )
    if not result.record_changed:
        click.echo("The record already pointed there; it was not changed.")


@cli.command("scan")
@click.argument("repo_dir", type=click.Path(file_okay=False, path_type=Path))
@CONTENT_OPTION
@click.option("--repo", required=True, help="owner/name of the project.")
@click.option("--commit", "rev", default="HEAD", show_default=True, help="The commit to scan.")
@click.option("--path", "under", default="", help="Scan only this folder or file.")
@click.option(
    "--include-tests",
    is_flag=True,
    help="Scan test files too (tests/, test_*.py, *_test.py, conftest.py).",
)
@click.option(
    "--out",
    "records_folder",
    type=click.Path(file_okay=False, path_type=Path),
    help="Where new records go (default: content/errors/OWNER/NAME).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
def scan_command(
    repo_dir: Path,
    content: Path,
    repo: str,
    rev: str,
    under: str,
    include_tests: bool,
    records_folder: Path | None,
    as_json: bool,
) -> None:
    """Scaffold a draft record for every raise site in REPO_DIR that has no record yet."""
    from errpages.content.schema import REPO_RE
    from errpages.git.pinning import PinError
    from errpages.git.repo import GitError
    from errpages.git.scan import scan_repository

    if not REPO_RE.fullmatch(repo):
        raise click.BadParameter(f"{repo!r} is not owner/name", param_hint="--repo")
    try:
        progress = ProgressBar("Scanning", enabled=not as_json, unit="file")
        try:
            summary = scan_repository(
                content, repo_dir, repo, rev, under, records_folder, progress, include_tests
            )
        finally:
            progress.close()
    except (PinError, GitError) as exc:
        click.echo(f"errpages scan: {exc}", err=True)
        sys.exit(1)
    except OSError as exc:
        fail_to_write("scan", exc)
    click.echo(summary.as_json() if as_json else summary.as_text())


@cli.command("drift")
@CONTENT_OPTION
@REPO_DIR
@click.option("--to", "rev", default="HEAD", show_default=True, help="The commit to compare with.")
@click.option("--repo", help="Only records of this owner/name (default: those pinned here).")
@click.option("--update", is_flag=True, help="Re-pin records that are the same or moved.")
@click.option("--json", "as_json", is_flag=True, help="Print the rows as JSON.")
@click.option("--save", is_flag=True, help="Record the statuses in content/drift.json.")
@STRICT_OPTION
def drift_command(
    content: Path,
    repo_dir: Path,
    rev: str,
    repo: str | None,
    update: bool,
    as_json: bool,
    save: bool,
    strict: bool,
) -> None:
    """Check pinned records against the repository: same, moved, changed or removed."""
    from errpages.git.drift import drift_table, run_drift, save_drift
    from errpages.git.pinning import PinError
    from errpages.git.repo import GitError

    try:
        progress = ProgressBar("Checking", enabled=not as_json, unit="record")
        try:
            report = run_drift(content, repo_dir, rev, repo, update, progress)
        finally:
            progress.close()
    except (PinError, GitError) as exc:
        click.echo(f"errpages drift: {exc}", err=True)
        sys.exit(1)
    except OSError as exc:
        fail_to_write("drift", exc)
    for problem in report.problems:
        click.echo(f"skipped: {printable(problem)}", err=True)
    if as_json:
        rows = [asdict(row) for row in report.rows]
        click.echo(
            json.dumps(
                {
                    "to": report.target,
                    "records": rows,
                    "updated": report.updated,
                    "removed_snippets": report.removed_snippets,
                },
                indent=2,
                ensure_ascii=False,
            )
        )
    else:
        click.echo(drift_table(report))
        if update:
            count = plural(len(report.updated), "record")
            click.echo(f"\nRe-pinned {count} to {report.target[:12]}.")
            if report.removed_snippets:
                unused = plural(len(report.removed_snippets), "snippet file")
                click.echo(f"Deleted {unused} that no record uses any more.")
    if save:
        try:
            saved = save_drift(content, report)
        except OSError as exc:
            fail_to_write("drift --save", exc)
        click.echo(f"Saved the statuses to {display_path(saved)}.", err=True)
    drifted = [row for row in report.rows if row.status != "same"]
    sys.exit(1 if strict and drifted else 0)


@cli.command("history")
@CONTENT_OPTION
@REPO_DIR
@click.option("--repo", help="The records of this owner/name (default: those pinned here).")
@click.option(
    "--tags",
    "patterns",
    multiple=True,
    help="Releases are the tags this glob matches, pre-releases too; give it again for "
    "tags named another way (default: every tag that reads as a final release).",
)
@click.option(
    "--rev",
    default="HEAD",
    show_default=True,
    help="The commit documented: the last release, 'unreleased', when no release has it.",
)
@click.option("--json", "as_json", is_flag=True, help="Print each record's releases as JSON.")
def history_command(
    content: Path,
    repo_dir: Path,
    repo: str | None,
    patterns: tuple[str, ...],
    rev: str,
    as_json: bool,
) -> None:
    """Find in which releases each record's error is raised, and save it in content/history/."""
    from errpages.content.schema import REPO_RE
    from errpages.git.history import (
        HistoryError,
        history_json,
        history_table,
        run_history,
        unparsed_summary,
    )
    from errpages.git.pinning import PinError
    from errpages.git.repo import GitError

    if repo is not None and not REPO_RE.fullmatch(repo):
        raise click.BadParameter(f"{repo!r} is not owner/name", param_hint="--repo")
    try:
        progress = ProgressBar("Following", enabled=not as_json, unit="release")
        try:
            report = run_history(content, repo_dir, repo, patterns, rev, progress)
        finally:
            progress.close()
    except (PinError, GitError, HistoryError) as exc:
        click.echo(f"errpages history: {printable(str(exc))}", err=True)
        sys.exit(1)
    except OSError as exc:
        fail_to_write("history", exc)
    for problem in report.problems:
        click.echo(f"skipped: {printable(problem)}", err=True)
    if as_json:
        click.echo(json.dumps(history_json(report), indent=2, ensure_ascii=False))
    else:
        click.echo(history_table(report))
    if report.unparsed:
        click.echo(unparsed_summary(report), err=True)
    click.echo(
        f"Followed {plural(len(report.saved.runs), 'record')} through "
        f"{plural(len(report.saved.releases), 'release')} ({report.looked_at} looked at, the "
        f"others known); saved to {display_path(report.path)}.",
        err=True,
    )
    if report.hint:
        click.echo(f"hint: {printable(report.hint)}", err=True)


@cli.command("init")
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path), default=Path("."))
def init_command(folder: Path) -> None:
    """Start a site in FOLDER (default: here): content/ with settings and an example error."""
    from errpages.starter import NotStarted, init_site

    try:
        started = init_site(folder)
    except NotStarted as exc:
        click.echo(f"{exc}; nothing was written.", err=True)
        sys.exit(1)
    except OSError as exc:
        fail_to_write("init", exc)
    for path in started.written:
        click.echo(f"  wrote {display_path(path)}")
    for path in started.kept:
        click.echo(f"  kept  {display_path(path)} (already there)")
    content = folder / "content"
    options = "" if folder == Path(".") else f" --content {display_path(content)}"
    click.echo(
        f"Started a site in {display_path(content)}. Next: `errpages serve{options}` to see "
        "it, `errpages new` or `errpages scan` for your own errors, and set base_url in "
        f"{display_path(content / 'site.yaml')} before you publish."
    )


@cli.group("ids")
def ids_group() -> None:
    """Keep content/published-ids.txt: the ids that went live, which must keep a page."""


@ids_group.command("record")
@CONTENT_OPTION
def ids_record_command(content: Path) -> None:
    """Add the ids the content publishes (no drafts) to the registry; run it after a deploy."""
    from errpages.content.files import atomic_write_text, editing
    from errpages.content.loader import load_manifest
    from errpages.content.published import MANIFEST, Manifest, published_ids, with_recorded

    site = site_or_exit(content, None, "Nothing recorded")
    path = content / MANIFEST
    published = published_ids(site.records)
    try:
        with editing(content):
            manifest = load_manifest(path)[0] or Manifest(path, {})
            text, new = with_recorded(manifest, published)
            if text != manifest.text and (new or manifest.text):  # new ids, or the old header
                atomic_write_text(path, text)
    except OSError as exc:
        fail_to_write("ids record", exc)
    total = plural(len(manifest.ids.keys() | published), "id")
    if not new:
        click.echo(f"Every published id is recorded already in {display_path(path)} ({total}).")
        return
    click.echo(
        f"Recorded {plural(len(new), 'new id')} in {display_path(path)} ({total} in all); "
        "commit it with the content."
    )


def error_id_argument(_ctx: click.Context, _param: click.Parameter, values: Any) -> Any:
    from errpages.content.schema import ID_RE

    for value in values:
        if not ID_RE.fullmatch(value):
            raise click.BadParameter(f"{value!r} is not an id (16 lowercase hex digits)")
    return values


@ids_group.command("forget")
@click.argument("error_ids", metavar="ID...", nargs=-1, required=True, callback=error_id_argument)
@CONTENT_OPTION
def ids_forget_command(error_ids: tuple[str, ...], content: Path) -> None:
    """Take back ids recorded by mistake that never went live (never a deployed one)."""
    from errpages.content.files import atomic_write_text, editing
    from errpages.content.loader import load_manifest
    from errpages.content.published import MANIFEST, without

    path = content / MANIFEST
    if not path.exists():
        click.echo(f"There is no {display_path(path)}: no id is recorded.", err=True)
        sys.exit(1)
    try:
        with editing(content):
            manifest, problems = load_manifest(path)
            if problems or manifest is None:
                for problem in problems:
                    click.echo(problem.format(), err=True)
                sys.exit(1)
            unknown = [error_id for error_id in error_ids if error_id not in manifest.ids]
            if unknown:
                shown = f"Not in {display_path(path)}: {', '.join(unknown)}"
                click.echo(f"{shown}; nothing was changed.", err=True)
                sys.exit(1)
            atomic_write_text(path, without(manifest, error_ids))
    except OSError as exc:
        fail_to_write("ids forget", exc)
    click.echo(f"Took back {', '.join(dict.fromkeys(error_ids))} from {display_path(path)}.")


@cli.command("serve")
@CONTENT_OPTION
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind (loopback).")
@click.option(
    "--port",
    default=8000,
    show_default=True,
    type=click.IntRange(0, 65535),
    help="Port; the next free one is taken when it is busy (0: any).",
)
@click.option("--no-watch", is_flag=True, help="Serve only; do not follow changes.")
@DRAFTS_OPTION
def serve_command(content: Path, host: str, port: int, no_watch: bool, drafts: bool) -> None:
    """Serve the site on http://127.0.0.1:PORT/ from memory, and reload the tabs on every
    change; each page is made when it is asked for (`build` makes the site to publish)."""
    from errpages.serve.dev import run
    from errpages.serve.session import Session

    run(Session(content, drafts), host, port, not no_watch, click.echo, say_on_stderr)


@cli.group("theme")
def theme_group() -> None:
    """Work with themes."""


@theme_group.command("eject")
@click.argument(
    "target", type=click.Path(file_okay=False, path_type=Path), default=Path("themes/mytheme")
)
@click.option("--force", is_flag=True, help="Copy into a folder that is not empty.")
def theme_eject_command(target: Path, force: bool) -> None:
    """Copy the default theme to TARGET (default themes/mytheme) to start a theme from."""
    from errpages.render.themes import eject_theme

    try:
        copied = eject_theme(target, force)
    except FileExistsError:
        click.echo(f"{display_path(target)} is not empty; use --force to copy into it.", err=True)
        sys.exit(1)
    click.echo(
        f"Copied {len(copied)} files to {display_path(target)}. Set `theme: {target.as_posix()}` "
        "in content/site.yaml (relative to the folder that holds content/); keep only the "
        "files you change, the rest comes from the default theme."
    )


@cli.command("schema")
@click.option(
    "--write",
    "write_to",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the schema to this file instead of printing it.",
)
def schema_command(write_to: Path | None) -> None:
    """Print the record format as a JSON Schema."""
    from errpages.content.record_schema import record_schema

    text = json.dumps(record_schema(), indent=2, ensure_ascii=False) + "\n"
    if write_to is None:
        click.echo(text, nl=False)
    else:
        write_to.parent.mkdir(parents=True, exist_ok=True)
        write_to.write_text(text, encoding="utf-8")


def main() -> None:
    """Run the command line, then end the process without tearing the interpreter down:
    freeing a large build's objects one by one is slow, and the memory goes back whole.

    Output is flushed first; each build has closed its worker pool by then.
    """
    try:
        cli(prog_name="errpages")
        status = 0
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            status = exc.code or 0
        else:
            print(exc.code, file=sys.stderr)
            status = 1
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except OSError:
        status = status or 1
    os._exit(status)
