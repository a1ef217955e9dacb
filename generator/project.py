"""A project's own settings: `[tool.errpages]` in the nearest pyproject.toml that has one.

Found from the working folder upwards, as ruff finds `[tool.ruff]`, so every command works
from any folder of the project. Each setting is the default of the command-line option of
the same name in every command that has one; an option given on the command line wins.
Folders are read relative to the pyproject.toml that names them.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

# Setting → (the option's parameter name, what its value must be).
SETTINGS: dict[str, tuple[str, type]] = {
    "content": ("content", Path),
    "out": ("out", Path),
    "base-url": ("base_url", str),
    "cache-dir": ("cache_dir", Path),
    "strict": ("strict", bool),
    "drafts": ("drafts", bool),
    "jobs": ("jobs", int),
    "repo-dir": ("repo_dir", Path),
    "repo": ("repo", str),
    "tags": ("patterns", list),
}
FOLDER_SETTINGS = {name for name, kind in SETTINGS.values() if kind is Path}
KINDS: dict[type | str, str] = {
    Path: "a folder (a string)",
    str: "a string",
    bool: "true or false",
    int: "an integer",
    "base-url": "an http(s) URL",
    "repo": "owner/name",
    list: "a string or a list of strings",
}
MAX_PYPROJECT_BYTES = 1 << 20


class ProjectError(Exception):
    """pyproject.toml cannot be read as errpages settings; the text says where and why."""


@dataclass(frozen=True)
class ProjectSettings:
    """The settings of one pyproject.toml, as option defaults by parameter name."""

    path: Path
    defaults: dict[str, Any]

    def folder(self, relative: Path) -> Path:
        """A folder named relative to the project's folder (where pyproject.toml is)."""
        return nearby(self.path.parent / relative)


def line_of(text: str, key: str) -> int:
    """The line of `key = ...` in the file, for the messages (1 when it cannot be told)."""
    match = re.search(rf'^[ \t]*"?{re.escape(key)}"?[ \t]*=', text, re.MULTILINE)
    return text.count("\n", 0, match.start()) + 1 if match else 1


def read_settings(path: Path) -> ProjectSettings | None:
    """The [tool.errpages] table of one pyproject.toml, checked and resolved; None without."""
    shown = str(nearby(path))
    try:
        with path.open("rb") as file:
            data = file.read(MAX_PYPROJECT_BYTES + 1)
    except OSError as exc:
        raise ProjectError(f"{shown}: cannot be read ({exc.strerror})") from None
    if b"errpages" not in data:
        return None  # most projects' files: not worth parsing
    if len(data) > MAX_PYPROJECT_BYTES:
        raise ProjectError(f"{shown}: larger than {MAX_PYPROJECT_BYTES} bytes")
    text = data.decode("utf-8", "replace")
    try:
        tool = tomllib.loads(text).get("tool")
    except tomllib.TOMLDecodeError as exc:
        raise ProjectError(f"{shown}: not valid TOML: {exc}") from None
    table = tool.get("errpages") if isinstance(tool, dict) else None
    if table is None:
        return None
    if not isinstance(table, dict):
        raise ProjectError(f"{shown}:{line_of(text, 'errpages')}: [tool.errpages] must be a table")
    given: dict[str, Any] = table
    defaults: dict[str, Any] = {}
    for key, value in given.items():
        where = f"{shown}:{line_of(text, key)}: [tool.errpages]"
        if key not in SETTINGS:
            known = ", ".join(SETTINGS)
            raise ProjectError(f"{where} has no setting {key!r} (the settings: {known})")
        name, kind = SETTINGS[key]
        if not is_a(value, kind):
            raise ProjectError(f"{where} {key}: expected {KINDS[kind]}, got {value!r}")
        if key in ("base-url", "repo") and not value_pattern(key).fullmatch(value):
            raise ProjectError(f"{where} {key}: {value!r} is not {KINDS[key]}")
        if kind is Path:
            value = nearby(path.parent / value)
        elif kind is list and isinstance(value, str):
            value = [value]  # `tags = "rel_*"`, one of a list
        defaults[name] = value
    return ProjectSettings(path, defaults)


def is_a(value: Any, kind: type) -> bool:
    """TOML's value of a setting's kind (a folder is a string; true is not an integer; a
    list is of strings, or one string)."""
    if kind is list:
        return type(value) is str or (type(value) is list and all(type(v) is str for v in value))
    return type(value) is (str if kind is Path else kind)


def value_pattern(key: str) -> re.Pattern[str]:
    """What a base URL or a repository's owner/name must be: the same as on the command line."""
    if key == "base-url":
        from errpages.site.urls import URL_RE

        return URL_RE
    from errpages.content.schema import REPO_RE

    return REPO_RE


def nearby(folder: Path) -> Path:
    """A folder as the user would name it: relative to the working folder when inside it."""
    absolute = Path(os.path.abspath(folder))
    try:
        return absolute.relative_to(Path.cwd())
    except ValueError:
        return absolute


def project_settings() -> ProjectSettings | None:
    """The settings for a command run in the working folder: those of the nearest
    pyproject.toml with a [tool.errpages] table, None when there is none."""
    cwd = Path.cwd()
    for folder in (cwd, *cwd.parents):
        candidate = folder / "pyproject.toml"
        settings = read_settings(candidate) if candidate.is_file() else None
        if settings is not None:
            return settings
    return None
