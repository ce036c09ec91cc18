"""The rules review of the solo mode (/work/review-solo.md): the end of a solo game in a
market day Carla triggered (END-04, p. 13 + p. 18), Carla's death ending it outside any
market day (END-02), no reaction of hers in a market day the well started (SOLO-25), and
her owed steps once the player's death ends the game (AMB-41), her reaction before her
death (AMB-38)."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest
from support import ROOT
from test_solo import BB, S, carla_next_takes_pink, carla_without_ones_and_twos, move, run, set_board, solo

from village_rules import apply, chance_outcomes, legal_actions
from village_rules.data.components import (
    BLACK_BAG,
    CHURCH_RESERVE,
    FARMYARD,
    GRAVEYARD,
    Category,
    Cube,
    InChronicle,
    OnChurch,
)
from village_rules.data.loader import load_edition
from village_rules.drivers.scenario import arrange_market, clear_board, give, put_cubes, ready, strip_all
from village_rules.drivers.serialization import from_json, to_json
from village_rules.errors import DataError, VillageError
from village_rules.model.actions import Pass, Serve, Skip, TakeCube, Well
from village_rules.model.carla_board import CARLA, PLAYER
from village_rules.model.pending import ChooseTurn, MarketChoice
from village_rules.model.state import GameState
from village_rules.rules.variant import Variant


def last_grave_for_the_player(state: GameState) -> GameState:
    """The farmyard category of the chronicle is full and one grave is left, so the
    player's next death (a "1" from the farmyard) fills the graveyard: END-01."""
    open_farmyard = state.rules.data.chronicle_open(Category.FARMYARD, 2)
    for _ in range(open_farmyard):
        state = move(state, PLAYER, 1, FARMYARD, InChronicle(Category.FARMYARD))
    while state.graveyard_free() > 1:
        state = move(state, CARLA, 1, FARMYARD, GRAVEYARD)
    assert state.players[PLAYER].members.count(FARMYARD) >= 1
    return state


def one_time_from_the_last_grave(state: GameState) -> GameState:
    """`last_grave_for_the_player`, and the player's life-time token one space short of
    the track's end: the next time the player spends kills a member into the last grave."""
    state = last_grave_for_the_player(state)
    length = state.rules.data.lifetime_track_length
    return state.with_player(PLAYER, replace(state.players[PLAYER], lifetime=length - 1))


def before_the_players_death_in_carlas_market_day(state: GameState) -> GameState:
    """`state` (a solo game) arranged so that the player's cube take from the crafts lets
    Carla trigger the market day, where the player's sale (`Serve(2)`) costs the time that
    kills his member into the last grave: the end triggered by another player than the
    market day's (END-04)."""
    state = put_cubes(state, S.CRAFTS, {Cube.GREEN: 1})
    state = put_cubes(state, S.MARKET, {Cube.GREEN: 1})
    state = put_cubes(state, S.TRAVEL, {Cube.PINK: 1})
    state = arrange_market(state, [5, 2, 8], [1, 3, 4, 6, 7])
    state = give(state, PLAYER, grain=3)
    state = one_time_from_the_last_grave(state)
    return state


def finish_turn(state: GameState, trace: list[str]) -> GameState:
    """Pass (else the first choice) and draw the first outcome until the player has a turn
    to choose, or the mass begins."""
    while not isinstance(state.pending, ChooseTurn) and state.mass is None:
        if state.is_chance:
            state = apply(state, chance_outcomes(state)[0][0], trace=trace)
            continue
        options = legal_actions(state)
        state = apply(state, Pass() if Pass() in options else options[0], trace=trace)
    return state


def test_end04_the_players_death_in_carlas_market_day_leaves_the_player_a_final_action() -> None:
    """END-04 (p. 13 Special case, p. 18 "or Carla has triggered the market day"): the
    player's member dies into the last grave during Carla's market day, so the end was
    triggered by another player than the market day's: every player gets one final
    action, and Carla takes none (SOLO-28): the player takes one."""
    state = before_the_players_death_in_carlas_market_day(solo())
    trace: list[str] = []
    state = run(state, "take crafts green", trace=trace)
    assert state.market_day is not None and state.market_day.trigger == CARLA
    assert isinstance(state.pending, MarketChoice)
    state = apply(state, Serve(2), trace=trace)  # the later-sale cost: 1 time passes the quill
    assert "DEATH-06" in trace and "END-01" in trace and state.end_triggered_by == PLAYER
    state = finish_turn(state, trace)
    assert "END-04" in trace and "END-02" not in trace and "SOLO-28" in trace
    assert state.pending == ChooseTurn(PLAYER) and state.final_turns == ()
    # The record of whose market day it was survives the JSON round trip.
    assert from_json(to_json(state)) == state


def test_end02_the_players_death_in_the_own_market_day_ends_the_turns() -> None:
    """END-02: the player's death in the player's own market day: the player has taken
    the last turn, and Carla takes no final action: the final mass follows."""
    state = put_cubes(solo(), S.MARKET, {Cube.GREEN: 1})
    state = put_cubes(state, S.FAMILY, {Cube.PINK: 1})
    state = arrange_market(state, [5, 2, 8], [1, 3, 4, 6, 7])
    state = give(state, PLAYER, grain=5)
    state = one_time_from_the_last_grave(state)
    trace: list[str] = []
    state = run(state, "take market green", "serve 2", trace=trace)  # free first sale
    state = apply(state, Serve(8), trace=trace)  # a later sale: 1 time passes the quill
    assert "END-01" in trace and state.end_triggered_by == PLAYER
    state = finish_turn(state, trace)
    assert "END-02" in trace and "END-04" not in trace and "END-06" in trace
    assert state.mass is not None and state.mass.final


def test_end02_carlas_death_outside_a_market_day_gives_the_player_a_final_action() -> None:
    """END-02, not END-04: Carla's quill fills the last grave after a council-chamber
    cube (no market day): she triggered the end, so every other player, i.e. the player,
    has one action left (p. 13 "they have taken their last turn and everyone else has one
    action left")."""
    base = solo()
    open_council = base.rules.data.chronicle_open(Category.COUNCIL_CHAMBER, 2)
    for _ in range(open_council):
        base = move(base, PLAYER, 1, FARMYARD, InChronicle(Category.COUNCIL_CHAMBER))
    while base.graveyard_free() > 1:
        base = move(base, PLAYER, 1, FARMYARD, GRAVEYARD) if base.players[PLAYER].members.count(
            FARMYARD
        ) else move(base, CARLA, 2, FARMYARD, GRAVEYARD)
    state = put_cubes(base, S.COUNCIL_CHAMBER, {Cube.PINK: 2})
    state = carla_next_takes_pink(state)
    trace: list[str] = []
    state = apply(state, TakeCube(S.COUNCIL_CHAMBER, Cube.PINK), trace=trace)
    state = finish_turn(state, trace)
    assert "DEATH-04" in trace and state.end_triggered_by == CARLA
    assert "END-02" in trace and "END-04" not in trace and "SOLO-28" in trace
    assert state.pending == ChooseTurn(PLAYER) and state.final_turns == ()


def test_solo25_carla_serves_nobody_in_a_market_day_the_well_started() -> None:
    """SOLO-25 (p. 18 "Carla does not take a cube from the game board (or 'react') right
    after you performed a 'well' action"): in the market day the player holds through the
    well she takes no customer; in the next turn's market day she serves again."""
    state = put_cubes(solo(), S.TRAVEL, {Cube.PINK: 2})
    state = arrange_market(state, [5, 2, 8], [1, 3, 4, 6, 7])
    state = give(state, PLAYER, grain=5, cubes={Cube.BROWN: 3})
    trace: list[str] = []
    state = apply(state, Well(S.MARKET, Cube.BROWN), trace=trace)
    while not isinstance(state.pending, MarketChoice):
        state = apply(state, chance_outcomes(state)[0][0] if state.is_chance else Pass(), trace=trace)
    state = apply(state, Serve(2), trace=trace)
    assert "SOLO-25" in trace and "SOLO-17" not in trace and "SOLO-18" not in trace
    assert state.players[CARLA].customers == ()
    state = finish_turn(state, trace)
    assert state.carla is not None and not state.carla.well_turn  # only that turn
    assert state.players[CARLA].customers == () and state.players[CARLA].cubes.total() == 0
    # The next market day (the player's market cube): she serves the frontmost left.
    state = put_cubes(state, S.MARKET, {Cube.GREEN: 1})
    trace = []
    state = run(state, "take market green", trace=trace)
    state = apply(state, Pass(), trace=trace)
    assert "SOLO-17" in trace and len(state.players[CARLA].customers) == 1


def test_amb41_carlas_owed_cube_comes_before_the_end_the_player_triggered() -> None:
    """AMB-41 a (SOLO-10, SOLO-20): the player's own death fills the last grave; Carla
    still takes her owed cube (p. 17 "Each time after you have taken … Carla takes a
    cube"), reacts at the church (a "3" into the black bag), and then the final mass
    begins (END-02: the player has no final action)."""
    state = put_cubes(solo(), S.TRAVEL, {Cube.PLAGUE: 1})
    state = put_cubes(state, S.CHURCH, {Cube.PLAGUE: 1})
    state = one_time_from_the_last_grave(state)
    trace: list[str] = []
    state = run(state, "take travel plague", trace=trace)
    state = finish_turn(state, trace)
    assert state.end_triggered_by == PLAYER
    assert trace.index("END-01") < trace.index("SOLO-11") < trace.index("SOLO-20") < trace.index("END-02")
    bagged = [state.number_of(i) for i, loc in enumerate(state.players[CARLA].members) if loc == BLACK_BAG]
    assert bagged == [3] and state.players[CARLA].cubes[Cube.PLAGUE] == 1
    assert state.mass is not None and state.mass.final


def test_amb38_the_church_reaction_before_the_death_with_one_member_left_on_the_church() -> None:
    """AMB-38 a (SOLO-20, SOLO-24): a church cube passes a quill when no "1" or "2" is
    beside her board and one member is left on the church: the reaction comes first, so
    that member goes into the bag, and the death takes her leftmost church-track member
    (under b that member would die and the reaction be forgone, SOLO-21)."""
    base = carla_without_ones_and_twos()
    for number in (3, 4, 4):
        base = move(base, CARLA, number, CHURCH_RESERVE, BLACK_BAG)
    base = move(base, CARLA, 4, BLACK_BAG, OnChurch(2))
    assert base.players[CARLA].members.count(CHURCH_RESERVE) == 1
    state = put_cubes(base, S.CHURCH, {Cube.PINK: 2})
    state = put_cubes(state, S.TRAVEL, {Cube.ORANGE: 1})
    state = carla_next_takes_pink(state)
    trace: list[str] = []
    state = run(state, "take church pink", trace=trace)
    assert trace.index("SOLO-20") < trace.index("SOLO-24") and "SOLO-21" not in trace
    members = state.players[CARLA].members
    assert members.count(CHURCH_RESERVE) == 0 and members.count(BLACK_BAG) == 3
    assert members.count(OnChurch(2)) == 0 and members.count(InChronicle(Category.CHURCH)) == 1


def test_the_edition_is_the_2023_one() -> None:
    assert solo().rules.data.edition == BB
    assert set_board(solo(), 3).carla is not None


def test_solo08_a_carla_board_too_short_for_a_round_is_refused(tmp_path: Path) -> None:
    """SOLO-08 (p. 17, one cube per space in the base game): the 2-player card seeds 18
    cubes, Carla may take 9 and her last one stays, so fewer than 10 spaces are refused
    with a DataError naming solo.track_spaces; 10 spaces load."""
    shipped = ROOT / "src" / "village_rules" / "data" / f"{BB}.json"
    raw = json.loads(shipped.read_text(encoding="utf-8"))
    for spaces, refused in ((9, True), (10, False)):
        data = json.loads(json.dumps(raw))
        data["solo"]["track_spaces"]["value"] = spaces
        for k, slot in enumerate(data["solo"]["fate_slots"]["value"]):
            slot["space"] = k + 1  # every fate slot on the shorter board
        path = tmp_path / f"track-{spaces}.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        if refused:
            with pytest.raises(DataError) as info:
                load_edition(path)
            assert info.value.key == "solo.track_spaces" and "at least 10" in str(info.value)
        else:
            assert load_edition(path).solo is not None


def test_solo25_end04_the_new_marks_of_carlas_board_are_checked_on_load() -> None:
    """SOLO-25 / END-04: a state whose well-turn mark outlives the turn, or which records
    a market day for an end never triggered, is refused by from_json with the field."""
    state = solo()
    assert state.carla is not None and state.turn is None
    for field, broken in (
        ("$.carla.well_turn", replace(state.carla, well_turn=True)),
        ("$.carla.end_in_market_of", replace(state.carla, end_in_market_of=CARLA)),
    ):
        with pytest.raises(VillageError, match=re.escape(field)):
            from_json(to_json(replace(state, carla=broken)))


def test_solo25_the_observation_shows_the_well_turn() -> None:
    """SOLO-25: whether Carla will serve in this market day is visible to the player's
    observation (the well-turn mark), so two states that differ only in it differ there."""
    from village_rules.adapters.observation import observation_tensor  # noqa: PLC0415

    state = put_cubes(solo(), S.TRAVEL, {Cube.PINK: 2})
    state = arrange_market(state, [5, 2, 8], [1, 3, 4, 6, 7])
    state = give(state, PLAYER, grain=5, cubes={Cube.BROWN: 3})
    state = apply(state, Well(S.MARKET, Cube.BROWN))
    while not isinstance(state.pending, MarketChoice):
        state = apply(state, chance_outcomes(state)[0][0] if state.is_chance else Pass())
    assert state.carla is not None and state.carla.well_turn
    plain = replace(state, carla=replace(state.carla, well_turn=False))
    assert observation_tensor(state, PLAYER) != observation_tensor(plain, PLAYER)


@pytest.mark.parametrize("reading", ["c", "b", "a"])
def test_end09_amb33_round_mass_then_last_mass_with_nobody_left_to_act(reading: str) -> None:
    """END-09 (AMB-33 c, the 2023 default; issue 43): the player takes the last cube (the
    grain harvest's plague cube: 2 time) and the death it brings fills the last grave, so
    the end comes in the player's own turn (END-02) and nobody has a final action left
    (Carla takes none, SOLO-28; the board is empty, so she takes no cube either). 2023 p. 5
    still holds the round mass ("The current round is then finished and a mass is held"),
    then p. 13 the last mass: two masses, nothing reseeded. Under b the same (no final
    action to reseed for); under a only the last mass."""
    state = strip_all(clear_board(ready(BB, 1, 0, variant=Variant(readings={"AMB-33": reading}))))
    state = put_cubes(state, S.GRAIN_HARVEST, {Cube.PLAGUE: 1})
    state = one_time_from_the_last_grave(state)
    trace: list[str] = []
    state = apply(state, TakeCube(S.GRAIN_HARVEST, Cube.PLAGUE), trace=trace)
    while not state.is_terminal:
        if state.is_chance:
            state = apply(state, chance_outcomes(state)[0][0], trace=trace)
        else:
            options = legal_actions(state)
            state = apply(state, Skip() if Skip() in options else options[0], trace=trace)
        assert from_json(to_json(state)) == state  # the state checks accept every step
    assert state.end_triggered_by == PLAYER and "END-02" in trace and state.final_turns == ()
    assert "SEED-02" not in trace and "ROUND-02" not in trace and state.round == 1
    masses = trace.count("MASS-01")
    if reading == "a":
        assert masses == 1 and "ROUND-01" not in trace
    else:
        assert masses == 2 and trace.index("ROUND-01") < trace.index("END-06")
        assert ("END-09" if reading == "c" else "END-08") in trace
