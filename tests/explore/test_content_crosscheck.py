"""The rule-content model judged by exhaustion (`explore.crosscheck.content_crosscheck`):
on `tiny` it proves the rule-content queries the explorer shows unreachable, proves
nothing the explorer reaches, and a content predicate that is wrong is caught."""

from __future__ import annotations

import pytest

from village_rules.data.edition import EditionData
from village_rules.explore.configs import configuration
from village_rules.explore.crosscheck import content_crosscheck
from village_rules.explore.monitors import MONITORS
from village_rules.explore.search import Exploration, explore
from village_rules.proofs.catalogue.catalogue import by_name
from village_rules.proofs.model import induction
from village_rules.proofs.model.induction import RulePredicate

NAMES = ("two-deaths-one-turn", "death-during-mass", "market-day-during-mass")


def _tiny_two_deaths() -> tuple[EditionData, Exploration]:
    data = configuration("tiny").data
    monitored = explore(
        data, 2, check=False, monitor=MONITORS["two-deaths-one-turn"], queries=[by_name(n) for n in NAMES]
    )
    return data, monitored


def test_on_tiny_the_content_model_proves_what_exhaustion_finds_unreachable_and_nothing_it_reaches() -> None:
    data, result = _tiny_two_deaths()
    assert result.verdicts["two-deaths-one-turn"].reachable  # a life-time track of 2: two passes in a turn
    check = content_crosscheck(data, 2, result)
    assert check.disagreements == ()
    assert check.proves == {"death-during-mass": True, "market-day-during-mass": True}


def test_a_content_predicate_missing_the_reachable_case_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    # planted modelling error: "two deaths in a turn" written as something no state meets,
    # so the model proves it unreachable where the explorer has a witness
    wrong = RulePredicate("planted: never", True, lambda v, a, t, k, o: o.all(v["round"] < 0))
    monkeypatch.setitem(induction.RULE_PREDICATES, "two-deaths-one-turn", wrong)
    data, result = _tiny_two_deaths()
    check = content_crosscheck(data, 2, result)
    assert [d.query for d in check.disagreements] == ["two-deaths-one-turn"]
    assert "the model or the query's abstract predicate is wrong" in str(check.disagreements[0])
