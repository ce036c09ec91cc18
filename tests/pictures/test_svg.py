"""village_rules.pictures.svg: the state and the travel map as SVG, read back as XML."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import Counter

import networkx as nx
import pytest
from pictures_scenario import known_state

from village_rules import builtin_edition, new_game
from village_rules.checks.invariants import check
from village_rules.data.components import ActionSpace, Cube
from village_rules.drivers.play import play_logged
from village_rules.engine.scoring import score_breakdown
from village_rules.engine.travel_map import travel_graph
from village_rules.model.actions import Harvest, Serve, TakeCube, Travel, parse_action
from village_rules.pictures.svg import (
    CUBE_COLOURS,
    PLAYER_FILLS,
    map_layout,
    state_svg,
    touched_regions,
    travel_map_svg,
)

NS = "{http://www.w3.org/2000/svg}"


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def elements(root: ET.Element, cls: str) -> list[ET.Element]:
    return [e for e in root.iter() if e.get("class") == cls]


def test_the_scenario_is_a_sound_state() -> None:
    check(known_state())


def test_cubes_on_the_action_spaces_are_drawn_with_their_colours() -> None:
    root = parse(state_svg(known_state()))
    on = Counter((e.get("data-where"), e.get("data-colour")) for e in elements(root, "cube"))
    assert on[("space:crafts", "brown")] == 2
    assert on[("space:crafts", "plague")] == 1
    assert on[("space:church", "green")] == 3
    assert sum(k for (where, _), k in on.items() if where and where.startswith("space:")) == 6
    fills = {e.get("data-colour"): e.get("fill") for e in elements(root, "cube")}
    assert fills["brown"] == CUBE_COLOURS[Cube.BROWN]


def test_members_are_drawn_where_they_are() -> None:
    state = known_state()
    root = parse(state_svg(state))
    members = Counter((e.get("data-where"), e.get("data-seat")) for e in elements(root, "member"))
    assert members[("council:2", "0")] == 1
    assert members[("church:3", "1")] == 1
    assert members[("travel:c1", "2")] == 1
    markers = [e for e in elements(root, "marker") if e.get("data-seat") == "2"]
    assert len(markers) == 1
    on_farm = sum(k for (where, seat), k in members.items() if where == "farmyard:0")
    assert on_farm == sum(1 for loc in state.players[0].members if type(loc).__name__ == "Farmyard")


def test_the_chronicle_blocks_spaces_for_the_player_count() -> None:
    state = known_state()
    d = state.rules.data
    root = parse(state_svg(state))
    blocked = len(elements(root, "blocked"))
    chronicle_blocked = sum(1 for _, labels in d.chronicle_spaces for m in labels if m > 3)
    assert blocked == chronicle_blocked + sum(1 for m in d.graveyard if m > 3)


def test_market_spaces_unused_at_the_player_count_are_grey() -> None:
    two = new_game("big-box-2023", 2, seed=1)
    root = parse(state_svg(two))
    unused = [e for e in elements(root, "market-space") if e.get("data-used") == "no"]
    assert len(unused) == 2  # the "3-5" and "4-5" spaces (2023 p. 8)


def test_the_last_action_outlines_its_region() -> None:
    state = known_state()
    plain = parse(state_svg(state))
    lit = parse(state_svg(state, TakeCube(ActionSpace.CRAFTS, Cube.BROWN)))
    assert all(e.get("stroke-width") == "1" for e in elements(plain, "region"))
    outlined = [e.get("data-region") for e in elements(lit, "region") if e.get("stroke-width") == "4"]
    assert outlined == ["space:crafts"]
    assert "last action: take crafts brown" in state_svg(state, TakeCube(ActionSpace.CRAFTS, Cube.BROWN))


@pytest.mark.parametrize(
    ("action", "region"),
    [
        (Harvest(), "farmyards"),
        (Serve(3), "market"),
        (Travel("village", "c1", 1), "travel-map"),
        (parse_action("draw-cube brown"), "green-bag"),
    ],
)
def test_touched_regions(action: object, region: str) -> None:
    assert region in touched_regions(action)  # type: ignore[arg-type]


def test_the_picture_is_deterministic_and_titled() -> None:
    state = known_state()
    assert state_svg(state) == state_svg(known_state())
    root = parse(state_svg(state))
    assert root.tag == f"{NS}svg"
    assert int(root.get("width", "0")) == 1280
    assert root.find(f"{NS}title") is not None


@pytest.mark.parametrize("edition", ["big-box-2023", "original-2011"])
def test_every_state_of_a_real_game_draws(edition: str) -> None:
    final, log = play_logged(edition, 4, seed=2)
    svg = state_svg(final, parse_action(log.actions[-1]))
    root = parse(svg)
    assert "game over: final scores: seat 0 " in svg
    dead = [e for e in elements(root, "member") if (e.get("data-where") or "").startswith("dead:")]
    assert dead  # a finished game has members in the chronicle or graveyard


def test_the_travel_map_has_every_city_and_path_of_the_graph() -> None:
    d = builtin_edition("big-box-2023")
    graph = travel_graph(d)
    root = parse(travel_map_svg(d))
    cities = {e.get("data-city") for e in elements(root, "city")}
    assert cities == {c.id for c in d.cities}
    assert len(elements(root, "path")) == graph.number_of_edges() == len(d.paths)
    cube_marks = len(elements(root, "path-cost"))
    assert cube_marks == sum(p.cost.cubes.total() for p in d.paths)
    assert len(elements(root, "village")) == 1


def test_map_layout_puts_cities_in_columns_by_distance() -> None:
    d = builtin_edition("big-box-2023")
    pos = map_layout(d)
    distance = nx.single_source_shortest_path_length(travel_graph(d), d.village)
    far = max(distance.values())
    assert {node: x for node, (x, _) in pos.items()} == {node: k / far for node, k in distance.items()}
    assert pos == map_layout(d)
    assert all(0 <= x <= 1 and 0 < y < 1 for x, y in pos.values())


def test_player_colours_are_the_fills_of_their_pieces() -> None:
    state = known_state()
    root = parse(state_svg(state))
    for seat, p in enumerate(state.players):
        fills = {e.get("fill") for e in elements(root, "member") if e.get("data-seat") == str(seat)}
        assert fills == {PLAYER_FILLS[p.colour]}


def test_the_prestige_and_life_time_tracks_place_each_token_by_its_value() -> None:
    final, _ = play_logged("big-box-2023", 5, seed=4)
    root = parse(state_svg(final))
    tokens = {e.get("data-seat"): float(e.get("cx", 0)) for e in elements(root, "prestige")}
    assert len(tokens) == 5
    by_x = sorted(range(5), key=lambda seat: (tokens[str(seat)], seat))
    # at the end the track shows the final scores, as the header does (not the prestige
    # before final scoring)
    totals = [b.total for b in score_breakdown(final)]
    by_value = sorted(range(5), key=lambda seat: (totals[seat], seat))
    assert by_x == by_value
    assert totals != [p.prestige for p in final.players]
    points = {e.get("data-seat"): int(e.get("data-points", -1)) for e in elements(root, "prestige")}
    assert points == {str(seat): total for seat, total in enumerate(totals)}
    header = next(e.text or "" for e in elements(root, "pending"))
    assert header.startswith("game over: final scores: ")
    assert all(f"seat {seat} {total}" in header for seat, total in enumerate(totals))
    lifetime = {e.get("data-seat"): float(e.get("x", 0)) for e in elements(root, "lifetime-token")}
    assert len(lifetime) == 5
    cells = elements(root, "lifetime")
    assert len(cells) == 5 * (final.rules.data.lifetime_track_length - 1)


def test_a_farmyard_action_outlines_only_the_actors_farmyard() -> None:
    state = known_state()
    root = parse(state_svg(state, Harvest(), actor=1))
    outlined = [e.get("data-region") for e in elements(root, "region") if e.get("stroke-width") == "4"]
    assert outlined == ["farmyard:1"]
    unknown = parse(state_svg(state, Harvest()))
    outlined = [e.get("data-region") for e in elements(unknown, "region") if e.get("stroke-width") == "4"]
    assert outlined == ["farmyard:0", "farmyard:1", "farmyard:2"]
    assert "last action: harvest (seat 1)" in state_svg(state, Harvest(), actor=1)
