"""The whole-check memo of the invariants (`invariants._last_passed`: the parts a check read
in the last state it passed on) and the per-player memo never hide a bug: equal parts give
the check's own result, anything changed is checked in full. Also the one-entry memo of
`chance_outcomes`."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from village_rules import apply, chance_outcomes, legal_actions, new_game
from village_rules.checks import invariants as inv
from village_rules.checks.invariants import state_violations, transition_violations
from village_rules.data.components import Cube, Good
from village_rules.data.tally import Tally
from village_rules.drivers.play import play_logged
from village_rules.engine import turn
from village_rules.engine.context import Ctx
from village_rules.model.actions import TakeCube
from village_rules.model.chance import sample
from village_rules.model.state import GameState


def _forget() -> None:
    for memo in (
        inv._last_passed,
        inv._sound_members,
        inv._sound_markers,
        inv._sound_tallies,
        inv._sound_players,
    ):
        memo.clear()


def _mid_game() -> GameState:
    state, _ = play_logged("big-box-2023", 4, 11, max_steps=324)
    _forget()  # (an equal state checked by an earlier test would answer from the memo)
    assert state_violations(state) == []
    return state


def test_a_passing_check_remembers_its_parts() -> None:
    state = _mid_game()
    assert inv._last_passed[inv.CUBES][1] is state.supply.cubes
    assert inv._last_passed[inv.GOODS][1] is state.supply.goods
    assert inv._sound_players[id(state.players[0])] is state.players[0]


def test_changed_parts_next_to_remembered_ones_are_checked() -> None:
    state = _mid_game()
    p = state.players[1]
    extra_cube = state.with_player(1, replace(p, cubes=p.cubes.add(Cube.GREEN)))
    assert inv.CUBES in {v.invariant for v in state_violations(extra_cube)}
    extra_good = state.with_player(1, replace(p, goods=p.goods.add(Good.OX)))
    assert inv.GOODS in {v.invariant for v in state_violations(extra_good)}
    served_twice = state.with_player(1, replace(p, customers=(*p.customers, *state.customer_pile[:1])))
    assert inv.CUSTOMERS in {v.invariant for v in state_violations(served_twice)}
    in_debt = state.with_player(1, replace(p, coins=-1))
    assert inv.NON_NEGATIVE in {v.invariant for v in state_violations(in_debt)}
    negative_goods = state.with_player(1, replace(p, goods=Tally(((Good.OX, -1),))))
    assert inv.NON_NEGATIVE in {v.invariant for v in state_violations(negative_goods)}
    # and the sound state still passes, from the memos
    assert state_violations(state) == []


def test_memo_hits_give_the_full_checks_results() -> None:
    """Over a seeded game and a broken copy of each of its states: the violations with the
    memos filled as a playout fills them equal those of a check with every memo emptied."""
    rng = random.Random(5)
    state = new_game("original-2011", 3, 5)
    for _ in range(400):
        if state.is_terminal:
            break
        broken = replace(state, end_triggered_by=0) if rng.random() < 0.5 else replace(state, monks_aside=1)
        for probe in (state, broken):
            warm = state_violations(probe)
            _forget()
            assert state_violations(probe) == warm
        action = sample(chance_outcomes(state), rng) if state.is_chance else rng.choice(legal_actions(state))
        state = apply(state, action)


def test_an_engine_bug_is_caught_with_the_memos_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """An injected bug (taking an influence cube gives the player two) breaks cube
    conservation at the first such take, memos filled by every step before it."""
    real = turn.take_cube

    def doubles(state: GameState, seat: int, action: TakeCube, ctx: Ctx) -> GameState:
        after = real(state, seat, action, ctx)
        if action.cube is Cube.PLAGUE:
            return after
        p = after.players[seat]
        return after.with_player(seat, replace(p, cubes=p.cubes.add(action.cube)))

    rng = random.Random(3)
    state = new_game("big-box-2023", 4, 3)
    checked = 0
    while not state.is_terminal:
        action = sample(chance_outcomes(state), rng) if state.is_chance else rng.choice(legal_actions(state))
        if isinstance(action, TakeCube) and action.cube is not Cube.PLAGUE:
            monkeypatch.setattr(turn, "take_cube", doubles)
        after = apply(state, action)
        legal = None if after.is_chance or after.is_terminal else legal_actions(after)
        found = state_violations(after, legal) + transition_violations(state, action, after)
        if isinstance(action, TakeCube) and action.cube is not Cube.PLAGUE:
            assert inv.CUBES in {v.invariant for v in found}
            return
        assert found == []
        checked += 1
        state = after
    raise AssertionError(f"no influence cube taken in {checked} steps")


def test_chance_outcomes_are_remembered_for_the_last_state_only() -> None:
    state = new_game("big-box-2023", 3, 2)
    assert state.is_chance
    first = chance_outcomes(state)
    again = chance_outcomes(state)
    assert again == first and again is not first
    again.clear()
    assert chance_outcomes(state) == first  # a fresh list each time
    nxt = apply(state, first[0][0])
    assert nxt.is_chance and nxt.green_bag != state.green_bag
    drawn = chance_outcomes(nxt)  # the memo now holds nxt
    assert drawn != first
    assert chance_outcomes(state) == first  # recomputed for the older state, not nxt's
    assert chance_outcomes(nxt) == drawn


def test_the_member_memo_tells_a_solo_game_from_a_two_seat_one() -> None:
    """Carla's members beside the church track are sound only in a solo game: the same
    members in a state without Carla's board are reported, whether or not the memos have
    just passed them in the solo state (the memo keys include whether the game is solo)."""
    solo = new_game("big-box-2023", 1, seed=0)
    two_seats = replace(solo, carla=None)
    assert inv.member_violations(solo) == []
    after_solo = inv.member_violations(two_seats)
    inv._last_passed.clear()
    inv._sound_members.clear()
    fresh = inv.member_violations(two_seats)
    assert fresh and after_solo == fresh
    assert {v.invariant for v in fresh} == {inv.LOCATIONS}
