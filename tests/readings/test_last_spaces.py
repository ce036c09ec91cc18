"""AMB-44's planned divergence game (`readings/last_spaces.py`, issue 29): the stored
witness reaches the market day in which two seats die onto the chronicle's and the
graveyard's last spaces, and the two readings' ends part there (END-10; END-04 under a,
END-02 under b)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from village_rules.data.loader import builtin_edition
from village_rules.drivers.play import GameLog
from village_rules.engine.core import apply
from village_rules.engine.setup import new_game
from village_rules.errors import ReadingError
from village_rules.model.actions import parse_action
from village_rules.model.state import GameState
from village_rules.readings import last_spaces
from village_rules.readings.divergence import replay_both
from village_rules.readings.last_spaces import CHRONICLE, GRAVES, Beam, hopeless, next_death, plan
from village_rules.readings.stored import WITNESSES, witness_from_json
from village_rules.rule_ids import RuleId
from village_rules.rules.variant import Variant

STORED = sorted(WITNESSES.glob("AMB-44-*-a-b.json"))


def _replay(path: Path, letter: str) -> tuple[GameState, GameState, list[str]]:
    """The state before the witness's last action, after it, and the rules that action fired."""
    log = GameLog.from_json((path.parent / f"{path.stem}.{letter}.log.json").read_text("utf-8"))
    state = log.initial_state()
    for text in log.actions[:-1]:
        state = apply(state, parse_action(text))
    trace: list[str] = []
    return state, apply(state, parse_action(log.actions[-1]), trace=trace), trace


def _settle(state: GameState) -> tuple[GameState, list[str]]:
    """Play on (each seat passes, each chance outcome the first) until the market day is
    over and the final actions are settled."""
    trace: list[str] = []
    while state.final_turns is None:
        state = apply(state, last_spaces.options(state)[0], trace=trace)
    return state, trace


def test_amb44_has_a_stored_witness_per_edition_it_was_found_for() -> None:
    assert STORED, "no stored AMB-44 witness"
    for path in STORED:
        w = witness_from_json(path.read_text("utf-8"))
        assert (w.amb, w.players, w.left_letter, w.right_letter) == ("AMB-44", 2, "a", "b")
        assert "beam search" in w.method
        assert replay_both(w) is not None


@pytest.mark.parametrize("path", STORED, ids=lambda p: p.stem)
def test_end01_end10_amb44_witness_two_seats_onto_the_two_last_spaces(path: Path) -> None:
    """END-01 / END-10 / AMB-44: before the witness's last action one space is left in the
    chronicle or the graveyard (the other just filled, in this market day, by the seat that
    triggered the end); the last action is a later sale whose time kills the other seat's
    member onto the last space. Under a nothing changes; under b (END-10) that seat
    triggered the end."""
    before, after_a, trace_a = _replay(path, "a")
    _, after_b, trace_b = _replay(path, "b")
    assert before.market_day is not None and not before.market_day.closed
    assert before.end_triggered_by is not None
    assert sorted((before.chronicle_free_total(), before.graveyard_free())) == [0, 1]
    seller = before.current_player()
    assert seller != before.end_triggered_by
    assert before.players[seller].lifetime == before.rules.data.lifetime_track_length - 1
    wanted = CHRONICLE if before.chronicle_free_total() == 1 else GRAVES
    assert wanted in next_death(before, seller)
    for after, trace in ((after_a, trace_a), (after_b, trace_b)):
        assert after.chronicle_free_total() == 0 and after.graveyard_free() == 0
        assert RuleId.DEATH_01 in trace and RuleId.MKT_03 in trace
    assert RuleId.END_10 not in trace_a and after_a.end_triggered_by == before.end_triggered_by
    assert RuleId.END_10 in trace_b and after_b.end_triggered_by == seller


@pytest.mark.parametrize("path", STORED, ids=lambda p: p.stem)
def test_end02_end04_amb44_witness_the_readings_ends_part(path: Path) -> None:
    """After the market day the readings settle the final actions differently: the reading
    under which the market-day player triggered the end gives END-02 (it has had its last
    turn, the other acts once), the other END-04 (every player acts once)."""
    ends: dict[str, tuple[bool, int]] = {}
    for letter in ("a", "b"):
        _, after, _ = _replay(path, letter)
        assert after.market_day is not None
        own = after.end_triggered_by == after.market_day.trigger
        end, trace = _settle(after)
        assert (RuleId.END_02 in trace, RuleId.END_04 in trace) == (own, not own)
        assert end.final_turns is not None
        ends[letter] = (own, len(end.final_turns))
    by_own, by_other = sorted(ends.values(), reverse=True)
    assert by_own[0] and not by_other[0]
    assert by_own[1] + 1 == by_other[1]  # END-02: the market-day player acts no more


def test_amb44_hopeless_drops_an_end_outside_a_market_day() -> None:
    """The beam drops a state whose end was triggered outside a market day, and keeps the
    starting position."""
    start = new_game(builtin_edition("big-box-2023"), 2, 0, Variant(readings={"AMB-44": "b"}))
    assert not hopeless(start, [])
    ended = replace(start, end_triggered_by=0)
    assert hopeless(ended, [])
    assert not hopeless(ended, [RuleId.END_10])


def test_amb44_plan_refuses_reading_a_and_keeps_its_budget() -> None:
    """The planner runs only under b (END-10 marks its goal) and stops at its state budget
    with no answer rather than running on."""
    with pytest.raises(ReadingError, match="AMB-44"):
        plan("big-box-2023", 2, 0, Variant(readings={"AMB-44": "a"}))
    result = plan("big-box-2023", 2, 0, Variant(readings={"AMB-44": "b"}), Beam(width=4, max_states=300))
    assert result.choices is None and result.expanded == 300
