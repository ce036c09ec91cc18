"""Travel (2023 p. 10; 2011 "Travel"): TRV-01..TRV-05 on the networkx travel map."""

from __future__ import annotations

from dataclasses import replace

import networkx as nx
import pytest

from village_rules.checks.invariants import check
from village_rules.data.components import (
    FARMYARD,
    UNBORN,
    ActionSpace,
    Cube,
    Farmyard,
    Good,
    Travelling,
)
from village_rules.data.edition import Cost, RewardKind
from village_rules.data.loader import builtin_edition
from village_rules.data.tally import Tally
from village_rules.drivers.scenario import acting, give, place, ready, strip
from village_rules.engine.core import apply, legal_actions
from village_rules.engine.scoring import score_breakdown
from village_rules.engine.travel_map import (
    adjacent,
    city,
    member_cities,
    path_cost,
    reachable_cities,
    travel_graph,
)
from village_rules.errors import IllegalActionError
from village_rules.model.actions import PickCube, Skip, Travel
from village_rules.model.pending import ChooseAction, ChooseSupplyCube, ChooseTurn
from village_rules.model.state import GameState
from village_rules.rules.variant import Variant

EDITIONS = ["big-box-2023", "original-2011"]
ED23 = "big-box-2023"

# The reconstructed map of both data files: (a, b, influence cubes on the path).
PATHS = {
    ("village", "c1"): {Cube.BROWN: 2},
    ("village", "c2"): {Cube.PINK: 2},
    ("c1", "c3"): {Cube.ORANGE: 1},
    ("c1", "c4"): {Cube.BROWN: 1, Cube.PINK: 1},
    ("c2", "c4"): {Cube.ORANGE: 2},
    ("c2", "c5"): {Cube.BROWN: 1},
    ("c3", "c6"): {Cube.PINK: 2},
    ("c4", "c6"): {Cube.ORANGE: 1, Cube.BROWN: 1},
    ("c4", "c7"): {Cube.PINK: 1},
    ("c5", "c7"): {Cube.ORANGE: 1, Cube.PINK: 1},
    ("c6", "c8"): {Cube.ORANGE: 1, Cube.BROWN: 1, Cube.PINK: 1},
    ("c7", "c8"): {Cube.BROWN: 2, Cube.ORANGE: 1},
}
REWARDS = {
    "c1": (RewardKind.PRESTIGE, 3),
    "c2": (RewardKind.PRESTIGE, 3),
    "c3": (RewardKind.CUBES_OF_CHOICE, 2),
    "c4": (RewardKind.COINS, 1),
    "c5": (RewardKind.CUBES_OF_CHOICE, 2),
    "c6": (RewardKind.PRESTIGE, 3),
    "c7": (RewardKind.COINS, 1),
    "c8": (RewardKind.PRESTIGE, 3),
}


def traveller(edition: str = ED23, players: int = 2, variant: Variant | None = None) -> GameState:
    """Seat 0 with an empty farmyard (its four "1"s at home), about to travel."""
    s = ready(edition, players, seed=3, variant=variant)
    for seat in range(players):
        s = strip(s, seat)
    return acting(s, 0, ActionSpace.TRAVEL)


def with_markers(state: GameState, seat: int, cities: list[str]) -> GameState:
    p = state.players[seat]
    return state.with_player(seat, replace(p, markers=tuple(sorted(cities))))


def go(state: GameState, action: Travel | PickCube | Skip) -> tuple[GameState, list[str]]:
    trace: list[str] = []
    return apply(state, action, trace), trace


# --- TRV-05: the map ----------------------------------------------------------------------


@pytest.mark.parametrize("edition", EDITIONS)
def test_trv05_graph_nodes_edges_and_attributes(edition: str) -> None:
    """TRV-05: the village and 8 cities as nodes (with their kind and city reward), the 12
    paths as edges (with their cost); the graph is connected."""
    data = builtin_edition(edition)
    g = travel_graph(data)
    assert sorted(g.nodes) == ["c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8", "village"]
    assert g.nodes["village"]["kind"] == "village"
    assert all(g.nodes[c]["kind"] == "city" for c in REWARDS)
    assert g.number_of_edges() == 12
    assert {tuple(sorted(e)) for e in g.edges} == {tuple(sorted(k)) for k in PATHS}
    assert nx.is_connected(g)
    assert dict(g.degree) == {
        "village": 2,
        "c1": 3,
        "c2": 3,
        "c3": 2,
        "c4": 4,
        "c5": 2,
        "c6": 3,
        "c7": 3,
        "c8": 2,
    }
    assert travel_graph(data) is g  # cached per edition data


@pytest.mark.parametrize("edition", EDITIONS)
def test_trv05_path_costs_are_two_time_one_wagon_and_the_cubes(edition: str) -> None:
    """TRV-05 / TRV-01: every path costs 2 time + 1 wagon + its influence cubes, both ways."""
    data = builtin_edition(edition)
    for (a, b), cubes in PATHS.items():
        want = Cost(time=2, cubes=Tally.of(cubes), goods=Tally.of({Good.WAGON: 1}))
        assert path_cost(data, a, b) == want
        assert path_cost(data, b, a) == want
    with pytest.raises(KeyError):
        path_cost(data, "village", "c3")
    with pytest.raises(KeyError):
        path_cost(data, "c1", "c8")


@pytest.mark.parametrize("edition", EDITIONS)
def test_trv05_adjacent_never_lists_the_village(edition: str) -> None:
    """TRV-05: adjacent cities of each node, sorted, never the village; unknown node raises."""
    data = builtin_edition(edition)
    assert adjacent(data, "village") == ["c1", "c2"]
    assert adjacent(data, "c1") == ["c3", "c4"]
    assert adjacent(data, "c2") == ["c4", "c5"]
    assert adjacent(data, "c4") == ["c1", "c2", "c6", "c7"]
    assert adjacent(data, "c8") == ["c6", "c7"]
    with pytest.raises(KeyError):
        adjacent(data, "atlantis")


@pytest.mark.parametrize("edition", EDITIONS)
def test_trv04_city_rewards_on_the_map(edition: str) -> None:
    """TRV-04 / TRV-05: each city shows 3 prestige, 2 cubes of choice or 1 coin."""
    data = builtin_edition(edition)
    assert {c: (city(data, c).reward, city(data, c).amount) for c in REWARDS} == REWARDS


def test_trv05_reachable_cities() -> None:
    """TRV-05: reachable_cities: the village's neighbours if a member is on the farmyard,
    plus the neighbours of every city where the seat has a member."""
    s = traveller()
    assert reachable_cities(s, 0) == ["c1", "c2"]
    assert member_cities(s, 0) == []
    s = place(s, 0, 1, Travelling("c4"))
    s = place(s, 0, 1, Travelling("c8"))
    assert member_cities(s, 0) == ["c4", "c8"]
    assert reachable_cities(s, 0) == ["c1", "c2", "c6", "c7"]
    # Nobody left at home: only the cities next to the travellers.
    s = place(s, 0, 1, Travelling("c8"))
    s = place(s, 0, 1, Travelling("c8"))
    assert Farmyard() not in s.players[0].members
    assert reachable_cities(s, 0) == ["c1", "c2", "c6", "c7"]
    s = place(s, 0, 1, FARMYARD, source=Travelling("c4"))
    assert reachable_cities(s, 0) == ["c1", "c2", "c6", "c7"]
    s = place(s, 0, 1, FARMYARD, source=Travelling("c8"))
    s = place(s, 0, 1, FARMYARD, source=Travelling("c8"))
    s = place(s, 0, 1, FARMYARD, source=Travelling("c8"))
    assert reachable_cities(s, 0) == ["c1", "c2"]
    assert reachable_cities(s, 1) == ["c1", "c2"]


# --- TRV-01 -------------------------------------------------------------------------------


def test_trv01_from_the_village_pays_time_wagon_and_cubes() -> None:
    """TRV-01 + TRV-04: a farmyard member goes to c1 for 2 time + 1 wagon + 2 brown, places
    a marker and gains the 3 prestige shown there."""
    s = traveller()
    s = give(s, 0, goods={Good.WAGON: 1}, cubes={Cube.BROWN: 2})
    assert legal_actions(s) == [Travel("village", "c1", 1), Skip()]
    supply = s.supply
    s, tr = go(s, Travel("village", "c1", 1))
    assert tr == ["TIME-01", "TRV-01", "TRV-04"]
    p = s.players[0]
    assert p.members.count(Travelling("c1")) == 1
    assert p.members.count(Farmyard()) == 3
    assert (p.lifetime, p.prestige, p.markers) == (2, 3, ("c1",))
    assert p.goods.total() == 0 and p.cubes.total() == 0
    assert s.supply.goods[Good.WAGON] == supply.goods[Good.WAGON] + 1
    assert s.supply.cubes[Cube.BROWN] == supply.cubes[Cube.BROWN] + 2
    assert s.pending == ChooseTurn(1)


def test_trv01_coin_may_replace_a_path_cube() -> None:
    """TRV-01 with COIN-01: 1 pink + 1 coin pays the 2 pink of the path to c2."""
    s = traveller()
    s = give(s, 0, goods={Good.WAGON: 1}, cubes={Cube.PINK: 1}, coins=1)
    s, tr = go(s, Travel("village", "c2", 1))
    assert "COIN-01" in tr
    p = s.players[0]
    assert (p.coins, p.cubes.total(), p.markers, p.prestige) == (0, 0, ("c2",), 3)


@pytest.mark.parametrize(
    ("action", "fragment"),
    [
        (Travel("village", "c3", 1), "not adjacent"),
        (Travel("village", "village", 1), "never back to the village"),
        (Travel("village", "c1", 2), "no member numbered 2"),
        (Travel("village", "nowhere", 1), "not adjacent"),
    ],
)
def test_trv01_illegal_trips(action: Travel, fragment: str) -> None:
    """TRV-01 / TRV-02: only to a neighbour, never to the village, only with a member there."""
    s = traveller()
    s = give(s, 0, goods={Good.WAGON: 2}, cubes={Cube.BROWN: 4, Cube.PINK: 4, Cube.ORANGE: 4})
    with pytest.raises(IllegalActionError) as err:
        apply(s, action)
    assert err.value.rule == "TRV-01"
    assert fragment in err.value.reason


def test_trv02_refused_move_on_names_rule_trv02() -> None:
    """TRV-02. ENGINE BUG (failing on purpose): a refused trip from a city (a TRV-02 move:
    here no member of that number in c1, or c1 to c6 which are not adjacent) is reported as a
    breach of TRV-01, because core._RULE_OF maps every Travel to "TRV-01"."""
    s = traveller()
    s = place(s, 0, 2, Travelling("c1"))
    s = give(s, 0, goods={Good.WAGON: 2}, cubes={Cube.BROWN: 4, Cube.PINK: 4, Cube.ORANGE: 4})
    for action, reason in [
        (Travel("c1", "c3", 1), "travel: you have no member numbered 1 in c1"),
        (Travel("c1", "c6", 2), "travel: c6 is not adjacent to c1"),
    ]:
        with pytest.raises(IllegalActionError) as err:
            apply(s, action)
        assert err.value.reason == reason
        assert err.value.rule == "TRV-02"


def test_trv01_needs_the_wagon() -> None:
    """TRV-01: without a wagon no trip is possible (2 brown and a coin are not enough)."""
    s = traveller()
    s = give(s, 0, cubes={Cube.BROWN: 2, Cube.PINK: 2}, coins=1)
    assert legal_actions(s) == [Skip()]
    with pytest.raises(IllegalActionError) as err:
        apply(s, Travel("village", "c1", 1))
    assert err.value.rule == "TRV-01"
    assert "wagon" in err.value.reason


# --- TRV-02 / TRV-04 ----------------------------------------------------------------------


def test_trv02_move_on_to_an_adjacent_city_cubes_of_choice() -> None:
    """TRV-02 + TRV-04: the traveller on c1 moves to c3 (2 time, wagon, 1 orange) and takes
    2 influence cubes of choice (different colours allowed)."""
    s = traveller()
    s = place(s, 0, 1, Travelling("c1"))
    s = with_markers(s, 0, ["c1"])
    s = give(s, 0, goods={Good.WAGON: 1}, cubes={Cube.ORANGE: 1})
    assert legal_actions(s) == [Travel("c1", "c3", 1), Skip()]
    s, tr = go(s, Travel("c1", "c3", 1))
    assert tr == ["TIME-01", "TRV-02", "TRV-04"]
    assert s.pending == ChooseSupplyCube(0, 2)
    assert legal_actions(s) == [PickCube(c) for c in (Cube.BROWN, Cube.PINK, Cube.ORANGE, Cube.GREEN)]
    green = s.supply.cubes[Cube.GREEN]
    s = apply(s, PickCube(Cube.GREEN))
    assert s.pending == ChooseSupplyCube(0, 1)
    s = apply(s, PickCube(Cube.PINK))
    p = s.players[0]
    assert p.cubes == Tally.of({Cube.GREEN: 1, Cube.PINK: 1})
    assert s.supply.cubes[Cube.GREEN] == green - 1
    assert p.markers == ("c1", "c3")
    assert Travelling("c1") not in p.members and p.members.count(Travelling("c3")) == 1
    assert (p.lifetime, p.prestige) == (2, 0)
    assert s.pending == ChooseTurn(1)


def test_trv02_coin_reward() -> None:
    """TRV-02 + TRV-04: c1 to c4 (1 brown + 1 pink) gives 1 coin from the supply."""
    s = traveller()
    s = place(s, 0, 1, Travelling("c1"))
    s = give(s, 0, goods={Good.WAGON: 1}, cubes={Cube.BROWN: 1, Cube.PINK: 1})
    coins = s.supply.coins
    s, tr = go(s, Travel("c1", "c4", 1))
    assert tr[-1] == "TRV-04"
    assert s.players[0].coins == 1 and s.supply.coins == coins - 1
    assert s.players[0].markers == ("c4",)


def test_trv02_choice_of_trips() -> None:
    """TRV-01 / TRV-02: with a member at home and one on c4 (and enough to pay), the trips
    offered are the village's two neighbours and c4's four neighbours."""
    s = traveller()
    s = place(s, 0, 2, Travelling("c4"))
    s = give(s, 0, goods={Good.WAGON: 1}, cubes={Cube.BROWN: 3, Cube.PINK: 3, Cube.ORANGE: 3})
    assert legal_actions(s) == [
        Travel("village", "c1", 1),
        Travel("village", "c2", 1),
        Travel("c4", "c1", 2),
        Travel("c4", "c2", 2),
        Travel("c4", "c6", 2),
        Travel("c4", "c7", 2),
        Skip(),
    ]
    with pytest.raises(IllegalActionError) as err:
        apply(s, Travel("c4", "c8", 2))
    assert "not adjacent" in err.value.reason
    with pytest.raises(IllegalActionError):
        apply(s, Travel("c4", "village", 2))


# --- TRV-03 -------------------------------------------------------------------------------


ONCE_PER_CITY = Variant(readings={"AMB-19": "a"})  # the default in both editions (issue 29)


def test_trv03_second_visit_pays_but_gets_no_marker_or_reward() -> None:
    """TRV-03 (AMB-19 a): back on c1 (marker already there) the trip is paid, no marker, no
    reward. (Under AMB-19 b the reward is paid again: test_readings.py.)"""
    s = traveller(variant=ONCE_PER_CITY)
    s = place(s, 0, 1, Travelling("c3"))
    s = with_markers(s, 0, ["c1", "c3"])
    s = give(s, 0, goods={Good.WAGON: 1}, cubes={Cube.ORANGE: 1})
    s, tr = go(s, Travel("c3", "c1", 1))
    assert tr == ["TIME-01", "TRV-02", "TRV-03"]
    p = s.players[0]
    assert (p.markers, p.prestige, p.lifetime) == (("c1", "c3"), 0, 2)
    assert p.goods.total() == 0 and p.cubes.total() == 0
    assert p.members.count(Travelling("c1")) == 1


@pytest.mark.parametrize("edition", ["big-box-2023", "original-2011"])
def test_trv08_amb19_c_a_marker_and_the_reward_on_every_arrival(edition: str) -> None:
    """TRV-08 (AMB-19 c, 2023 p. 10 read for every arrival: "put a marker onto the city you
    reached. You then receive the city's reward"): back on c1 (marked already) a second
    marker of seat 0's goes there and the reward is paid again; the final scoring counts
    the markers (p. 14 "(i.e., number of markers of your color)"), the invariants accept
    the repeated marker. With the markers out, nothing (TRV-03)."""
    c = Variant(readings={"AMB-19": "c"})
    s = traveller(edition, variant=c)
    s = place(s, 0, 1, Travelling("c3"))
    s = with_markers(s, 0, ["c1", "c3"])
    s = give(s, 0, goods={Good.WAGON: 1}, cubes={Cube.ORANGE: 1})
    s, tr = go(s, Travel("c3", "c1", 1))
    assert tr[-2:] == ["TRV-02", "TRV-08"]
    p = s.players[0]
    assert p.markers == ("c1", "c1", "c3") and p.prestige == 3
    check(s)
    assert score_breakdown(s)[0].travel == s.rules.data.score_travel[3]
    full = traveller(edition, variant=c)
    full = place(full, 0, 1, Travelling("c3"))
    full = with_markers(full, 0, ["c1", "c1", "c1", "c3", "c3", "c3"])
    full = give(full, 0, goods={Good.WAGON: 1}, cubes={Cube.ORANGE: 1})
    full, tr = go(full, Travel("c3", "c1", 1))
    assert tr[-1] == "TRV-03" and full.players[0].prestige == 0


def test_trv03_markers_are_per_player() -> None:
    """TRV-03: another player's marker on c1 does not stop seat 0's reward there."""
    s = traveller()
    s = with_markers(s, 1, ["c1"])
    s = give(s, 0, goods={Good.WAGON: 1}, cubes={Cube.BROWN: 2})
    s = apply(s, Travel("village", "c1", 1))
    assert s.players[0].markers == ("c1",) and s.players[0].prestige == 3
    assert s.players[1].markers == ("c1",)


def test_trv03_no_reward_once_the_six_markers_are_out() -> None:
    """TRV-03 (AMB-18): with all 6 markers placed, a trip to a 7th city (c8) places nothing
    and gives nothing, but is paid."""
    s = traveller()
    assert s.rules.data.travel_markers == 6
    s = place(s, 0, 1, Travelling("c6"))
    s = with_markers(s, 0, ["c1", "c2", "c3", "c4", "c5", "c6"])
    s = give(s, 0, goods={Good.WAGON: 1}, cubes={Cube.ORANGE: 1, Cube.BROWN: 1, Cube.PINK: 1})
    s, tr = go(s, Travel("c6", "c8", 1))
    assert "TRV-03" in tr and "TRV-04" not in tr
    p = s.players[0]
    assert len(p.markers) == 6 and "c8" not in p.markers
    assert (p.prestige, p.lifetime, p.cubes.total(), p.goods.total()) == (0, 2, 0, 0)
    assert p.members.count(Travelling("c8")) == 1


def test_trv01_start_again_from_the_village_with_only_markers_on_the_map() -> None:
    """TRV-01 / TRV-03 (AMB-17): markers but no member on the map: the trip starts at the
    village; c1 (already marked) gives nothing under AMB-19 a, c2 gives its 3 prestige."""
    s = traveller(variant=ONCE_PER_CITY)
    s = with_markers(s, 0, ["c1", "c3"])
    s = give(s, 0, goods={Good.WAGON: 2}, cubes={Cube.BROWN: 2, Cube.PINK: 2})
    assert legal_actions(s) == [Travel("village", "c1", 1), Travel("village", "c2", 1), Skip()]
    to_c1 = apply(s, Travel("village", "c1", 1))
    assert (to_c1.players[0].prestige, to_c1.players[0].markers) == (0, ("c1", "c3"))
    to_c2 = apply(s, Travel("village", "c2", 1))
    assert (to_c2.players[0].prestige, to_c2.players[0].markers) == (3, ("c1", "c2", "c3"))


def test_trv01_an_unborn_member_cannot_travel() -> None:
    """TRV-01: only a member on the farmyard starts a trip (the "2"s are unborn)."""
    s = traveller()
    assert s.players[0].members.count(UNBORN) == 7
    s = give(s, 0, goods={Good.WAGON: 1}, cubes={Cube.BROWN: 2})
    with pytest.raises(IllegalActionError):
        apply(s, Travel("village", "c1", 2))
    assert isinstance(s.pending, ChooseAction)
