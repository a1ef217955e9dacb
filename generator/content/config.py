"""Read content/site.yaml into SiteConfig."""

from __future__ import annotations

import re
from dataclasses import fields
from pathlib import Path

from errpages.content.listing import display_path
from errpages.diagnostics import Diagnostic, Position, did_you_mean, warning
from errpages.site.model import SiteConfig
from errpages.site.urls import URL_RE
from errpages.content.schema import REPO_RE, FieldReader
from errpages.content.yamldoc import YamlDocument

SOURCE_FIELDS = ("repo", "commit", "path", "line", "start", "end")
# Source hosts by name: (link template, name shown in "View on …").
SOURCE_HOSTS = {
    "github": ("https://github.com/{repo}/blob/{commit}/{path}#L{line}", "GitHub"),
    "gitlab": ("https://gitlab.com/{repo}/-/blob/{commit}/{path}#L{line}", "GitLab"),
    "bitbucket": ("https://bitbucket.org/{repo}/src/{commit}/{path}#lines-{line}", "Bitbucket"),
    "codeberg": ("https://codeberg.org/{repo}/src/commit/{commit}/{path}#L{line}", "Codeberg"),
}
REPO_KEYS = ("source_url", "source_host")
REPORT_FIELDS = ("repo", "id", "title", "url", "body", "exception", "message")


def normalise_base_url(url: str) -> str:
    """Return the base URL with exactly one trailing slash ('' stays '')."""
    return url.rstrip("/") + "/" if url else ""


def check_template(
    reader: FieldReader, key_path: tuple[str, ...], template: str | None, allowed: tuple[str, ...]
) -> None:
    if template is None:
        return
    if not URL_RE.fullmatch(template.replace("{", "").replace("}", "")):
        reader.fail(key_path, "expected an http(s) URL template")
    for name in re.findall(r"\{([^{}]*)\}", template):
        if name not in allowed:
            reader.fail(
                key_path,
                f"unknown placeholder {{{name}}} (expected one of "
                f"{', '.join('{' + a + '}' for a in allowed)})",
            )


def read_source(
    reader: FieldReader, key_path: tuple[str, ...], default_host: str
) -> tuple[str | None, str | None]:
    """A source_url setting: a host name from SOURCE_HOSTS, or a URL template."""
    value = reader.string((*key_path, "source_url"), False, expected="a host name or URL template")
    host = reader.string((*key_path, "source_host"), False, expected="the source host's name")
    if value is None:
        return None, host
    if value.lower() in SOURCE_HOSTS:
        template, name = SOURCE_HOSTS[value.lower()]
        return template, host or name
    if "://" not in value:
        reader.fail(
            (*key_path, "source_url"),
            f"unknown source host {value!r} (expected {', '.join(SOURCE_HOSTS)} or a URL template)",
            did_you_mean(value.lower(), SOURCE_HOSTS),
        )
        return None, host
    check_template(reader, (*key_path, "source_url"), value, SOURCE_FIELDS)
    return value, host or default_host


def read_repos(reader: FieldReader, config_host: str) -> tuple[tuple[str, str, str], ...]:
    """Per-repository source settings: (repo, link template, host name)."""
    repos = reader.mapping(("repos",), False)
    if repos is None:
        return ()
    result = []
    for repo in repos:
        if not REPO_RE.fullmatch(repo):
            reader.fail(("repos", repo), f"{repo!r} is not owner/name", at_key=True)
            continue
        if reader.mapping(("repos", repo), True) is None:
            continue
        reader.check_keys(("repos", repo), REPO_KEYS)
        template, host = read_source(reader, ("repos", repo), config_host)
        if template is None:
            reader.fail(("repos", repo), "expected source_url (a host name or URL template)")
            continue
        result.append((repo, template, host or config_host))
    return tuple(result)


IDENTIFIER_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def read_message_arguments(reader: FieldReader) -> tuple[tuple[str, int | str], ...]:
    """`message_arguments`: exception class -> the argument holding its message (a position
    from 0, or a keyword), for `scan`, `pin` and `drift`."""
    classes = reader.mapping(("message_arguments",), False)
    if classes is None:
        return ()
    found: list[tuple[str, int | str]] = []
    for name, argument in classes.items():
        key_path = ("message_arguments", name)
        if not isinstance(name, str) or not IDENTIFIER_RE.fullmatch(name):
            reader.fail(key_path, f"{name!r} is not a class name", at_key=True)
        elif isinstance(argument, int) and not isinstance(argument, bool) and argument >= 0:
            found.append((name, argument))
        elif isinstance(argument, str) and IDENTIFIER_RE.fullmatch(argument):
            found.append((name, argument))
        else:
            reader.fail(
                key_path,
                f"{argument!r} is not an argument (expected a position from 0, or a keyword "
                "name such as `message`)",
            )
    return tuple(found)


def read_gettext_functions(reader: FieldReader) -> tuple[str, ...]:
    """`gettext_functions`: more names of functions that mark a message for translation
    (`_`, `gettext`, `ngettext`, `pgettext`, `lazy_gettext` and their kin are known)."""
    return reader.string_list(("gettext_functions",), False, IDENTIFIER_RE, "function names")


def read_config(document: YamlDocument | None) -> tuple[SiteConfig, list[Diagnostic]]:
    """Turn site.yaml into settings; a missing file means the defaults."""
    if document is None or document.data is None:
        return SiteConfig(), []
    reader = FieldReader(document)
    if not isinstance(document.data, dict):
        reader.fail((), "site.yaml must be a mapping of settings")
        return SiteConfig(), reader.diagnostics
    # Set by the build, not by site.yaml.
    known = tuple(
        f.name for f in fields(SiteConfig) if f.name not in ("build_date", "include_drafts")
    )
    reader.check_keys((), known)
    defaults = SiteConfig()
    title = reader.string(("title",), False, expected="the site's title")
    description = reader.string(("description",), False, expected="one sentence", allow_empty=True)
    base_url = reader.string(("base_url",), False, URL_RE, "an http(s) URL", allow_empty=True)
    source_url, source_host = read_source(reader, (), defaults.source_host)
    report_url = reader.string(("report_url",), False, expected="a URL template")
    check_template(reader, ("report_url",), report_url, REPORT_FIELDS)
    repos = read_repos(reader, source_host or defaults.source_host)
    report_host = reader.string(("report_host",), False, expected="the tracker's name")
    theme = reader.string(("theme",), False, expected="a theme name or folder")
    recent = reader.integer(("recent_count",), False)
    feed_count = reader.integer(("feed_count",), False)
    message_arguments = read_message_arguments(reader)
    gettext_functions = read_gettext_functions(reader)
    config = SiteConfig(
        title=title or defaults.title,
        description=description or "",
        base_url=normalise_base_url(base_url or ""),
        source_url=source_url or defaults.source_url,
        source_host=source_host or defaults.source_host,
        report_url=report_url or defaults.report_url,
        report_host=report_host or defaults.report_host,
        theme=theme or defaults.theme,
        recent_count=recent or defaults.recent_count,
        feed_count=feed_count or defaults.feed_count,
        repos=repos,
        message_arguments=message_arguments,
        gettext_functions=gettext_functions,
    )
    return config, reader.diagnostics


def no_base_url(content_root: Path) -> Diagnostic:
    """What a build without a public address leaves out, said where it is set."""
    settings = content_root / "site.yaml"
    shown = display_path(settings)
    where = shown if settings.is_file() else display_path(content_root)
    how = f"add `base_url: https://…/` to {shown}" + ("" if settings.is_file() else " (a new file)")
    return warning(
        Position(where),
        "base_url",
        "not set: sitemap.xml, robots.txt and feed.xml need absolute URLs and were not "
        "written, and pages carry no canonical link",
        f"{how}, or pass --base-url",
    )
