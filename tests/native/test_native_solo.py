"""The solo mode in the native core, tied to the reference (issue 39, docs/native.md): one
player against Carla (2023 pp. 15-19), set up by the reference (SOLO-02..06) and loaded into
the core with the edition's solo data (Carla's board, the fate tiles, the death places);
Carla's take after each cube of the player's (SOLO-08..13, the player's choice of her cube
when the colour is gone), the fate tiles' chance and what a quill does (SOLO-14, SOLO-19,
SOLO-22..24), her reactions at the market and the church (SOLO-15..18, SOLO-20, SOLO-21), the
well's turn (SOLO-25, SOLO-31), her cubes at a new round (SOLO-26), her part in the mass
(SOLO-27, SOLO-29), the end (SOLO-28) and the result (SOLO-30: Carla scores nothing, the
player wins), under every solo reading: AMB-36 b (her steps before the player's action),
AMB-37 b and c (a face-up tile does nothing / the set is shuffled again), AMB-38 b (the death
before the reaction), AMB-39 b (no market day of hers), AMB-41 b (her take dropped once the
player ends the game), AMB-42 b (the customers left move up first), AMB-43 b (she serves in the
well's market day).

At every state of seeded solo games every legal action or chance outcome is applied natively
and by the reference, and the two next states are compared as canonical JSON (a difference
names the action and the rule IDs the reference applied); the ends' scores and winners are
compared; the stored witnesses of the solo readings are compared whole; the rare branches
are reached from states varied by hand; a user's data file with other solo data is played
the same natively; and a planted difference is caught and named. More games are `slow`.

Skipped with a reason when the extension is not built, failed instead under
VILLAGE_REQUIRE_NATIVE=1 (tests/conftest.py)."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from pathlib import Path

import pytest

from village_rules.data.components import CHURCH_RESERVE, FARMYARD, REMOVED, Location, OnChurch
from village_rules.data.loader import load_edition
from village_rules.drivers.play import GameLog
from village_rules.drivers.serialization import to_json
from village_rules.engine.core import apply, chance_outcomes, legal_actions
from village_rules.engine.scoring import score_breakdown, winners
from village_rules.engine.setup import new_game
from village_rules.errors import SetupError
from village_rules.model.actions import Action, action_id, format_action, parse_action
from village_rules.model.carla_board import CARLA
from village_rules.model.evolve import replace
from village_rules.model.state import GameState
from village_rules.native import NativeEngine
from village_rules.native.tie import (
    TieDifferenceError,
    compare_game,
    first_difference,
    played_natively,
    seeded_game,
)
from village_rules.rules.variant import Variant

Readings = tuple[tuple[str, str], ...]
ROOT = Path(__file__).resolve().parents[2]
WITNESSES = ROOT / "src" / "village_rules" / "readings" / "witnesses"
EDITION = "big-box-2023"  # the only shipped edition with a solo mode (2011: SET-01 refuses one player)

SOLO_READINGS: tuple[Readings, ...] = (
    (),
    (("AMB-36", "b"),),
    (("AMB-37", "b"),),
    (("AMB-37", "c"),),
    (("AMB-38", "b"),),
    (("AMB-39", "b"),),
    (("AMB-41", "b"),),
    (("AMB-42", "b"),),
    (("AMB-43", "b"),),
)
"""The default readings and each solo reading's other letter (specs/ambiguities.md)."""


def _name(readings: Readings) -> str:
    return ",".join(f"{k}={x}" for k, x in readings) or "default"


def _same_end(engine: NativeEngine, end: GameState, where: str) -> None:
    """At the end: the scores (Carla's 0) and the winners (the player) are the reference's."""
    assert engine.is_terminal, where
    assert engine.scores() == [b.total for b in score_breakdown(end)], where
    assert engine.winners() == list(winners(end)), where


def every_step_compared(
    states: Sequence[GameState], engine: NativeEngine | None = None
) -> tuple[int, set[str]]:
    """At each state: the seat to act and the legal ids in order (or the chance outcomes with
    their exact probabilities) compared; then every legal action (or outcome) applied natively
    from the reference's state and by the reference, the next states compared as canonical
    JSON, and at an end the scores and winners. A difference names the state, the action and
    the rule IDs the reference applied in that step. Returns the steps applied and the rule
    IDs the reference applied in them."""
    engine = engine or NativeEngine()
    rules: set[str] = set()
    applied = 0
    for k, state in enumerate(states):
        data = state.rules.data
        engine.load_state(state)
        where = f"state {k} ({type(state.pending).__name__})"
        assert engine.state_json() == to_json(state), where
        assert engine.current_player() == state.current_player(), where
        if state.is_terminal:
            _same_end(engine, state, where)
            continue
        if state.is_chance:
            outcomes = chance_outcomes(state)
            assert engine.chance_outcomes() == [(action_id(data, a), p) for a, p in outcomes], where
            options: list[Action] = [a for a, _ in outcomes]
        else:
            options = legal_actions(state)
            assert engine.legal_actions() == [action_id(data, a) for a in options], where
        for action in options:
            engine.load_state(state)
            engine.apply(action_id(data, action))
            trace: list[str] = []
            after = apply(state, action, trace)
            native, reference = engine.state_json(), to_json(after)
            if native != reference or engine.current_player() != after.current_player():
                pytest.fail(
                    f"{where}, {format_action(action)!r}: {first_difference(native, reference)}; "
                    f"the reference applied {', '.join(trace) or 'no rule'}"
                )
            if after.is_terminal:
                _same_end(engine, after, f"{where}, {format_action(action)!r}")
            rules.update(trace)
            applied += 1
    return applied, rules


def game_states(initial: GameState, actions: Sequence[Action]) -> list[GameState]:
    """Every state of a game, its end included."""
    states = [initial]
    for action in actions:
        states.append(apply(states[-1], action))
    return states


# The solo rule IDs each reading's seeded game applies (SOLO-01..06 are the reference's set-up;
# SOLO-19, SOLO-23 and SOLO-24 are rarer: reached by hand below, and in the slow games).
COMMON = {
    f"SOLO-{n:02d}" for n in (7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 20, 21, 22, 25, 26, 27, 28, 29)
}
MUST: dict[str, set[str]] = {
    "default": COMMON,
    "AMB-36=b": COMMON,
    "AMB-37=b": COMMON,
    "AMB-37=c": COMMON,
    "AMB-38=b": COMMON | {"SOLO-19"},
    "AMB-39=b": COMMON | {"SOLO-19"},
    "AMB-41=b": COMMON,
    "AMB-42=b": COMMON,
    "AMB-43=b": COMMON | {"SOLO-31"},  # AMB-43 b: she serves in the market day of the well
}


@pytest.mark.parametrize("readings", SOLO_READINGS, ids=_name)
def test_every_step_of_a_seeded_solo_game_is_the_same_natively(readings: Readings) -> None:
    """Every legal action and chance outcome at every state of a seeded solo game, natively
    and by the reference: the same next state, the same end, scores and winners."""
    states = game_states(*seeded_game(EDITION, 1, 1, readings))
    applied, rules = every_step_compared(states)
    assert applied > len(states)
    must = MUST[_name(readings)]
    assert must <= rules, f"never applied: {sorted(must - rules)}"


@pytest.mark.slow
@pytest.mark.parametrize("readings", SOLO_READINGS, ids=_name)
def test_every_step_of_more_solo_games_is_the_same_natively(readings: Readings) -> None:
    """As above, on five more seeded games under each reading, and ten whole games tied."""
    for seed in range(2, 7):
        every_step_compared(game_states(*seeded_game(EDITION, 1, seed, readings)))
    for seed in range(10, 20):
        counts = compare_game(*seeded_game(EDITION, 1, seed, readings))
        assert counts.refused_games == 0 and not counts.unsupported and counts.applied == counts.states - 1


def _reading_seen(readings: Readings, states: Sequence[GameState]) -> bool:
    """The reading made a difference the states show, where one does: AMB-36 b holds the
    player's action for Carla's steps (`action_waits`); AMB-37 c turns a tile up again after
    its set was shuffled (more reveals than fate slots)."""
    name = _name(readings)
    if name == "AMB-36=b":
        return any(s.carla is not None and s.carla.action_waits is not None for s in states)
    if name == "AMB-37=c":
        slots = len(states[0].carla.fate) if states[0].carla is not None else 0
        return sum(1 for s in states if type(s.pending).__name__ == "FateReveal") > slots
    return True


SHOWN = [r for r in SOLO_READINGS if _name(r) in ("AMB-36=b", "AMB-37=c")]
"""The readings whose effect the seeded game's states show (`_reading_seen`)."""


@pytest.mark.parametrize("readings", SHOWN, ids=_name)
def test_the_seeded_game_meets_its_reading(readings: Readings) -> None:
    assert _reading_seen(readings, game_states(*seeded_game(EDITION, 1, 1, readings)))


def test_amb_41_b_drops_carlas_take_natively() -> None:
    """AMB-41 b (SOLO-28): when the player's action ends the game while Carla's take is owed,
    her take is dropped; every such step of a seeded game, natively and by the reference."""
    readings = (("AMB-41", "b"),)
    found = 0
    for state in game_states(*seeded_game(EDITION, 1, 1, readings)):
        carla = state.carla
        if state.is_chance or state.is_terminal or carla is None or carla.look_for is None:
            continue
        if state.end_triggered_by is not None:
            continue
        for action in legal_actions(state):
            after = apply(state, action)
            if after.end_triggered_by == 0 and after.carla is not None and after.carla.look_for is None:
                _, rules = every_step_compared([state])
                assert "SOLO-28" in rules
                assert after.players[CARLA].cubes == state.players[CARLA].cubes  # she took nothing
                found += 1
    assert found >= 1


def _fate_reveals(readings: Readings = ()) -> list[GameState]:
    """The fate-tile reveals of a seeded game at which a quill is still face down."""
    out = []
    for state in game_states(*seeded_game(EDITION, 1, 1, readings)):
        if type(state.pending).__name__ == "FateReveal" and any(
            format_action(a) == "reveal-fate quill" for a, _ in chance_outcomes(state)
        ):
            out.append(state)
    return out


def _carla_members(state: GameState, change: dict[Location, Location]) -> GameState:
    """`state` with Carla's members at the keys of `change` moved to their values."""
    p = state.players[CARLA]
    return state.with_player(CARLA, replace(p, members=tuple(change.get(m, m) for m in p.members)))


def test_carlas_rarer_deaths_are_the_same_natively() -> None:
    """SOLO-22..24 (which of Carla's members a quill kills): with no "1" or "2" left beside her
    board the lowest on the church (SOLO-23), with none there either one on the church track
    from the left (SOLO-24), with none at all nobody; and AMB-10 b (END-05: once the end is
    triggered the dead leave the game). Every outcome of the fate reveals of a seeded game,
    varied so, natively and by the reference."""
    states: list[GameState] = []
    for state in _fate_reveals():
        no_beside = _carla_members(state, {FARMYARD: REMOVED})
        states.append(no_beside)
        track = _carla_members(state, {FARMYARD: REMOVED})
        p = track.players[CARLA]
        first = True
        members: list[Location] = []
        for m in p.members:
            if m == CHURCH_RESERVE:
                members.append(OnChurch(3) if first else REMOVED)
                first = False
            else:
                members.append(m)
        states.append(track.with_player(CARLA, replace(p, members=tuple(members))))
        nobody = state.with_player(
            CARLA, replace(state.players[CARLA], members=tuple(REMOVED for _ in state.players[CARLA].members))
        )
        states.append(nobody)
    for state in _fate_reveals((("AMB-10", "b"),)):
        states.append(replace(state, end_triggered_by=0))
    applied, rules = every_step_compared(states)
    assert applied > len(states)
    must = {"SOLO-14", "SOLO-22", "SOLO-23", "SOLO-24", "END-05"}
    assert must <= rules, f"never applied: {sorted(must - rules)}"


SOLO_WITNESSES = sorted(
    p.name for p in WITNESSES.glob("AMB-*.log.json") if json.loads(p.read_text())["players"] == 1
)


def test_the_solo_witnesses_are_all_listed() -> None:
    assert len(SOLO_WITNESSES) == 16  # AMB-36..39 and AMB-41..43, both letters (AMB-37: b and c)


@pytest.mark.parametrize("name", SOLO_WITNESSES)
def test_a_solo_reading_witness_is_the_same_natively(name: str) -> None:
    """The stored witness of a solo reading (a game up to the step where its letters part),
    compared whole with every step applied natively, and every legal action or outcome at each
    of its states applied natively and by the reference: 0 differences."""
    log = GameLog.from_json((WITNESSES / name).read_text())
    actions = [parse_action(a) for a in log.actions]
    counts = compare_game(log.initial_state(), actions)
    assert counts.refused_games == 0 and not counts.unsupported
    assert counts.applied == len(actions)
    every_step_compared(game_states(log.initial_state(), actions))


def test_a_whole_solo_game_is_native_from_its_set_up_to_its_result() -> None:
    """A seeded solo game applied natively step by step from the reference's set-up (the core
    never loaded again) reaches the reference's end: Carla scores 0, the player wins; and the
    core's own C++ loop plays solo games to their end."""
    engine, state = played_natively(*seeded_game(EDITION, 1, 3))
    assert engine.state_json() == to_json(state)
    _same_end(engine, state, "the end")
    assert engine.scores() == [score_breakdown(state)[0].total, 0] and engine.winners() == [0]
    for seed in range(5):
        engine.new_game_from(edition=EDITION, players=1, seed=seed)
        engine.game.playout(seed, 10**6)
        assert engine.is_terminal and engine.winners() == [0]


def test_the_2011_edition_has_no_solo_mode_natively_either() -> None:
    """SOLO-01 / SET-01: 2011 refuses one player, in the set-up the core's games come from."""
    with pytest.raises(SetupError, match="SET-01"):
        NativeEngine().new_game_from(edition="original-2011", players=1, seed=1)


def test_a_user_data_file_with_other_solo_data_is_the_same_natively(tmp_path: Path) -> None:
    """Data in one place: the 2011 edition's data with a solo section of its own (another
    clockwise order, a shorter board, other fate slots and tiles, other death places) plays
    its solo games natively exactly as the reference does (no solo value held in C++)."""
    source = json.loads((ROOT / "src" / "village_rules" / "data" / "original-2011.json").read_text())
    solo = json.loads((ROOT / "src" / "village_rules" / "data" / "big-box-2023.json").read_text())["solo"]
    solo["space_order"]["value"] = list(reversed(solo["space_order"]["value"]))
    solo["track_spaces"]["value"] = 10
    solo["fate_slots"]["value"] = [
        {"set": "x", "space": 0},
        {"set": "y", "space": 2},
        {"set": "x", "space": 4},
        {"set": "x", "space": 8},
    ]
    solo["fate_tiles"]["value"] = {"x": ["blank", "quill", "quill"], "y": ["quill"]}
    solo["death_places"]["value"].update({"market": "crafts", "church": "graveyard"})
    source["solo"] = solo
    path = tmp_path / "solo-2011.json"
    path.write_text(json.dumps(source))
    data = load_edition(path)
    for seed in (1,):
        initial = new_game(data, 1, seed, Variant(True, ()))
        states = [initial]
        rng = random.Random(seed)
        while not states[-1].is_terminal:
            state = states[-1]
            if state.is_chance:
                outcomes = chance_outcomes(state)
                action = outcomes[rng.randrange(len(outcomes))][0]
            else:
                options = legal_actions(state)
                action = options[rng.randrange(len(options))]
            states.append(apply(state, action))
        _, rules = every_step_compared(states)
        assert {"SOLO-08", "SOLO-14"} <= rules


class _BoardBehind(NativeEngine):
    """A planted difference: Carla's board written one cube space behind (as if her cube went
    on the space she last filled, SOLO-08)."""

    def state_json(self) -> str:
        text = super().state_json()
        at = text.find('"carla":')
        if at < 0:
            return text
        key = text.find('"space":', at)
        end = text.find(",", key)
        value = int(text[key + len('"space":') : end])
        return f'{text[:key]}"space":{value - 1}{text[end:]}' if value > 0 else text


def test_a_wrong_board_space_is_caught_and_named() -> None:
    with pytest.raises(TieDifferenceError) as caught:
        compare_game(*seeded_game(EDITION, 1, 1), engine=_BoardBehind())
    assert caught.value.what == "state"
    assert caught.value.detail.startswith("$.carla.space: native "), caught.value.detail


def test_a_wrong_board_space_is_named_with_the_rules_applied() -> None:
    """every_step_compared names the action and the rule IDs the reference applied."""
    states = game_states(*seeded_game(EDITION, 1, 1))
    with pytest.raises(pytest.fail.Exception) as caught:
        every_step_compared(states[:40], engine=_BoardBehind())
    text = str(caught.value)
    assert "$.carla.space" in text and "SOLO-08" in text, text
