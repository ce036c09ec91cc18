"""The SVG pictures rendered to PNG (cairosvg, the `pictures` extra) and checked as a person
would look: the picture has the expected size, and the cubes of a known scenario are
there in their colours at the places the SVG puts them."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET

import pytest
from pictures_scenario import known_state

cairosvg = pytest.importorskip("cairosvg")
pytest.importorskip("PIL")

from PIL import Image  # noqa: E402

import village_rules.pictures.svg as svg_module  # noqa: E402
from village_rules import builtin_edition  # noqa: E402
from village_rules.data.components import Cube  # noqa: E402
from village_rules.pictures.svg import CUBE_COLOURS, state_svg, travel_map_svg  # noqa: E402


def png(svg: str) -> Image.Image:
    data = cairosvg.svg2png(bytestring=svg.encode())
    return Image.open(io.BytesIO(data)).convert("RGB")


def hex_rgb(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def cube_centres(svg: str, where: str) -> list[tuple[str, float, float]]:
    root = ET.fromstring(svg)
    return [
        (e.get("data-colour", ""), float(e.get("x", 0)) + 6.5, float(e.get("y", 0)) + 6.5)
        for e in root.iter()
        if e.get("class") == "cube" and e.get("data-where") == where
    ]


def colour_count(image: Image.Image, box: tuple[int, int, int, int], rgb: tuple[int, int, int]) -> int:
    raw = image.crop(box).tobytes()
    pixels = (tuple(raw[i : i + 3]) for i in range(0, len(raw), 3))
    return sum(1 for px in pixels if all(abs(a - b) <= 8 for a, b in zip(px, rgb, strict=True)))


def cubes_visible(svg: str, where: str) -> dict[str, int]:
    """Per colour, how many of the SVG's cubes at `where` show their colour in the PNG."""
    image = png(svg)
    seen: dict[str, int] = {}
    for colour, x, y in cube_centres(svg, where):
        px = image.getpixel((int(x), int(y)))
        assert isinstance(px, tuple)
        if all(abs(a - b) <= 8 for a, b in zip(px, hex_rgb(CUBE_COLOURS[Cube(colour)]), strict=True)):
            seen[colour] = seen.get(colour, 0) + 1
    return seen


def test_the_state_png_has_the_svg_size() -> None:
    svg = state_svg(known_state())
    root = ET.fromstring(svg)
    image = png(svg)
    assert image.size == (int(root.get("width", 0)), int(float(root.get("height", 0))))
    assert image.size[0] == 1280
    assert image.size[1] > 900


def test_the_cubes_of_the_scenario_appear_in_their_colours() -> None:
    svg = state_svg(known_state())
    assert cubes_visible(svg, "space:crafts") == {"brown": 2, "plague": 1}
    assert cubes_visible(svg, "space:church") == {"green": 3}
    # Nothing brown inside the (empty) family space's box.
    root = ET.fromstring(svg)
    box = next(e for e in root.iter() if e.get("data-region") == "space:family")
    x, y, w, h = (int(float(box.get(k, 0))) for k in ("x", "y", "width", "height"))
    image = png(svg)
    assert colour_count(image, (x + 2, y + 20, x + w - 2, y + h - 20), hex_rgb(CUBE_COLOURS[Cube.BROWN])) == 0
    crafts = next(e for e in root.iter() if e.get("data-region") == "space:crafts")
    cx, cy, cw, ch = (int(float(crafts.get(k, 0))) for k in ("x", "y", "width", "height"))
    brown = colour_count(image, (cx, cy, cx + cw, cy + ch), hex_rgb(CUBE_COLOURS[Cube.BROWN]))
    assert 2 * 10 * 10 <= brown <= 2 * 14 * 14  # two 13-pixel cubes, edges anti-aliased


def test_the_check_catches_a_picture_that_loses_its_cubes(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pixel check is not vacuous: with cubes drawn in the wrong colour it fails."""
    monkeypatch.setitem(svg_module.CUBE_COLOURS, Cube.BROWN, "#ffffff")
    svg = state_svg(known_state())
    monkeypatch.undo()
    assert cubes_visible(svg, "space:crafts") == {"plague": 1}


def test_the_travel_map_png() -> None:
    image = png(travel_map_svg(builtin_edition("original-2011"), known_state()))
    assert image.size == (660, 340)
    path_brown = colour_count(image, (0, 0, 660, 340), hex_rgb(CUBE_COLOURS[Cube.BROWN]))
    assert path_brown > 0  # the brown cube costs on the paths


def ink_outside_cities(svg: str) -> int:
    """Pixels of the city names' ink (#222, the text colour) that lie outside their circle,
    in a strip of a circle's height around each city (the PNG as cairo draws the text)."""
    from village_rules.pictures.svg import CITY_RADIUS  # noqa: PLC0415

    image = png(svg)
    root = ET.fromstring(svg)
    outside = 0
    for e in root.iter():
        if e.get("class") != "city":
            continue
        cx, cy = float(e.get("cx", 0)), float(e.get("cy", 0))
        top, bottom = int(cy - 8), int(cy + 2)  # the name's line, above the reward's
        for y in range(top, bottom):
            for x in range(max(0, int(cx - 2 * CITY_RADIUS)), min(image.size[0], int(cx + 2 * CITY_RADIUS))):
                px = image.getpixel((x, y))
                assert isinstance(px, tuple)
                dark = all(v < 70 for v in px[:3])  # the text's #222, not the outline's #553
                if dark and (x - cx) ** 2 + (y - cy) ** 2 > (CITY_RADIUS + 1) ** 2:
                    outside += 1
    return outside


def test_the_city_names_ink_stays_inside_the_circles_in_the_png(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rendered by cairo with its own font lookup: no dark pixel of a name outside its
    circle; with fitting switched off the old overflow ("Brindlemoor", "Farrowdale") shows."""
    from dataclasses import replace  # noqa: PLC0415

    from village_rules.pictures.text_fit import Fitted  # noqa: PLC0415

    for edition in ("original-2011", "big-box-2023"):
        assert ink_outside_cities(travel_map_svg(builtin_edition(edition))) == 0
    data = builtin_edition("original-2011")
    longer = replace(
        data,
        cities=tuple(
            replace(c, name="Brindlemoor-upon-Farrowdale") if c.id == "c2" else c for c in data.cities
        ),
        fingerprint=data.fingerprint + "-long-name",
    )
    assert ink_outside_cities(travel_map_svg(longer)) == 0  # fitted: cut short inside
    monkeypatch.setattr(svg_module, "fit_text", lambda text, width, size, **_: Fitted((text,), size))
    assert ink_outside_cities(travel_map_svg(longer)) > 50
