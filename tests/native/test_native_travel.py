"""Travel in the native core, tied to the reference (issue 39, docs/native.md): TRV-01 (from
the village), TRV-02 (on from a city), TRV-03 (no marker, no reward), TRV-04 (a new marker
and the city's reward), TRV-06 (AMB-19 b: the reward again), TRV-07 (AMB-17 b: out from a
marked city), TRV-08 (AMB-19 c: another marker), AMB-18 b (no trip once the markers are out)
and AMB-03 b (a reward the supply cannot pay leaves its trip out), at travel states of seeded
games under each letter: every legal trip applied natively and by the reference, the next
states compared byte for byte and the rule IDs the reference applied collected. The whole
games are compared by test_native_tie.py; random seats seldom reach the readings' cases, so
the travel states are also varied by hand (a wagon and cubes to pay any path, the travellers
called home, the markers on the village's neighbours, every marker placed).

Skipped with a reason when the extension is not built, failed instead under
VILLAGE_REQUIRE_NATIVE=1 (tests/conftest.py)."""

from __future__ import annotations

import pytest

from village_rules.data.components import FARMYARD, INFLUENCE, ActionSpace, Cube, Good, Travelling
from village_rules.data.tally import Tally
from village_rules.drivers.serialization import to_json
from village_rules.engine.core import apply, legal_actions
from village_rules.engine.travel_map import adjacent
from village_rules.model.actions import Travel, action_id, format_action
from village_rules.model.evolve import replace
from village_rules.model.pending import ChooseAction, ChoosePayment
from village_rules.model.state import GameState
from village_rules.native import NativeEngine, NotSupportedError
from village_rules.native.tie import TieDifferenceError, compare_game, seeded_game

Readings = tuple[tuple[str, str], ...]


def _travel_states(readings: Readings) -> list[GameState]:
    """The travel action steps of two seeded games (one per edition) under `readings`."""
    found: list[GameState] = []
    for edition, players, seed in (("original-2011", 3, 5), ("big-box-2023", 4, 6)):
        initial, actions = seeded_game(edition, players, seed, readings)
        state = initial
        for action in actions:
            if isinstance(state.pending, ChooseAction) and state.pending.space is ActionSpace.TRAVEL:
                found.append(state)
            state = apply(state, action)
    return found


def _varied(state: GameState) -> list[GameState]:
    """The state and three variants of it (module docstring), each able to pay any path."""
    seat = state.current_player()
    data = state.rules.data
    p = state.players[seat]
    cubes = p.cubes
    for c in INFLUENCE:
        cubes = cubes.plus(Tally(((c, 4),)))
    rich = replace(p, goods=p.goods.plus(Tally(((Good.WAGON, 2),))), cubes=cubes, coins=p.coins + 3)
    home = replace(rich, members=tuple(FARMYARD if isinstance(m, Travelling) else m for m in rich.members))
    near = tuple(sorted(adjacent(data, data.village)))
    all_cities = tuple(sorted(c.id for c in data.cities))[: data.travel_markers]
    return [
        state,
        state.with_player(seat, rich),
        state.with_player(seat, replace(home, markers=near)),
        state.with_player(seat, replace(rich, markers=near)),
        state.with_player(seat, replace(rich, markers=all_cities)),
    ]


def _every_trip_compared(states: list[GameState]) -> set[str]:
    """Each state's legal ids compared, then each legal action applied natively and by the
    reference and the next states compared (a payment it asks for in turn); returns the rule
    IDs the reference applied."""
    rules: set[str] = set()
    todo = list(states)
    while todo:
        state = todo.pop()
        data = state.rules.data
        engine = NativeEngine()
        engine.load_state(state)
        assert engine.legal_actions() == [action_id(data, a) for a in legal_actions(state)]
        for action in legal_actions(state):
            engine.load_state(state)
            try:
                engine.apply(action_id(data, action))
            except NotSupportedError:  # a later step of the turn is not ported (the round's mass)
                assert engine.state_json() == to_json(state)
                continue
            trace: list[str] = []
            after = apply(state, action, trace)
            assert engine.state_json() == to_json(after), format_action(action)
            rules.update(trace)
            if isinstance(after.pending, ChoosePayment):
                todo.append(after)  # coins may stand in for the path's cubes (COIN-01): each way too
    return rules


@pytest.mark.parametrize(
    ("readings", "must"),
    [
        ((), {"TRV-01", "TRV-02", "TRV-03", "TRV-04"}),
        ((("AMB-17", "b"),), {"TRV-07", "TRV-01"}),
        ((("AMB-18", "b"),), {"TRV-01", "TRV-04"}),
        ((("AMB-19", "b"),), {"TRV-06", "TRV-04"}),
        ((("AMB-19", "c"),), {"TRV-08", "TRV-03"}),
        ((("AMB-17", "b"), ("AMB-18", "b"), ("AMB-19", "c"), ("AMB-03", "b")), {"TRV-07", "TRV-08"}),
    ],
    ids=lambda v: ",".join(f"{k}={x}" for k, x in v) or "default" if isinstance(v, tuple) else "",
)
def test_every_trip_is_the_same_natively(readings: Readings, must: set[str]) -> None:
    """TRV-01..08 under AMB-17, AMB-18 and AMB-19 in every letter: every legal trip of every
    travel state (and its variants) reaches the reference's next state."""
    states = [v for s in _travel_states(readings) for v in _varied(s)]
    rules = _every_trip_compared(states)
    assert must <= rules, f"never applied: {must - rules}"


def test_amb_18_b_offers_no_trip_once_the_markers_are_out() -> None:
    """AMB-18 b: with every marker placed the action step offers only the skip, natively too."""
    for letter, trips in (("a", True), ("b", False)):
        states = [_varied(s)[-1] for s in _travel_states((("AMB-18", letter),))]
        _every_trip_compared(states)
        offered = any(isinstance(a, Travel) for s in states for a in legal_actions(s))
        assert offered == trips


def test_trips_under_amb_03_b_leave_out_what_the_supply_cannot_pay() -> None:
    """AMB-03 b at travel: with no coin and no influence cube in the supply, the trips whose
    reward is due in coins or cubes are left out natively as in the reference."""
    for letter in ("a", "b"):
        states = [v for s in _travel_states((("AMB-03", letter),)) for v in _varied(s)[1:3]]
        out_of_all = Tally(((Cube.PLAGUE, 3),))
        emptied = [replace(s, supply=replace(s.supply, coins=0, cubes=out_of_all)) for s in states]
        _every_trip_compared(emptied)
        full = sum(isinstance(a, Travel) for s in states for a in legal_actions(s))
        left = sum(isinstance(a, Travel) for s in emptied for a in legal_actions(s))
        assert (left < full) if letter == "b" else (left == full), (letter, left, full)


class _WrongReward(NativeEngine):
    """A planted difference: a seat's 3 prestige (a city's reward, TRV-04) written as 4."""

    def state_json(self) -> str:
        text = super().state_json()
        return text.replace('"prestige":3', '"prestige":4', 1)


def test_a_wrong_city_reward_is_caught_and_named() -> None:
    with pytest.raises(TieDifferenceError) as caught:
        compare_game(*seeded_game("big-box-2023", 4, 6, ()), engine=_WrongReward())
    assert caught.value.what == "state"
    assert ".prestige: native 4, reference 3" in caught.value.detail, caught.value.detail
