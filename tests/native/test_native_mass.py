"""The mass in the native core, tied to the reference (issue 39, docs/native.md): MASS-01 (a
mass at the end of every round and of the game), MASS-02 (buying out of the bag), MASS-03 (the
draws), MASS-04 (moving up the church), MASS-05 (the church majority; AMB-28: nobody on the
track, nobody scores), AMB-15 b (MASS-07: one member per purchase, round the seats that have
not stopped), AMB-16 b (MASS-06: the next members break a tie), the round mass and the next
round (ROUND-01, ROUND-02), the round mass before the final actions under AMB-33 b (END-08)
and c (END-09), and the final mass (END-06, then SCORE-01's game over). Every mass state of
seeded games (and of those states with every seat given coins and grain, so that buying and
moving up are open) is compared, and every legal action or outcome at it is applied natively
and by the reference; the stored witnesses of AMB-15, AMB-16 and AMB-33 are compared whole.
The whole games are compared by test_native_tie.py.

Skipped with a reason when the extension is not built, failed instead under
VILLAGE_REQUIRE_NATIVE=1 (tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from village_rules.data.components import BLACK_BAG, CHURCH_RESERVE, FARMYARD, OnChurch
from village_rules.drivers.play import GameLog
from village_rules.drivers.serialization import to_json
from village_rules.engine.core import apply, chance_outcomes, legal_actions
from village_rules.model.actions import action_id, format_action, parse_action
from village_rules.model.evolve import replace
from village_rules.model.pending import MassAdvance, MassBuy, MassDraw
from village_rules.model.state import GameState
from village_rules.native import NativeEngine
from village_rules.native.tie import TieDifferenceError, compare_game, seeded_game

Readings = tuple[tuple[str, str], ...]
WITNESSES = Path(__file__).resolve().parents[2] / "src" / "village_rules" / "readings" / "witnesses"


def _mass_states(readings: Readings) -> list[GameState]:
    """The mass states of seeded games (one per edition), at moving up also with every seat
    given 6 more grain; and at each mass's first draw, the purchases opened again (the start
    player's MassBuy) with those coins and a farmyard member of each seat sent into the bag:
    random seats rarely keep a coin and a member in the bag for the mass."""
    found: list[GameState] = []
    for edition, players, seed in (("original-2011", 3, 5), ("big-box-2023", 4, 8)):
        initial, actions = seeded_game(edition, players, seed, readings)
        state = initial
        for action in actions:
            pending = state.pending
            if isinstance(pending, MassBuy | MassAdvance | MassDraw):
                rich = bagged = state
                for seat, p in enumerate(state.players):
                    rich = rich.with_player(seat, replace(p, grain=p.grain + 6))
                    members = p.members
                    if FARMYARD in members:
                        at = members.index(FARMYARD)
                        members = (*members[:at], BLACK_BAG, *members[at + 1 :])
                    bagged = bagged.with_player(seat, replace(p, coins=p.coins + 3, members=members))
                found += [state, rich] if isinstance(pending, MassAdvance) else [state]
                first = isinstance(pending, MassDraw) and pending.remaining == state.rules.data.mass_pieces
                if first:
                    found.append(replace(bagged, pending=MassBuy(state.start_player)))
            state = apply(state, action)
    return found


def _every_mass_step_compared(states: list[GameState]) -> tuple[int, set[str]]:
    """Each state's legal ids (or chance outcomes) compared, then each legal action (or
    outcome) applied natively and by the reference and the next states compared, and the
    choices of the next buyer or the next seat to move up in turn (of the same seat's next
    purchase or step up, after its first choice only: every path would be too many); returns
    the steps applied and the rule IDs the reference applied."""
    rules: set[str] = set()
    applied = 0
    todo = list(states)
    while todo:
        state = todo.pop()
        data = state.rules.data
        engine = NativeEngine()
        engine.load_state(state)
        if state.is_chance:
            want = [(action_id(data, a), p) for a, p in chance_outcomes(state)]
            assert engine.chance_outcomes() == want
            options = [a for a, _ in chance_outcomes(state)]
        else:
            options = legal_actions(state)
            assert engine.legal_actions() == [action_id(data, a) for a in options]
        for k, action in enumerate(options):
            engine.load_state(state)
            engine.apply(action_id(data, action))
            trace: list[str] = []
            after = apply(state, action, trace)
            assert engine.state_json() == to_json(after), format_action(action)
            assert engine.current_player() == after.current_player()
            rules.update(trace)
            applied += 1
            # the next seat's choices in turn, and the same seat's after its first choice
            moved_on = after.pending != state.pending
            if isinstance(after.pending, MassBuy | MassAdvance) and (k == 0 or moved_on):
                todo.append(after)
    return applied, rules


@pytest.mark.parametrize(
    ("readings", "must"),
    [
        ((), {"MASS-02", "MASS-03", "MASS-04", "MASS-05", "ROUND-02", "SCORE-01"}),
        ((("AMB-15", "b"),), {"MASS-07", "MASS-02", "MASS-03"}),
        ((("AMB-16", "b"),), {"MASS-05", "MASS-04"}),
        ((("AMB-15", "b"), ("AMB-16", "b"), ("AMB-33", "b")), {"MASS-07", "MASS-04"}),
    ],
    ids=lambda v: ",".join(f"{k}={x}" for k, x in v) or "default" if isinstance(v, tuple) else "",
)
def test_every_mass_step_is_the_same_natively(readings: Readings, must: set[str]) -> None:
    """MASS-01..07: every legal buy, draw and step up (and every skip) of every mass state
    reaches the reference's next state, the round after the mass and the game's end included."""
    applied, rules = _every_mass_step_compared(_mass_states(readings))
    assert applied > 100
    assert must <= rules, f"never applied: {must - rules}"


@pytest.mark.parametrize(
    ("amb", "pair", "letter", "rule"),
    [
        ("AMB-15", "big-box-2023-a-b", "b", "MASS-07"),
        ("AMB-15", "original-2011-a-b", "b", "MASS-07"),
        ("AMB-16", "big-box-2023-a-b", "b", "MASS-06"),
        ("AMB-16", "original-2011-a-b", "b", "MASS-06"),
        ("AMB-16", "original-2011-a-b", "a", "MASS-05"),
        ("AMB-33", "original-2011-a-b", "b", "END-08"),
        ("AMB-33", "big-box-2023-c-b", "b", "END-08"),
        ("AMB-33", "original-2011-a-c", "c", "END-09"),
        ("AMB-33", "big-box-2023-c-a", "c", "END-09"),
    ],
)
def test_the_mass_readings_witnesses_are_the_same_natively(
    amb: str, pair: str, letter: str, rule: str
) -> None:
    """The stored witness of each mass reading, compared whole (0 differences), and the steps
    where the reference applied the reading's rule (AMB-15 b: MASS-07, AMB-16 b: MASS-06, AMB-33
    b: END-08, c: END-09; under a the plain MASS-05 and the final mass, END-06) applied natively
    from the reference's state, reaching its next state."""
    log = GameLog.from_json((WITNESSES / f"{amb}-{pair}.{letter}.log.json").read_text())
    state = log.initial_state()
    actions = [parse_action(a) for a in log.actions]
    counts = compare_game(state, actions)
    assert counts.games == 1 and counts.refused_games == 0
    applied = 0
    for action in actions:
        trace: list[str] = []
        after = apply(state, action, trace)
        if rule in trace:
            engine = NativeEngine()
            engine.load_state(state)
            engine.apply(action_id(state.rules.data, action))
            assert engine.state_json() == to_json(after)
            applied += 1
        state = after
    assert applied >= 1, (amb, letter, rule)


def test_nobody_on_the_church_track_scores_no_majority() -> None:
    """AMB-28 (MASS-05): with no member on the church track nobody gets the majority's
    prestige; natively too (the last step up of a mass skipped with the track emptied)."""
    for state in _mass_states(()):
        if not isinstance(state.pending, MassAdvance):
            continue
        emptied = state
        for seat, p in enumerate(state.players):
            members = tuple(CHURCH_RESERVE if isinstance(m, OnChurch) else m for m in p.members)
            emptied = emptied.with_player(seat, replace(p, members=members))
        last = replace(emptied, pending=MassAdvance((state.start_player - 1) % state.num_players))
        _, rules = _every_mass_step_compared([last])
        assert "MASS-05" in rules
        after = apply(last, legal_actions(last)[-1])
        assert [p.prestige for p in after.players] == [p.prestige for p in last.players]
        return
    pytest.fail("no MassAdvance state")


@pytest.mark.parametrize("readings", [(), (("AMB-33", "b"),), (("AMB-33", "c"),)], ids=str)
def test_the_steps_that_start_a_mass_are_the_same_natively(readings: Readings) -> None:
    """ROUND-01 / MASS-01 (the turn that takes the last cube ends the round with a mass),
    END-06 (the last final action, then the final mass) and SCORE-01 (after the final mass the
    game is over): every such step of seeded games applied natively from the reference's
    state reaches its next state."""
    seen: set[str] = set()
    for edition, players, seed in (("original-2011", 2, 1), ("big-box-2023", 3, 2), ("big-box-2023", 5, 3)):
        initial, actions = seeded_game(edition, players, seed, readings)
        state = initial
        for action in actions:
            trace: list[str] = []
            after = apply(state, action, trace)
            opened = {"MASS-01", "END-06", "SCORE-01", "END-08", "END-09"} & set(trace)
            if opened:
                engine = NativeEngine()
                engine.load_state(state)
                engine.apply(action_id(state.rules.data, action))
                assert engine.state_json() == to_json(after), format_action(action)
                seen |= opened
            state = after
    assert {"MASS-01", "END-06", "SCORE-01"} <= seen, seen


class _NoStepUp(NativeEngine):
    """A planted difference: moving up the church offered without its last church step (as if
    a step the seat can pay for, MASS-04, were not offered)."""

    def legal_actions(self) -> list[int]:
        ids = super().legal_actions()
        if '"kind":"MassAdvance"' in self.state_json() and len(ids) > 1:
            return ids[:-2] + ids[-1:]
        return ids


def test_a_missing_church_step_is_caught_and_named() -> None:
    with pytest.raises(TieDifferenceError) as caught:
        for seed in range(6):
            compare_game(*seeded_game("big-box-2023", 3, seed, ()), engine=_NoStepUp())
    assert caught.value.what == "legal"
    assert "(church-step " in caught.value.detail, caught.value.detail  # names the action by its text
