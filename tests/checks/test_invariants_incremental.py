"""The invariant checkers' memos of sound parts (incremental checking) never hide a bug: a
part is skipped only if it is the very object that passed before, under the same data.
Every injected bug below is put into a state whose other parts were just found sound."""

from __future__ import annotations

from dataclasses import replace

from village_rules.checks import invariants as inv
from village_rules.checks.invariants import state_violations
from village_rules.data.components import Cube, OnCouncil
from village_rules.data.tally import Tally
from village_rules.drivers.play import play_logged
from village_rules.model.state import GameState


def _mid_game() -> GameState:
    # seed 11: after the merged data changes two seats have a travel marker by then (seed 3
    # had none, which the markers test below needs)
    state, _ = play_logged("big-box-2023", 4, 11, max_steps=324)
    assert state_violations(state) == []  # every part now remembered as sound
    return state


def test_sound_parts_are_remembered() -> None:
    state = _mid_game()
    p = state.players[0]
    assert inv._sound_members[id(p.members)][0] is p.members
    assert inv._sound_markers[id(p.markers)][0] is p.markers
    assert inv._sound_tallies[id(p.cubes)] is p.cubes


def test_a_negative_tally_next_to_remembered_ones_is_caught() -> None:
    state = _mid_game()
    p = state.players[1]
    bad = state.with_player(1, replace(p, cubes=Tally(((Cube.GREEN, -1),))))
    found = {v.invariant for v in state_violations(bad)}
    assert inv.NON_NEGATIVE in found


def test_a_member_at_an_invalid_place_next_to_remembered_seats_is_caught() -> None:
    state = _mid_game()
    p = state.players[2]
    members = (OnCouncil(99), *p.members[1:])
    bad = state.with_player(2, replace(p, members=members))
    found = [v for v in state_violations(bad) if v.invariant == inv.LOCATIONS]
    assert [v.component for v in found] == ["seat 2 member 0"]


def _with_markers() -> GameState:
    """A mid-game state in which some player has a disc marker on the travel map."""
    for seed in range(50):
        state, _ = play_logged("big-box-2023", 4, seed, max_steps=600)
        if any(p.markers for p in state.players):
            assert state_violations(state) == []  # every part now remembered as sound
            return state
    raise AssertionError("no seeded game of 50 has a marker placed after 600 actions")


def test_markers_built_from_a_remembered_tuple_are_checked_in_full() -> None:
    state = _with_markers()
    seat = next(s for s, p in enumerate(state.players) if p.markers)
    markers = state.players[seat].markers
    # the same (remembered) tuple, now twice over: a new tuple, so checked in full
    bad = state.with_player(seat, replace(state.players[seat], markers=markers + markers))
    found = {v.invariant for v in state_violations(bad)}
    assert inv.MARKER_PLACES in found


def test_a_full_check_and_a_memo_hit_give_the_same_violations() -> None:
    state = _mid_game()
    broken = replace(state, end_triggered_by=0)  # parts all remembered; the aggregate is wrong
    first = state_violations(broken)
    for memo in (inv._sound_members, inv._sound_markers, inv._sound_tallies):
        memo.clear()
    assert state_violations(broken) == first
    assert inv.END_TRIGGER in {v.invariant for v in first}
