"""The direct generators of the family step (`engine/family.py:legal`), the market
choice (`engine/market_day.py:legal`), the council chamber
(`engine/council_chamber.py:legal`) and travel (`engine/travel.py:legal`), reached from
`core._generate`: each equals the generate-and-filter oracle at every such step of seeded
games under the readings that change it (AMB-24, AMB-06, AMB-03, AMB-17, AMB-18), and
the fuzzer's every-step check (`play_game`, the invariant `structure.legal_set`) catches
a wrong one."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from types import ModuleType

import pytest

from village_rules.actions import Action, Birth
from village_rules.chance import sample
from village_rules.components import FARMYARD, UNBORN, ActionSpace
from village_rules.engine import council_chamber, family, market_day, travel
from village_rules.engine.core import apply, chance_outcomes, legal_actions, legal_actions_oracle
from village_rules.fuzz import plan_game, play_game
from village_rules.invariants import LEGAL_SET, Violation
from village_rules.pending import ChooseAction, MarketChoice
from village_rules.rules import Variant
from village_rules.setup import new_game
from village_rules.state import GameState

Generator = Callable[[GameState, int], list[Action]]


def _fuzz_violations_with(
    monkeypatch: pytest.MonkeyPatch, module: ModuleType, wrong: Generator, name: str
) -> list[Violation]:
    """The fuzzer's violations over seeded games of both editions once `module.legal` is
    replaced by `wrong`, after checking that the real generator passes them; every one
    must be the legal-set check's."""
    games = [plan_game(11, i, edition) for i, edition in enumerate(["big-box-2023", "original-2011"] * 3)]
    assert not any(play_game(g).failed for g in games)  # the real generator passes
    monkeypatch.setattr(module, "legal", wrong)
    found = [v for g in games for v in play_game(g).violations]
    assert found, f"a wrong {name} generator went unnoticed"
    assert {v.invariant for v in found} == {LEGAL_SET}
    return found


def _all_decisions(edition: str, players: int, seed: int, variant: Variant) -> list[GameState]:
    """Every decision state of a seeded random game (the same draws whatever is kept)."""
    rng = random.Random(seed)
    state = new_game(edition, players, seed, variant)
    out = []
    while not state.is_terminal:
        if state.is_chance:
            action = sample(chance_outcomes(state), rng)
        else:
            out.append(state)
            legal = legal_actions(state)
            action = legal[rng.randrange(len(legal))]
        state = apply(state, action)
    return out


def _steps_at(edition: str, players: int, seed: int, variant: Variant, space: ActionSpace) -> list[GameState]:
    """Every action step on `space` of a seeded random game."""
    return [
        s
        for s in _all_decisions(edition, players, seed, variant)
        if isinstance(s.pending, ChooseAction) and s.pending.space is space
    ]


def _market_choices(edition: str, players: int, seed: int, variant: Variant) -> list[GameState]:
    """Every market choice of a seeded random game."""
    return [s for s in _all_decisions(edition, players, seed, variant) if isinstance(s.pending, MarketChoice)]


@pytest.mark.parametrize("amb24", ["a", "b"])
@pytest.mark.parametrize(("edition", "players"), [("big-box-2023", 4), ("original-2011", 3)])
def test_family_generator_equals_the_oracle(edition: str, players: int, amb24: str) -> None:
    variant = Variant(readings={"AMB-24": amb24})
    steps = [s for seed in range(4) for s in _steps_at(edition, players, seed, variant, ActionSpace.FAMILY)]
    assert len(steps) > 20
    births = 0
    for state in steps:
        offered = legal_actions(state)
        assert offered == legal_actions_oracle(state)
        births += Birth() in offered
        # the same step with every unborn member of the seat born (a fresh state, no
        # cached legal actions): the branch without a birth
        seat = state.current_player()
        p = state.players[seat]
        born = tuple(FARMYARD if loc == UNBORN else loc for loc in p.members)
        grown = state.with_player(seat, replace(p, members=born))
        assert Birth() not in legal_actions(grown)
        assert legal_actions(grown) == legal_actions_oracle(grown)
    assert births


def test_the_fuzzers_check_catches_a_family_generator_that_drops_a_call_home(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = family.legal

    def drops_last_call(state: GameState, seat: int) -> list[Action]:
        offered = real(state, seat)
        return offered[:-1] if offered and not isinstance(offered[-1], Birth) else offered

    found = _fuzz_violations_with(monkeypatch, family, drops_last_call, "family")
    assert "missing ['call-home " in str(found[0])


@pytest.mark.parametrize("amb06", ["a", "b", "c"])
@pytest.mark.parametrize(("edition", "players"), [("big-box-2023", 4), ("original-2011", 3)])
def test_market_generator_equals_the_oracle(edition: str, players: int, amb06: str) -> None:
    variant = Variant(readings={"AMB-06": amb06})
    steps = [s for seed in range(8) for s in _market_choices(edition, players, seed, variant)]
    assert len(steps) > 15
    unaffordable = 0
    for state in steps:
        offered = legal_actions(state)
        assert offered == legal_actions_oracle(state)
        unaffordable += len(market_day.candidates(state, state.current_player())) > len(offered)
    assert unaffordable  # the payment test refused a customer somewhere


def test_the_fuzzers_check_catches_a_market_generator_without_the_payment_test(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # every customer, paid or not
    found = _fuzz_violations_with(monkeypatch, market_day, market_day.candidates, "market")
    assert "extra ['serve " in str(found[0])


@pytest.mark.parametrize("amb03", ["a", "b"])
@pytest.mark.parametrize(("edition", "players"), [("big-box-2023", 4), ("original-2011", 3)])
def test_council_generator_equals_the_oracle(edition: str, players: int, amb03: str) -> None:
    variant = Variant(readings={"AMB-03": amb03})
    steps = [
        s
        for seed in range(4)
        for s in _steps_at(edition, players, seed, variant, ActionSpace.COUNCIL_CHAMBER)
    ]
    assert len(steps) > 20
    refused = 0
    for state in steps:
        offered = legal_actions(state)
        assert offered == legal_actions_oracle(state)
        refused += len(council_chamber.candidates(state, state.current_player())) + 1 > len(offered)
    assert refused  # the payment or the privilege test refused a candidate somewhere





def test_the_fuzzers_check_catches_a_council_generator_without_the_payment_test(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # nothing refused
    found = _fuzz_violations_with(monkeypatch, council_chamber, council_chamber.candidates, "council")
    assert "extra ['council" in str(found[0])


@pytest.mark.parametrize(
    "readings",
    [{}, {"AMB-17": "b"}, {"AMB-18": "b"}, {"AMB-03": "b"}],
    ids=["defaults", "AMB-17 b", "AMB-18 b", "AMB-03 b"],
)
@pytest.mark.parametrize(("edition", "players"), [("big-box-2023", 4), ("original-2011", 3)])
def test_travel_generator_equals_the_oracle(edition: str, players: int, readings: dict[str, str]) -> None:
    variant = Variant(readings=readings)
    steps = [s for seed in range(8) for s in _steps_at(edition, players, seed, variant, ActionSpace.TRAVEL)]
    assert len(steps) >= 10
    refused = 0
    for state in steps:
        offered = legal_actions(state)
        assert offered == legal_actions_oracle(state)
        refused += len(travel.candidates(state, state.current_player())) + 1 > len(offered)
    assert refused


def test_the_fuzzers_check_catches_a_travel_generator_without_the_payment_test(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # nothing refused
    found = _fuzz_violations_with(monkeypatch, travel, travel.candidates, "travel")
    assert "extra ['travel" in str(found[0])
