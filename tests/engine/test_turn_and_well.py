"""Seeding, taking a cube, the well, coins for cubes and the end of a round.

Rules checked: SEED-01, SEED-02, TURN-01, TURN-02, TURN-03, WELL-01, WELL-02, COIN-01,
ROUND-01, ROUND-02 (2023 p. 4, p. 5, p. 10, p. 11, p. 12; 2011 "Seeding", "Well").
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest
from support import bare

from village_rules.data.components import INFLUENCE, ActionSpace, Cube, Farmyard
from village_rules.data.loader import builtin_edition
from village_rules.data.tally import Tally
from village_rules.drivers.scenario import (
    arrange_market,
    at,
    give,
    put_cubes,
)
from village_rules.engine import seeding
from village_rules.engine.core import apply, chance_outcomes, legal_actions
from village_rules.engine.setup import new_game
from village_rules.errors import IllegalActionError
from village_rules.model.actions import (
    Birth,
    DrawCube,
    DrawMonk,
    FreeAction,
    Pass,
    Pay,
    Serve,
    Skip,
    TakeCube,
    Well,
)
from village_rules.model.pending import (
    ChooseAction,
    ChoosePayment,
    ChooseTurn,
    MarketChoice,
    MassDraw,
    SeedDraw,
)
from village_rules.model.state import GameState, Mass
from village_rules.rules.variant import Variant

EDITION_COUNTS = [("big-box-2023", n) for n in (2, 3, 4, 5)] + [("original-2011", n) for n in (2, 3, 4)]


def turn_of(state: GameState, seat: int) -> GameState:
    return at(state, ChooseTurn(seat))


def total_cubes(state: GameState) -> Tally[Cube]:
    """Every cube of the game wherever it is (supply, bag, spaces, farmyards)."""
    total = state.supply.cubes.plus(state.green_bag)
    for t in state.spaces:
        total = total.plus(t)
    for p in state.players:
        total = total.plus(p.cubes)
    return total


# --- SEED-01 / SEED-02 --------------------------------------------------------------------


@pytest.mark.parametrize(("edition", "players"), EDITION_COUNTS)
def test_seed01_bag_gets_setup_card_cubes_and_all_plague_cubes(edition: str, players: int) -> None:
    """SEED-01: the green bag holds the setup card's cubes per colour plus all 6 plague cubes."""
    state = new_game(edition, players, seed=3, variant=Variant(starting_compensation=False))
    data = builtin_edition(edition)
    card = data.setup_card(players)
    assert isinstance(state.pending, SeedDraw)
    for colour in INFLUENCE:
        assert state.green_bag[colour] == card.cubes_added[colour]
        assert state.supply.cubes[colour] == data.influence_cubes_each - card.cubes_added[colour]
    assert state.green_bag[Cube.PLAGUE] == 6
    assert state.supply.cubes[Cube.PLAGUE] == 0


def test_seed01_three_players_2011_exact_bag() -> None:
    """SEED-01 (2011, 3 players): 5 of each colour + 6 plague = 26 cubes, 13 of each left."""
    state = new_game("original-2011", 3, seed=0)
    assert state.green_bag == Tally.of(
        {Cube.BROWN: 5, Cube.PINK: 5, Cube.ORANGE: 5, Cube.GREEN: 5, Cube.PLAGUE: 6}
    )
    assert state.green_bag.total() == 26
    assert state.supply.cubes == Tally.of({Cube.BROWN: 13, Cube.PINK: 13, Cube.ORANGE: 13, Cube.GREEN: 13})


def test_seed01_capped_by_supply_and_bag_carries_over() -> None:
    """SEED-01 / AMB-30: only as many cubes as the supply holds go in; the bag is not emptied."""
    state = bare(3, "original-2011")  # 2011: 18 cubes of each colour
    leftovers = state.green_bag
    # Brown to a farmyard until the supply keeps only 2 brown (the card asks for 5).
    state = give(state, 0, cubes={Cube.BROWN: state.supply.cubes[Cube.BROWN] - 2})
    assert state.supply.cubes[Cube.BROWN] == 2
    plague_in_supply = state.supply.cubes[Cube.PLAGUE]
    state = seeding.begin_round(state)
    assert state.green_bag[Cube.BROWN] == leftovers[Cube.BROWN] + 2
    assert state.supply.cubes[Cube.BROWN] == 0
    for colour in (Cube.PINK, Cube.ORANGE, Cube.GREEN):
        assert state.green_bag[colour] == leftovers[colour] + 5
    assert state.green_bag[Cube.PLAGUE] == leftovers[Cube.PLAGUE] + plague_in_supply
    assert state.supply.cubes[Cube.PLAGUE] == 0
    assert state.pending == SeedDraw(ActionSpace.GRAIN_HARVEST, 3)


def test_seed02_draw_probabilities_are_count_over_total() -> None:
    """SEED-02: each colour is drawn with probability (cubes of it in the bag) / (bag total)."""
    state = new_game("original-2011", 3, seed=0)  # bag 5/5/5/5 + 6 plague
    outcomes = dict(chance_outcomes(state))
    assert outcomes == {
        DrawCube(Cube.BROWN): Fraction(5, 26),
        DrawCube(Cube.PINK): Fraction(5, 26),
        DrawCube(Cube.ORANGE): Fraction(5, 26),
        DrawCube(Cube.GREEN): Fraction(5, 26),
        DrawCube(Cube.PLAGUE): Fraction(6, 26),
    }
    trace: list[str] = []
    after = apply(state, DrawCube(Cube.PLAGUE), trace)
    assert trace == ["SEED-02"]
    assert after.green_bag[Cube.PLAGUE] == 5
    assert after.space(ActionSpace.GRAIN_HARVEST) == Tally.of({Cube.PLAGUE: 1})
    assert after.pending == SeedDraw(ActionSpace.GRAIN_HARVEST, 2)
    assert dict(chance_outcomes(after))[DrawCube(Cube.PLAGUE)] == Fraction(5, 25)


def test_seed02_cannot_draw_a_colour_the_bag_does_not_hold() -> None:
    """SEED-02: a chance outcome must be one of the pending event's outcomes."""
    state = new_game("original-2011", 2, seed=0)
    while state.green_bag[Cube.PLAGUE]:
        state = apply(state, DrawCube(Cube.PLAGUE))
    assert isinstance(state.pending, SeedDraw)
    with pytest.raises(IllegalActionError) as err:
        apply(state, DrawCube(Cube.PLAGUE))
    assert err.value.rule == "CHANCE"


@pytest.mark.parametrize(("edition", "players"), EDITION_COUNTS)
def test_seed02_spaces_filled_per_card_and_leftovers_stay_in_bag(edition: str, players: int) -> None:
    """SEED-02: the spaces get exactly the card's counts; the rest of the bag stays in it."""
    state = new_game(edition, players, seed=5, variant=Variant(starting_compensation=False))
    card = builtin_edition(edition).setup_card(players)
    before = state.green_bag.total()
    draws = 0
    while isinstance(state.pending, SeedDraw):
        outcomes = chance_outcomes(state)
        assert sum(p for _, p in outcomes) == 1
        state = apply(state, outcomes[-1][0])
        draws += 1
    assert draws == card.cubes_per_round
    for space, n in card.cubes_per_space:
        assert state.space(space).total() == n
    assert state.green_bag.total() == before - card.cubes_per_round
    assert state.pending == ChooseTurn(0)


# --- TURN-01 / TURN-02 / TURN-03 ----------------------------------------------------------


def test_turn01_influence_cube_goes_to_farmyard() -> None:
    """TURN-01: the taken influence cube leaves the space for the taker's farmyard."""
    state = bare()
    state = put_cubes(state, ActionSpace.FAMILY, {Cube.BROWN: 2, Cube.GREEN: 1})
    state = put_cubes(state, ActionSpace.CHURCH, {Cube.PINK: 2})
    state = turn_of(state, 0)
    trace: list[str] = []
    after = apply(state, TakeCube(ActionSpace.FAMILY, Cube.BROWN), trace)
    assert trace == ["TURN-01"]
    assert after.players[0].cubes == Tally.of({Cube.BROWN: 1})
    assert after.space(ActionSpace.FAMILY) == Tally.of({Cube.BROWN: 1, Cube.GREEN: 1})
    assert after.supply.cubes == state.supply.cubes
    assert after.pending == ChooseAction(0, ActionSpace.FAMILY)
    assert after.cubes_on_board() == 4


def test_turn01_cannot_take_a_cube_that_is_not_there() -> None:
    """TURN-01: only a cube lying on the chosen space can be taken."""
    state = bare()
    state = put_cubes(state, ActionSpace.FAMILY, {Cube.BROWN: 2})
    state = turn_of(state, 0)
    with pytest.raises(IllegalActionError) as err:
        apply(state, TakeCube(ActionSpace.FAMILY, Cube.GREEN))
    assert err.value.rule == "TURN-01"
    assert "green" in err.value.reason


def test_turn02_action_may_be_skipped() -> None:
    """TURN-02: a player may only take the cube and not perform the action."""
    state = bare()
    state = put_cubes(state, ActionSpace.FAMILY, {Cube.BROWN: 2})
    state = put_cubes(state, ActionSpace.CRAFTS, {Cube.PINK: 2})
    state = turn_of(state, 0)
    state = apply(state, TakeCube(ActionSpace.FAMILY, Cube.BROWN))
    assert Skip() in legal_actions(state)
    trace: list[str] = []
    after = apply(state, Skip(), trace)
    assert trace[0] == "TURN-02"
    assert after.players[0].members == state.players[0].members
    assert after.players[0].cubes == Tally.of({Cube.BROWN: 1})
    assert after.pending == ChooseTurn(1)
    assert after.turn is None


def test_turn02_market_cube_holds_a_market_day_without_skip() -> None:
    """TURN-02 exception: a cube from the market must hold a market day (no skip)."""
    state = bare()
    state = arrange_market(state, [8, 2, 3, 4])
    state = give(state, 0, grain=2)
    state = put_cubes(state, ActionSpace.MARKET, {Cube.GREEN: 1})
    state = put_cubes(state, ActionSpace.FAMILY, {Cube.BROWN: 2})
    state = turn_of(state, 0)
    trace: list[str] = []
    after = apply(state, TakeCube(ActionSpace.MARKET, Cube.GREEN), trace)
    assert "TURN-02" not in trace
    assert "MKT-01" in trace
    assert after.pending == MarketChoice(0)
    assert after.market_day is not None
    assert after.market_day.trigger == 0
    assert set(legal_actions(after)) == {Serve(8), Pass()}
    assert Skip() not in legal_actions(after)


def test_turn03_plague_cube_to_supply_and_two_time() -> None:
    """TURN-03: a plague cube goes straight back to the supply and costs 2 time."""
    state = bare()
    state = put_cubes(state, ActionSpace.CRAFTS, {Cube.PLAGUE: 1, Cube.PINK: 1})
    state = put_cubes(state, ActionSpace.FAMILY, {Cube.BROWN: 2})
    state = turn_of(state, 1)
    plague_before = state.supply.cubes[Cube.PLAGUE]
    trace: list[str] = []
    after = apply(state, TakeCube(ActionSpace.CRAFTS, Cube.PLAGUE), trace)
    assert trace == ["TURN-01", "TURN-03", "TIME-01"]
    assert after.supply.cubes[Cube.PLAGUE] == plague_before + 1
    assert after.players[1].cubes == Tally()
    assert after.players[1].lifetime == 2
    assert after.space(ActionSpace.CRAFTS) == Tally.of({Cube.PINK: 1})
    assert after.pending == ChooseAction(1, ActionSpace.CRAFTS)


def test_turns_go_clockwise() -> None:
    """TURN-01: after seat 2 of 3, seat 0 takes the next turn."""
    state = bare()
    state = put_cubes(state, ActionSpace.FAMILY, {Cube.BROWN: 3})
    state = put_cubes(state, ActionSpace.CHURCH, {Cube.PINK: 3})
    state = turn_of(state, 2)
    state = apply(state, TakeCube(ActionSpace.FAMILY, Cube.BROWN))
    state = apply(state, Skip())
    assert state.pending == ChooseTurn(0)


# --- WELL-01 / WELL-02 / COIN-01 at the well ----------------------------------------------


def test_well01_three_same_coloured_cubes_perform_any_action() -> None:
    """WELL-01: 3 pink cubes back to the supply; the family action follows; no cube is taken."""
    state = bare()
    state = put_cubes(state, ActionSpace.CHURCH, {Cube.BROWN: 2, Cube.ORANGE: 1})
    state = give(state, 0, cubes={Cube.PINK: 3, Cube.GREEN: 2})
    state = turn_of(state, 0)
    legal = legal_actions(state)
    for space in ActionSpace:  # any action, even on a space with no cube
        assert Well(space, Cube.PINK) in legal
    assert Well(ActionSpace.FAMILY, Cube.GREEN) not in legal
    trace: list[str] = []
    after = apply(state, Well(ActionSpace.FAMILY, Cube.PINK), trace)
    assert trace[0] == "WELL-01"
    assert after.players[0].cubes == Tally.of({Cube.GREEN: 2})
    assert after.supply.cubes[Cube.PINK] == state.supply.cubes[Cube.PINK] + 3
    assert after.spaces == state.spaces
    assert after.pending == ChooseAction(0, ActionSpace.FAMILY)
    born = apply(after, Birth())
    assert born.players[0].members[4] == Farmyard()  # the first "2"
    assert born.pending == ChooseTurn(1)  # the round goes on: the well took no cube


def test_well01_two_cubes_are_not_enough() -> None:
    """WELL-01: 2 pink and no coin cannot pay the well; the error names the need."""
    state = bare()
    state = put_cubes(state, ActionSpace.CHURCH, {Cube.BROWN: 2})
    state = give(state, 0, cubes={Cube.PINK: 2})
    state = turn_of(state, 0)
    assert not any(isinstance(a, Well) for a in legal_actions(state))
    with pytest.raises(IllegalActionError) as err:
        apply(state, Well(ActionSpace.FAMILY, Cube.PINK))
    assert err.value.rule == "WELL-01"
    assert "3 pink" in err.value.reason
    assert "2 pink" in err.value.reason


def test_well_market_triggers_a_market_day() -> None:
    """WELL-01 / AMB-22: the market through the well holds a market day for the well user."""
    state = bare()
    state = arrange_market(state, [8, 2, 3, 4])
    state = put_cubes(state, ActionSpace.CHURCH, {Cube.BROWN: 2})
    state = give(state, 0, cubes={Cube.ORANGE: 3}, grain=2)
    state = turn_of(state, 0)
    after = apply(state, Well(ActionSpace.MARKET, Cube.ORANGE))
    assert after.market_day is not None
    assert after.market_day.trigger == 0
    assert after.pending == MarketChoice(0)


def test_coin01_coin_replaces_one_well_cube() -> None:
    """COIN-01 / AMB-01: 2 pink + 1 coin pay the well (one way only: applied at once)."""
    state = bare()
    state = put_cubes(state, ActionSpace.CHURCH, {Cube.BROWN: 2})
    state = give(state, 0, cubes={Cube.PINK: 2}, coins=1)
    state = turn_of(state, 0)
    trace: list[str] = []
    after = apply(state, Well(ActionSpace.FAMILY, Cube.PINK), trace)
    assert "COIN-01" in trace
    assert after.players[0].cubes == Tally()
    assert after.players[0].coins == 0
    assert after.supply.coins == state.supply.coins + 1
    assert after.supply.cubes[Cube.PINK] == state.supply.cubes[Cube.PINK] + 2
    assert after.pending == ChooseAction(0, ActionSpace.FAMILY)


def test_coin01_well_with_spare_cube_and_coin_offers_both_payments() -> None:
    """COIN-01: 3 pink + 1 coin: pay 3 pink, or 2 pink + 1 coin."""
    state = bare()
    state = put_cubes(state, ActionSpace.CHURCH, {Cube.BROWN: 2})
    state = give(state, 0, cubes={Cube.PINK: 3}, coins=1)
    state = turn_of(state, 0)
    asking = apply(state, Well(ActionSpace.FAMILY, Cube.PINK))
    assert asking.pending == ChoosePayment(0, Well(ActionSpace.FAMILY, Cube.PINK))
    assert set(legal_actions(asking)) == {Pay(0, Tally()), Pay(0, Tally.of({Cube.PINK: 1}))}
    with_coin = apply(asking, Pay(0, Tally.of({Cube.PINK: 1})))
    assert with_coin.players[0].cubes == Tally.of({Cube.PINK: 1})
    assert with_coin.players[0].coins == 0
    cubes_only = apply(asking, Pay(0, Tally()))
    assert cubes_only.players[0].cubes == Tally()
    assert cubes_only.players[0].coins == 1


def test_well_needs_at_least_one_real_cube_of_the_colour_under_amb01_a() -> None:
    """AMB-01 a: 3 coins alone are not '3 cubes of the same colour'."""
    state = bare(variant=Variant(readings={"AMB-01": "a"}))
    state = put_cubes(state, ActionSpace.CHURCH, {Cube.BROWN: 2})
    state = give(state, 0, coins=3)
    state = turn_of(state, 0)
    assert not any(isinstance(a, Well) for a in legal_actions(state))
    with pytest.raises(IllegalActionError):
        apply(state, Well(ActionSpace.FAMILY, Cube.GREEN))


def test_well_with_three_coins_by_default_amb01_c() -> None:
    """AMB-01 c (the default, p. 12 'any one influence cube'): 3 coins pay the well."""
    state = bare()
    state = put_cubes(state, ActionSpace.CHURCH, {Cube.BROWN: 2})
    state = give(state, 0, coins=3)
    state = turn_of(state, 0)
    assert Well(ActionSpace.FAMILY, Cube.GREEN) in legal_actions(state)
    paid = apply(state, Well(ActionSpace.FAMILY, Cube.GREEN))
    if isinstance(paid.pending, ChoosePayment):
        assert legal_actions(paid) == [Pay(0, Tally.of({Cube.GREEN: 3}))]
        paid = apply(paid, Pay(0, Tally.of({Cube.GREEN: 3})))
    assert paid.players[0].coins == 0
    assert paid.supply.coins == state.supply.coins + 3


def test_well_without_coin_substitution_variant() -> None:
    """AMB-01 b: 2 pink + 1 coin cannot pay the well."""
    state = bare(variant=Variant(readings={"AMB-01": "b"}))
    state = put_cubes(state, ActionSpace.CHURCH, {Cube.BROWN: 2})
    state = give(state, 0, cubes={Cube.PINK: 2}, coins=1)
    state = turn_of(state, 0)
    assert not any(isinstance(a, Well) for a in legal_actions(state))
    with pytest.raises(IllegalActionError):
        apply(state, Well(ActionSpace.FAMILY, Cube.PINK))


def test_well_plague_cubes_cannot_pay() -> None:
    """WELL-01: only influence cubes are returned at the well."""
    state = bare()
    state = put_cubes(state, ActionSpace.CHURCH, {Cube.BROWN: 2})
    state = turn_of(state, 0)
    with pytest.raises(IllegalActionError):
        apply(state, Well(ActionSpace.FAMILY, Cube.PLAGUE))


def test_well02_allowed_while_the_last_cube_remains() -> None:
    """WELL-02 / AMB-21: with a single cube left on the board the well is still open."""
    state = bare()
    state = put_cubes(state, ActionSpace.CHURCH, {Cube.BROWN: 1})
    state = give(state, 0, cubes={Cube.PINK: 3})
    state = give(state, 1, cubes={Cube.GREEN: 3})  # seat 1 has two choices: the cube or the well
    state = turn_of(state, 0)
    assert Well(ActionSpace.FAMILY, Cube.PINK) in legal_actions(state)
    after = apply(state, Well(ActionSpace.FAMILY, Cube.PINK))
    after = apply(after, Birth())
    assert after.pending == ChooseTurn(1)
    assert after.space(ActionSpace.CHURCH) == Tally.of({Cube.BROWN: 1})  # still there
    assert after.mass is None
    assert Well(ActionSpace.CRAFTS, Cube.GREEN) in legal_actions(after)


def test_well02_not_with_an_empty_board() -> None:
    """WELL-02: with no cube on the board (final actions) the well is closed; the free
    action replaces it. The error names the rule that refuses the well: WELL-02."""
    state = bare()
    state = give(state, 1, cubes={Cube.PINK: 3})
    state = replace(state, end_triggered_by=0, final_turns=(2,))
    state = turn_of(state, 1)
    legal = legal_actions(state)
    assert set(legal) == {FreeAction(s) for s in ActionSpace}
    with pytest.raises(IllegalActionError) as err:
        apply(state, Well(ActionSpace.FAMILY, Cube.PINK))
    assert err.value.rule == "WELL-02"
    assert "only possible while at least one cube is left" in err.value.reason


# --- ROUND-01 / ROUND-02 ------------------------------------------------------------------


def last_cube_position(holder: int | None = None) -> GameState:
    """Seat 0 is to act; one brown cube lies on the family space, nothing else."""
    state = bare(3)
    state = put_cubes(state, ActionSpace.FAMILY, {Cube.BROWN: 1})
    state = replace(state, next_start_holder=holder)
    return turn_of(state, 0)


def test_round01_last_cube_taker_acts_then_mass() -> None:
    """ROUND-01: the player who takes the last cube first performs the action; then the mass."""
    state = last_cube_position()
    took = apply(state, TakeCube(ActionSpace.FAMILY, Cube.BROWN))
    assert took.pending == ChooseAction(0, ActionSpace.FAMILY)
    assert took.mass is None
    assert took.cubes_on_board() == 0
    trace: list[str] = []
    after = apply(took, Birth(), trace)
    assert after.players[0].members[4] == Farmyard()  # the birth happened
    assert trace[:3] == ["FAM-01", "ROUND-01", "MASS-01"]
    assert after.mass == Mass(bought=0, final=False)
    assert after.pending == MassDraw(4)  # nobody in the black bag: four random draws (monks)
    assert after.round == 1


def finish_mass_with_monks(state: GameState, trace: list[str]) -> GameState:
    while isinstance(state.pending, MassDraw):
        assert dict(chance_outcomes(state)) == {DrawMonk(): Fraction(1)}
        state = apply(state, DrawMonk(), trace)
    return state


def test_round02_same_start_player_without_marker_and_reseed() -> None:
    """ROUND-02: no next-start marker taken: the start player stays; the bag is refilled."""
    state = last_cube_position()
    state = apply(apply(state, TakeCube(ActionSpace.FAMILY, Cube.BROWN)), Skip())
    bag_before = state.green_bag
    trace: list[str] = []
    state = finish_mass_with_monks(state, trace)
    assert "ROUND-02" in trace
    assert state.round == 2
    assert state.start_player == 0
    assert state.mass is None
    assert state.bag_monks == 4
    assert state.pending == SeedDraw(ActionSpace.GRAIN_HARVEST, 3)
    for colour in INFLUENCE:
        assert state.green_bag[colour] == bag_before[colour] + 5
    assert total_cubes(state).total() == 4 * 33 + 6


def test_round02_next_start_marker_holder_starts_next_round() -> None:
    """ROUND-02: the holder of the next starting player marker starts; the marker returns."""
    state = last_cube_position(holder=2)
    state = apply(apply(state, TakeCube(ActionSpace.FAMILY, Cube.BROWN)), Skip())
    state = finish_mass_with_monks(state, [])
    assert state.round == 2
    assert state.start_player == 2
    assert state.next_start_holder is None
    while isinstance(state.pending, SeedDraw):
        state = apply(state, chance_outcomes(state)[0][0])
    assert state.pending == ChooseTurn(2)
    assert state.cubes_on_board() == 21
