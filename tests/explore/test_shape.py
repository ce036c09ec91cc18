"""The shape of an explored graph (village_rules.explore.shape): exact end probabilities
that random play agrees with, cycles and stuck states found where a graph has them."""

from __future__ import annotations

import math
import random
from collections import Counter
from fractions import Fraction

import pytest

from village_rules.drivers.play import play, random_policy
from village_rules.engine.end_of_game import ended_by
from village_rules.engine.setup import new_game
from village_rules.explore.configs import configuration
from village_rules.explore.search import Graph, explore
from village_rules.explore.shape import shape

TINY_ENDS = {
    "chronicle": Fraction(263086699, 369008640),
    "chronicle and graveyard": Fraction(105921941, 369008640),
}


@pytest.fixture(scope="module")
def tiny_graph() -> Graph:
    result = explore(configuration("tiny").data, 2, check=False, graph=True)
    assert result.graph is not None
    return result.graph


def test_tiny_is_acyclic_live_and_its_end_probabilities_are_pinned(tiny_graph: Graph) -> None:
    s = shape(tiny_graph)
    assert s.acyclic and s.cycle_states == 0 and s.lasso is None
    assert s.stuck == 0  # liveness: every state can still reach an end
    assert s.longest_game == 30
    assert s.end_probabilities == TINY_ENDS
    assert sum(TINY_ENDS.values()) == 1


def test_random_games_end_as_often_as_the_exact_probabilities_say() -> None:
    # 800 seeded games of the fuzzer's policy: each frequency within 4 standard errors.
    data = configuration("tiny").data
    games = 800
    tally: Counter[str] = Counter()
    for seed in range(games):
        state = new_game(data, 2, seed)
        final, _ = play(state, [random_policy] * 2, random.Random(seed))
        tally[ended_by(final)] += 1
    for end, p in TINY_ENDS.items():
        error = math.sqrt(float(p) * (1 - float(p)) / games)
        assert abs(tally[end] / games - float(p)) < 4 * error, (end, tally)


def _graph(edges: list[list[tuple[int, Fraction | None]]], ends: dict[int, str]) -> Graph:
    return Graph(roots=[(0, Fraction(1))], edges=edges, ends=ends)


def test_a_cycle_is_found_and_solved_exactly() -> None:
    # 0 -> 1 (decision) or 2; 1 -> 0 back (a cycle of 2) or the end 3 "a"; 2 -> end 4 "b".
    g = _graph(
        [[(1, None), (2, None)], [(0, None), (3, None)], [(4, Fraction(1))], [], []],
        {3: "a", 4: "b"},
    )
    s = shape(g)
    assert not s.acyclic and s.cycle_states == 2
    assert s.shortest_cycle == 2 and s.lasso == (0, 2)
    assert s.stuck == 0 and s.longest_game is None
    # x0 = x1/2 + b/2, x1 = x0/2 + a/2: P(a) = 1/3, P(b) = 2/3
    assert s.end_probabilities == {"a": Fraction(1, 3), "b": Fraction(2, 3)}


def test_a_closed_loop_is_a_liveness_failure() -> None:
    # 0 -> 1 or the end 2; 1 -> 1 forever (a self-loop no play leaves)
    g = _graph([[(1, None), (2, None)], [(1, None)], []], {2: "a"})
    s = shape(g)
    assert s.stuck == 1
    assert s.shortest_cycle == 1
    assert s.end_probabilities is None  # the chain does not end with probability 1
