"""End of the game (2023 p. 13; 2011 "End of the game"): END-01..END-06, with the cases of
p. 13: the last chronicle space, the last grave, an end during a market day (by the
market-day player and by another player), the last cube taken during the final actions,
deaths with no space left, then the final mass and the final scoring."""

from __future__ import annotations

import json
from dataclasses import replace
from fractions import Fraction

import pytest

from village_rules import from_json, to_json
from village_rules.checks.invariants import check
from village_rules.data.components import (
    BLACK_BAG,
    GRAVEYARD,
    REMOVED,
    ActionSpace,
    Category,
    Cube,
    Farmyard,
    Good,
    InChronicle,
    Location,
    OnChurch,
    OnCouncil,
)
from village_rules.drivers.scenario import (
    arrange_market,
    at,
    clear_board,
    give,
    place,
    put_cubes,
    ready,
    set_lifetime,
    strip,
)
from village_rules.engine.core import apply, chance_outcomes, legal_actions
from village_rules.engine.end_of_game import final_order
from village_rules.engine.scoring import score_breakdown, winners
from village_rules.errors import IllegalActionError, StateFormatError
from village_rules.model.actions import (
    Action,
    BuyFromBag,
    DrawCustomer,
    DrawMonk,
    FreeAction,
    Harvest,
    Pass,
    Serve,
    Skip,
    TakeCube,
    Well,
)
from village_rules.model.pending import (
    ChooseAction,
    ChooseTurn,
    GameOver,
    MarketChoice,
    MassBuy,
    MassDraw,
    RefillDraw,
    SeedDraw,
)
from village_rules.model.state import TERMINAL, GameState, Mass, Turn
from village_rules.rules.variant import Variant

EDITIONS = ["big-box-2023", "original-2011"]
FY, CR, TR, CO, CH = (
    Category.FARMYARD,
    Category.CRAFTS,
    Category.TRAVEL,
    Category.COUNCIL_CHAMBER,
    Category.CHURCH,
)
GH, FAM, MKT = ActionSpace.GRAIN_HARVEST, ActionSpace.FAMILY, ActionSpace.MARKET

Spot = tuple[int, int, Location]

# 3 players (both editions): 3 open chronicle spaces per category (15), 6 graves.
# Fourteen dead, one farmyard space left; seat 0 keeps one "1" at home, seats 1 and 2 a "3".
CHRONICLE_ALL_BUT_ONE: list[Spot] = [
    (0, 1, InChronicle(CR)), (0, 1, InChronicle(TR)), (0, 1, InChronicle(CO)),
    (1, 1, InChronicle(FY)), (1, 1, InChronicle(CR)), (1, 1, InChronicle(TR)),
    (1, 1, InChronicle(CO)), (1, 2, InChronicle(CH)),
    (2, 1, InChronicle(FY)), (2, 1, InChronicle(CR)), (2, 1, InChronicle(TR)),
    (2, 1, InChronicle(CO)), (2, 2, InChronicle(CH)), (2, 2, InChronicle(CH)),
    (1, 3, Farmyard()), (2, 3, Farmyard()),
]  # fmt: skip
# The same count, but seats 0 and 1 each keep one "1" at home.
CHRONICLE_TWO_AT_HOME: list[Spot] = [
    (0, 1, InChronicle(CR)), (0, 1, InChronicle(TR)), (0, 1, InChronicle(CO)),
    (1, 1, InChronicle(CR)), (1, 1, InChronicle(TR)), (1, 1, InChronicle(CO)),
    (1, 2, InChronicle(CH)),
    (2, 1, InChronicle(FY)), (2, 1, InChronicle(FY)), (2, 1, InChronicle(CR)),
    (2, 1, InChronicle(TR)), (2, 2, InChronicle(CO)), (2, 2, InChronicle(CH)),
    (2, 2, InChronicle(CH)),
]  # fmt: skip
# Farmyard category full, 5 of 6 graves taken; seat 2's only visible "1" is a councillor.
GRAVES_ALL_BUT_ONE: list[Spot] = [
    (0, 1, GRAVEYARD), (0, 1, GRAVEYARD), (0, 1, GRAVEYARD),
    (1, 1, InChronicle(FY)), (1, 1, GRAVEYARD), (1, 1, GRAVEYARD),
    (2, 1, InChronicle(FY)), (2, 1, InChronicle(FY)), (2, 1, InChronicle(CH)),
    (2, 1, OnCouncil(2)),
]  # fmt: skip


def endgame(
    spots: list[Spot],
    cubes: dict[ActionSpace, dict[Cube, int]],
    edition: str = "big-box-2023",
    lifetimes: tuple[int, int, int] = (0, 0, 0),
    variant: Variant | None = None,
) -> GameState:
    """3 players, empty farmyards, the dead where `spots` say, `cubes` on the board, seat 0
    to take a cube; customers 1-4 available, 5-9 waiting."""
    s = ready(edition, 3, seed=2) if variant is None else ready(edition, 3, seed=2, variant=variant)
    for seat in range(3):
        s = strip(s, seat)
    s = clear_board(s)
    for space, on in cubes.items():
        s = put_cubes(s, space, on)
    for seat, number, where in spots:
        s = place(s, seat, number, where)
    for seat, t in enumerate(lifetimes):
        s = set_lifetime(s, seat, t)
    s = arrange_market(s, [1, 2, 3, 4], [5, 6, 7, 8, 9])
    return at(s, ChooseTurn(0))


def go(state: GameState, action: Action) -> tuple[GameState, list[str]]:
    trace: list[str] = []
    return apply(state, action, trace), trace


def final_mass(state: GameState) -> tuple[GameState, list[str]]:
    """Play the final mass with no purchases: draws are monks (there is nothing else)."""
    trace: list[str] = []
    while not state.is_terminal:
        if state.is_chance:
            assert chance_outcomes(state) == [(DrawMonk(), Fraction(1))]
            state = apply(state, DrawMonk(), trace)
        else:
            state = apply(state, Skip(), trace)
    return state, trace


def take_and_skip(state: GameState, take: TakeCube | FreeAction) -> tuple[GameState, list[str]]:
    """A turn: take a cube (or a free action), do nothing with it (a space whose action is
    impossible ends the turn by itself)."""
    seat = state.current_player()
    state, trace = go(state, take)
    if state.pending == ChooseAction(seat, take.space):
        state, more = go(state, Skip())
        trace += more
    assert not isinstance(state.pending, ChooseAction)
    return state, trace


# --- END-01 / END-02: the last chronicle space -------------------------------------------


@pytest.mark.parametrize("edition", EDITIONS)
def test_end01_end02_last_chronicle_space_then_the_others_act_once(edition: str) -> None:
    """END-01: seat 0's "1" dies onto the last chronicle space (farmyard) and triggers the
    end. END-02: seat 0 acts no more; seats 1 and 2 take one final action each, clockwise.
    END-06: then the final mass and the final scoring; the game is over."""
    s = endgame(
        CHRONICLE_ALL_BUT_ONE,
        {GH: {Cube.PLAGUE: 1, Cube.ORANGE: 2}, FAM: {Cube.PINK: 2}},
        edition,
        lifetimes=(8, 0, 0),
    )
    assert s.chronicle_free_total() == 1 and s.chronicle_free(FY) == 1
    s, tr = take_and_skip(s, TakeCube(GH, Cube.PLAGUE))
    assert tr == ["TURN-01", "TURN-03", "TIME-01", "DEATH-01", "TURN-02", "DEATH-03", "END-01", "END-02"]
    assert s.end_triggered_by == 0
    assert s.chronicle_free_total() == 0
    assert s.players[0].members.count(InChronicle(FY)) == 1
    assert s.pending == ChooseTurn(1) and s.final_turns == (2,)

    s, tr = take_and_skip(s, TakeCube(GH, Cube.ORANGE))
    assert tr == ["TURN-01", "TURN-02"]
    assert s.pending == ChooseTurn(2) and s.final_turns == ()

    s, tr = take_and_skip(s, TakeCube(FAM, Cube.PINK))
    assert tr == ["TURN-01", "TURN-02", "END-06", "MASS-01"]
    assert s.mass is not None and s.mass.final
    assert s.pending == MassDraw(4)  # nobody can buy: 4 pieces are drawn
    # Seat 0 never had another turn; the board still holds cubes, nothing was reseeded.
    assert s.space(GH).total() == 1 and s.space(FAM).total() == 1
    s, tr = final_mass(s)
    assert tr.count("MASS-03") == 4
    assert tr[-2:] == ["MASS-05", "SCORE-01"]
    assert s.pending == GameOver()
    assert s.round == 1


@pytest.mark.parametrize("edition", EDITIONS)
def test_end01_last_grave_end05_removed_and_amb10_chronicle_still_used(edition: str) -> None:
    """END-01: the farmyard category is full, so seat 0's "1" goes to the last grave, which
    ends the game. END-05: in seat 1's final action its "1" dies with neither a farmyard
    space nor a grave left: removed from the game. AMB-10: seat 2's councillor dies in the
    final actions, the council category still has room: it goes to the chronicle."""
    s = endgame(
        GRAVES_ALL_BUT_ONE,
        {GH: {Cube.PLAGUE: 3, Cube.ORANGE: 2}, FAM: {Cube.PINK: 2}},
        edition,
        lifetimes=(8, 9, 9),
    )
    assert s.graveyard_free() == 1 and s.chronicle_free(FY) == 0
    s, tr = take_and_skip(s, TakeCube(GH, Cube.PLAGUE))
    assert tr[-4:] == ["TURN-02", "DEATH-04", "END-01", "END-02"]
    assert s.end_triggered_by == 0 and s.graveyard_free() == 0
    assert s.pending == ChooseTurn(1)

    living = s.living_members(1)
    s, tr = take_and_skip(s, TakeCube(GH, Cube.PLAGUE))
    assert tr[-2:] == ["TURN-02", "END-05"]
    assert s.players[1].members.count(REMOVED) == 1
    assert s.living_members(1) == living - 1
    assert s.pending == ChooseTurn(2)

    s, tr = take_and_skip(s, TakeCube(GH, Cube.PLAGUE))
    assert "DEATH-03" in tr and "END-05" not in tr and "END-01" not in tr
    assert s.players[2].members.count(InChronicle(CO)) == 1
    assert OnCouncil(2) not in s.players[2].members
    s, _ = final_mass(s)
    assert s.is_terminal
    # Seat 2: 4 chronicled (7 points); seat 1's removed member scores nothing.
    assert [b.chronicle for b in score_breakdown(s)] == [0, 0, 7]


# --- END-04: the end during a market day --------------------------------------------------


def market_end(edition: str, trigger_lifetime: int, julie_lifetime: int) -> GameState:
    s = endgame(
        CHRONICLE_TWO_AT_HOME,
        {MKT: {Cube.BROWN: 1}, GH: {Cube.ORANGE: 3}, FAM: {Cube.PINK: 2}},
        edition,
        lifetimes=(trigger_lifetime, julie_lifetime, 0),
    )
    s = give(s, 0, goods={Good.HORSE: 1, Good.PLOW: 1, Good.SCROLL: 1}, grain=1, cubes={Cube.GREEN: 1})
    return give(s, 1, grain=3, cubes={Cube.GREEN: 1})


@pytest.mark.parametrize("edition", EDITIONS)
def test_end04_end_during_market_day_by_another_player(edition: str) -> None:
    """END-04 (AMB-09): Julie (seat 1) dies onto the last chronicle space while selling in
    Chris's market day: the market day is finished, then every player takes one final
    action clockwise, Julie first and the market-day player Chris last."""
    s = market_end(edition, trigger_lifetime=0, julie_lifetime=9)
    s = apply(s, TakeCube(MKT, Cube.BROWN))
    s = apply(s, Serve(1))
    s, tr = go(s, Serve(2))
    assert tr[:6] == ["TIME-01", "DEATH-01", "MKT-03", "DEATH-06", "DEATH-03", "END-01"]
    assert s.end_triggered_by == 1
    # The market day is finished completely: Oliver cannot sell and passes; Chris can.
    assert s.market_day is not None and s.market_day.passed == (2,)
    assert s.pending == MarketChoice(0)  # Chris may still sell: scroll + grain + green
    s, tr = go(s, Serve(3))
    assert tr[-3:] == ["MKT-04", "MKT-05", "MKT-06"]
    assert s.pending == RefillDraw(2)
    s = apply(s, DrawCustomer(10))
    s = apply(s, DrawCustomer(11))
    s, tr = go(s, DrawCustomer(12))
    assert "END-04" in tr and "END-02" not in tr
    assert s.pending == ChooseTurn(1) and s.final_turns == (2, 0)
    s, _ = take_and_skip(s, TakeCube(GH, Cube.ORANGE))
    assert s.pending == ChooseTurn(2)
    s, _ = take_and_skip(s, TakeCube(GH, Cube.ORANGE))
    assert s.pending == ChooseTurn(0)
    s, tr = take_and_skip(s, TakeCube(FAM, Cube.PINK))
    assert "END-06" in tr and s.mass is not None and s.mass.final
    s, _ = final_mass(s)
    assert s.is_terminal


@pytest.mark.parametrize("edition", EDITIONS)
def test_end02_end_during_own_market_day_by_the_market_day_player(edition: str) -> None:
    """END-02 in a market day: Chris's second sale costs 1 time, his "1" dies at once onto
    the last chronicle space; he has taken his last turn, the others act once each."""
    s = market_end(edition, trigger_lifetime=9, julie_lifetime=0)
    s = strip(s, 1)  # Julie cannot sell
    s = apply(s, TakeCube(MKT, Cube.BROWN))
    s = apply(s, Serve(1))
    assert s.pending == MarketChoice(0)
    s, tr = go(s, Serve(3))
    assert tr[:6] == ["TIME-01", "DEATH-01", "MKT-03", "DEATH-06", "DEATH-03", "END-01"]
    assert s.end_triggered_by == 0
    assert s.pending == RefillDraw(3)
    s = apply(s, DrawCustomer(10))
    s, tr = go(s, DrawCustomer(11))
    assert "END-02" in tr and "END-04" not in tr
    assert s.pending == ChooseTurn(1) and s.final_turns == (2,)
    s, _ = take_and_skip(s, TakeCube(GH, Cube.ORANGE))
    assert s.pending == ChooseTurn(2)
    s, _ = take_and_skip(s, TakeCube(GH, Cube.ORANGE))
    assert s.mass is not None and s.mass.final
    assert s.pending == MassDraw(4)


# Five of the 6 graves taken (seat 0's and seat 1's "2"s), beside CHRONICLE_TWO_AT_HOME.
FIVE_GRAVES: list[Spot] = [
    (0, 2, GRAVEYARD), (0, 2, GRAVEYARD), (0, 2, GRAVEYARD), (1, 2, GRAVEYARD), (1, 2, GRAVEYARD),
]  # fmt: skip


@pytest.mark.parametrize(
    ("edition", "letter", "trigger", "rule", "final"),
    [
        ("big-box-2023", "a", 1, "END-04", (1, 2, 0)),
        ("original-2011", "a", 1, "END-04", (1, 2, 0)),
        ("big-box-2023", "b", 0, "END-02", (1, 2)),
        ("original-2011", "b", 0, "END-02", (1, 2)),
    ],
)
def test_end01_end10_amb44_chronicle_and_graveyard_filled_in_one_market_day(
    edition: str, letter: str, trigger: int, rule: str, final: tuple[int, ...]
) -> None:
    """AMB-44 (issue 29): in Chris's (seat 0) market day Julie (seat 1) dies onto the last
    chronicle space (END-01), then Chris dies into the last grave. Under a (the default:
    p. 13 "The end of the game is triggered when a family member is put onto either" last
    space) Julie triggered the end: END-04, every player acts once, Chris last. Under b
    (END-10: "determine who has triggered the end … by occupying the last space", the later
    one) Chris did: END-02, he has taken his last turn."""
    s = endgame(
        CHRONICLE_TWO_AT_HOME + FIVE_GRAVES,
        {MKT: {Cube.BROWN: 1}, GH: {Cube.ORANGE: 3}, FAM: {Cube.PINK: 2}},
        edition,
        lifetimes=(9, 9, 0),
        variant=Variant(readings={"AMB-44": letter}),
    )
    s = give(s, 0, goods={Good.HORSE: 1, Good.PLOW: 1, Good.SCROLL: 1}, grain=1, cubes={Cube.GREEN: 1})
    s = give(s, 1, grain=3, cubes={Cube.GREEN: 1})
    assert s.chronicle_free_total() == 1 and s.graveyard_free() == 1
    s = apply(s, TakeCube(MKT, Cube.BROWN))
    s = apply(s, Serve(1))  # Chris's first sale: free, no time
    s, tr = go(s, Serve(2))  # Julie's sale costs 1 time: her "1" takes the last chronicle space
    assert "END-01" in tr and s.end_triggered_by == 1 and s.chronicle_free_total() == 0
    s, tr = go(s, Serve(3))  # Chris's second sale: 1 time, his "1" into the last grave
    assert s.graveyard_free() == 0 and "DEATH-04" in tr
    assert ("END-10" in tr) == (letter == "b") and "END-01" not in tr
    assert s.end_triggered_by == trigger
    check(s)
    while s.is_chance:  # the market is refilled; then the final actions are settled
        s, tr = go(s, chance_outcomes(s)[0][0])
    assert rule in tr and s.final_turns == final[1:] and s.pending == ChooseTurn(final[0])


def test_final_order_end02_end04() -> None:
    """END-02 / END-04: who still acts, for 4 players with seat 2's turn."""
    s = ready("big-box-2023", 4, seed=0)
    assert final_order(replace(s, end_triggered_by=2), 2) == (3, 0, 1)
    assert final_order(replace(s, end_triggered_by=0), 2) == (3, 0, 1, 2)
    assert final_order(replace(s, end_triggered_by=3), 2) == (3, 0, 1, 2)


# --- END-03: the board runs empty in the final actions ------------------------------------


@pytest.mark.parametrize(
    ("edition", "variant"),
    [("original-2011", None), ("big-box-2023", Variant(readings={"AMB-45": "a"}))],
    ids=["original-2011-default", "big-box-2023-AMB-45-a"],
)
def test_end03_amb45_a_last_cube_taken_in_final_actions_then_free_actions(
    edition: str, variant: Variant | None
) -> None:
    """END-03 (AMB-45 a, the 2011 default: its Note "the usual mass at the end of a round
    is skipped"): seat 1 takes the last cube in its final action: no reseeding and no round
    mass; seat 2 may then perform any action for free (no well, no cubes returned); only
    then the final mass is held."""
    s = endgame(
        CHRONICLE_ALL_BUT_ONE,
        {GH: {Cube.PLAGUE: 1}, FAM: {Cube.PINK: 1}},
        edition,
        lifetimes=(8, 0, 0),
        variant=variant,
    )
    s = give(s, 1, cubes={Cube.BROWN: 3})
    s = give(s, 2, cubes={Cube.BROWN: 3})
    s, _ = take_and_skip(s, TakeCube(GH, Cube.PLAGUE))
    assert s.pending == ChooseTurn(1) and s.end_triggered_by == 0
    assert Well(FAM, Cube.BROWN) in legal_actions(s)  # cubes are left: the well as always
    with pytest.raises(IllegalActionError) as err:
        apply(s, FreeAction(GH))
    assert err.value.rule == "END-03"

    s, tr = take_and_skip(s, TakeCube(FAM, Cube.PINK))
    assert s.cubes_on_board() == 0
    assert "ROUND-01" not in tr and "MASS-01" not in tr and "SEED-02" not in tr
    assert "END-11" not in tr
    assert s.mass is None and s.round == 1
    assert s.pending == ChooseTurn(2)
    assert legal_actions(s) == [FreeAction(space) for space in ActionSpace]
    with pytest.raises(IllegalActionError):
        apply(s, Well(GH, Cube.BROWN))

    s, tr = go(s, FreeAction(GH))
    assert tr == ["END-03"] and s.pending == ChooseAction(2, GH)
    s, tr = go(s, Harvest())
    assert s.players[2].grain == 2
    assert s.players[2].cubes[Cube.BROWN] == 3  # nothing returned for the free action
    assert tr[-2:] == ["END-06", "MASS-01"]
    assert s.cubes_on_board() == 0 and s.round == 1
    s, tr = final_mass(s)
    assert "SEED-02" not in tr and "ROUND-02" not in tr
    assert s.is_terminal


@pytest.mark.parametrize(
    ("edition", "variant"),
    [("big-box-2023", None), ("original-2011", Variant(readings={"AMB-45": "b"}))],
    ids=["big-box-2023-default", "original-2011-AMB-45-b"],
)
def test_end11_amb45_b_round_mass_when_a_final_action_takes_the_last_cube(
    edition: str, variant: Variant | None
) -> None:
    """END-11 (AMB-45 b, the 2023 default since issue 43: p. 5 "When a player takes the last
    cube … The current round is then finished and a mass is held"; p. 13 lifts only the
    reseeding): seat 1 takes the last cube in its final action; the round mass is held
    (no reseeding, still round 1), then seat 2 takes a free action, then the last mass.
    Two masses in the ending, where AMB-45 a holds one."""
    s = endgame(
        CHRONICLE_ALL_BUT_ONE,
        {GH: {Cube.PLAGUE: 1}, FAM: {Cube.PINK: 1}},
        edition,
        lifetimes=(8, 0, 0),
        variant=variant,
    )
    s = give(s, 1, cubes={Cube.BROWN: 3})  # the well is open: seat 1's take is a choice
    s, _ = take_and_skip(s, TakeCube(GH, Cube.PLAGUE))
    assert s.pending == ChooseTurn(1) and s.end_triggered_by == 0 and s.mass is None
    s, tr = take_and_skip(s, TakeCube(FAM, Cube.PINK))
    assert s.cubes_on_board() == 0
    assert tr[-3:] == ["ROUND-01", "END-11", "MASS-01"] and "END-03" not in tr
    assert s.mass == Mass(bought=0, final=False, in_final_actions=True) and s.final_turns == (2,)
    assert from_json(to_json(s)) == s  # the state checks accept the round mass
    check(s)
    s, tr = _through_mass_and_seeding(s)
    assert "ROUND-02" not in tr and "SEED-02" not in tr and "END-06" not in tr
    assert s.round == 1 and s.mass is None and s.pending == ChooseTurn(2) and s.final_turns == ()
    assert legal_actions(s) == [FreeAction(space) for space in ActionSpace]
    s, tr = take_and_skip(s, FreeAction(GH))
    assert "ROUND-01" not in tr and tr[-2:] == ["END-06", "MASS-01"]
    assert s.mass is not None and s.mass.final
    s, tr = final_mass(s)
    assert s.is_terminal and "SEED-02" not in tr


def test_end11_amb45_b_last_final_action_takes_the_last_cube_round_mass_then_last_mass() -> None:
    """END-11 (AMB-45 b, 2023): the last of the final actions takes the last cube: the
    round mass, then at once the last mass (END-06), nothing reseeded."""
    s = endgame(
        CHRONICLE_ALL_BUT_ONE,
        {GH: {Cube.PLAGUE: 1}, FAM: {Cube.PINK: 1}, MKT: {Cube.GREEN: 1}},
        lifetimes=(8, 0, 0),
    )
    s = give(s, 1, cubes={Cube.BROWN: 3})
    s = give(s, 2, cubes={Cube.BROWN: 3})
    s, _ = take_and_skip(s, TakeCube(GH, Cube.PLAGUE))
    s, tr = take_and_skip(s, TakeCube(FAM, Cube.PINK))
    assert "MASS-01" not in tr and s.pending == ChooseTurn(2)
    s, tr = go(s, TakeCube(MKT, Cube.GREEN))
    while not s.is_terminal:  # the market day (nobody sells), the round mass, the last mass
        step = chance_outcomes(s)[0][0] if s.is_chance else (Pass() if Pass() in legal_actions(s) else Skip())
        s, more = go(s, step)
        tr += more
        assert from_json(to_json(s)) == s
    after = tr[tr.index("MKT-05") :]
    assert after.count("MASS-01") == 2 and "SEED-02" not in tr and "ROUND-02" not in tr
    round_mass, last_mass = after.index("END-11"), after.index("END-06")
    assert after[round_mass - 1 : round_mass + 2] == ["ROUND-01", "END-11", "MASS-01"]
    assert after[last_mass : last_mass + 2] == ["END-06", "MASS-01"] and round_mass < last_mass
    assert s.round == 1 and s.final_turns == ()


def test_end11_state_checks_refuse_a_round_mass_in_the_final_actions_under_amb45_a() -> None:
    """The state checks: the AMB-45 b round mass is refused under a, and a turn marked as
    having taken the last cube is refused while cubes are left."""
    s = endgame(
        CHRONICLE_ALL_BUT_ONE,
        {GH: {Cube.PLAGUE: 1}, FAM: {Cube.PINK: 1}},
        lifetimes=(8, 0, 0),
    )
    s = give(s, 1, cubes={Cube.BROWN: 3})
    s, _ = take_and_skip(s, TakeCube(GH, Cube.PLAGUE))
    s, _ = take_and_skip(s, TakeCube(FAM, Cube.PINK))
    assert s.mass is not None and s.mass.in_final_actions
    raw = json.loads(to_json(s))
    raw["rules"]["variant"]["readings"] = {"AMB-45": "a"}
    with pytest.raises(StateFormatError, match="AMB-45 a") as err:
        from_json(json.dumps(raw))
    assert err.value.path == "$.mass.in_final_actions"
    marked = endgame(CHRONICLE_ALL_BUT_ONE, {GH: {Cube.PLAGUE: 1}}, lifetimes=(8, 0, 0))
    marked, _ = go(marked, TakeCube(GH, Cube.PLAGUE))
    assert marked.turn == Turn(0) and marked.final_turns is None  # not a final action
    marked = replace(marked, turn=Turn(0, took_last_cube=True))
    with pytest.raises(StateFormatError, match="emptied the board") as err:
        from_json(to_json(marked))
    assert err.value.path == "$.turn.took_last_cube"


@pytest.mark.parametrize(
    ("edition", "variant"),
    [("original-2011", None), ("big-box-2023", Variant(readings={"AMB-33": "a"}))],
    ids=["original-2011-default", "big-box-2023-AMB-33-a"],
)
def test_end03_amb33_end_triggered_by_the_last_cube_of_the_round(
    edition: str, variant: Variant | None
) -> None:
    """END-03 (AMB-33 a, the 2011 default: its Note skips the round mass): seat 0 takes the
    last cube (a plague cube) and its death ends the game: no round mass, no reseeding;
    seats 1 and 2 take free actions, then the final mass."""
    s = endgame(CHRONICLE_ALL_BUT_ONE, {GH: {Cube.PLAGUE: 1}}, edition, lifetimes=(8, 0, 0), variant=variant)
    s, tr = take_and_skip(s, TakeCube(GH, Cube.PLAGUE))
    assert "ROUND-01" not in tr and "MASS-01" not in tr
    assert s.mass is None and s.pending == ChooseTurn(1)
    assert legal_actions(s) == [FreeAction(space) for space in ActionSpace]
    s, _ = take_and_skip(s, FreeAction(FAM))
    assert s.pending == ChooseTurn(2)
    s, tr = take_and_skip(s, FreeAction(GH))
    assert tr[-2:] == ["END-06", "MASS-01"]


def _through_mass_and_seeding(state: GameState) -> tuple[GameState, list[str]]:
    """Play a mass with no purchases and no church steps, then the seeding (first outcome
    of each draw), up to the next turn; every state passes the state checks."""
    trace: list[str] = []
    while not isinstance(state.pending, ChooseTurn):
        if state.is_chance:
            state = apply(state, chance_outcomes(state)[0][0], trace)
        else:
            state = apply(state, Skip(), trace)
        assert from_json(to_json(state)) == state
    return state, trace


@pytest.mark.parametrize("edition", EDITIONS)
def test_end08_amb33_b_round_mass_and_reseeding_before_the_final_actions(edition: str) -> None:
    """END-08 (AMB-33 b): seat 0 takes the last cube and its death ends the game; the round
    mass is held and the board reseeded (round 2), then seats 1 and 2 take their final
    actions from the reseeded board (no free actions), then the final mass."""
    b = Variant(readings={"AMB-33": "b"})
    s = endgame(CHRONICLE_ALL_BUT_ONE, {GH: {Cube.PLAGUE: 1}}, edition, lifetimes=(8, 0, 0), variant=b)
    s, tr = take_and_skip(s, TakeCube(GH, Cube.PLAGUE))
    assert s.end_triggered_by == 0
    assert tr[-3:] == ["ROUND-01", "END-08", "MASS-01"]
    assert s.mass is not None and not s.mass.final and s.final_turns == (1, 2)
    s, tr = _through_mass_and_seeding(s)
    assert "ROUND-02" in tr and "SEED-02" in tr and "END-06" not in tr
    assert s.round == 2 and s.cubes_on_board() > 0
    assert s.pending == ChooseTurn(1) and s.final_turns == (2,)
    assert not any(isinstance(a, FreeAction) for a in legal_actions(s))
    take = next(a for a in legal_actions(s) if isinstance(a, TakeCube) and a.cube is not Cube.PLAGUE)
    s, _ = take_and_skip(s, take)
    assert s.pending == ChooseTurn(2) and s.final_turns == ()
    take = next(a for a in legal_actions(s) if isinstance(a, TakeCube) and a.cube is not Cube.PLAGUE)
    s, tr = take_and_skip(s, take)
    assert tr[-2:] == ["END-06", "MASS-01"] and s.mass is not None and s.mass.final
    assert s.round == 2
    check(s)  # the invariants hold (raises otherwise)


@pytest.mark.parametrize(
    ("edition", "variant"),
    [("big-box-2023", None), ("original-2011", Variant(readings={"AMB-33": "c"}))],
    ids=["big-box-2023-default", "original-2011-AMB-33-c"],
)
def test_end09_amb33_c_round_mass_then_free_final_actions(edition: str, variant: Variant | None) -> None:
    """END-09 (AMB-33 c, the 2023 default since issue 29: p. 5 "The current round is then
    finished and a mass is held", p. 13 "the action spaces are not reseeded"): seat 0 takes
    the last cube and its death ends the game; the round mass is held, nothing is reseeded
    (still round 1, no ROUND-02), seats 1 and 2 take free actions, then the final mass."""
    s = endgame(CHRONICLE_ALL_BUT_ONE, {GH: {Cube.PLAGUE: 1}}, edition, lifetimes=(8, 0, 0), variant=variant)
    s, tr = take_and_skip(s, TakeCube(GH, Cube.PLAGUE))
    assert s.end_triggered_by == 0 and s.rules.reading("AMB-33") == "c"
    assert tr[-3:] == ["ROUND-01", "END-09", "MASS-01"] and "END-08" not in tr
    assert s.mass is not None and not s.mass.final and s.final_turns == (1, 2)
    s, tr = _through_mass_and_seeding(s)
    assert "ROUND-02" not in tr and "SEED-02" not in tr and "END-06" not in tr
    assert s.round == 1 and s.cubes_on_board() == 0 and s.mass is None
    assert s.pending == ChooseTurn(1) and s.final_turns == (2,)
    assert legal_actions(s) == [FreeAction(space) for space in ActionSpace]
    s, _ = take_and_skip(s, FreeAction(FAM))
    assert s.pending == ChooseTurn(2) and s.final_turns == ()
    s, tr = take_and_skip(s, FreeAction(GH))
    assert tr[-2:] == ["END-06", "MASS-01"] and s.mass is not None and s.mass.final
    assert s.round == 1
    check(s)
    s, tr = final_mass(s)
    assert "SEED-02" not in tr and "ROUND-02" not in tr and s.is_terminal


def test_end09_amb33_state_checks_accept_the_round_mass_but_no_reseeding_under_c() -> None:
    """The state checks under AMB-33 c: the round mass after the end trigger loads (before
    any final action), a reseeding after the trigger is refused, and under a the same
    round mass is refused."""
    s = endgame(CHRONICLE_ALL_BUT_ONE, {GH: {Cube.PLAGUE: 1}}, lifetimes=(8, 0, 0))
    s, _ = take_and_skip(s, TakeCube(GH, Cube.PLAGUE))
    assert s.mass is not None and not s.mass.final and s.final_turns == (1, 2)
    assert from_json(to_json(s)) == s
    raw = json.loads(to_json(s))
    raw["rules"]["variant"]["readings"] = {"AMB-33": "a"}
    with pytest.raises(StateFormatError, match="next mass is the final one"):
        from_json(json.dumps(raw))
    seeding = replace(s, mass=None, pending=SeedDraw(GH, 1))
    with pytest.raises(StateFormatError, match="no new round begins") as err:
        from_json(to_json(seeding))
    assert err.value.path == "$.end_triggered_by"


def test_end08_amb33_state_checks_accept_only_the_states_reading_b_reaches() -> None:
    """The state checks: the reseeding after the end trigger loads under AMB-33 b, is
    refused under a, and under b is refused once a final action has been taken."""
    b = Variant(readings={"AMB-33": "b"})
    s = endgame(CHRONICLE_ALL_BUT_ONE, {GH: {Cube.PLAGUE: 1}}, lifetimes=(8, 0, 0), variant=b)
    s, _ = take_and_skip(s, TakeCube(GH, Cube.PLAGUE))
    while not isinstance(s.pending, SeedDraw):
        s = apply(s, chance_outcomes(s)[0][0]) if s.is_chance else apply(s, Skip())
    assert from_json(to_json(s)) == s
    raw = json.loads(to_json(s))
    raw["rules"]["variant"]["readings"] = {}
    with pytest.raises(StateFormatError, match="no new round begins") as err:
        from_json(json.dumps(raw))
    assert err.value.path == "$.end_triggered_by"
    raw = json.loads(to_json(s))
    raw["final_turns"] = [2]  # seat 1 has had its final action: too late for a new round
    with pytest.raises(StateFormatError, match="AMB-33 b"):
        from_json(json.dumps(raw))
    during = replace(s, pending=MassBuy(0), mass=Mass(bought=0, final=False))
    assert from_json(to_json(during)) == during  # the round mass on the emptied board
    with pytest.raises(StateFormatError, match="next mass is the final one"):
        from_json(to_json(replace(during, final_turns=(2,))))


def test_end03_free_market_day_all_players_take_part() -> None:
    """END-03 with AMB-34: a free market action in the final actions holds a market day in
    which the player who ended the game (seat 0) may still sell. (AMB-33 a, so the free
    actions follow at once; under the 2023 default c the round mass comes first.)"""
    a = Variant(readings={"AMB-33": "a"})
    s = endgame(CHRONICLE_ALL_BUT_ONE, {GH: {Cube.PLAGUE: 1}}, lifetimes=(8, 0, 0), variant=a)
    s = give(s, 0, goods={Good.SCROLL: 1}, grain=1, cubes={Cube.GREEN: 1})
    s = give(s, 1, goods={Good.HORSE: 1, Good.PLOW: 1})
    s, _ = take_and_skip(s, TakeCube(GH, Cube.PLAGUE))
    assert s.pending == ChooseTurn(1)
    s, tr = go(s, FreeAction(MKT))
    assert tr == ["END-03", "MKT-01"]
    s, tr = go(s, Serve(1))
    assert tr[0] == "MKT-02"
    assert s.pending == MarketChoice(0)
    s = apply(s, Serve(3))
    assert s.players[0].customers == (3,) and s.players[0].lifetime == 1
    assert isinstance(s.pending, RefillDraw)


def test_end03_free_action_only_after_the_end() -> None:
    """END-03: before the end is triggered, a free action is never allowed."""
    s = endgame(CHRONICLE_ALL_BUT_ONE, {GH: {Cube.ORANGE: 1}, FAM: {Cube.PINK: 1}})
    with pytest.raises(IllegalActionError) as err:
        apply(s, FreeAction(GH))
    assert err.value.rule == "END-03"
    assert all(not isinstance(a, FreeAction) for a in legal_actions(s))


# --- END-06: the final mass, scoring, terminal --------------------------------------------


def test_end06_final_mass_is_a_real_mass_then_terminal() -> None:
    """END-06: the final mass is held in full (seat 2 buys its member from the bag and wins
    the church majority, +2 prestige), then the final scoring; the state is terminal."""
    s = endgame(
        CHRONICLE_ALL_BUT_ONE,
        {GH: {Cube.PLAGUE: 1, Cube.ORANGE: 2}, FAM: {Cube.PINK: 2}},
        lifetimes=(8, 0, 0),
    )
    s = place(s, 2, 3, BLACK_BAG)
    s = give(s, 2, coins=1)
    s, _ = take_and_skip(s, TakeCube(GH, Cube.PLAGUE))
    s, _ = take_and_skip(s, TakeCube(GH, Cube.ORANGE))
    s, tr = take_and_skip(s, TakeCube(FAM, Cube.PINK))
    assert s.pending == MassBuy(2)  # seats 0 and 1 have nothing in the bag
    assert legal_actions(s) == [BuyFromBag(3), Skip()]
    s, tr = go(s, BuyFromBag(3))
    assert tr[0] == "MASS-02"
    assert s.pending == MassDraw(3)
    s, tr = final_mass(s)
    assert tr.count("MASS-03") == 3
    assert tr[-2:] == ["MASS-05", "SCORE-01"]
    assert s.is_terminal and s.current_player() == TERMINAL
    assert legal_actions(s) == [] and chance_outcomes(s) == []
    with pytest.raises(IllegalActionError) as err:
        apply(s, Skip())
    assert err.value.rule == "END-06"
    p2 = s.players[2]
    assert OnChurch(1) in p2.members and p2.prestige == 2 and p2.coins == 0
    b = score_breakdown(s)
    # seat 0: 4 chronicled (7); seat 1: 5 chronicled (12); seat 2: 6 chronicled (12),
    # church stage 1 (2), prestige 2.
    assert [(x.chronicle, x.church, x.during_play, x.total) for x in b] == [
        (7, 0, 0, 7),
        (12, 0, 0, 12),
        (12, 2, 2, 16),
    ]
    assert winners(s) == (2,)
    assert Farmyard() not in s.players[0].members


@pytest.mark.parametrize(
    ("letter", "first", "rest"),
    [
        ("a", 1, (2, 0)),  # left of the market-day player Chris; Chris last (2011's sentence)
        ("b", 2, (0, 1)),  # left of Julie, who triggered the end; Julie last
        ("c", None, None),  # from the start player
    ],
)
def test_end07_amb09_who_starts_the_final_actions(
    letter: str, first: int | None, rest: tuple[int, ...] | None
) -> None:
    """END-04 / END-07 (AMB-09): the END-04 game (Julie, seat 1, ends the game in Chris's
    market day) with each reading of who takes the first final action; every seat acts once."""
    s = market_end("big-box-2023", trigger_lifetime=0, julie_lifetime=9)
    rules = replace(s.rules, variant=Variant(readings={"AMB-09": letter}))
    s = replace(s, rules=rules)
    s = apply(s, TakeCube(MKT, Cube.BROWN))
    s = apply(s, Serve(1))
    s = apply(s, Serve(2))
    s = apply(s, Serve(3))
    s = apply(s, DrawCustomer(10))
    s = apply(s, DrawCustomer(11))
    s, tr = go(s, DrawCustomer(12))
    assert "END-04" in tr and ("END-07" in tr) == (letter != "a")
    start = s.start_player
    expected_first = start if first is None else first
    expected_rest = tuple((start + k) % 3 for k in (1, 2)) if rest is None else rest
    assert s.pending == ChooseTurn(expected_first) and s.final_turns == expected_rest
    assert sorted((expected_first, *expected_rest)) == [0, 1, 2]
    check(s)
