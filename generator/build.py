"""The build, as a list of stages: list → load → validate → link → plan → make → linkcheck →
publish.

Nothing replaces the output until every record has been validated and linked
and every output made, checked and staged; a build with errors leaves the
previous output exactly as it was. With a cache, the memo reuses what the last
build made of the same inputs; a build whose inputs the last one saw, into the
very folder it left, stops after listing the content.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from contextlib import ExitStack, closing
from pathlib import Path

from errpages.content.listing import (
    ContentChanged,
    content_folder_missing,
    display_path,
    list_content,
    shown_records_folder,
)
from errpages.diagnostics import Diagnostic, Position, error
from errpages.memo.fingerprint import (
    DEFAULT_CACHE_DIR,
    BuildOptions,
    cache_file,
    code_version,
    inputs_fingerprint,
    read_summary,
    saw,
    tree_fingerprint,
)
from errpages.publish import OutputBusy, Publisher, check_output_folder, not_ours
from errpages.report import BuildReport


def build(
    content_root: Path,
    out_dir: Path | None,
    base_url: str | None = None,
    strict: bool = False,
    include_drafts: bool = False,
    jobs: int = 0,
    cache_dir: Path | None = DEFAULT_CACHE_DIR,
    shard: tuple[int, int] = (1, 1),
    progress: Callable[[int, int], None] | None = None,
    wait: bool = True,
    waiting: Callable[[str], None] | None = None,
) -> BuildReport:
    """Build the site from content_root into out_dir (None: a check, `errpages check`).

    A build into a folder holds that folder's lock from start to end: another build into
    it waits (told through `waiting`), or fails at once (`wait=False`). A check is the same
    build, without a cache, into a folder of the system's temporary files that is deleted
    after: whatever a build would refuse, a check refuses.
    """
    options = BuildOptions(base_url, strict, include_drafts, jobs, cache_dir, shard, progress)
    report = BuildReport()
    with ExitStack() as scratch:
        checking = out_dir is None
        if out_dir is None:
            temp = scratch.enter_context(tempfile.TemporaryDirectory(prefix="errpages-check-"))
            out_dir, options = Path(temp) / "site", options.without_cache()
        report.diagnostics += preflight(content_root, out_dir, options.cache_dir)
        if report.failed():
            return report
        cache = cache_file(options.cache_dir, out_dir, options.key()) if options.cache_dir else None
        try:
            state = cache.with_suffix(".site") if cache else None
            with Publisher.held(out_dir, state, wait, waiting) as publisher:
                build_site(content_root, publisher, options, cache, report, checking)
        except ContentChanged as exc:
            report.diagnostics.append(exc.diagnostic("build again"))
        except OutputBusy as exc:
            hint = "wait for it to finish, or run without --no-wait"
            report.diagnostics.append(error(Position(display_path(out_dir)), "", str(exc), hint))
        except OSError as exc:  # the output's parent, the lock or a staged file cannot be written
            where = display_path(exc.filename) if exc.filename else display_path(out_dir)
            report.diagnostics.append(
                error(Position(where), "", f"cannot write the site: {exc.strerror or exc}")
            )
    return report


def build_site(
    content_root: Path,
    publisher: Publisher,
    options: BuildOptions,
    cache_path: Path | None,
    report: BuildReport,
    checking: bool,
) -> None:
    """The stages, once the output folder is held. `checking`: the build of `errpages
    check`, which says nothing of what only a published site needs."""
    with report.stage("list"):
        files = list_content(content_root)
    summary = read_summary(cache_path)
    if saw(summary, content_root, options, files.digest) and publisher.intact():
        assert summary is not None
        report.unchanged, report.diagnostics = True, list(summary.warnings)
        return
    # Imported only now: the renderers take longer to import than a build with nothing to do.
    from errpages import stages
    from errpages.content.config import no_base_url
    from errpages.memo.cache import load_cache
    from errpages.memo.memo import Memo
    from errpages.outputs.plan import plan_outputs
    from errpages.parallel import WorkerPool, collector_paused
    from errpages.render.templates import make_environment
    from errpages.render.themes import theme_layers

    code, folder = code_version(), shown_records_folder(content_root)
    with (
        collector_paused(),  # the site is hundreds of thousands of objects that stay
        WorkerPool(options.jobs, len(files.under("errors")[0])) as pool,
        closing(load_cache(cache_path, code, folder)) as cache,
    ):
        report.cache_refused = cache.refused
        with report.stage("load"):
            loaded = stages.load_records(content_root, files, cache, report)
        with report.stage("validate"):
            config, theme_dir, fresh = stages.validate_records(loaded, options, pool, report)
        with report.stage("link"):
            site = stages.link_site(loaded, fresh, config, cache, report)
        if site is None or theme_dir is None:
            return
        if not site.config.base_url and not checking:
            report.diagnostics.append(no_base_url(content_root))
        themes = theme_layers(theme_dir)
        theme = stages.Theme(theme_dir, make_environment(theme_dir))
        records = stages.record_entries(cache, loaded, fresh)
        versions = stages.record_versions(records, folder)
        shared = stages.shared_inputs(code, site.config, tree_fingerprint(themes, "theme"))
        memo = Memo(cache.made_with(shared))
        with report.stage("plan"):
            plan, problems = plan_outputs(
                site, theme.env, theme.folder, versions.__getitem__, memo.digests.of, options.shard
            )
            report.diagnostics += problems
        if report.failed(options.strict):
            return
        foreign = publisher.start()
        if foreign:
            report.diagnostics.append(not_ours(publisher.out_dir, foreign))
            return
        try:
            with report.stage("make"):
                outputs = stages.make_outputs(
                    plan, site, theme, memo, publisher, pool, report, options.progress
                )
            with report.stage("linkcheck"):
                report.diagnostics += stages.check_anchors(plan, memo, publisher)
            if report.failed(options.strict):
                publisher.discard()
                return
            with report.stage("publish"):
                report.cache_problem = publisher.publish(outputs)
        except BaseException:
            publisher.discard()
            raise
        report.written, report.dropped = True, publisher.dropped
        report.made, report.files_total = sorted(memo.made), len(outputs) + 1
        if cache_path is not None:
            inputs = inputs_fingerprint(content_root, options, files.digest, themes)
            warnings = tuple(report.diagnostics)
            themes_kept = tuple(map(str, themes))
            cache.remember(records, fresh, memo.current, shared, inputs, themes_kept, warnings)
            report.cache_problem = cache.save() or report.cache_problem


def preflight(content_root: Path, out_dir: Path, cache_dir: Path | None) -> list[Diagnostic]:
    """What must hold before anything is read: an output folder of errpages' own (or none
    yet), the content folder, and a cache folder outside the output."""
    problems = check_output_folder(out_dir)
    if not content_root.is_dir():
        return [*problems, content_folder_missing(content_root)]
    if cache_dir is not None:
        problems += check_cache_folder(cache_dir, out_dir)
    return problems


def check_cache_folder(cache_dir: Path, out_dir: Path) -> list[Diagnostic]:
    """The cache folder must be a folder we can make (it is made now, before anything else),
    and not inside the output folder, where it would be published. A link is left as it is:
    the build does without a cache (`load_cache`)."""
    if cache_dir.is_symlink():
        return []
    inside = cache_dir.resolve()
    if inside == out_dir.resolve() or out_dir.resolve() in inside.parents:
        return [
            error(
                Position(display_path(cache_dir)),
                "--cache-dir",
                f"the cache folder is inside the output folder {display_path(out_dir)}, "
                "which is published whole",
                "choose a cache folder outside the output folder",
            )
        ]
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return [
            error(
                Position(str(cache_dir)),
                "--cache-dir",
                f"cannot make the cache folder: {exc.strerror or exc}",
                "choose another folder with --cache-dir, or build with --no-cache",
            )
        ]
    return []
