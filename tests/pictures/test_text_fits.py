"""Every label of the pictures fits its box, measured with the real font (FreeType through
Pillow, the `pictures` extra, on DejaVu Sans): every city of both editions' maps, every
customer tile, the header of every pending kind, the green bag, whole games. And the check
is not vacuous: a too-long city name drawn without fitting is caught."""

from __future__ import annotations

import typing
import xml.etree.ElementTree as ET
from dataclasses import replace

import pytest

pytest.importorskip("PIL")

import itertools

from pictures_fitting import font_file, labels, overflows, real_width
from pictures_scenario import known_state

import village_rules.pictures.svg as svg_module
from village_rules import builtin_edition
from village_rules.data.components import ActionSpace, Cube, Travelling
from village_rules.drivers import scenario
from village_rules.drivers.play import play_logged, replay
from village_rules.model import pending as pending_module
from village_rules.model.actions import TakeCube
from village_rules.model.state import GameState, MarketDay
from village_rules.pictures.svg import CITY_RADIUS, state_svg, travel_map_svg
from village_rules.pictures.text_fit import Fitted, text_width

EDITIONS = ["big-box-2023", "original-2011"]


def test_the_width_table_is_the_fonts_own() -> None:
    """text_fit's table gives the widths FreeType lays out: the same without kerning pairs,
    and never narrower with them (kerning only tightens DejaVu's pairs), so an estimate
    that fits is a label that fits."""
    for bold in (False, True):
        for text in ("Brindlemoor", "Harrowby", "horse+scroll+1 grain", "0123456789 pts"):
            assert text_width(text, 10, bold) == pytest.approx(real_width(text, 10, bold), rel=0.01)
        for text in ("Farrowdale", "AV", "To", "Wagon", "Yv"):  # kerned pairs
            assert real_width(text, 10, bold) <= text_width(text, 10, bold) + 0.01


@pytest.mark.parametrize("edition", EDITIONS)
def test_every_city_name_and_reward_fits_its_circle(edition: str) -> None:
    data = builtin_edition(edition)
    svg = travel_map_svg(data)
    names = [label for label in labels(svg) if label.cls == "city-name"]
    rewards = [label for label in labels(svg) if label.cls == "city-reward"]
    assert sorted(label.text for label in names) == sorted(c.name for c in data.cities)  # none cut short
    assert len(rewards) == len(data.cities)
    assert overflows(svg) == []
    # the box of a city label is inside the circle (its chord), so fitting the box is enough
    root = ET.fromstring(svg)
    centres = {e.get("data-city"): float(e.get("cx", 0)) for e in root.iter() if e.get("class") == "city"}
    for label in names + rewards:
        centre = next(
            x
            for x, city in ((x, c) for c, x in centres.items())
            if abs(label.box[0] + label.box[1] - 2 * x) < 0.01
        )
        assert centre - CITY_RADIUS < label.box[0] and label.box[1] < centre + CITY_RADIUS


def market_pictures(edition: str) -> list[tuple[GameState, str]]:
    """Pictures that between them show every customer tile of the edition on the market."""
    state = scenario.emptied(edition, 4, seed=1)
    tiles = [t.id for t in state.rules.data.customers]
    size = len(state.market_available) + len(state.market_waiting)
    out = []
    for k in range(0, len(tiles), size):
        chunk = tiles[k : k + size] + [None] * size
        avail = chunk[: len(state.market_available)]
        wait = chunk[len(state.market_available) : size]
        s = scenario.arrange_market(state, avail, wait)
        out.append((s, state_svg(s)))
    return out


@pytest.mark.parametrize("edition", EDITIONS)
def test_every_customer_tile_text_is_inside_its_tile(edition: str) -> None:
    shown = set()
    for _, svg in market_pictures(edition):
        root = ET.fromstring(svg)
        tiles = [e for e in root.iter() if e.get("class") == "customer"]
        shown |= {int(e.get("data-tile", -1)) for e in tiles}
        texts = [label for label in labels(svg) if label.cls == "tile-text"]
        assert len(texts) >= 3 * len(tiles)
        for label in texts:
            assert label.fits, label
            # and the box lies inside one tile, with the text's height inside it too
            tile = next(
                e
                for e in tiles
                if float(e.get("x", 0)) <= label.box[0]
                and label.box[1] <= float(e.get("x", 0)) + float(e.get("width", 0))
                and float(e.get("y", 0)) <= label.y <= float(e.get("y", 0)) + float(e.get("height", 0))
            )
            top, height = float(tile.get("y", 0)), float(tile.get("height", 0))
            assert top + 1 < label.y - 0.75 * label.size and label.y + 0.25 * label.size < top + height - 1
        assert overflows(svg) == []
    assert shown == {t.id for t in builtin_edition(edition).customers}


def pending_examples() -> list[pending_module.Pending]:
    """One instance of every pending kind (the members of the `Pending` union)."""
    values: dict[str, object] = {
        "seat": 4,
        "space": ActionSpace.COUNCIL_CHAMBER,
        "remaining": 3,
        "max_stage": 4,
        "action": TakeCube(ActionSpace.COUNCIL_CHAMBER, Cube.GREEN),
        "position": 4,
        "slot": 2,
    }
    out = []
    for kind in typing.get_args(pending_module.Pending):
        fields = {name: values[name] for name in kind.__dataclass_fields__}
        out.append(kind(**fields))
    return out


def test_there_is_an_example_of_every_pending_kind() -> None:
    kinds = {type(p) for p in pending_examples()}
    assert len(kinds) == len(typing.get_args(pending_module.Pending)) == 17


@pytest.mark.parametrize("pending", pending_examples(), ids=lambda p: type(p).__name__)
def test_the_header_says_every_pending_kind_in_words_that_fit(pending: pending_module.Pending) -> None:
    state = scenario.at(known_state(), pending)
    svg = state_svg(state)
    header = [label for label in labels(svg) if label.cls == "pending"]
    assert len(header) == 1
    words = header[0].text
    assert type(pending).__name__ not in words and "=" not in words and "(" not in words.split(":")[0]
    assert overflows(svg) == []


def test_the_green_bag_counts_keep_clear_of_the_swatches() -> None:
    svg = state_svg(known_state())
    root = ET.fromstring(svg)
    swatches = [e for e in root.iter() if e.get("class") == "cube" and e.get("data-where") == "green-bag"]
    counts = [label for label in labels(svg) if label.cls == "bag-count"]
    assert len(swatches) == len(counts) == 5
    for label in counts:
        assert label.fits
        for s in swatches:
            x, y, size = float(s.get("x", 0)), float(s.get("y", 0)), float(s.get("width", 0))
            apart_x = label.right + 2 <= x or x + size + 2 <= label.left
            apart_y = y + size + 2 <= label.y - 0.75 * label.size
            assert apart_x or apart_y, (label, x, y)
    # neighbouring counts keep apart too
    ordered = sorted(counts, key=lambda label: label.left)
    assert all(a.right + 3 <= b.left for a, b in itertools.pairwise(ordered))


def test_no_traveller_disc_covers_a_label_on_a_crowded_map() -> None:
    state = scenario.emptied("big-box-2023", 5, seed=1)
    for seat in range(5):  # two travellers of every seat in Ashford, one in Dunmere
        for city in ("c1", "c1", "c4"):
            state = scenario.place(state, seat, 1, Travelling(city))
    svg = state_svg(state)
    root = ET.fromstring(svg)
    discs = [
        e
        for e in root.iter()
        if e.get("class") == "member" and (e.get("data-where") or "").startswith("travel:")
    ]
    assert len(discs) == 6 + 5  # six of the ten in Ashford drawn, "+4 more"
    map_labels = [
        label for label in labels(svg) if label.cls in ("city-name", "city-reward", "travellers-more")
    ]
    assert any(label.text == "+4 more" for label in map_labels)
    for d in discs:
        cx, cy, r = (float(d.get(k, 0)) for k in ("cx", "cy", "r"))
        for label in map_labels:
            top, bottom = label.y - 0.75 * label.size, label.y + 0.25 * label.size
            clear = cx + r <= label.left or label.right <= cx - r or cy + r <= top or bottom <= cy - r
            assert clear, (label, cx, cy)
    assert overflows(svg) == []


@pytest.mark.parametrize("edition", EDITIONS)
def test_whole_games_have_no_label_wider_than_its_box(edition: str) -> None:
    final, _ = play_logged(edition, 4, seed=3)
    assert overflows(state_svg(final)) == []
    players = 5 if edition == "big-box-2023" else 2
    crowded, log = play_logged(edition, players, seed=6)
    middle = replay(log.initial_state(), log.actions[: len(log.actions) // 2])
    assert overflows(state_svg(crowded)) == [] and overflows(state_svg(middle)) == []
    state = scenario.emptied(edition, 4, seed=2)
    day = MarketDay(trigger=3, current=1, passed=(0, 2), trigger_sold=True)
    svg = state_svg(replace(state, market_day=day))
    assert overflows(svg) == []
    shown = [label for label in labels(svg) if label.cls == "market-day"]
    assert [label.text for label in shown] == ["market day of seat 3: seat 1 serves or passes; passed: 0, 2"]


def test_a_solo_game_has_no_label_wider_than_its_box() -> None:
    final, log = play_logged("big-box-2023", 1, seed=2)
    middle = replay(log.initial_state(), log.actions[: len(log.actions) // 2])
    assert overflows(state_svg(final)) == [] and overflows(state_svg(middle)) == []
    assert any("Carla" in label.text for label in labels(state_svg(middle)))


def test_the_check_catches_a_city_name_too_long_for_its_circle(monkeypatch: pytest.MonkeyPatch) -> None:
    """A long name drawn without fitting overflows and the check says so; fitted, it is cut
    short with an ellipsis and fits."""
    font_file(bold=True)
    data = builtin_edition("original-2011")
    long = "Brindlemoor-upon-Farrowdale"
    cities = tuple(replace(c, name=long) if c.id == "c2" else c for c in data.cities)
    longer = replace(data, cities=cities, fingerprint=data.fingerprint + "-long-name")
    fitted = [label for label in labels(travel_map_svg(longer)) if label.cls == "city-name"]
    assert overflows(travel_map_svg(longer)) == []
    assert any(label.text.endswith("\u2026") and label.text.startswith("Brindle") for label in fitted)
    monkeypatch.setattr(svg_module, "fit_text", lambda text, width, size, **_: Fitted((text,), size))
    caught = {label.text for label in overflows(travel_map_svg(longer))}
    assert long in caught
    assert "Farrowdale" in caught  # and the name the issue saw overflow in the old pictures
