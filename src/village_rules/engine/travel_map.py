"""The travel map as a networkx graph (2023 p. 10): the village and the cities as nodes with
their rewards, paths as edges with their costs. Queries for the engine and for users."""

from __future__ import annotations

from functools import lru_cache

import networkx as nx

from village_rules.data.components import FARMYARD, Travelling
from village_rules.data.edition import City, Cost, EditionData
from village_rules.model.state import GameState


def travel_graph(data: EditionData) -> nx.Graph[str]:
    """Nodes: the village (`kind="village"`) and cities (`kind="city"`, `city=City`);
    edges: paths with `cost=Cost`. Built once per edition data and frozen (networkx raises
    on any change), so no caller can alter the map the engine plays on."""
    return _frozen_graph(data)


@lru_cache(maxsize=16)
def _frozen_graph(data: EditionData) -> nx.Graph[str]:
    graph: nx.Graph[str] = nx.Graph()
    graph.add_node(data.village, kind="village")
    for city in data.cities:
        graph.add_node(city.id, kind="city", city=city)
    for path in data.paths:
        graph.add_edge(path.a, path.b, cost=path.cost)
    frozen: nx.Graph[str] = nx.freeze(graph)
    return frozen


def adjacent(data: EditionData, node: str) -> list[str]:
    """Cities directly reachable from `node` by one path (never the village), sorted."""
    graph = travel_graph(data)
    if node not in graph:
        raise KeyError(f"{node!r} is not on the travel map of {data.edition}")
    return sorted(n for n in graph.neighbors(node) if n != data.village)


def path_cost(data: EditionData, a: str, b: str) -> Cost:
    """What walking the path between two adjacent nodes costs."""
    graph = travel_graph(data)
    if not graph.has_edge(a, b):
        raise KeyError(f"no path between {a!r} and {b!r} on the travel map of {data.edition}")
    cost: Cost = graph.edges[a, b]["cost"]
    return cost


def city(data: EditionData, city_id: str) -> City:
    """The city with this id on the edition's travel map."""
    node: City = travel_graph(data).nodes[city_id]["city"]
    return node


def member_cities(state: GameState, seat: int) -> list[str]:
    """Cities where the seat has a member, sorted."""
    return sorted({loc.city for loc in state.players[seat].members if isinstance(loc, Travelling)})


def reachable_cities(state: GameState, seat: int) -> list[str]:
    """Cities the seat could reach with one travel action: the village's neighbours (if a
    member is on the farmyard) and the neighbours of its members' cities."""
    data = state.rules.data
    found: set[str] = set()
    if FARMYARD in state.players[seat].members:
        found.update(adjacent(data, data.village))
    for c in member_cities(state, seat):
        found.update(adjacent(data, c))
    return sorted(found)
