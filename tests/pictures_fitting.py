"""Helpers of the picture tests that measure labels with a real font (Pillow's FreeType on
the DejaVu Sans files the pictures ask for): which labels are wider than their box."""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

FONT_DIRS = (Path("/usr/share/fonts/truetype/dejavu"), Path("/usr/share/fonts/dejavu"))


def font_file(bold: bool) -> Path:
    """The DejaVu Sans file (skip, or fail under VILLAGE_REQUIRE_EXTRAS=1, when missing)."""
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    for folder in FONT_DIRS:
        if (folder / name).is_file():
            return folder / name
    reason = f"the font {name} is not installed (Debian: apt-get install fonts-dejavu-core)"
    if os.environ.get("VILLAGE_REQUIRE_EXTRAS") == "1":
        pytest.fail(reason)
    pytest.skip(reason)


@cache
def _font(bold: bool, size: float):  # type: ignore[no-untyped-def]  # PIL is untyped here
    from PIL import ImageFont  # noqa: PLC0415 - the pictures extra

    return ImageFont.truetype(str(font_file(bold)), size=int(size * 64))


def real_width(text: str, size: float, bold: bool) -> float:
    """The width of `text` at font size `size`, laid out by FreeType (at 64x, for precision)."""
    return float(_font(bold, size).getlength(text)) / 64


@dataclass(frozen=True)
class Label:
    """One `<text>` of a picture that names its box (`data-box`), as the font draws it."""

    text: str
    left: float
    right: float
    box: tuple[float, float]
    size: float
    y: float
    cls: str

    @property
    def fits(self) -> bool:
        return self.box[0] - 0.01 <= self.left and self.right <= self.box[1] + 0.01


def labels(svg: str) -> list[Label]:
    """Every label of `svg` with a box, placed by its anchor and measured with the font."""
    out = []
    for e in ET.fromstring(svg).iter():
        box = e.get("data-box")
        if not e.tag.endswith("text") or box is None:
            continue
        text = e.text or ""
        size = float(e.get("font-size", "12"))
        bold = e.get("font-weight") == "bold"
        width = real_width(text, size, bold)
        x = float(e.get("x", "0"))
        anchor = e.get("text-anchor", "start")
        left = x - width / 2 if anchor == "middle" else x - width if anchor == "end" else x
        lo, hi = (float(v) for v in box.split())
        out.append(
            Label(text, left, left + width, (lo, hi), size, float(e.get("y", "0")), e.get("class", ""))
        )
    return out


def overflows(svg: str) -> list[Label]:
    """The labels of `svg` wider than their box (or placed outside it)."""
    return [label for label in labels(svg) if not label.fits]
