"""Themes: the default theme, and user themes that override some of its files.

A user theme is a folder with any of `templates/` and `static/`. Each file it
has replaces the default theme's file of the same name; every other file comes
from the default theme. `errpages theme eject` copies the default theme out to
start from.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from errpages.content.listing import display_path
from errpages.diagnostics import Diagnostic, Position, error
from errpages.site.model import SiteConfig

# Installed, the default theme lives inside the package; in the repository, in themes/.
PACKAGE = Path(__file__).resolve().parent.parent  # errpages/ (generator/ in the repository)
PACKAGED_THEMES = PACKAGE / "themes"
BUILTIN_THEMES = (
    PACKAGED_THEMES if (PACKAGED_THEMES / "default").is_dir() else PACKAGE.parent / "themes"
)
DEFAULT_THEME = BUILTIN_THEMES / "default"


def theme_layers(theme_dir: Path) -> list[Path]:
    """The folders a theme's files come from, most specific first."""
    if theme_dir.resolve() == DEFAULT_THEME.resolve():
        return [theme_dir]
    return [theme_dir, DEFAULT_THEME]


def theme_files(theme_dir: Path, part: str) -> dict[str, Path]:
    """Every file under `part` (templates or static) by relative name, overrides applied."""
    files: dict[str, Path] = {}
    for layer in reversed(theme_layers(theme_dir)):
        folder = layer / part
        if folder.is_dir():
            for path in sorted(folder.rglob("*")):
                if path.is_file():
                    files[path.relative_to(folder).as_posix()] = path
    return dict(sorted(files.items()))


def eject_theme(target: Path, force: bool = False) -> list[Path]:
    """Copy the default theme to target; an existing folder is kept unless forced."""
    if target.exists() and any(target.iterdir()) and not force:
        raise FileExistsError(str(target))
    copied = []
    for part in ("templates", "static"):
        for name, source in theme_files(DEFAULT_THEME, part).items():
            destination = target / part / name
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, destination)
            copied.append(destination)
    return copied


def find_theme(config: SiteConfig, content_root: Path) -> tuple[Path | None, list[Diagnostic]]:
    """Resolve the theme setting: a built-in theme name, or a folder beside content/."""
    candidates = [BUILTIN_THEMES / config.theme] if "/" not in config.theme else []
    candidates.append((content_root.parent / config.theme).resolve())
    for candidate in candidates:
        if (candidate / "templates").is_dir() or (candidate / "static").is_dir():
            return candidate, []
    where = Position(display_path(content_root / "site.yaml"))
    return None, [
        error(
            where,
            "theme",
            f"no theme {config.theme!r} (expected a folder with templates/ or static/ "
            "beside the content folder, or the name of a built-in theme such as 'default')",
        )
    ]
