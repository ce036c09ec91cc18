"""The z3 target steer (`proofs.target_steer`): games steered towards z3's macro target
find a witness that unsteered games on the same seed miss, only because of z3's target
(ablated, the same seed finds nothing), and the same seed gives the same witness twice."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

import pytest

from village_rules.drivers.play import replay_log
from village_rules.engine.setup import new_game
from village_rules.errors import ParameterError
from village_rules.explore.witnesses import holds_after
from village_rules.proofs.catalogue import by_name
from village_rules.proofs.history import History
from village_rules.proofs.model import Constants
from village_rules.proofs.plan_target import Target, Targeter, counts
from village_rules.proofs.run import z3_steers
from village_rules.proofs.search import Steer, search
from village_rules.proofs.target_steer import (
    TargetBudget,
    relabellings,
    symmetric_distance,
    target_search,
)
from village_rules.rules.variant import Variant

EDITION, PLAYERS, SEED = "original-2011", 2, 4
COINS = replace(by_name("coins-short-at-mill"), steer=Steer())
"""Query 9b (the coin supply short when the mill pays out) with its hand steer stripped:
unsteered games do not find it (docs/proofs.md, the z3 steer's table)."""
BUDGET = TargetBudget(max_actions=400)
"""The default budget but 400 actions a game (seed 4's witness has 182)."""


def test_target_steer_finds_what_unsteered_games_miss_replays_and_repeats() -> None:
    """On SEED, the z3-steered game reaches query 9b within the budget; its log replays to
    its final state and the rebuilt path meets the concrete predicate. A second run in the
    same process, after other z3 work, gives the same log (determinism). The unsteered
    search on the same seed, with ten times the actions, does not reach it."""
    logs = []
    for _ in range(2):
        witness, games, stats = target_search(
            EDITION, PLAYERS, COINS.abstract, COINS.concrete, 1, first_seed=SEED, budget=BUDGET
        )
        assert witness is not None and games == 1 and stats.targets > 0
        assert replay_log(witness.log).state == witness.final
        rebuilt = History([new_game(EDITION, PLAYERS, SEED, Variant())])
        for a in witness.history.decisions:
            rebuilt.play(a)
        assert rebuilt.last == witness.final
        # judged by sub-steps: the query holds at the last action and not before
        assert holds_after(rebuilt.states[0], witness.log.actions, COINS) == [len(witness.log.actions)]
        logs.append(witness.log.actions)
        state = new_game(EDITION, PLAYERS, 3, Variant())
        k = Constants.of(state.rules.data, PLAYERS)
        Targeter(PLAYERS, k, by_name("free-final-action").abstract, 1_000_000).ask(counts(state))
    assert logs[0] == logs[1]
    plain, _ = search(EDITION, PLAYERS, Steer(), COINS.concrete, 1, first_seed=SEED)  # 4,000 actions
    assert plain is None


def test_without_z3_targets_the_same_seed_finds_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """The ablation: with z3 giving no target, the same seed and budget find no witness,
    so the witness above is z3's doing."""

    def no_target(self: Targeter, now: Mapping[str, int], blocked: Sequence[Target] = ()) -> Target | None:
        return None

    monkeypatch.setattr(Targeter, "ask", no_target)
    witness, _, stats = target_search(
        EDITION, PLAYERS, COINS.abstract, COINS.concrete, 1, first_seed=SEED, budget=BUDGET
    )
    assert witness is None and stats.targets == 0 and stats.asks > 0


def test_z3_steers_only_rows_without_a_steer_that_the_models_cover() -> None:
    """`prove(..., z3_steer=True)` steers by z3 (now the archive, test_archive_steer.py)
    only a query without a hand-written steer, in a row the models cover: not a query with
    its steer, a solo row, or other readings."""
    state = new_game(EDITION, PLAYERS, 0, Variant())
    assert z3_steers(COINS, state) and not z3_steers(by_name("coins-short-at-mill"), state)
    assert not z3_steers(COINS, new_game("big-box-2023", 1, 0, Variant()))
    other = replace(COINS, variant=Variant(readings={"AMB-23": "b"}))
    assert not z3_steers(other, new_game(EDITION, PLAYERS, 0, other.variant))


def test_distance_is_the_nearest_seat_relabelling() -> None:
    """A target for seat 0 is as near when seat 1 has what it needs."""
    now = counts(new_game(EDITION, PLAYERS, SEED, Variant()))
    target = Target({"coins_0": now["coins_0"] + 4}, 10)
    assert symmetric_distance(target, now, relabellings(PLAYERS)) == 4
    richer = {**now, "coins_1": now["coins_1"] + 3}
    assert symmetric_distance(target, richer, relabellings(PLAYERS)) == 1
    assert target.distance(richer) == 4


def test_bad_budgets_are_refused() -> None:
    """Counts below 1 and a randomness outside [0, 1] are refused, naming the budget."""
    with pytest.raises(ParameterError, match="budget"):
        TargetBudget(patience=0)
    with pytest.raises(ParameterError, match="budget"):
        TargetBudget(randomness=1.5)
    with pytest.raises(ParameterError, match=r"budget\.lookahead.*at least 0"):
        TargetBudget(lookahead=-1)
    assert TargetBudget(lookahead=0).lookahead == 0  # no look-ahead is allowed
    with pytest.raises(ParameterError, match=r"budget\.asks"):
        TargetBudget(asks=2.5)  # type: ignore[arg-type]
