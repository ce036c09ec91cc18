"""village_rules.pictures.text_fit: a label shrinks, then wraps, then is cut short, and the
result is never wider than its box by the fonts' widths (the core install: no font needed)."""

from __future__ import annotations

from village_rules.pictures import text_fit
from village_rules.pictures.text_fit import Fitted, fit_text, text_width


def test_the_fitter_shrinks_then_wraps_then_abbreviates() -> None:
    assert fit_text("Harrowby", 100, 9) == Fitted(("Harrowby",), 9)
    shrunk = fit_text("Brindlemoor", 52, 9, bold=True)
    assert shrunk.lines == ("Brindlemoor",) and shrunk.size < 9
    assert text_width("Brindlemoor", shrunk.size, True) <= 52
    wrapped = fit_text("horse+scroll+1 grain", 84, 9, max_lines=2)
    assert wrapped.lines == ("horse+scroll+1", "grain") and wrapped.size == 9
    cut = fit_text("Brindlemoor-upon-Farrowdale", 52, 9, bold=True)
    assert cut.abbreviated and cut.size == text_fit.MIN_SIZE
    assert text_width(cut.lines[0], cut.size, True) <= 52
    assert fit_text("anything", 1, 9).lines == ("",)
