"""Analyses of an edition's travel map (networkx): what reaching each city and collecting k
cities costs, which paths no rational traveller walks, and travel points per cost.

A path's *price* is one number for comparing costs: its time plus every cube, goods tile,
grain and coin it asks for, each counted 1 (the `Cost` itself is kept beside it, so the
time, the wagons and the cubes by colour are reported as they are). Every city a member
enters gets a marker (2023 p. 10), so collecting k cities is a connected set of k cities
with the village, walked along its cheapest spanning tree.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations, pairwise

import networkx as nx

from village_rules.data.edition import Cost, EditionData
from village_rules.engine.travel_map import travel_graph

MAX_EXACT_CITIES = 16
"""Maps with more cities than this get the greedy (Prim) tours instead of the exact ones."""


def price(cost: Cost) -> int:
    """Time plus every cube, goods tile, grain and coin of a cost, each counted 1."""
    return cost.time + cost.cubes.total() + cost.goods.total() + cost.grain + cost.coins


def _weighted(data: EditionData) -> nx.Graph[str]:
    graph: nx.Graph[str] = nx.Graph()
    for a, b, attrs in travel_graph(data).edges(data=True):
        graph.add_edge(a, b, price=price(attrs["cost"]), cost=attrs["cost"])
    return graph


@dataclass(frozen=True, slots=True)
class Route:
    """The cheapest walk from the village to one city."""

    city: str
    path: tuple[str, ...]
    cost: Cost
    price: int


@dataclass(frozen=True, slots=True)
class Tour:
    """The cheapest way to hold markers on `k` cities: the cities and the paths walked."""

    k: int
    cities: tuple[str, ...]
    paths: tuple[tuple[str, str], ...]
    cost: Cost
    price: int
    exact: bool
    """True when every connected set of k cities was compared (small maps)."""


def _sum(costs: list[Cost]) -> Cost:
    total = Cost()
    for c in costs:
        total = total.plus(c)
    return total


@lru_cache(maxsize=16)
def cheapest_routes(data: EditionData) -> tuple[Route, ...]:
    """For each city reachable from the village, the cheapest walk there (by price)."""
    graph = _weighted(data)
    if data.village not in graph:
        return ()
    paths = nx.single_source_dijkstra_path(graph, data.village, weight="price")
    out = []
    for city in sorted(n for n in paths if n != data.village):
        walk = tuple(paths[city])
        cost = _sum([graph.edges[a, b]["cost"] for a, b in pairwise(walk)])
        out.append(Route(city, walk, cost, price(cost)))
    return tuple(out)


def _tree(graph: nx.Graph[str], nodes: set[str]) -> tuple[int, list[tuple[str, str]]] | None:
    sub = graph.subgraph(nodes)
    if not nx.is_connected(sub):
        return None
    tree = nx.minimum_spanning_tree(sub, weight="price")
    edges = sorted(tuple(sorted((a, b))) for a, b in tree.edges())
    return sum(graph.edges[a, b]["price"] for a, b in edges), [(a, b) for a, b in edges]


def _tour(graph: nx.Graph[str], k: int, cities: set[str], edges: list[tuple[str, str]], *,
          exact: bool) -> Tour:
    cost = _sum([graph.edges[a, b]["cost"] for a, b in edges])
    return Tour(k, tuple(sorted(cities)), tuple(edges), cost, price(cost), exact)


@lru_cache(maxsize=64)
def cheapest_tour(data: EditionData, k: int) -> Tour | None:
    """The cheapest connected set of `k` cities with the village (None: fewer reachable)."""
    graph = _weighted(data)
    village = data.village
    if village not in graph or k < 0:
        return None
    reachable = sorted(nx.node_connected_component(graph, village) - {village})
    if k > len(reachable):
        return None
    if len(reachable) <= MAX_EXACT_CITIES:
        best: tuple[int, tuple[str, ...], list[tuple[str, str]]] | None = None
        for chosen in combinations(reachable, k):
            found = _tree(graph, {village, *chosen})
            if found is not None and (best is None or (found[0], chosen) < (best[0], best[1])):
                best = (found[0], chosen, found[1])
        if best is None:
            return None
        return _tour(graph, k, set(best[1]), best[2], exact=True)
    held = {village}  # Prim: the cheapest path out of what is held, k times
    edges: list[tuple[str, str]] = []
    for _ in range(k):
        a, b = min(
            ((a, b) for a in sorted(held) for b in sorted(graph.neighbors(a)) if b not in held),
            key=lambda e: (graph.edges[e]["price"], e),
        )
        held.add(b)
        edges.append((a, b) if a < b else (b, a))
    return _tour(graph, k, held - {village}, sorted(edges), exact=False)


@dataclass(frozen=True, slots=True)
class TravelStep:
    """One step of the travel score: k cities for `points`, and the cheapest tour to it."""

    cities: int
    points: int
    tour: Tour | None

    @property
    def points_per_price(self) -> float | None:
        """Travel points per unit of price (None when the step is out of reach)."""
        if self.tour is None or self.tour.price == 0:
            return None
        return self.points / self.tour.price


def score_steps(data: EditionData) -> tuple[TravelStep, ...]:
    """Every step of the edition's travel score (cities with markers: points), with the
    cheapest tour that reaches it."""
    steps = []
    for k, points in enumerate(data.score_travel):
        if k == 0 or points == data.score_travel[k - 1]:
            continue
        steps.append(TravelStep(k, points, cheapest_tour(data, k)))
    return tuple(steps)


def dominated_paths(data: EditionData) -> tuple[tuple[str, str], ...]:
    """Paths no rational traveller walks: another walk between the same two ends costs no
    more in time and in every cube colour and goods tile, is cheaper in one of them, and
    passes only cities (so it collects markers on the way too)."""
    graph = _weighted(data)
    out = []
    for a, b in sorted(tuple(sorted(e)) for e in graph.edges()):
        direct: Cost = graph.edges[a, b]["cost"]
        rest = graph.copy()
        rest.remove_edge(a, b)
        if not nx.has_path(rest, a, b):
            continue
        for walk in nx.shortest_simple_paths(rest, a, b, weight="price"):
            if len(walk) > len(graph):
                break
            cost = _sum([rest.edges[x, y]["cost"] for x, y in pairwise(walk)])
            if _no_more(cost, direct) and cost != direct:
                out.append((a, b))
                break
            if price(cost) > price(direct):
                break
    return tuple(out)


def _no_more(c: Cost, d: Cost) -> bool:
    keys_cubes = {k for k, _ in c.cubes.items} | {k for k, _ in d.cubes.items}
    keys_goods = {k for k, _ in c.goods.items} | {k for k, _ in d.goods.items}
    return (
        c.time <= d.time
        and c.grain <= d.grain
        and c.coins <= d.coins
        and all(c.cubes[k] <= d.cubes[k] for k in keys_cubes)
        and all(c.goods[k] <= d.goods[k] for k in keys_goods)
    )


def unreachable_cities(data: EditionData) -> tuple[str, ...]:
    """Cities no walk from the village reaches (a map drawn wrong, or a user's data file)."""
    graph = travel_graph(data)
    reach = nx.node_connected_component(graph, data.village) if data.village in graph else set()
    return tuple(sorted(c.id for c in data.cities if c.id not in reach))


def plan_distance(data: EditionData, origin: str, targets: frozenset[str]) -> int | None:
    """The price of the cheapest walk from `origin` to the nearest of `targets` (None: none
    reachable). Used by the traveller to value a member's position."""
    if not targets:
        return None
    dist = _distances(data)
    return min((dist[origin][t] for t in targets if t in dist.get(origin, {})), default=None)


@lru_cache(maxsize=16)
def _distances(data: EditionData) -> dict[str, dict[str, int]]:
    graph = _weighted(data)
    lengths = nx.all_pairs_dijkstra_path_length(graph, weight="price")
    return {n: {t: int(v) for t, v in d.items()} for n, d in lengths}
