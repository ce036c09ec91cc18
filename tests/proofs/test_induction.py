"""k-induction over the rule-content model (proofs/model/induction.py): four queries that need
rule content are unreachable in every edition and player count, each proof needs the
clause it rests on (drop it and the proof fails), and the predicates are not vacuous."""

from __future__ import annotations

import pytest
import z3

from village_rules.engine.setup import new_game
from village_rules.proofs.model.content import content_vars
from village_rules.proofs.model.guarded import ContentConstants
from village_rules.proofs.model.induction import GUARDS, RULE_PREDICATES, k_induction_content, satisfiable
from village_rules.proofs.model.model import PY

ROWS = [("original-2011", n) for n in (2, 3, 4)] + [("big-box-2023", n) for n in (2, 3, 4, 5)]


@pytest.mark.parametrize("name", sorted(RULE_PREDICATES))
@pytest.mark.parametrize(("edition", "players"), ROWS)
def test_rule_content_query_is_proved_unreachable(name: str, edition: str, players: int) -> None:
    proof = k_induction_content(edition, players, RULE_PREDICATES[name], max_k=2)
    assert proof.proved, proof.reason
    assert GUARDS[name] in proof.invariant or "the guarded commands of the step's kind" in proof.invariant


@pytest.mark.parametrize("name", sorted(RULE_PREDICATES))
def test_each_proof_needs_its_guarding_clause(name: str) -> None:
    pred = RULE_PREDICATES[name]
    dropped = frozenset({GUARDS[name]})
    without = k_induction_content("big-box-2023", 3, pred, max_k=2, drop=dropped)
    assert not without.proved
    # and the predicate itself can hold once that clause is gone (the proof is not vacuous)
    assert satisfiable(3, "big-box-2023", pred, dropped)


def test_market_day_during_mass_is_a_state_predicate_for_the_catalogue() -> None:
    """The state predicates have the catalogue's form (v, constants) -> z3, and evaluate
    to false on a real initial state."""
    state = new_game("original-2011", 3, 0)
    pred = RULE_PREDICATES["market-day-during-mass"].as_state_predicate()
    k = ContentConstants.of(state.rules, 3)
    v = content_vars(state)
    assert z3.is_false(z3.simplify(pred(v, k)))
    assert not RULE_PREDICATES["market-day-during-mass"].holds(v, v, v, k, PY)
    with pytest.raises(ValueError, match="step predicate"):
        RULE_PREDICATES["death-during-mass"].as_state_predicate()
