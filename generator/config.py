"""Read content/site.yaml into SiteConfig."""

from __future__ import annotations

import re
from dataclasses import fields

from generator.diagnostics import Diagnostic
from generator.model import SiteConfig
from generator.schema import FieldReader
from generator.yamldoc import YamlDocument

URL_RE = re.compile(r"^https?://[^\s<>\"']+$")
SOURCE_FIELDS = ("repo", "commit", "path", "line")
REPORT_FIELDS = ("repo", "id", "title", "url", "body", "exception", "message")


def normalise_base_url(url: str) -> str:
    """Return the base URL with exactly one trailing slash ('' stays '')."""
    return url.rstrip("/") + "/" if url else ""


def check_template(
    reader: FieldReader, key: str, template: str | None, allowed: tuple[str, ...]
) -> None:
    if template is None:
        return
    if not URL_RE.match(template.replace("{", "").replace("}", "")):
        reader.fail((key,), "expected an http(s) URL template")
    for name in re.findall(r"\{([^{}]*)\}", template):
        if name not in allowed:
            reader.fail(
                (key,),
                f"unknown placeholder {{{name}}} (expected one of "
                f"{', '.join('{' + a + '}' for a in allowed)})",
            )


def read_config(document: YamlDocument | None) -> tuple[SiteConfig, list[Diagnostic]]:
    """Turn site.yaml into settings; a missing file means the defaults."""
    if document is None or document.data is None:
        return SiteConfig(), []
    reader = FieldReader(document)
    if not isinstance(document.data, dict):
        reader.fail((), "site.yaml must be a mapping of settings")
        return SiteConfig(), reader.diagnostics
    known = tuple(f.name for f in fields(SiteConfig))
    reader.check_keys((), known)
    defaults = SiteConfig()
    title = reader.string(("title",), False, expected="the site's title")
    description = reader.string(("description",), False, expected="one sentence", allow_empty=True)
    base_url = reader.string(("base_url",), False, URL_RE, "an http(s) URL", allow_empty=True)
    source_url = reader.string(("source_url",), False, expected="a URL template")
    check_template(reader, "source_url", source_url, SOURCE_FIELDS)
    report_url = reader.string(("report_url",), False, expected="a URL template")
    check_template(reader, "report_url", report_url, REPORT_FIELDS)
    source_host = reader.string(("source_host",), False, expected="the source host's name")
    report_host = reader.string(("report_host",), False, expected="the tracker's name")
    theme = reader.string(("theme",), False, expected="a theme name or folder")
    recent = reader.integer(("recent_count",), False)
    feed_count = reader.integer(("feed_count",), False)
    if reader.lookup(("build_date",))[0]:
        reader.fail(
            ("build_date",), "build_date is set from SOURCE_DATE_EPOCH, not site.yaml", at_key=True
        )
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
    )
    return config, reader.diagnostics
