"""Market day (2023 p. 8; 2011 "Market"): MKT-01..07, the coin substitute (COIN-01) and
deaths during a market day (DEATH-06), with the book's 3-player example of p. 8."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest

from village_rules.checks.invariants import check
from village_rules.data.components import (
    ActionSpace,
    Category,
    Cube,
    Farmyard,
    Good,
    InChronicle,
    OnCouncil,
)
from village_rules.data.tally import Tally
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
from village_rules.drivers.serialization import from_json, to_json
from village_rules.engine.core import apply, chance_outcomes, legal_actions
from village_rules.engine.scoring import score_breakdown
from village_rules.errors import IllegalActionError, StateFormatError
from village_rules.model.actions import Action, Die, DrawCustomer, Pass, Pay, Serve, Skip, TakeCube, Well
from village_rules.model.pending import ChooseDying, ChoosePayment, ChooseTurn, MarketChoice, RefillDraw
from village_rules.model.state import GameState
from village_rules.readings import divergence
from village_rules.rules.variant import Variant

ED23 = "big-box-2023"
ED11 = "original-2011"
CHRIS, JULIE, OLIVER = 0, 1, 2

# Customer tiles of the data files (both editions): 1 horse+plow (6 points), 2 three grain
# (4), 3 scroll+1 grain (3), 4 horse+1 grain (4), 5 scroll (2), 8 two grain (2).


def table(edition: str = ED23, players: int = 3, seed: int = 1) -> GameState:
    """Empty farmyards, a brown cube on the market (and a few elsewhere, so the round goes on),
    customers 1-4 available (3 players: 4 blue spaces), 5-9 waiting, 10-24 in the pile; the
    first seat is to take a cube."""
    s = ready(edition, players, seed)
    for seat in range(players):
        s = strip(s, seat)
    s = clear_board(s)
    s = put_cubes(s, ActionSpace.MARKET, {Cube.BROWN: 1})
    s = put_cubes(s, ActionSpace.GRAIN_HARVEST, {Cube.ORANGE: 2})
    s = put_cubes(s, ActionSpace.FAMILY, {Cube.PINK: 1})
    blue = len(s.market_available)
    s = arrange_market(s, list(range(1, blue + 1)), list(range(blue + 1, blue + 6)))
    return at(s, ChooseTurn(0))


def asked(state: GameState, seat: int) -> GameState:
    """The same market day, with `seat` to choose (to look at what that seat may do)."""
    assert state.market_day is not None
    return replace(state, pending=MarketChoice(seat), market_day=replace(state.market_day, current=seat))


def go(state: GameState, action: Action) -> tuple[GameState, list[str]]:
    trace: list[str] = []
    return apply(state, action, trace), trace


def take_off_pile(state: GameState, seat: int, tiles: list[int]) -> GameState:
    """Conserving: customers from the pile become customers `seat` served earlier."""
    p = state.players[seat]
    state = replace(state, customer_pile=tuple(t for t in state.customer_pile if t not in tiles))
    return state.with_player(seat, replace(p, customers=(*p.customers, *tiles)))


# --- the book's example, 2023 p. 8 --------------------------------------------------------


def test_book_example_p8_three_players_mkt_01_to_07() -> None:
    """MKT-01..MKT-07 (2023 p. 8 example): Chris triggers and serves horse+plow (6 points)
    free; Julie pays 1 green + 1 time + 3 grain; Oliver must pass; Chris pays 1 green + 1 time
    + scroll + grain; Julie and Chris pass; 3 waiting tiles move up, the line moves forward
    and is refilled from the pile."""
    s = table()
    s = give(s, CHRIS, goods={Good.HORSE: 1, Good.PLOW: 1, Good.SCROLL: 1}, grain=1, cubes={Cube.GREEN: 1})
    s = give(s, JULIE, grain=3, cubes={Cube.GREEN: 1})
    s = give(s, OLIVER, goods={Good.SCROLL: 1}, cubes={Cube.GREEN: 1})
    supply0 = s.supply

    # MKT-01: Chris takes the market cube; the market day is held, Chris first.
    s, tr = go(s, TakeCube(ActionSpace.MARKET, Cube.BROWN))
    assert tr == ["TURN-01", "MKT-01"]
    assert s.pending == MarketChoice(CHRIS)
    assert s.market_day is not None and s.market_day.trigger == CHRIS
    assert s.players[CHRIS].cubes == Tally.of({Cube.BROWN: 1, Cube.GREEN: 1})
    assert legal_actions(s) == [Serve(1), Serve(3), Serve(4), Pass()]

    # MKT-02: the first sale of the trigger costs only the goods.
    s, tr = go(s, Serve(1))
    assert tr == ["MKT-02"]
    chris = s.players[CHRIS]
    assert chris.customers == (1,)
    assert chris.goods == Tally.of({Good.SCROLL: 1})
    assert chris.cubes[Cube.GREEN] == 1 and chris.lifetime == 0 and chris.grain == 1
    assert s.supply.goods[Good.HORSE] == supply0.goods[Good.HORSE] + 1
    assert s.supply.goods[Good.PLOW] == supply0.goods[Good.PLOW] + 1
    assert s.market_available == (None, 2, 3, 4)
    assert s.pending == MarketChoice(JULIE)

    # MKT-03: Julie pays 1 green + 1 time, and the 3 grain.
    assert legal_actions(s) == [Serve(2), Pass()]
    assert legal_actions(asked(s, OLIVER)) == [Pass()]  # Oliver: scroll, no grain, no horse
    s, tr = go(s, Serve(2))
    julie = s.players[JULIE]
    assert julie.customers == (2,)
    assert (julie.grain, julie.cubes.total(), julie.lifetime) == (0, 0, 1)
    assert s.supply.grain == supply0.grain + 3
    assert s.supply.cubes[Cube.GREEN] == supply0.cubes[Cube.GREEN] + 1
    # Oliver has no choice: his pass is taken for him (MKT-04), and Chris is next.
    assert tr == ["TIME-01", "MKT-03", "MKT-04"]
    assert s.players[OLIVER].goods == Tally.of({Good.SCROLL: 1})
    assert s.market_day is not None and s.market_day.passed == (OLIVER,)
    assert s.pending == MarketChoice(CHRIS)

    # MKT-03 for the trigger's later sale; then Julie and Chris cannot serve the horse tile
    # and pass, which ends the market day (MKT-05); the customers move up (MKT-06).
    assert legal_actions(s) == [Serve(3), Pass()]
    s, tr = go(s, Serve(3))
    chris = s.players[CHRIS]
    assert chris.customers == (1, 3)
    assert (chris.grain, chris.goods.total(), chris.cubes[Cube.GREEN], chris.lifetime) == (0, 0, 0, 1)
    assert tr == ["TIME-01", "MKT-03", "MKT-04", "MKT-04", "MKT-05", "MKT-06"]
    assert s.market_available == (5, 6, 7, 4)
    assert s.market_waiting == (8, 9, None, None, None)

    # MKT-07: the 3 empty waiting spaces, left to right, each from the face-down pile.
    assert s.pending == RefillDraw(2)
    outcomes = chance_outcomes(s)
    assert [a for a, _ in outcomes] == [DrawCustomer(t) for t in range(10, 25)]
    assert {p for _, p in outcomes} == {Fraction(1, 15)}
    s, tr = go(s, DrawCustomer(20))
    assert tr == ["MKT-07"] and s.pending == RefillDraw(3)
    assert {p for _, p in chance_outcomes(s)} == {Fraction(1, 14)}
    assert DrawCustomer(20) not in [a for a, _ in chance_outcomes(s)]
    s, _ = go(s, DrawCustomer(11))
    assert s.pending == RefillDraw(4)
    s, tr = go(s, DrawCustomer(15))
    assert tr[0] == "MKT-07"
    assert s.market_waiting == (8, 9, 20, 11, 15)
    assert s.market_available == (5, 6, 7, 4)
    assert s.customer_pile == (10, 12, 13, 14, 16, 17, 18, 19, 21, 22, 23, 24)
    assert s.market_day is None
    assert s.pending == ChooseTurn(JULIE)  # the turn is over; play goes on clockwise

    # Chris's customers are worth 6 + 3 points at the end, Julie's 4.
    assert [b.customers for b in score_breakdown(s)] == [9, 4, 0]


# --- MKT-01 -------------------------------------------------------------------------------


def test_mkt01_market_day_is_not_optional() -> None:
    """MKT-01: after the market cube there is no 'skip' (unlike every other space)."""
    s = table()
    s = give(s, CHRIS, goods={Good.SCROLL: 1}, grain=1)
    s = apply(s, TakeCube(ActionSpace.MARKET, Cube.BROWN))
    assert s.pending == MarketChoice(CHRIS)
    assert Skip() not in legal_actions(s)
    with pytest.raises(IllegalActionError) as err:
        apply(s, Skip())
    assert err.value.rule == "STEP"


def test_mkt01_market_day_held_when_nobody_can_serve() -> None:
    """MKT-01, MKT-04, MKT-05 (AMB-32): a market day nobody can sell at is still held: every
    player passes, nothing moves, nothing is refilled, and the cube take stands."""
    s = table()
    before = (s.market_available, s.market_waiting, s.customer_pile)
    s, tr = go(s, TakeCube(ActionSpace.MARKET, Cube.BROWN))
    assert tr[:2] == ["TURN-01", "MKT-01"]
    assert tr[2:6] == ["MKT-04", "MKT-04", "MKT-04", "MKT-05"]
    assert "MKT-07" not in tr
    assert (s.market_available, s.market_waiting, s.customer_pile) == before
    assert s.market_day is None
    assert s.space(ActionSpace.MARKET).total() == 0
    assert s.players[CHRIS].cubes == Tally.of({Cube.BROWN: 1})
    assert s.pending == ChooseTurn(JULIE)


def test_mkt01_market_at_the_well_triggers_a_market_day() -> None:
    """MKT-01, MKT-02 (AMB-22): the market taken at the well holds a market day; the well
    user is the trigger player and sells first for free; the market cube stays."""
    s = table()
    s = give(s, CHRIS, cubes={Cube.ORANGE: 3}, goods={Good.HORSE: 1, Good.PLOW: 1})
    s, tr = go(s, Well(ActionSpace.MARKET, Cube.ORANGE))
    assert tr == ["WELL-01", "MKT-01"]
    assert s.pending == MarketChoice(CHRIS)
    assert s.space(ActionSpace.MARKET) == Tally.of({Cube.BROWN: 1})
    assert s.players[CHRIS].cubes.total() == 0
    s, tr = go(s, Serve(1))
    assert tr[0] == "MKT-02"
    assert s.players[CHRIS].lifetime == 0
    assert s.players[CHRIS].customers == (1,)


# --- MKT-02 / MKT-03 / COIN-01 ------------------------------------------------------------


def test_mkt02_trigger_first_sale_pays_only_goods_and_grain() -> None:
    """MKT-02: Chris (green cube and coin on his farmyard) serves 3 = scroll + 1 grain and
    pays exactly that: no green, no coin, no time."""
    s = table()
    s = give(s, CHRIS, goods={Good.SCROLL: 1}, grain=2, cubes={Cube.GREEN: 2}, coins=1)
    s = apply(s, TakeCube(ActionSpace.MARKET, Cube.BROWN))
    s, tr = go(s, Serve(3))
    assert tr[0] == "MKT-02"
    c = s.players[CHRIS]
    assert (c.grain, c.goods.total(), c.cubes[Cube.GREEN], c.coins, c.lifetime) == (1, 0, 2, 1, 0)


def test_mkt03_other_players_pay_green_and_time_coin_may_replace_green() -> None:
    """MKT-03 with COIN-01: Julie has no green cube but a coin: the coin stands in for the
    green cube (the only way to pay, so it is taken at once) and she still pays 1 time."""
    s = table()
    s = give(s, CHRIS, goods={Good.HORSE: 1, Good.PLOW: 1})
    s = give(s, JULIE, grain=3, coins=1)
    s = apply(s, TakeCube(ActionSpace.MARKET, Cube.BROWN))
    s = apply(s, Serve(1))
    coins_before = s.supply.coins
    s, tr = go(s, Serve(2))
    assert "COIN-01" in tr and "MKT-03" in tr
    j = s.players[JULIE]
    assert (j.coins, j.grain, j.lifetime, j.customers) == (0, 0, 1, (2,))
    assert s.supply.coins == coins_before + 1


def test_mkt03_green_or_coin_is_a_payment_choice() -> None:
    """MKT-03 / COIN-01: with a green cube and a coin, Julie chooses how to pay the green."""
    s = table()
    s = give(s, CHRIS, goods={Good.HORSE: 1, Good.PLOW: 1})
    s = give(s, JULIE, grain=3, coins=1, cubes={Cube.GREEN: 1})
    s = apply(s, TakeCube(ActionSpace.MARKET, Cube.BROWN))
    s = apply(s, Serve(1))
    s = apply(s, Serve(2))
    assert s.pending == ChoosePayment(JULIE, Serve(2))
    assert legal_actions(s) == [Pay(0, Tally()), Pay(0, Tally.of({Cube.GREEN: 1}))]
    paid_green = apply(s, Pay(0, Tally()))
    paid_coin = apply(s, Pay(0, Tally.of({Cube.GREEN: 1})))
    assert (paid_green.players[JULIE].cubes.total(), paid_green.players[JULIE].coins) == (0, 1)
    assert (paid_coin.players[JULIE].cubes.total(), paid_coin.players[JULIE].coins) == (1, 0)
    assert paid_green.players[JULIE].lifetime == paid_coin.players[JULIE].lifetime == 1


def test_mkt03_without_green_or_coin_a_player_cannot_serve() -> None:
    """MKT-03: Julie has the 3 grain but neither a green cube nor a coin: she cannot serve
    tile 2, so her only option is to pass (taken for her)."""
    s = table()
    s = give(s, CHRIS, goods={Good.HORSE: 1, Good.PLOW: 1})
    s = give(s, JULIE, grain=3)
    s = apply(s, TakeCube(ActionSpace.MARKET, Cube.BROWN))
    s = apply(s, Serve(1))
    assert legal_actions(asked(s, JULIE)) == [Pass()]
    with pytest.raises(IllegalActionError) as err:
        apply(asked(s, JULIE), Serve(2))
    assert "green" in err.value.reason
    # In the game itself her pass was automatic: she still has her grain.
    assert s.players[JULIE].grain == 3 and s.players[JULIE].customers == ()
    assert s.market_day is not None and s.market_day.passed == (CHRIS, JULIE, OLIVER)
    assert s.pending == RefillDraw(4)


def test_mkt03_refused_later_sale_names_rule_mkt03() -> None:
    """MKT-03. ENGINE BUG (failing on purpose): a later sale refused for want of the green
    cube (MKT-03's surcharge) is reported as a breach of MKT-02 ("the trigger pays only the
    goods and grain"), because core._RULE_OF maps every Serve to "MKT-02"."""
    s = table()
    s = give(s, CHRIS, goods={Good.HORSE: 1, Good.PLOW: 1})
    s = give(s, JULIE, grain=3)
    s = apply(s, TakeCube(ActionSpace.MARKET, Cube.BROWN))
    s = apply(s, Serve(1))
    with pytest.raises(IllegalActionError) as err:
        apply(asked(s, JULIE), Serve(2))
    assert err.value.reason == "needs 1 time + 3 grain + 1 green; you have 0 green, 0 coins, 3 grain"
    assert err.value.rule == "MKT-03"


def test_mkt03_trigger_second_sale_costs_green_and_time_2011() -> None:
    """MKT-03 (AMB-07), 2011 edition, 2 players: only the trigger's first sale is free; the
    second costs 1 green + 1 time like everyone else's."""
    s = table(ED11, players=2)
    assert s.market_available == (1, 2, 3)
    s = give(s, 0, goods={Good.HORSE: 1, Good.PLOW: 1, Good.SCROLL: 1}, grain=1, cubes={Cube.GREEN: 1})
    s = apply(s, TakeCube(ActionSpace.MARKET, Cube.BROWN))
    s, tr = go(s, Serve(1))
    assert tr[0] == "MKT-02" and s.players[0].lifetime == 0
    assert s.pending == MarketChoice(0)  # seat 1 could not serve and passed
    s, tr = go(s, Serve(3))
    assert "MKT-03" in tr
    p = s.players[0]
    assert (p.cubes[Cube.GREEN], p.lifetime, p.customers) == (0, 1, (1, 3))


# --- MKT-04 / MKT-05 ----------------------------------------------------------------------


def test_mkt04_pass_is_final_and_mkt05_ends_when_all_served() -> None:
    """MKT-04: Julie passes although she could serve; she is never asked again, even when
    the tile she could afford is still there. MKT-05: the day ends when every available
    customer is served, although Chris and Oliver have not passed."""
    s = table()
    s = give(s, CHRIS, goods={Good.HORSE: 2, Good.PLOW: 1}, grain=1, cubes={Cube.GREEN: 1})
    s = give(s, JULIE, grain=3, cubes={Cube.GREEN: 1})
    s = give(s, OLIVER, goods={Good.SCROLL: 1}, grain=4, cubes={Cube.GREEN: 2})
    s = apply(s, TakeCube(ActionSpace.MARKET, Cube.BROWN))
    s = apply(s, Serve(1))
    assert s.pending == MarketChoice(JULIE) and Serve(2) in legal_actions(s)
    s, tr = go(s, Pass())
    assert tr == ["MKT-04"] and s.pending == MarketChoice(OLIVER)
    s = apply(s, Serve(3))
    assert s.pending == MarketChoice(CHRIS)
    s = apply(s, Serve(4))
    assert s.pending == MarketChoice(OLIVER)  # Julie is skipped: she has passed
    assert s.market_day is not None and s.market_day.passed == (JULIE,)
    s, tr = go(s, Serve(2))
    assert tr[-3:] == ["MKT-03", "MKT-05", "MKT-06"]
    assert s.pending == RefillDraw(1)
    assert s.market_available == (5, 6, 7, 8)
    assert s.market_waiting == (9, None, None, None, None)
    assert [p.customers for p in s.players] == [(1, 4), (), (3, 2)]
    assert s.players[JULIE].grain == 3 and s.players[JULIE].cubes[Cube.GREEN] == 1


def test_mkt04_trigger_may_pass_at_once() -> None:
    """MKT-04 (AMB-06): the trigger player may pass straight away and is then out."""
    s = table()
    s = give(s, CHRIS, goods={Good.SCROLL: 2}, grain=2, cubes={Cube.GREEN: 2})
    s = give(s, JULIE, grain=3, cubes={Cube.GREEN: 1})
    s = apply(s, TakeCube(ActionSpace.MARKET, Cube.BROWN))
    s = apply(s, Pass())
    assert s.pending == MarketChoice(JULIE)
    s, tr = go(s, Serve(2))
    # Oliver cannot serve, Chris has passed: Julie is the only one left and cannot serve 3
    # (no scroll): she passes, the day ends.
    assert tr[-4:] == ["MKT-04", "MKT-04", "MKT-05", "MKT-06"]
    assert s.players[CHRIS].customers == ()
    assert s.players[CHRIS].grain == 2


def with_reading(state: GameState, amb: str, letter: str) -> GameState:
    return replace(state, rules=replace(state.rules, variant=Variant(readings={amb: letter})))


def test_mkt09_amb06_c_trigger_must_serve_at_first_chance() -> None:
    """MKT-09 (AMB-06 c): the market-day player who can pay may not pass at their first
    chance; the default (a, MKT-04 above) lets them pass."""
    s = table()
    s = give(s, CHRIS, goods={Good.SCROLL: 2}, grain=3, cubes={Cube.GREEN: 2})
    s = apply(with_reading(s, "AMB-06", "c"), TakeCube(ActionSpace.MARKET, Cube.BROWN))
    assert s.pending == MarketChoice(CHRIS)
    assert set(legal_actions(s)) == {Serve(2), Serve(3)}  # a would add Pass()
    assert Pass() in legal_actions(with_reading(s, "AMB-06", "a"))
    with pytest.raises(IllegalActionError, match="AMB-06 c"):
        apply(s, Pass())
    s, tr = go(s, Serve(3))
    assert "MKT-09" in tr and s.players[CHRIS].customers == (3,)
    check(s)


def test_mkt09_amb06_c_a_trigger_who_cannot_pay_passes() -> None:
    """MKT-09 (AMB-06 c): with nothing to sell the market-day player's pass stays legal."""
    s = with_reading(table(), "AMB-06", "c")
    s, tr = go(s, TakeCube(ActionSpace.MARKET, Cube.BROWN))
    assert "MKT-09" not in tr and tr.count("MKT-04") == 3  # nobody can serve: all pass


# --- MKT-06 / MKT-07 ----------------------------------------------------------------------


def test_mkt06_customers_move_up_in_order_into_the_gaps() -> None:
    """MKT-06: tiles 1 and 3 (blue spaces 1 and 3) are served; the first two waiting tiles
    fill those two spaces in order, tiles 2 and 4 stay where they are, and the waiting line
    moves forward; the 2 freed waiting spaces are refilled."""
    s = table()
    s = give(s, CHRIS, goods={Good.HORSE: 1, Good.PLOW: 1})
    s = give(s, JULIE, goods={Good.SCROLL: 1}, grain=1, cubes={Cube.GREEN: 1})
    s = apply(s, TakeCube(ActionSpace.MARKET, Cube.BROWN))
    s = apply(s, Serve(1))
    s, tr = go(s, Serve(3))
    assert tr[-2:] == ["MKT-05", "MKT-06"]
    assert s.market_available == (5, 2, 6, 4)
    assert s.market_waiting == (7, 8, 9, None, None)
    assert s.pending == RefillDraw(3)
    s = apply(s, DrawCustomer(24))
    s = apply(s, DrawCustomer(10))
    assert s.market_waiting == (7, 8, 9, 24, 10)
    assert len(s.customer_pile) == 13


def test_mkt07_empty_pile_leaves_waiting_spaces_empty() -> None:
    """MKT-07: with one tile left in the pile, two empty waiting spaces get that tile (with
    certainty) and the other stays empty."""
    s = table()
    s = take_off_pile(s, OLIVER, list(range(10, 24)))  # the pile: tile 24 only
    assert s.customer_pile == (24,)
    s = give(s, CHRIS, goods={Good.HORSE: 1, Good.PLOW: 1})
    s = give(s, JULIE, goods={Good.SCROLL: 1}, grain=1, cubes={Cube.GREEN: 1})
    s = apply(s, TakeCube(ActionSpace.MARKET, Cube.BROWN))
    s = apply(s, Serve(1))
    s = apply(s, Serve(3))
    assert s.pending == RefillDraw(3)
    assert chance_outcomes(s) == [(DrawCustomer(24), Fraction(1))]
    with pytest.raises(IllegalActionError) as err:
        apply(s, DrawCustomer(10))  # tile 10 is not in the pile
    assert err.value.rule == "CHANCE"
    s = apply(s, DrawCustomer(24))
    assert s.market_waiting == (7, 8, 9, 24, None)
    assert s.customer_pile == ()
    assert s.market_day is None
    assert isinstance(s.pending, ChooseTurn)


def test_mkt07_no_pile_no_refill() -> None:
    """MKT-07: with the pile empty the waiting spaces stay empty and no chance event occurs."""
    s = table()
    s = take_off_pile(s, OLIVER, list(range(10, 25)))
    s = give(s, CHRIS, goods={Good.HORSE: 1, Good.PLOW: 1})
    s = apply(s, TakeCube(ActionSpace.MARKET, Cube.BROWN))
    s, tr = go(s, Serve(1))
    assert "MKT-07" not in tr
    assert s.market_available == (5, 2, 3, 4)
    assert s.market_waiting == (6, 7, 8, 9, None)
    assert s.pending == ChooseTurn(JULIE)


# --- DEATH-06 -----------------------------------------------------------------------------


def test_death06_death_during_market_day_resolved_at_once() -> None:
    """DEATH-06: Julie's sale costs 1 time and passes the quill: her "1" dies at once, before
    Oliver is asked, and goes to the farmyard space of the chronicle."""
    s = table()
    s = give(s, CHRIS, goods={Good.HORSE: 1, Good.PLOW: 1})
    s = give(s, JULIE, grain=3, cubes={Cube.GREEN: 1})
    s = give(s, OLIVER, goods={Good.SCROLL: 1}, grain=1, cubes={Cube.GREEN: 1})
    s = set_lifetime(s, JULIE, 9)
    s = apply(s, TakeCube(ActionSpace.MARKET, Cube.BROWN))
    s = apply(s, Serve(1))
    s, tr = go(s, Serve(2))
    assert tr == ["TIME-01", "DEATH-01", "MKT-03", "DEATH-06", "DEATH-03"]
    assert s.pending == MarketChoice(OLIVER)
    assert s.market_day is not None
    assert s.deaths_owed == (0, 0, 0)
    assert s.players[JULIE].members.count(InChronicle(Category.FARMYARD)) == 1
    assert s.players[JULIE].members.count(Farmyard()) == 3
    assert s.players[JULIE].lifetime == 0


def test_death06_choice_of_the_dying_member_during_market_day() -> None:
    """DEATH-06 with DEATH-02: Julie's "1"s are on the farmyard and on the council chamber:
    she chooses at once, before the market day goes on; the councillor goes to the council
    category of the chronicle."""
    s = table()
    s = give(s, CHRIS, goods={Good.HORSE: 1, Good.PLOW: 1})
    s = give(s, JULIE, grain=3, cubes={Cube.GREEN: 1})
    s = give(s, OLIVER, goods={Good.SCROLL: 1}, grain=1, cubes={Cube.GREEN: 1})
    s = place(s, JULIE, 1, OnCouncil(1))
    s = set_lifetime(s, JULIE, 9)
    s = apply(s, TakeCube(ActionSpace.MARKET, Cube.BROWN))
    s = apply(s, Serve(1))
    s = apply(s, Serve(2))
    assert s.pending == ChooseDying(JULIE)
    assert s.market_day is not None
    assert sorted(map(str, legal_actions(s))) == sorted(map(str, [Die(Farmyard()), Die(OnCouncil(1))]))
    s, tr = go(s, Die(OnCouncil(1)))
    assert tr == ["DEATH-02", "DEATH-03"]
    assert s.pending == MarketChoice(OLIVER)
    assert InChronicle(Category.COUNCIL_CHAMBER) in s.players[JULIE].members
    assert OnCouncil(1) not in s.players[JULIE].members


def test_death06_trigger_plague_death_waits_until_after_market_day() -> None:
    """AMB-27 (with DEATH-06): a plague cube from the market passes Chris's quill before the
    market day; that death is held during the day and resolved at the end of his turn."""
    s = table()
    s = put_cubes(s, ActionSpace.MARKET, {Cube.PLAGUE: 1})
    s = give(s, CHRIS, goods={Good.HORSE: 1, Good.PLOW: 1, Good.SCROLL: 1}, grain=1)
    s = set_lifetime(s, CHRIS, 8)
    s, tr = go(s, TakeCube(ActionSpace.MARKET, Cube.PLAGUE))
    assert tr == ["TURN-01", "TURN-03", "TIME-01", "DEATH-01", "MKT-01"]
    assert s.pending == MarketChoice(CHRIS)
    assert s.market_day is not None and s.market_day.held_deaths == 1
    assert s.players[CHRIS].members.count(Farmyard()) == 4
    s, tr = go(s, Serve(1))
    # Julie and Oliver cannot serve; Chris has no green for a second sale: the day ends,
    # then (after the refill) his held death is resolved.
    assert "DEATH-03" not in tr
    assert s.pending == RefillDraw(4)
    s, tr = go(s, DrawCustomer(10))
    assert tr[:2] == ["MKT-07", "DEATH-03"]
    assert s.players[CHRIS].members.count(InChronicle(Category.FARMYARD)) == 1
    assert s.players[CHRIS].members.count(Farmyard()) == 3
    assert s.deaths_owed == (0, 0, 0)
    assert s.market_day is None


@pytest.mark.parametrize("letter", ["a", "b"])
def test_mkt10_amb06_b_a_first_chance_pass_does_not_count(letter: str) -> None:
    """MKT-10 (AMB-06 b): the market-day player's pass at their first chance does not
    count; when their seat comes round again they may still serve (their first sale, so
    free), and their next pass is final. a (the default, MKT-04): that pass is final."""
    s = table()
    s = give(s, CHRIS, goods={Good.SCROLL: 2}, grain=2, cubes={Cube.GREEN: 2})
    s = give(s, JULIE, grain=3, cubes={Cube.GREEN: 1})
    s = apply(with_reading(s, "AMB-06", letter), TakeCube(ActionSpace.MARKET, Cube.BROWN))
    s, tr = go(s, Pass())
    day = s.market_day
    assert day is not None
    assert ("MKT-10" in tr) == (letter == "b")
    assert day.passed == (() if letter == "b" else (CHRIS,))
    assert day.first_pass_waived == (letter == "b")
    check(s)
    assert from_json(to_json(s)) == s
    assert ('"first_pass_waived"' in to_json(s)) == (letter == "b")
    assert s.pending == MarketChoice(JULIE)
    s, tr = go(s, Serve(2))
    if letter == "a":
        assert tr[-4:] == ["MKT-04", "MKT-04", "MKT-05", "MKT-06"]  # as in MKT-04 above
        return
    assert s.pending == MarketChoice(CHRIS)  # Oliver passed; Chris is asked again
    assert Serve(3) in legal_actions(s)
    s, tr = go(s, Pass())  # the second pass is final
    assert "MKT-04" in tr and "MKT-10" not in tr
    assert s.market_day is None or CHRIS in s.market_day.passed
    check(s)


def test_mkt10_amb06_b_waived_pass_refused_under_other_readings() -> None:
    """MKT-10: a state recording a waived pass under reading a is refused by from_json,
    naming the field."""
    s = give(table(), CHRIS, goods={Good.SCROLL: 2}, grain=2, cubes={Cube.GREEN: 2})
    s = apply(s, TakeCube(ActionSpace.MARKET, Cube.BROWN))
    assert s.market_day is not None
    bad = replace(s, market_day=replace(s.market_day, first_pass_waived=True))
    with pytest.raises(StateFormatError, match="first_pass_waived"):
        from_json(to_json(bad))


def test_mkt10_amb06_b_divergence_ignores_a_waived_pass_that_changes_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """MKT-10: a market-day player who can serve nobody passes under both readings; under b
    the pass is waived but their next chance is a pass too, so the divergence search
    (`market_day.out_of_the_day`) sees no difference; with a customer they can pay for it
    does. Comparing the raw fields would report the first (the bug the comparison is for)."""
    def after_pass(letter: str, scrolls: int) -> GameState:
        s = give(table(), JULIE, grain=3, cubes={Cube.GREEN: 1})  # Julie can serve 2
        if scrolls:
            s = give(s, CHRIS, goods={Good.SCROLL: scrolls}, grain=2, cubes={Cube.GREEN: 2})
        s = apply(with_reading(s, "AMB-06", letter), TakeCube(ActionSpace.MARKET, Cube.BROWN))
        return s if s.pending != MarketChoice(CHRIS) else apply(s, Pass())

    assert after_pass("b", 0).pending == MarketChoice(JULIE)  # the day goes on
    assert divergence.difference(after_pass("a", 0), after_pass("b", 0)) is None
    found = divergence.difference(after_pass("a", 2), after_pass("b", 2))
    assert found is not None and "first_pass_waived=True" in found.detail
    monkeypatch.setattr(divergence, "_comparable", lambda state: state)
    assert divergence.difference(after_pass("a", 0), after_pass("b", 0)) is not None
