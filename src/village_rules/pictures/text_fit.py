"""Text that fits its box: widths of DejaVu Sans (the font the pictures ask for) and a
fitter that shrinks, wraps or abbreviates a label until it is no wider than its box.

The widths are the fonts' own advance widths (thousandths of an em, printable ASCII and
the ellipsis), printed by `scripts/font_widths.py` from DejaVuSans.ttf and
DejaVuSans-Bold.ttf; any other character counts as a full em (1.1 em bold), wider than
almost every glyph, so an estimate errs on the safe side. Kerning is ignored (DejaVu's
pairs change a label's width by well under 1%, and the fitter leaves a margin).
The tests measure every fitted label with the real font (Pillow) against its box.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

_FIRST = 32
_ELLIPSIS = "\u2026"

# fmt: off
_REGULAR: tuple[int, ...] = (
    318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337,
    636, 636, 636, 636, 636, 636, 636, 636, 636, 636, 337, 337, 838, 838, 838, 531,
    1000, 684, 686, 698, 770, 632, 575, 775, 752, 295, 295, 656, 557, 863, 748, 787,
    603, 787, 695, 635, 611, 732, 684, 989, 685, 611, 685, 390, 337, 390, 838, 500,
    500, 613, 635, 550, 635, 615, 352, 635, 634, 278, 278, 579, 278, 974, 634, 612,
    635, 635, 411, 521, 392, 634, 592, 818, 592, 592, 525, 636, 337, 636, 838, 1000,
)
_BOLD: tuple[int, ...] = (
    348, 456, 521, 838, 696, 1002, 872, 306, 457, 457, 523, 838, 380, 415, 380, 365,
    696, 696, 696, 696, 696, 696, 696, 696, 696, 696, 400, 400, 838, 838, 838, 580,
    1000, 774, 762, 734, 830, 683, 683, 821, 837, 372, 372, 775, 637, 995, 837, 850,
    733, 850, 770, 720, 682, 812, 774, 1103, 771, 724, 725, 457, 365, 457, 838, 500,
    500, 675, 716, 593, 716, 678, 435, 716, 712, 343, 343, 665, 343, 1042, 712, 687,
    716, 716, 493, 595, 478, 712, 652, 924, 645, 652, 582, 712, 365, 712, 838, 1000,
)
# fmt: on
"""Advance widths of the characters 32..126 and then the ellipsis, per 1000 units of the em."""

MIN_SIZE = 6.0
"""The smallest font size a label is shrunk to before it is wrapped or abbreviated."""


WRAP_SHRINK = 0.85
"""How far a label that may wrap is shrunk on one line before it is wrapped instead."""


def _advance(ch: str, bold: bool) -> int:
    table = _BOLD if bold else _REGULAR
    code = ord(ch)
    if _FIRST <= code < _FIRST + len(table) - 1:
        return table[code - _FIRST]
    if ch == _ELLIPSIS:
        return table[-1]
    return 1100 if bold else 1000


def text_width(text: str, size: float, bold: bool = False) -> float:
    """The width in pixels of `text` set in DejaVu Sans at font size `size`."""
    return sum(_advance(ch, bold) for ch in text) * size / 1000


@dataclass(frozen=True, slots=True)
class Fitted:
    """A label as it is drawn: its lines (one, or more when wrapped) and its font size."""

    lines: tuple[str, ...]
    size: float

    @property
    def abbreviated(self) -> bool:
        """True when the text had to be cut short (it ends in an ellipsis)."""
        return self.lines[-1].endswith(_ELLIPSIS)


def _sizes(size: float, min_size: float) -> list[float]:
    out = []
    s = size
    while s >= min_size - 1e-9:
        out.append(round(s, 2))
        s -= 0.5
    return out or [min_size]


def _words(text: str, separators: str) -> list[str]:
    """Pieces to wrap between: a `+` stays at the end of its piece, a space is dropped."""
    pieces: list[str] = []
    current = ""
    for ch in text:
        if ch in separators:
            if ch == " ":
                if current:
                    pieces.append(current)
                current = ""
            else:
                pieces.append(current + ch)
                current = ""
        else:
            current += ch
    if current:
        pieces.append(current)
    return pieces


def _wrap(text: str, width: float, size: float, bold: bool, separators: str) -> list[str] | None:
    """Greedy lines of at most `width`, or None when one piece alone is too wide."""
    lines: list[str] = []
    line = ""
    for piece in _words(text, separators):
        joiner = "" if not line or line.endswith("+") else " "
        candidate = line + joiner + piece
        if text_width(candidate, size, bold) <= width:
            line = candidate
            continue
        if text_width(piece, size, bold) > width:
            return None
        if line:
            lines.append(line)
        line = piece
    if line:
        lines.append(line)
    return lines


@lru_cache(maxsize=4096)
def fit_text(
    text: str,
    width: float,
    size: float,
    *,
    bold: bool = False,
    max_lines: int = 1,
    min_size: float = MIN_SIZE,
    separators: str = " +",
) -> Fitted:
    """`text` at the largest size from `size` down to `min_size` at which it fits `width`
    on one line (down to `WRAP_SHRINK` of `size` when it may wrap); else wrapped at
    `separators` onto up to `max_lines` lines; else cut short with an ellipsis at
    `min_size`. Every line of the result is at most `width` wide (a box too narrow even
    for the ellipsis gets an empty label)."""
    sizes = _sizes(size, min_size)
    # a label that may wrap shrinks at most to WRAP_SHRINK of its size on one line, then
    # wraps (two lines at a readable size rather than one tiny line)
    one_line = [s for s in sizes if max_lines == 1 or s >= size * WRAP_SHRINK]
    for s in one_line:
        if text_width(text, s, bold) <= width:
            return Fitted((text,), s)
    if max_lines > 1:
        for s in sizes:
            lines = _wrap(text, width, s, bold, separators)
            if lines is not None and len(lines) <= max_lines:
                return Fitted(tuple(lines), s)
    for s in sizes:
        if text_width(text, s, bold) <= width:
            return Fitted((text,), s)
    s = sizes[-1]
    cut = text
    while cut and text_width(cut.rstrip() + _ELLIPSIS, s, bold) > width:
        cut = cut[:-1]
    label = (
        cut.rstrip() + _ELLIPSIS if cut else (_ELLIPSIS if text_width(_ELLIPSIS, s, bold) <= width else "")
    )
    return Fitted((label,), s)


__all__ = ["MIN_SIZE", "WRAP_SHRINK", "Fitted", "fit_text", "text_width"]
