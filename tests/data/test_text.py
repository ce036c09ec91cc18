"""Text from files made safe for each medium (village_rules.data.text)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from xml.sax.saxutils import escape

import pytest

from village_rules.data.text import for_plot, for_terminal, for_xml

NASTY = "a\x1b[2J\x07b\x00c\x9bd\u202ee\ud800f\x7f"


def test_for_terminal_makes_every_control_visible() -> None:
    shown = for_terminal(NASTY + "\nline\tcell")
    assert shown == "a\\x1b[2J\\x07b\\x00c\\x9bd\\u202ee\\ud800f\\x7f\nline\tcell"
    assert shown.encode("utf-8")  # a lone surrogate would raise here
    assert for_terminal("plain — ünïcode ok") == "plain — ünïcode ok"


def test_for_xml_keeps_a_document_well_formed() -> None:
    text = NASTY + "\ufffe<&>\r"
    element = ET.fromstring(f"<t>{escape(for_xml(text))}</t>")
    assert element.text is not None and "\\x1b[2J" in element.text and "<&>" in element.text
    with pytest.raises(ET.ParseError):  # the check can fail: raw, the text is not XML
        ET.fromstring(f"<t>{escape(text.replace(chr(0xD800), ''))}</t>")


def test_for_plot_escapes_mathtext() -> None:
    assert for_plot("$x^$ \x1b") == r"\$x^\$ \x1b"
