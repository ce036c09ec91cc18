"""Print the advance widths of DejaVu Sans (regular and bold) for printable ASCII and the
ellipsis, in thousandths of an em: the table of village_rules/pictures/text_fit.py.

Needs Pillow and the DejaVu fonts (Debian: fonts-dejavu-core). Run it again if the font
the pictures ask for changes."""

from __future__ import annotations

import sys

from PIL import ImageFont

FONTS = "/usr/share/fonts/truetype/dejavu/"
CHARS = "".join(chr(c) for c in range(32, 127)) + "\u2026"


def widths(file: str) -> list[int]:
    font = ImageFont.truetype(FONTS + file, 1000)
    return [round(font.getlength(ch)) for ch in CHARS]


def main() -> int:
    for name, file in (("_REGULAR", "DejaVuSans.ttf"), ("_BOLD", "DejaVuSans-Bold.ttf")):
        values = widths(file)
        print(f"{name} = (")
        for k in range(0, len(values), 16):
            print("    " + ", ".join(str(v) for v in values[k : k + 16]) + ",")
        print(")")
    return 0


if __name__ == "__main__":
    sys.exit(main())
