"""Theme assets: the theme's static files and the generated Pygments CSS."""

from __future__ import annotations

from pathlib import Path

from generator import urls
from generator.highlight import pygments_css
from generator.outputs import OutputFile


def asset_files(theme_dir: Path) -> list[OutputFile]:
    """Copy every file under the theme's static/ to assets/, plus the highlighting CSS."""
    static = theme_dir / "static"
    files = [
        OutputFile(
            "assets/" + path.relative_to(static).as_posix(), path.read_bytes(), f"theme {path}"
        )
        for path in sorted(static.rglob("*"))
        if path.is_file()
    ]
    files.append(OutputFile(urls.PYGMENTS_CSS, pygments_css().encode(), "Pygments styles"))
    return files
