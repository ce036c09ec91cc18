"""The council chamber in the native core, tied to the reference (issue 39, docs/native.md):
CNC-01 (place on stage 1), CNC-02 (advance one stage), CNC-03/CNC-04 (a privilege without
moving, of a stage reached), CNC-05..CNC-08 (the four privileges) and AMB-03 b (privileges 2
and 3 left out when the supply cannot pay them), at every council state of seeded games:
every legal action applied natively and by the reference, the next states compared byte for
byte. The whole games are compared by test_native_tie.py; here each action of each council
state is, not only the one the seeded game took.

Skipped with a reason when the extension is not built, failed instead under
VILLAGE_REQUIRE_NATIVE=1 (tests/conftest.py)."""

from __future__ import annotations

import pytest

from village_rules.data.components import FARMYARD, ActionSpace, Cube, Good, OnCouncil
from village_rules.data.tally import Tally
from village_rules.drivers.serialization import to_json
from village_rules.engine.core import apply, legal_actions
from village_rules.model.actions import Privilege, Skip, action_id, format_action
from village_rules.model.evolve import replace
from village_rules.model.pending import ChooseAction, ChoosePayment, ChoosePrivilege
from village_rules.model.state import GameState
from village_rules.native import NativeEngine, NotSupportedError
from village_rules.native.tie import TieDifferenceError, compare_game, seeded_game


def _council_states(readings: tuple[tuple[str, str], ...] = ()) -> list[GameState]:
    """The council chamber's action steps and privilege choices of seeded games of both editions."""
    found: list[GameState] = []
    for edition, players, seed in (
        ("original-2011", 2, 1),
        ("original-2011", 4, 2),
        ("big-box-2023", 3, 3),
        ("big-box-2023", 5, 4),
    ):
        initial, actions = seeded_game(edition, players, seed, readings)
        state = initial
        for action in actions:
            pending = state.pending
            if isinstance(pending, ChoosePrivilege) or (
                isinstance(pending, ChooseAction) and pending.space is ActionSpace.COUNCIL_CHAMBER
            ):
                found.append(state)
            state = apply(state, action)
    return found


def _every_action_compared(states: list[GameState]) -> dict[str, int]:
    """Each state's legal ids compared, then each legal action applied natively and by the
    reference and the next states compared (a payment or privilege choice it leads to in
    turn); returns how often each kind was applied, by step (the action's first word, or
    for a privilege its text: "privilege 4")."""
    applied: dict[str, int] = {}
    todo = list(states)
    while todo:
        state = todo.pop()
        data = state.rules.data
        engine = NativeEngine()
        engine.load_state(state)
        want = [action_id(data, a) for a in legal_actions(state)]
        assert engine.legal_actions() == want, format_action(legal_actions(state)[0])
        for action in legal_actions(state):
            engine.load_state(state)
            try:
                engine.apply(action_id(data, action))
            except NotSupportedError:  # a later step of the turn is not ported (the round's mass)
                assert engine.state_json() == to_json(state)
                continue
            after = apply(state, action)
            assert engine.state_json() == to_json(after), format_action(action)
            if isinstance(after.pending, ChoosePrivilege | ChoosePayment) and not isinstance(
                state.pending, ChoosePrivilege
            ):
                todo.append(after)  # the payment and the privilege an action leads to, each choice too
            text = format_action(action)
            kind = text if isinstance(action, Privilege | Skip) else text.split()[0]
            where = type(state.pending).__name__
            applied[f"{where}: {kind}"] = applied.get(f"{where}: {kind}", 0) + 1
    return applied


def _raised(state: GameState) -> GameState:
    """A council action step with the seat's farmyard members moved up to stages 3 and 4 and a
    scroll and 2 coins given: random seats seldom reach the last stages (privilege 4, CNC-08,
    was never offered in 56 seeded games), so these states are built from the games' own."""
    seat = state.current_player()
    p = state.players[seat]
    members = list(p.members)
    stages = iter((3, 4))
    for i, loc in enumerate(members):
        if loc == FARMYARD:
            stage = next(stages, None)
            if stage is None:
                break
            members[i] = OnCouncil(stage)
    p = replace(p, members=tuple(members), goods=p.goods.add(Good.SCROLL), coins=p.coins + 2)
    return state.with_player(seat, p)


def test_every_council_action_is_the_same_natively() -> None:
    """CNC-01, CNC-02, CNC-03 with CNC-04, and CNC-05..CNC-08: at every council state of the
    seeded games (and of those states with members raised to stages 3 and 4), every legal
    action (not only the game's) reaches the reference's next state."""
    states = _council_states()
    raised = [_raised(s) for s in states if isinstance(s.pending, ChooseAction)]
    applied = _every_action_compared(states + raised)
    for kind in (
        "ChooseAction: council-place",  # CNC-01
        "ChooseAction: council-advance",  # CNC-02
        "ChooseAction: skip",
        "ChoosePrivilege: privilege 1",  # CNC-05
        "ChoosePrivilege: privilege 2",  # CNC-06
        "ChoosePrivilege: privilege 3",  # CNC-07
        "ChoosePrivilege: privilege 4",  # CNC-08
        "ChoosePrivilege: skip",
        "ChooseAction: privilege 1",  # CNC-03: a privilege without moving
        "ChooseAction: privilege 4",
        "ChoosePayment: pay",  # COIN-01: the council's costs, coins for green cubes
    ):
        assert applied.get(kind), f"never applied: {kind}; applied: {applied}"


def test_privileges_under_amb_03_b_leave_out_what_the_supply_cannot_pay() -> None:
    """AMB-03 b (supply.payout_shortfall) at the council: with no influence cube and no good
    left in the supply, privileges 2 and 3 are left out natively as in the reference, at the
    action step and at the privilege choice; under reading a they stay."""
    for letter in ("a", "b"):
        states = _council_states((("AMB-03", letter),))
        out_of_all = Tally(((Cube.PLAGUE, 3),))  # no influence cube, no good
        emptied = [replace(s, supply=replace(s.supply, goods=Tally(), cubes=out_of_all)) for s in states]
        _every_action_compared(emptied)
        offered = {format_action(a) for s in emptied for a in legal_actions(s) if isinstance(a, Privilege)}
        if letter == "b":
            assert offered and not offered & {"privilege 2", "privilege 3"}, offered
        else:
            assert {"privilege 2", "privilege 3"} <= offered, offered


class _NoPrivilegeSkip(NativeEngine):
    """A planted difference: the skip left out of the choice of a privilege (CNC-04)."""

    def legal_actions(self) -> list[int]:
        ids = super().legal_actions()
        return ids[:-1] if '"kind":"ChoosePrivilege"' in self.state_json() else ids


def test_a_missing_privilege_skip_is_caught_and_named() -> None:
    with pytest.raises(TieDifferenceError) as caught:
        compare_game(*seeded_game("big-box-2023", 3, 3, ()), engine=_NoPrivilegeSkip())
    assert caught.value.what == "legal"
    assert "reference" in caught.value.detail and "(skip)" in caught.value.detail, caught.value.detail
