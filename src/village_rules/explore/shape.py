"""The shape of an explored state graph (`search.Graph`): cycles, whether every state can
still reach an end, the longest game, and the exact probability of each end under
uniformly random decisions.

The graph is the engine's own: its edges are every decision and chance outcome of every
reachable state, merged where two states are equal but for the round counter (which no
rule reads), so each merged state has the same futures with the same probabilities and the
random-play chain on the graph is exact. Decisions get probability 1/n each among a
state's n legal actions (the fuzzer's `random_policy`), chance outcomes their own, the
set-up deals theirs. Built with networkx; the linear systems of cyclic parts are solved
exactly over `Fraction`s, up to `MAX_SYSTEM` states per strongly connected component.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

import networkx as nx

from village_rules.explore.search import Graph

if TYPE_CHECKING:
    Chain = nx.DiGraph[int]
    """The random-play chain over state ids (`transition_graph`)."""

MAX_SYSTEM = 400
"""The largest strongly connected component whose linear system is solved exactly."""
MAX_CYCLE_SEARCH = 20_000
"""The most states in cycles for which the shortest cycle is searched state by state."""


@dataclass(frozen=True, slots=True)
class Shape:
    """What the graph looks like (module docstring)."""

    acyclic: bool
    cycle_states: int
    """States on some cycle (in a strongly connected component with a cycle)."""
    shortest_cycle: int | None
    """Edges of the shortest cycle, when there are cycles and at most `MAX_CYCLE_SEARCH`
    states on them; None otherwise."""
    lasso: tuple[int, int] | None
    """(stem, loop): a shortest path from a root to a state of the shortest cycle found,
    and that cycle's length. None when acyclic."""
    stuck: int
    """States from which no end of the game can be reached (0: the liveness property holds)."""
    longest_game: int | None
    """Edges of the longest path from a set-up to an end (acyclic graphs only)."""
    end_probabilities: dict[str, Fraction] | None
    """The exact probability of each end under uniformly random decisions; None when a
    cyclic component is larger than `MAX_SYSTEM`."""


def transition_graph(graph: Graph) -> Chain:
    """The random-play chain: an edge u -> v weighted by the probability of going to v from u
    (parallel moves to the same state add up)."""
    g: Chain = nx.DiGraph()
    g.add_nodes_from(range(len(graph.edges)))
    for u, out in enumerate(graph.edges):
        decisions = sum(1 for _, p in out if p is None)
        weights: dict[int, Fraction] = {}
        for v, p in out:
            weights[v] = weights.get(v, Fraction(0)) + (Fraction(1, decisions) if p is None else p)
        for v, w in weights.items():
            g.add_edge(u, v, weight=w)
    return g


def shape(graph: Graph) -> Shape:
    """Analyse an explored graph (module docstring)."""
    g = transition_graph(graph)
    acyclic = nx.is_directed_acyclic_graph(g)
    components = [c for c in nx.strongly_connected_components(g) if len(c) > 1 or _self_loop(g, c)]
    cycle_states = sum(len(c) for c in components)
    shortest = None
    lasso = None
    if components and cycle_states <= MAX_CYCLE_SEARCH:
        shortest, on = _shortest_cycle(g, components)
        depth = _depths(g, (r for r, _ in graph.roots))
        lasso = (depth[on], shortest)
    stuck = len(g) - len(_reaching(g, graph.ends))
    longest = nx.dag_longest_path_length(g, weight="steps", default_weight=1) if acyclic else None
    return Shape(acyclic, cycle_states, shortest, lasso, stuck, longest, _end_probabilities(g, graph))


def _self_loop(g: Chain, component: set[int]) -> bool:
    (node,) = component
    return bool(g.has_edge(node, node))


def _shortest_cycle(g: Chain, components: list[set[int]]) -> tuple[int, int]:
    """The length of the shortest cycle and a state on it: a breadth-first search back to
    each state of each cyclic component, within the component."""
    best = (len(g) + 1, -1)
    for component in components:
        for start in sorted(component):
            seen = {start: 0}
            queue = deque([start])
            while queue:
                u = queue.popleft()
                if seen[u] + 1 >= best[0]:
                    break
                for v in g.successors(u):
                    if v == start:
                        best = min(best, (seen[u] + 1, start))
                        queue.clear()
                        break
                    if v in component and v not in seen:
                        seen[v] = seen[u] + 1
                        queue.append(v)
    return best


def _depths(g: Chain, roots: Iterable[int]) -> dict[int, int]:
    depth: dict[int, int] = {}
    queue: deque[int] = deque()
    for r in roots:
        if r not in depth:
            depth[r] = 0
            queue.append(r)
    while queue:
        u = queue.popleft()
        for v in g.successors(u):
            if v not in depth:
                depth[v] = depth[u] + 1
                queue.append(v)
    return depth


def _reaching(g: Chain, targets: Iterable[int]) -> set[int]:
    """Every state with a path to one of `targets` (the targets included)."""
    found = set(targets)
    queue = deque(found)
    while queue:
        v = queue.popleft()
        for u in g.predecessors(v):
            if u not in found:
                found.add(u)
                queue.append(u)
    return found


Distribution = dict[str, Fraction]


def _end_probabilities(g: Chain, graph: Graph) -> Distribution | None:
    condensed = nx.condensation(g)
    members: dict[int, list[int]] = {c: sorted(condensed.nodes[c]["members"]) for c in condensed}
    of: dict[int, Distribution] = {}
    for c in reversed(list(nx.topological_sort(condensed))):
        nodes = members[c]
        if len(nodes) == 1 and not g.has_edge(nodes[0], nodes[0]):
            (u,) = nodes
            of[u] = {graph.ends[u]: Fraction(1)} if u in graph.ends else _mix(g, u, of)
            continue
        solved = _solve(g, nodes, of) if len(nodes) <= MAX_SYSTEM else None
        if solved is None:
            return None
        of.update(solved)
    total: Distribution = {}
    for root, p in graph.roots:
        for end, q in of[root].items():
            total[end] = total.get(end, Fraction(0)) + p * q
    return dict(sorted(total.items()))


def _mix(g: Chain, u: int, of: dict[int, Distribution]) -> Distribution:
    out: Distribution = {}
    for v in g.successors(u):
        w = g.edges[u, v]["weight"]
        for end, q in of[v].items():
            out[end] = out.get(end, Fraction(0)) + w * q
    return out


def _solve(g: Chain, nodes: list[int], of: dict[int, Distribution]) -> dict[int, Distribution] | None:
    """x_u = sum over successors v of w(u, v) x_v for the component's states u, exactly:
    (I - W) X = B by Gaussian elimination over Fractions, one column per end. None when the
    system is singular (a closed cycle no play leaves: stuck states)."""
    index = {u: i for i, u in enumerate(nodes)}
    n = len(nodes)
    ends = sorted({end for u in nodes for v in g.successors(u) if v not in index for end in of[v]})
    rows: list[list[Fraction]] = []
    for u in nodes:
        row = [Fraction(0)] * (n + len(ends))
        row[index[u]] += 1
        for v in g.successors(u):
            w = g.edges[u, v]["weight"]
            if v in index:
                row[index[v]] -= w
            else:
                for k, end in enumerate(ends):
                    row[n + k] += w * of[v].get(end, Fraction(0))
        rows.append(row)
    for col in range(n):
        pivot = next((r for r in range(col, n) if rows[r][col] != 0), None)
        if pivot is None:
            return None
        rows[col], rows[pivot] = rows[pivot], rows[col]
        head = rows[col][col]
        rows[col] = [x / head for x in rows[col]]
        for r in range(n):
            if r != col and rows[r][col] != 0:
                factor = rows[r][col]
                rows[r] = [a - factor * b for a, b in zip(rows[r], rows[col], strict=True)]
    return {
        u: {end: rows[index[u]][n + k] for k, end in enumerate(ends) if rows[index[u]][n + k] != 0}
        for u in nodes
    }
