"""Pin snippets to commits: find the raising line in a file at a commit and cut the snippet.

Pure functions over file text; git access and file writing live in the
commands (cli) and in git.py / recordfile.py.
"""

from __future__ import annotations

import difflib
import io
import posixpath
import tokenize
from dataclasses import dataclass

from errpages.content.config import read_config
from errpages.content.loader import LoadedContent
from errpages.content.schema import is_repo_path, snippet_hash
from errpages.diagnostics import Level, with_source_lines
from errpages.git.pyraises.model import RaiseSite, ScanSettings
from errpages.site.messages import canonical, message_parts
from errpages.site.model import Place

MAX_SNIPPET_LINES = 40
TEXT_CONTEXT = 12


class PinError(Exception):
    """The raise could not be found or read; the message says what to do."""


@dataclass(frozen=True)
class Pin:
    """A snippet cut from a file at a commit, with the raising line."""

    repo: str
    path: str
    commit: str
    line: int
    start_line: int
    text: str
    function: str = ""  # the class and function that raise
    conditions: tuple[str, ...] = ()  # what holds when it runs (RaiseSite.conditions)
    through: tuple[str, ...] = ()  # the helper and function its message goes through
    also_raised_at: tuple[Place, ...] = ()  # the other places raising the error

    def __post_init__(self) -> None:
        if not is_repo_path(self.path):  # it names the snippet file written under content/
            raise PinError(f"{self.path!r} is not a plain file path inside the repository")

    @property
    def end_line(self) -> int:
        return self.start_line + self.text.count("\n")

    def file_name(self) -> str:
        """Where the snippet file goes under content/snippets/."""
        stem, suffix = posixpath.splitext(self.path)
        return f"{self.repo}/{stem}.L{self.start_line}-{self.end_line}@{self.commit[:10]}{suffix}"

    def file_text(self) -> str:
        header = (
            f'---\nrepo: {self.repo}\npath: {self.path}\ncommit: "{self.commit}"\n'
            f"start_line: {self.start_line}\nsha256: {snippet_hash(self.text)}\n---\n"
        )
        return header + self.text + "\n"


def scan_settings(loaded: LoadedContent) -> ScanSettings:
    """site.yaml's settings of what a raise's message is; PinError naming the line when the
    settings are wrong."""
    config, problems = read_config(loaded.config)
    errors = [problem for problem in problems if problem.level is Level.ERROR]
    if errors:
        shown = with_source_lines(errors, loaded.texts)
        raise PinError("the site settings have errors:\n" + "\n".join(d.format() for d in shown))
    return ScanSettings(config.message_arguments, config.gettext_functions)


def decode_source(data: bytes, path: str) -> str:
    """File bytes as text, as Python reads a source file: UTF-8, or the encoding its
    `# -*- coding: latin-1 -*-` line names (old releases), its lines ending as Python reads
    them (CRLF and a lone CR as LF); binary files and bytes not in that encoding are
    refused."""
    if b"\0" in data[:8192]:
        raise PinError(f"{path} is a binary file")
    try:
        encoding = tokenize.detect_encoding(io.BytesIO(data).readline)[0]
    except SyntaxError as exc:  # not UTF-8 where a coding line would be, or an unknown one
        raise PinError(f"{path} is not UTF-8 text") from exc
    try:
        text = data.decode(encoding)
    except (UnicodeDecodeError, LookupError) as exc:  # LookupError: not a text encoding
        named = "UTF-8" if encoding.startswith("utf-8") else encoding
        raise PinError(f"{path} is not {named} text") from exc
    return text.replace("\r\n", "\n").replace("\r", "\n")


def source_lines(source: str) -> list[str]:
    """A file's lines, without the empty string after its final newline."""
    lines = source.split("\n")
    return lines[:-1] if source.endswith("\n") else lines


def same_exception(record_exception: str, site_exception: str) -> bool:
    return record_exception.rsplit(".", 1)[-1] == site_exception


def matching_sites(sites: list[RaiseSite], exception: str, message: str) -> list[RaiseSite]:
    """Sites raising this message template; those raising the same exception first."""
    wanted = canonical(message)
    found = [site for site in sites if canonical(site.template) == wanted]
    return sorted(found, key=lambda site: not same_exception(exception, site.exception))


def closest_sites(sites: list[RaiseSite], message: str, count: int = 3) -> list[RaiseSite]:
    wanted = canonical(message)
    scored = [
        (difflib.SequenceMatcher(None, wanted, canonical(site.template)).ratio(), site)
        for site in sites
    ]
    scored.sort(key=lambda item: (-item[0], item[1].line))
    return [site for ratio, site in scored[:count] if ratio > 0.3]


def describe(sites: list[RaiseSite], path: str) -> str:
    if not sites:
        return "no raise in the file looks like it"
    return "closest: " + "; ".join(f"{path}:{s.line} {s.exception}({s.template!r})" for s in sites)


def snippet_span(lines: list[str], site: RaiseSite, context: int | None) -> tuple[int, int]:
    """Lines to show (1-based, inclusive), whole statements only.

    With `context`, that many lines either side. Else the function the raise is in, when
    it has at most 40 lines; else the largest statement around the raise that does (inside
    that function), with whole statements before and after it in the same body, one at a
    time, first before, while the snippet stays within 40 lines.
    """
    if context is not None:
        return max(1, site.line - context), min(len(lines), site.end_line + context)
    if site.function is not None and size(site.function) <= MAX_SNIPPET_LINES:
        return site.function
    chosen: tuple[int, int] = (site.line, site.end_line)
    siblings: tuple[tuple[int, int], ...] = (chosen,)
    for body in site.bodies:  # innermost first
        around = next((span for span in body if span[0] <= site.line <= span[1]), None)
        if around is None or size(around) > MAX_SNIPPET_LINES:
            break
        chosen, siblings = around, body
    if size(chosen) > MAX_SNIPPET_LINES:  # a raise longer than a snippet: its first lines
        return chosen[0], chosen[0] + MAX_SNIPPET_LINES - 1
    first = last = siblings.index(chosen)
    start, end = chosen
    widened = True
    while widened:
        widened = False
        if first > 0 and end - siblings[first - 1][0] + 1 <= MAX_SNIPPET_LINES:
            first -= 1
            start, widened = siblings[first][0], True
        if last + 1 < len(siblings) and siblings[last + 1][1] - start + 1 <= MAX_SNIPPET_LINES:
            last += 1
            end, widened = siblings[last][1], True
    return start, end


def size(span: tuple[int, int]) -> int:
    return span[1] - span[0] + 1


def text_site(lines: list[str], message: str, hint: int | None) -> RaiseSite | None:
    """For files we cannot parse: the line holding the message's longest literal run."""
    literals = [p.text.strip() for p in message_parts(message) if not p.is_placeholder]
    longest = max(literals, key=len, default="")
    probe = longest[:40]
    if not probe:
        return None
    found = [number for number, text in enumerate(lines, 1) if probe in text]
    if not found:
        return None
    line = min(found, key=lambda n: abs(n - hint)) if hint else found[0]
    return RaiseSite(line=line, end_line=line, exception="", template=message)


def find_raise(
    lines: list[str],
    sites: tuple[RaiseSite, ...] | None,
    path: str,
    exception: str,
    message: str,
    hint: int | None,
) -> RaiseSite:
    """The raise of this message in the file (`sites`: its raises; None for a file that is
    not Python): at `hint` when it is still there, else the nearest."""
    if sites is None:
        site = text_site(lines, message, hint)
        if site is None:
            raise PinError(f"message not found in {path}")
        return site
    found = matching_sites(list(sites), exception, message)
    if not found:
        closest = closest_sites(list(sites), message)
        raise PinError(f"message not found in {path}; {describe(closest, path)}")
    at_hint = [s for s in found if hint is not None and s.line <= hint <= s.end_line]
    if at_hint:
        return at_hint[0]
    return min(found, key=lambda s: (abs(s.line - hint) if hint else 0, s.line))


def cut_pin(
    repo: str,
    commit: str,
    path: str,
    lines: list[str],
    sites: tuple[RaiseSite, ...] | None,
    exception: str,
    message: str,
    hint: int | None,
    context: int | None,
) -> Pin:
    """Find the raise and cut its snippet, keeping the file's own line numbers."""
    site = find_raise(lines, sites, path, exception, message, hint)
    if site.bodies or context is not None:
        span = snippet_span(lines, site, context)
    else:
        span = max(1, site.line - TEXT_CONTEXT), min(len(lines), site.end_line + TEXT_CONTEXT)
    return site_pin(repo, path, commit, lines, site, span)


def site_pin(
    repo: str, path: str, commit: str, lines: list[str], site: RaiseSite, span: tuple[int, int]
) -> Pin:
    """The pin of a raise, its snippet the lines of `span`."""
    start, end = span
    text = "\n".join(lines[start - 1 : end])
    return Pin(
        repo, path, commit, site.line, start, text, site.raised_in, site.conditions, site.through
    )
