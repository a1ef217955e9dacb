"""Themes: the default theme, and user themes that override some of its files.

A user theme is a folder with any of `templates/` and `static/`. Each file it
has replaces the default theme's file of the same name; every other file comes
from the default theme. `errpages theme eject` copies the default theme out to
start from.
"""

from __future__ import annotations

import shutil
from pathlib import Path

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
