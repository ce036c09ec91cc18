"""The travel-map analyses (`village_rules.policies.travel_plans`) on the shipped maps and
on a user's data file with a path no rational traveller walks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from village_rules.data.loader import EDITIONS, builtin_edition, load_edition
from village_rules.policies.travel_plans import (
    cheapest_routes,
    cheapest_tour,
    dominated_paths,
    price,
    score_steps,
    unreachable_cities,
)


@pytest.mark.parametrize("edition", EDITIONS)
def test_routes_are_cheapest_walks_from_the_village(edition: str) -> None:
    data = builtin_edition(edition)
    routes = {r.city: r for r in cheapest_routes(data)}
    assert set(routes) == {c.id for c in data.cities}
    for route in routes.values():
        assert route.path[0] == data.village and route.path[-1] == route.city
        assert route.price == price(route.cost)
    # A neighbour of the village is reached by its own path; a city further out costs more
    # than the city it is reached through.
    for route in routes.values():
        if len(route.path) > 2:
            assert route.price > routes[route.path[-2]].price
    assert routes["c1"].cost.time == 2 and routes["c1"].cost.goods.total() == 1


@pytest.mark.parametrize("edition", EDITIONS)
def test_tours_grow_in_price_and_are_connected(edition: str) -> None:
    data = builtin_edition(edition)
    tours = [cheapest_tour(data, k) for k in range(len(data.cities) + 1)]
    assert cheapest_tour(data, len(data.cities) + 1) is None
    prices = []
    for k, tour in enumerate(tours):
        assert tour is not None and tour.exact and len(tour.cities) == k
        assert len(tour.paths) == k  # a spanning tree of the cities and the village
        touched = {n for e in tour.paths for n in e}
        assert touched <= {data.village, *tour.cities}
        prices.append(tour.price)
    assert prices == sorted(prices) and prices[0] == 0
    # No single route to k cities' farthest city is cheaper than the tour holding it.
    routes = {r.city: r.price for r in cheapest_routes(data)}
    for tour in tours[1:]:
        assert tour is not None and tour.price >= max(routes[c] for c in tour.cities)
    steps = score_steps(data)
    assert [s.cities for s in steps] == [1, 2, 3, 4, 5, 6]
    assert [s.points for s in steps] == [1, 3, 6, 10, 14, 18]


def _user_map(tmp_path: Path, extra_paths: list[dict[str, object]]) -> Path:
    raw = json.loads(builtin_edition("big-box-2023").canonical_json)
    for p in extra_paths:
        raw["travel"]["paths"].append({"value": p, "provenance": "reconstructed: a test map of a user"})
    path = tmp_path / "map.json"
    path.write_text(json.dumps(raw))
    return path


def test_a_user_map_with_a_dominated_path(tmp_path: Path) -> None:
    data = builtin_edition("big-box-2023")
    assert dominated_paths(data) == ()
    assert unreachable_cities(data) == ()
    # c1-c6 directly for more than c1-c3-c6 costs in time, wagons and each colour. (The
    # village keeps its two neighbouring cities: the loader refuses a third, issue 43.)
    costly: dict[str, object] = {"from": "c1", "to": "c6",
              "cost": {"time": 5, "goods": {"wagon": 2}, "cubes": {"orange": 2, "pink": 3}}}
    cheap: dict[str, object] = {"from": "c2", "to": "c8", "cost": {"time": 1, "goods": {"wagon": 1}}}
    mine = load_edition(_user_map(tmp_path, [costly, cheap]))
    assert dominated_paths(mine) == (("c1", "c6"),)
    routes = {r.city: r for r in cheapest_routes(mine)}
    assert routes["c8"].path == ("village", "c2", "c8")
