"""Show invisible and direction-changing characters instead of letting them act.

A right-to-left override or a zero-width space in a message or snippet can
make text read differently from what it is (the "Trojan Source" trick). The
site shows each such character as a visible marker: `[U+202E]` in plain
text and attributes, a marked-up span in HTML.
"""

from __future__ import annotations

import re
import unicodedata

from markupsafe import Markup

# Direction controls, zero-width characters and other invisible format characters; control
# characters but tab, newline and return (ESC, NUL: a page or feed cannot show or hold them);
# U+FFFE and U+FFFF, which are not characters.
HIDDEN_RE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u2069\ufeff\u2028\u2029\ufffe\uffff]"
)
EMOJI_JOINER = "\u200d"


def _is_emoji_joiner(text: str, index: int) -> bool:
    """A zero-width joiner between two pictographs is part of an emoji sequence, not a trick."""
    if text[index] != EMOJI_JOINER or index == 0 or index + 1 >= len(text):
        return False

    def pictograph(char: str) -> bool:
        return unicodedata.category(char) == "So" or char == "\ufe0f"

    return pictograph(text[index - 1]) and pictograph(text[index + 1])


def _name(char: str) -> str:
    fallback = "CONTROL CHARACTER" if unicodedata.category(char) == "Cc" else "FORMAT CHARACTER"
    return f"U+{ord(char):04X} {unicodedata.name(char, fallback)}"


def reveal_text(text: str) -> str:
    """Replace hidden characters with `[U+XXXX]` in plain text."""
    if text.isprintable() or not HIDDEN_RE.search(text):  # hidden ones are all unprintable
        return text
    return HIDDEN_RE.sub(
        lambda m: m.group(0) if _is_emoji_joiner(text, m.start()) else f"[U+{ord(m.group(0)):04X}]",
        text,
    )


def reveal_html(html: str) -> str:
    """Replace hidden characters in HTML text (never inside tags) with visible spans."""
    if html.isprintable() or not HIDDEN_RE.search(html):
        return html

    def marker(match: re.Match[str]) -> str:
        char = match.group(0)
        if _is_emoji_joiner(html, match.start()):
            return char
        code = f"U+{ord(char):04X}"
        return f'<span class="hidden-char" title="{_name(char)}">[{code}]</span>'

    return HIDDEN_RE.sub(marker, html)


def finalize(value: object) -> object:
    """Jinja's finalize hook: plain strings get their hidden characters revealed."""
    if isinstance(value, str) and not isinstance(value, Markup):
        return reveal_text(value)
    return value
