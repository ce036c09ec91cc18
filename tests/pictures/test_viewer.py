"""village_rules.pictures.viewer: the step-through page, read back as text (the browser
test, test_viewer_browser, clicks through it)."""

from __future__ import annotations

import base64
import json
import re
import zlib

import pytest
from pictures_scenario import known_state

from village_rules.pictures.svg import state_svg
from village_rules.pictures.viewer import Frame, Story, viewer_html


def story(highlight: int | None = 1, first: int = 0, title: str = "a game") -> Story:
    svg = state_svg(known_state())
    frames = (
        Frame(svg),
        Frame(svg.replace("round", "ROUND"), "harvest", "harvests grain", 1, ("HARV-01",)),
        Frame(svg, "skip", "does not take (any more of) this step", 2, ()),
    )
    return Story(title, "game log", "three steps", frames, highlight, "it happens here", first)


def data_of(page: str) -> dict[str, object]:
    found = re.search(r'<script type="application/json" id="story">(.*?)</script>', page, re.S)
    assert found is not None
    value = json.loads(found.group(1))
    assert isinstance(value, dict)
    return value


def test_the_page_holds_every_picture_compressed_and_nothing_from_outside() -> None:
    s = story()
    page = viewer_html(s)
    frames = data_of(page)["frames"]
    assert isinstance(frames, list) and len(frames) == 3
    for frame, packed in zip(s.frames, frames, strict=True):
        svg = zlib.decompress(base64.b64decode(packed["z"]), -15).decode()
        assert svg == frame.svg
        assert packed["a"] == frame.action and packed["w"] == frame.words and packed["r"] == list(frame.rules)
    assert "http://" not in page.replace("http://www.w3.org/2000/svg", "") and "https://" not in page
    assert "<link" not in page and "src=" not in page  # no network, no other file
    assert 'id="note" hidden>step 1: it happens here' in page and 'id="jump"' in page
    assert viewer_html(s) == page  # a pure function of the story


def test_a_title_cannot_end_the_script_or_inject_markup() -> None:
    page = viewer_html(story(title="</script><b>x</b>"))
    assert "</script><b>" not in page
    assert "&lt;/script&gt;&lt;b&gt;x&lt;/b&gt;" in page


def test_a_story_that_starts_later_says_so_and_numbers_its_steps_from_there() -> None:
    page = viewer_html(story(highlight=11, first=10))
    assert data_of(page)["first"] == 10
    assert 'min="10" max="12"' in page and "Only steps 10 to 12 are drawn here" in page


def test_no_highlight_no_jump_button() -> None:
    page = viewer_html(story(highlight=None))
    assert 'id="jump"' not in page and 'id="note"' not in page


@pytest.mark.parametrize(("highlight", "first"), [(3, 0), (-1, 0), (9, 10)])
def test_a_highlight_outside_the_story_is_refused(highlight: int, first: int) -> None:
    with pytest.raises(ValueError, match="highlighted step"):
        viewer_html(story(highlight=highlight, first=first))


def script_ids() -> set[str]:
    """The element ids the page script looks up (`getElementById("x")`, `text("x", …)`)."""
    from village_rules.pictures.viewer import _SCRIPT  # noqa: PLC0415

    return set(re.findall(r'(?:getElementById|text)\("([a-z]+)"', _SCRIPT))


@pytest.mark.parametrize("highlight", [None, 1])
def test_every_element_the_script_needs_is_on_every_page(highlight: int | None) -> None:
    """Issue 42: the page of a plain game log (nothing highlighted) has no `#note`; the script
    set its `hidden` and Chromium stopped with a TypeError before drawing the board."""
    from village_rules.pictures.viewer import OPTIONAL_IDS  # noqa: PLC0415

    page = viewer_html(story(highlight))
    on_page = set(re.findall(r'id="([a-z]+)"', page))
    assert {"story", "slider", "board", "step", "action", "rules", "caption", "prev", "next"} <= script_ids()
    assert script_ids() - OPTIONAL_IDS <= on_page
    assert (on_page >= OPTIONAL_IDS) == (highlight is not None)


def test_the_script_uses_an_optional_element_only_after_checking_it_is_there() -> None:
    from village_rules.pictures.viewer import _SCRIPT, OPTIONAL_IDS  # noqa: PLC0415

    for name in OPTIONAL_IDS:
        assert _SCRIPT.count(f'getElementById("{name}")') == 1, name
        uses = [line for line in _SCRIPT.splitlines() if re.search(rf"\b{name}\.", line)]
        assert uses and all(f"if ({name})" in line for line in uses), uses
