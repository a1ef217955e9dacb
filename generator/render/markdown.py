"""The configured Markdown renderer: CommonMark, no raw HTML, safe links, highlighted fences."""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any
from urllib.parse import unquote

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

from errpages.render.highlight import highlight_block
from errpages.reveal import reveal_text

SAFE_SCHEMES = ("http", "https", "mailto")
SCHEME_RE = re.compile(r"^([a-z][a-z0-9+.\-]*):")
# Browsers ignore these inside a scheme, so `java\tscript:` is still javascript:.
IGNORED_IN_SCHEME_RE = re.compile(r"[\x00-\x20\x7f]+")
HEADING_SHIFT = 2
TAG_RE = re.compile(r"<[^>]+>")
INLINE_TAG_RE = re.compile(
    r"</?(?:a|code|em|strong|s|span)(?:\s[^>]*)?>"
)  # record Markdown sits under the page's h2 sections


def is_safe_url(url: str) -> bool:
    """Allow relative URLs, fragments and http(s)/mailto; refuse every other scheme."""
    cleaned = IGNORED_IN_SCHEME_RE.sub("", unquote(url)).lower()
    match = SCHEME_RE.match(cleaned)
    return match is None or match.group(1) in SAFE_SCHEMES


def _shift_headings(state: Any) -> None:
    for token in state.tokens:
        if token.type in ("heading_open", "heading_close"):
            level = min(int(token.tag[1]) + HEADING_SHIFT, 6)
            token.tag = f"h{level}"


def _mark_external_links(state: Any) -> None:
    for block in state.tokens:
        for token in block.children or []:
            if token.type == "link_open" and str(token.attrGet("href") or "").startswith("http"):
                token.attrSet("rel", "nofollow noopener noreferrer")


def _render_fence(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    token = tokens[idx]
    language = token.info.strip().split(maxsplit=1)[0] if token.info.strip() else "text"
    return highlight_block(token.content, language) + "\n"


class SafeMarkdownIt(MarkdownIt):
    """markdown-it with our link policy: relative, http(s) and mailto only."""

    def validateLink(self, url: str) -> bool:
        return is_safe_url(url)


@lru_cache(maxsize=1)
def markdown_renderer() -> MarkdownIt:
    """Build the one Markdown renderer every field goes through."""
    md = SafeMarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable(["table", "strikethrough"])
    # Images would fetch from wherever the record points; the site loads nothing remote.
    md.disable("image")
    md.core.ruler.push("shift_headings", _shift_headings)
    md.core.ruler.push("external_links", _mark_external_links)
    md.add_render_rule("fence", _render_fence)
    md.add_render_rule("code_block", _render_fence)
    return md


def render_markdown(text: str) -> str:
    """Render record Markdown to HTML; raw HTML in the text comes out escaped."""
    return str(markdown_renderer().render(reveal_text(text)))


def plain_text(text: str) -> str:
    """Markdown as plain text: rendered, tags dropped, entities decoded, spaces folded."""
    return text_of_html(render_markdown(text))


def text_of_html(rendered: str) -> str:
    """The text of HTML we rendered: inline tags dropped, block tags as spaces, entities decoded."""
    inline_dropped = INLINE_TAG_RE.sub("", rendered)
    return " ".join(html.unescape(TAG_RE.sub(" ", inline_dropped)).split())


def render_markdown_inline(text: str) -> str:
    """Render a one-line Markdown item without wrapping it in a paragraph."""
    return str(markdown_renderer().renderInline(reveal_text(text)))


# A block of text for a terminal: [depth, marker, text]. The marker starts its first line
# ("- ", "2. "); CODE marks a code block, shown as it is; other text is wrapped to the width.
TerminalBlock = list[Any]
CODE = "code"


def terminal_blocks(text: str) -> list[TerminalBlock]:
    """Record Markdown as blocks for a terminal: no markup, links as `text <url>`, lists
    marked and nested, code kept line for line; hidden characters shown as markers."""
    blocks: list[TerminalBlock] = []
    lists: list[list[Any]] = []  # per open list: [ordered, the next item's marker or ""]
    depth = 0
    in_row = False  # a table row: its cells are one block, joined with " | "
    for token in markdown_renderer().parse(reveal_text(text)):
        if token.type in ("bullet_list_open", "ordered_list_open"):
            lists.append([token.type == "ordered_list_open", ""])
        elif token.type in ("bullet_list_close", "ordered_list_close"):
            lists.pop()
        elif token.type == "list_item_open":
            lists[-1][1] = f"{token.info}. " if lists[-1][0] else "- "
            depth += 1
        elif token.type == "list_item_close":
            depth -= 1
        elif token.type == "blockquote_open":
            depth += 1
        elif token.type == "blockquote_close":
            depth -= 1
        elif token.type in ("fence", "code_block"):
            blocks.append([depth, CODE, token.content.rstrip("\n")])
        elif token.type == "hr":
            blocks.append([depth, "", "----"])
        elif token.type == "inline":
            marker = ""
            if lists and lists[-1][1]:
                marker, lists[-1][1] = lists[-1][1], ""
            line = inline_text(token.children or [])
            if in_row:
                blocks[-1][2] += (" | " if blocks[-1][2] else "") + line
            else:
                blocks.append([max(depth - 1, 0) if marker else depth, marker, line])
        elif token.type in ("tr_open", "tr_close"):
            in_row = token.type == "tr_open"
            if in_row:
                blocks.append([depth, "", ""])
    return [block for block in blocks if block[2] or block[1] == CODE]


def inline_text(children: Sequence[Token]) -> str:
    """An inline run's text: code in backticks, a link's address after its text."""
    parts: list[str] = []
    href = ""
    start = 0
    for child in children:
        if child.type == "text":
            parts.append(child.content)
        elif child.type == "code_inline":
            parts.append(f"`{child.content}`")
        elif child.type == "softbreak":
            parts.append(" ")
        elif child.type == "hardbreak":
            parts.append("\n")
        elif child.type == "link_open":
            href, start = str(child.attrGet("href") or ""), len(parts)
        elif child.type == "link_close" and href:
            if "".join(parts[start:]) != href:
                parts.append(f" <{href}>")
            href = ""
    return "".join(parts)
