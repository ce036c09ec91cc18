"""The rule-content link on every edge of an explored configuration (explore/crosscheck.py
`content_link_on_edges`): the tiny configuration's every edge lies in the model, and an
engine change the model forbids is found on an edge, naming the clause."""

from __future__ import annotations

import pytest
from support import TINY_EDGES, TINY_STATES

from village_rules.explore.configs import configuration
from village_rules.explore.crosscheck import content_link_on_edges
from village_rules.explore.search import ExplorationLimitError
from village_rules.proofs.model import guarded
from village_rules.proofs.model.content import K_TAKE


@pytest.mark.by_hand  # CI's `prove --expect` gate checks every edge of tiny, births and small first
@pytest.mark.slow  # ~20 s
@pytest.mark.no_cover  # CPU-bound replays: not traced in the coverage run (tests/README.md, "Coverage")
def test_every_edge_of_tiny_lies_in_the_rule_content_model() -> None:
    result = content_link_on_edges(configuration("tiny").data, 2)
    assert result.broken == (), result.where
    assert (result.states, result.edges) == (TINY_STATES, TINY_EDGES)  # every state, every edge


def test_a_clause_the_engine_breaks_is_named_on_its_edge(monkeypatch: pytest.MonkeyPatch) -> None:
    # a clause the engine does not satisfy: "a plague cube is never taken"
    clauses = dict(guarded.KIND_CLAUSES[K_TAKE])
    clauses["planted: no plague cube is taken"] = lambda s, a, t, k, o: a["plague"] == 0
    monkeypatch.setitem(guarded.KIND_CLAUSES, K_TAKE, clauses)
    result = content_link_on_edges(configuration("tiny").data, 2)
    assert result.broken == ("planted: no plague cube is taken",)
    assert "plague" in result.where


def test_the_state_budget_is_a_clear_error() -> None:
    with pytest.raises(ExplorationLimitError, match="more than 10 distinct states"):
        content_link_on_edges(configuration("tiny").data, 2, max_states=10)
