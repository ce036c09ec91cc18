"""Showing text that came from a file or a user: made safe for the medium it goes to.

A log's `edition`, a data file's `name`, a fuzz report's `backend` or a file name may hold
anything. On a terminal an escape sequence would clear the screen or retitle the window; in
SVG/XML a control character makes the document malformed; in matplotlib a `$` starts
mathtext. Each function here turns such characters into visible escapes (`\\x1b`, `\\u202e`),
so the text stays readable and cannot act.
"""

from __future__ import annotations

import re

_TERMINAL_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]"
)
"""Control characters (all but newline and tab), line and paragraph separators, the
bidirectional overrides (which reorder what follows) and lone surrogates."""

_XML_UNSAFE = re.compile("[^\t\n\r\x20-\x7e\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
"""What XML 1.0 does not allow (or discourages: C1 controls), even escaped as an entity."""


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def for_terminal(text: str) -> str:
    """`text` with every control character (except newline and tab), bidirectional override
    and lone surrogate replaced by a visible escape."""
    return _TERMINAL_UNSAFE.sub(_visible, text)


def for_xml(text: str) -> str:
    """`text` with every character XML 1.0 does not allow replaced by a visible escape (the
    caller still escapes `<`, `&` and quotes, e.g. with `xml.sax.saxutils.escape`)."""
    return _TERMINAL_UNSAFE.sub(_visible, _XML_UNSAFE.sub(_visible, text))


def for_plot(text: str) -> str:
    """`text` for a matplotlib label: `for_xml`, and `$` escaped so it is not mathtext."""
    return for_xml(text).replace("$", r"\$")


_RUNS_OF_DIGITS = re.compile(r"(\d+)")


def natural_key(text: str) -> tuple[tuple[int, int, str], ...]:
    """A sort key ordering numbers inside names by value: "1a-x" < "2-x" < "11-x" (a plain
    sort puts "11-x" first). Each run of digits compares as a number, the rest as text."""
    return tuple(
        (0, int(part), "") if part.isdigit() else (1, 0, part)
        for part in _RUNS_OF_DIGITS.split(text)
        if part
    )
