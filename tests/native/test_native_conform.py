"""The native core is `conform`'s first client (issue 39 item 5): the conformance runner
compares it with the reference in process and over the JSON-lines protocol
(`python -m village_rules.conform.serve --engine village_rules.native:NativeEngine`), on
every player count (1, the solo game against Carla, to 5: `--players` leaves nothing out),
and three planted differences (a legal-action order, a chance probability, a state field) are
each caught, named and shrunk.

Skipped with a reason when the extension is not built, failed instead under
VILLAGE_REQUIRE_NATIVE=1 (tests/conftest.py)."""

from __future__ import annotations

import json
import re
import sys
from fractions import Fraction

import pytest

from village_rules.conform.client import ProtocolEngine
from village_rules.conform.compare import LEGAL, PROBABILITY, STATE
from village_rules.conform.inputs import GOLDEN, SEEDED, STATES, WITNESS
from village_rules.conform.run import Selection, failure_text, left_out_text, run
from village_rules.native import NativeEngine

NATIVE_PLAYERS = (1, 2, 3, 4, 5)
SERVE = [sys.executable, "-m", "village_rules.conform.serve"]
SERVE_NATIVE = [*SERVE, "--engine", "village_rules.native:NativeEngine"]


@pytest.mark.slow  # about 80 s: the reference's side of 237 witnesses, 10 golden and 14 seeded games
def test_conform_finds_no_difference_in_process_on_every_game_kind() -> None:
    selection = Selection(kinds=(SEEDED, GOLDEN, WITNESS), games=14, players=NATIVE_PLAYERS)
    result = run(NativeEngine(), selection)
    assert result.failure is None, failure_text(result.failure)
    c = result.coverage
    assert c.games[SEEDED] == 14 and c.games[GOLDEN] == 10 and c.games[WITNESS] >= 200
    assert len(c.combinations) == 8  # 2011: 2-4 players, 2023: 1 (solo) to 5
    # the solo witnesses are compared too: nothing is left out
    assert result.left_out == {}
    assert left_out_text(selection, result) == ["  only 1,2,3,4,5 players (--players): nothing left out"]


@pytest.mark.slow  # about 20 s
def test_conform_finds_no_difference_over_the_protocol_and_on_explored_states() -> None:
    kinds = (SEEDED, GOLDEN, STATES)
    selection = Selection(
        kinds=kinds, games=7, golden=2, configs=("tiny", "solo"), states=1500, players=NATIVE_PLAYERS
    )
    with ProtocolEngine(SERVE_NATIVE) as served:
        result = run(served, selection)
    assert result.failure is None, failure_text(result.failure)
    c = result.coverage
    assert (c.games[SEEDED], c.games[GOLDEN]) == (7, 2)
    assert c.states == {"tiny": 1500, "solo": 1500}  # solo's configuration too
    assert result.left_out == {}


@pytest.mark.by_hand  # CI leaves it out (tests/README.md, "By hand")
@pytest.mark.slow  # about 90 s (the reference's side and the explorer's graph of `solo`)
def test_conform_finds_no_difference_in_solo() -> None:
    """`conform --players 1`: seeded solo games, the 16 solo witnesses and the first 5,000
    states of the `solo` configuration, every edge out of them applied."""
    selection = Selection(
        kinds=(SEEDED, WITNESS, STATES), games=14, configs=("solo",), states=5000, players=(1,)
    )
    result = run(NativeEngine(), selection)
    assert result.failure is None, failure_text(result.failure)
    c = result.coverage
    assert (c.games[SEEDED], c.games[WITNESS]) == (14, 16)
    assert c.states == {"solo": 5000}


def test_a_planted_legal_order_is_caught_named_and_shrunk() -> None:
    native = NativeEngine()
    native.plant_swapped_legal_order()
    result = run(native, Selection(kinds=(SEEDED,), games=1, players=(3,)))
    failure = result.failure
    assert failure is not None
    assert failure.difference.kind == LEGAL
    text = "\n".join(failure_text(failure))
    assert "DIFFERENCE in seeded input seeded game 0" in text and "legal actions" in text
    assert result.log is not None and len(result.log.actions) == failure.step  # a replayable game


def _first_seat_grain(state_json: str) -> int:
    grain: int = json.loads(state_json)["players"][0]["grain"]
    return grain


ARMED_AT_GRAIN = 3
"""The planted differences act once the first seat holds this much grain: a condition a
seeded game meets late and a shorter game can meet sooner, so the shrinker has work."""


class _LikelierFirstOutcome(NativeEngine):
    """A planted difference: once armed, the first outcome of every chance event with more
    than one outcome made 1/1000 likelier (the core's answer, changed on its way out)."""

    def chance_outcomes(self) -> list[tuple[int, Fraction]]:
        outcomes = super().chance_outcomes()
        if len(outcomes) > 1 and _first_seat_grain(self.game.to_json()) >= ARMED_AT_GRAIN:
            first, p = outcomes[0]
            outcomes[0] = (first, p + Fraction(1, 1000))
        return outcomes


class _OneGrainTooMany(NativeEngine):
    """A planted difference: once armed, the first seat's grain written with a 1 in front (4
    as 14) in the state the core writes."""

    def state_json(self) -> str:
        text = super().state_json()
        return text.replace('"grain":', '"grain":1', 1) if _first_seat_grain(text) >= ARMED_AT_GRAIN else text


@pytest.mark.parametrize(
    ("engine", "kind", "detail"),
    [
        (_LikelierFirstOutcome, PROBABILITY, "(draw-"),
        (_OneGrainTooMany, STATE, "$.players[0].grain: "),
    ],
    ids=["probability", "state-field"],
)
def test_a_planted_probability_and_state_field_are_caught_named_and_shrunk(
    engine: type[NativeEngine], kind: str, detail: str
) -> None:
    result = run(engine(), Selection(kinds=(SEEDED,), games=1, players=(3,)))
    failure = result.failure
    assert failure is not None
    assert failure.difference.kind == kind
    assert detail in failure.difference.detail
    if kind == PROBABILITY:  # names both exact probabilities: 1/1000 apart
        found = re.search(r"reference (\d+/\d+), implementation (\d+/\d+)", failure.difference.detail)
        assert found is not None and Fraction(found[2]) - Fraction(found[1]) == Fraction(1, 1000)
    text = "\n".join(failure_text(failure))
    assert "DIFFERENCE in seeded input seeded game 0" in text
    # shrunk: the difference shows only once armed, and ddmin finds a shorter way there
    assert 0 < failure.step < failure.found_at, text
    assert f"shrunk from step {failure.found_at} to {failure.step}" in text
    assert result.log is not None and len(result.log.actions) == failure.step  # a replayable game
