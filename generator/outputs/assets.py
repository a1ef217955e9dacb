"""Theme assets: the theme's static files and the generated Pygments CSS."""

from __future__ import annotations

from pathlib import Path

from errpages.outputs import OutputFile
from errpages.render.highlight import pygments_css
from errpages.render.themes import theme_files
from errpages.site import urls


def asset_files(theme_dir: Path) -> list[OutputFile]:
    """Copy the theme's static files (over the default's) to assets/, plus the Pygments CSS."""
    files = [
        OutputFile(f"assets/{name}", path.read_bytes(), f"theme {path}")
        for name, path in theme_files(theme_dir, "static").items()
    ]
    files.append(OutputFile(urls.PYGMENTS_CSS, pygments_css().encode(), "Pygments styles"))
    return files
