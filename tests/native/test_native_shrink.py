"""The shrinker's candidates judged on the native core (proofs/search/native_judge.py) tied
to the reference judge: the shrinker is deterministic, so with judges that agree a shrink
gives the same log, replays, steps and verdict on either; `shrink_natively` replays its
result on the reference, and a native predicate planted to differ is caught there, named."""

from __future__ import annotations

import dataclasses

import pytest

from village_rules.drivers.play import GameLog
from village_rules.model.actions import format_action
from village_rules.proofs.catalogue.catalogue import HIGH_SCORE, by_name
from village_rules.proofs.search import native_judge
from village_rules.proofs.search.history import History
from village_rules.proofs.search.search import attempt
from village_rules.proofs.search.shrink import PredicateJudge, judge_for, shrink
from village_rules.proofs.table.stored import WITNESSES

pytest.importorskip("village_rules.native.predicates")


def _log(name: str) -> GameLog:
    return GameLog.from_json((WITNESSES / f"{name}.json").read_text(encoding="utf-8"))


def _unshrunk(name: str, query_name: str) -> GameLog:
    """The stored witness `name` replaced by the whole steered game of its seed up to the
    query, as the search found it before the shrinker ran (so the shrinker has work)."""
    stored = _log(name)
    query = by_name(query_name)
    e, n, seed = stored.edition, stored.players, stored.seed
    found = attempt(e, n, seed, query.steer, query.concrete, variant=query.variant)
    assert found is not None
    unshrunk = dataclasses.replace(stored, actions=tuple(format_action(a) for a in found.decisions))
    assert len(unshrunk.actions) > len(stored.actions)
    return unshrunk


@pytest.mark.parametrize(
    ("witness", "query", "budget"),
    [
        ("16b-free-sale-amb-06-b-big-box-2023-2p", "free-sale-amb-06-b", 400_000),  # a path monitor, AMB-06 b
        ("3-hidden-lowest-death-big-box-2023-2p", "hidden-lowest-death", 400_000),  # a STEP query, AMB-46 b
        ("7-all-customers-served-big-box-2023-2p", "all-customers-served", 12_000),  # runs out of budget
    ],
)
def test_a_shrink_judged_natively_is_the_reference_shrink(witness: str, query: str, budget: int) -> None:
    log = _unshrunk(witness, query) if budget > 100_000 else _log(witness)
    reference = shrink(log, judge_for(by_name(query)), max_steps=budget)
    judge = native_judge.NativeJudge(query, log.initial_state().rules.data, HIGH_SCORE)
    natively = shrink(log, judge, max_steps=budget)
    assert natively.log == reference.log
    assert (natively.replays, natively.steps, natively.minimal) == (
        reference.replays,
        reference.steps,
        reference.minimal,
    )
    if budget > 100_000:  # candidates kept (turns and rounds removed), to a fixpoint
        assert natively.after < natively.before and natively.minimal


def test_shrink_natively_replays_its_result_on_the_reference() -> None:
    log = _unshrunk("16b-free-sale-amb-06-b-big-box-2023-2p", "free-sale-amb-06-b")
    reference = judge_for(by_name("free-sale-amb-06-b"))
    shrunk = native_judge.shrink_natively(log, "free-sale-amb-06-b", reference, HIGH_SCORE, max_steps=400_000)
    assert isinstance(shrunk.history, History)
    assert shrunk.history.step_count == shrunk.after < shrunk.before  # the reference's path of the shrunk log
    assert shrunk.minimal


def test_a_planted_native_predicate_is_caught_by_the_reference_replay(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the native monitor of query 6a planted to hold after three monks in a row: the native
    # judge shrinks to a game the reference judge does not accept, and the run says so
    log = _log("6a-mass-four-monks-original-2011-2p")
    reference = judge_for(by_name("mass-four-monks"))
    assert isinstance(reference, PredicateJudge)
    real = native_judge.NativeJudge.start

    def planted(self: native_judge.NativeJudge, start_log: GameLog) -> native_judge.NativePath:
        path = real(self, start_log)
        path.game.set_predicate_plant("mass-four-monks holds after three")
        return path

    monkeypatch.setattr(native_judge.NativeJudge, "start", planted)
    with pytest.raises(native_judge.NativeJudgeTieError, match="mass-four-monks: the native judge shrank"):
        native_judge.shrink_natively(log, "mass-four-monks", reference, HIGH_SCORE, max_steps=200_000)


def test_a_query_the_core_does_not_judge_is_refused() -> None:
    log = _log("6a-mass-four-monks-original-2011-2p")
    assert "lasso" not in native_judge.native_queries()
    with pytest.raises(ValueError, match="does not judge 'lasso'"):
        native_judge.NativeJudge("lasso", log.initial_state().rules.data, HIGH_SCORE)
