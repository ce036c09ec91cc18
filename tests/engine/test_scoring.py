"""Final scoring (2023 p. 14; 2011 "Final Scoring"): the tables SCORE-01..06 per category on
constructed states, and the winner with the tie-breakers of both editions (SCORE-07)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pytest

from village_rules.data.components import (
    BLACK_BAG,
    GRAVEYARD,
    REMOVED,
    UNBORN,
    Category,
    Cube,
    Good,
    InChronicle,
    Location,
    OnChurch,
    OnCouncil,
    Travelling,
)
from village_rules.drivers.scenario import give, place, ready, strip
from village_rules.engine.scoring import ScoreBreakdown, ranking_key, score_breakdown, winners
from village_rules.model.state import GameState

ED23 = "big-box-2023"
ED11 = "original-2011"
EDITIONS = [ED23, ED11]
CITIES = ["c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8"]


def blank(edition: str, players: int = 3) -> GameState:
    """Empty farmyards (no coin, grain, cube, good), no prestige, no customers: every
    category scores 0 unless a test puts something there."""
    s = ready(edition, players, seed=5)
    for seat in range(players):
        s = strip(s, seat)
    return s


def with_markers(state: GameState, seat: int, count: int) -> GameState:
    p = state.players[seat]
    return state.with_player(seat, replace(p, markers=tuple(CITIES[:count])))


def with_prestige(state: GameState, seat: int, prestige: int) -> GameState:
    return state.with_player(seat, replace(state.players[seat], prestige=prestige))


def serve_from_pile(state: GameState, seat: int, tiles: list[int]) -> GameState:
    """Conserving: customer tiles leave the market/pile and lie next to `seat`'s farmyard."""
    avail = tuple(None if t in tiles else t for t in state.market_available)
    wait = tuple(None if t in tiles else t for t in state.market_waiting)
    pile = tuple(t for t in state.customer_pile if t not in tiles)
    p = state.players[seat]
    state = replace(state, market_available=avail, market_waiting=wait, customer_pile=pile)
    return state.with_player(seat, replace(p, customers=(*p.customers, *tiles)))


def put(state: GameState, seat: int, number: int, where: Sequence[Location]) -> GameState:
    for loc in where:
        state = place(state, seat, number, loc)
    return state


_CATEGORIES = ("during_play", "travel", "council_chamber", "church", "chronicle", "customers", "coins")


def only(seat: int, **points: int) -> ScoreBreakdown:
    fields = dict.fromkeys(_CATEGORIES, 0)
    fields.update(points)
    f = fields
    return ScoreBreakdown(  # the solo rank stays None
        seat,
        f["during_play"],
        f["travel"],
        f["council_chamber"],
        f["church"],
        f["chronicle"],
        f["customers"],
        f["coins"],
    )


# --- the tables of p. 14 ------------------------------------------------------------------


@pytest.mark.parametrize("edition", EDITIONS)
@pytest.mark.parametrize(("cities", "points"), [(0, 0), (1, 1), (2, 3), (3, 6), (4, 10), (5, 14), (6, 18)])
def test_score02_travel_table(edition: str, cities: int, points: int) -> None:
    """SCORE-02: travel 1/3/6/10/14/18 for 1..6 cities (markers), 0 for none."""
    s = with_markers(blank(edition), 1, cities)
    assert score_breakdown(s) == (only(0), only(1, travel=points), only(2))


@pytest.mark.parametrize("edition", EDITIONS)
@pytest.mark.parametrize(("stage", "points"), [(1, 0), (2, 2), (3, 4), (4, 6)])
def test_score03_council_table(edition: str, stage: int, points: int) -> None:
    """SCORE-03: a council member scores 0/2/4/6 on stage 1/2/3/4."""
    s = place(blank(edition), 2, 2, OnCouncil(stage))
    assert score_breakdown(s) == (only(0), only(1), only(2, council_chamber=points))


@pytest.mark.parametrize("edition", EDITIONS)
@pytest.mark.parametrize(("stage", "points"), [(1, 2), (2, 3), (3, 4), (4, 6)])
def test_score04_church_table(edition: str, stage: int, points: int) -> None:
    """SCORE-04: a church member scores 2/3/4/6 on stage 1/2/3/4."""
    s = place(blank(edition), 0, 3, OnChurch(stage))
    assert score_breakdown(s) == (only(0, church=points), only(1), only(2))


@pytest.mark.parametrize("edition", EDITIONS)
@pytest.mark.parametrize(
    ("dead", "points"), [(0, 0), (1, 0), (2, 0), (3, 4), (4, 7), (5, 12), (6, 12), (7, 12)]
)
def test_score05_chronicle_table(edition: str, dead: int, points: int) -> None:
    """SCORE-05: chronicle 0/0/4/7/12 for 1, 2, 3, 4, 5 or more members."""
    cats = [Category.FARMYARD, Category.CRAFTS, Category.TRAVEL, Category.COUNCIL_CHAMBER, Category.CHURCH]
    where = [InChronicle(cats[k % 5]) for k in range(dead)]
    s = blank(edition)
    s = put(s, 1, 1, where[:4])
    s = put(s, 1, 2, where[4:])
    assert score_breakdown(s) == (only(0), only(1, chronicle=points), only(2))


@pytest.mark.parametrize("edition", EDITIONS)
@pytest.mark.parametrize(
    ("tiles", "points"),
    [((1,), 6), ((2,), 4), ((3,), 3), ((4,), 4), ((1, 2, 3), 13), ((14, 22, 8), 20), ((), 0)],
)
def test_score06_customer_points(edition: str, tiles: tuple[int, ...], points: int) -> None:
    """SCORE-06: every served customer scores its printed points (data: 1 horse+plow 6,
    2 three grain 4, 3 scroll+grain 3, 4 horse+grain 4, 14 and 22 three goods 9, 8 two grain 2)."""
    s = serve_from_pile(blank(edition), 0, list(tiles))
    assert score_breakdown(s) == (only(0, customers=points), only(1), only(2))


@pytest.mark.parametrize("edition", EDITIONS)
@pytest.mark.parametrize("coins", [0, 1, 4])
def test_score06_one_point_per_coin(edition: str, coins: int) -> None:
    """SCORE-06: each leftover coin is worth 1 point."""
    s = give(blank(edition), 2, coins=coins)
    assert score_breakdown(s) == (only(0), only(1), only(2, coins=coins))


@pytest.mark.parametrize("edition", EDITIONS)
def test_score01_what_does_not_score(edition: str) -> None:
    """SCORE-01..06: members in the black bag, on the farmyard, unborn, in the graveyard or
    removed, grain, goods and cubes score nothing."""
    s = blank(edition)
    s = place(s, 0, 2, BLACK_BAG)
    s = place(s, 0, 1, GRAVEYARD)
    s = place(s, 0, 1, REMOVED)
    s = place(s, 0, 1, Travelling("c5"))  # a traveller without a marker
    s = give(s, 0, grain=5, goods={Good.HORSE: 2}, cubes={Cube.GREEN: 3})
    assert score_breakdown(s)[0] == only(0)


@pytest.mark.parametrize("edition", EDITIONS)
def test_score01_all_categories_added_up(edition: str) -> None:
    """SCORE-01..06: prestige of the game 11 + travel 3 cities 6 + council (stage 2, 3 and
    4: 2+4+6) + church (stage 1 and 4: 2+6) + 4 chronicled 7 + customers 1 and 7 (6+6)
    + 4 coins = 11+6+12+8+7+12+4 = 60; the other seats keep their own small scores."""
    s = blank(edition)
    s = with_prestige(s, 0, 11)
    s = with_markers(s, 0, 3)
    s = put(s, 0, 3, [OnCouncil(2), OnCouncil(3)])
    s = place(s, 0, 4, OnCouncil(4))
    s = put(s, 0, 2, [OnChurch(1), OnChurch(4)])
    s = put(
        s,
        0,
        1,
        [InChronicle(Category.FARMYARD), InChronicle(Category.CRAFTS), InChronicle(Category.TRAVEL),
         InChronicle(Category.CHURCH)],
    )  # fmt: skip
    s = serve_from_pile(s, 0, [1, 7])
    s = give(s, 0, coins=4)
    s = give(s, 1, coins=2)
    s = with_markers(s, 2, 1)
    b = score_breakdown(s)
    assert b[0] == ScoreBreakdown(0, 11, 6, 12, 8, 7, 12, 4)
    assert [x.total for x in b] == [60, 2, 1]
    assert winners(s) == (0,)


# Constructed end states, scored by hand from the table of 2023 p. 14 (the 2011 data uses
# the same values, docs/reconstructions.md). Columns: during play, travel, council chamber,
# church, chronicle, customers, coins; then the total.
HAND_SCORED = [
    # seat 0: 6 cities 18; council stage 1: 0; church stage 3: 4; 5 chronicled: 12;
    #         customer 2: 4; no coin.                               5+18+0+4+12+4+0 = 43
    (5, 18, 0, 4, 12, 4, 0, 43),
    # seat 1: 2 cities 3; council stage 4 twice: 6+6; 3 chronicled: 4; customers 3 and 4:
    #         3+4; 3 coins.                                         0+3+12+0+4+7+3 = 29
    (0, 3, 12, 0, 4, 7, 3, 29),
    # seat 2: no city 0; church stage 2 twice: 3+3; 2 chronicled: 0; 1 coin.
    #                                                               20+0+0+6+0+0+1 = 27
    (20, 0, 0, 6, 0, 0, 1, 27),
]


def hand_scored_end_state(edition: str) -> GameState:
    s = blank(edition)
    chronicle = [InChronicle(c) for c in (Category.FARMYARD, Category.CRAFTS, Category.TRAVEL)]
    s = with_prestige(s, 0, 5)
    s = with_markers(s, 0, 6)
    s = place(s, 0, 1, OnCouncil(1))
    s = place(s, 0, 1, OnChurch(3))
    s = put(s, 0, 1, chronicle[:2])
    s = put(s, 0, 2, [*chronicle, InChronicle(Category.CHURCH)][:3])
    s = serve_from_pile(s, 0, [2])
    s = with_markers(s, 1, 2)
    s = put(s, 1, 4, [OnCouncil(4), OnCouncil(4)])
    s = put(s, 1, 1, chronicle)
    s = serve_from_pile(s, 1, [3, 4])
    s = give(s, 1, coins=3)
    s = with_prestige(s, 2, 20)
    s = put(s, 2, 3, [OnChurch(2), OnChurch(2)])
    s = put(s, 2, 1, chronicle[:2])
    return give(s, 2, coins=1)


@pytest.mark.parametrize("edition", EDITIONS)
def test_score01_hand_scored_end_state(edition: str) -> None:
    """SCORE-01..07 on a constructed end state, every figure written out by hand (above)."""
    s = hand_scored_end_state(edition)
    got = [
        (b.during_play, b.travel, b.council_chamber, b.church, b.chronicle, b.customers, b.coins, b.total)
        for b in score_breakdown(s)
    ]
    assert got == HAND_SCORED
    assert winners(s) == (0,)


def test_score05_chronicle_2p_counts_every_category() -> None:
    """SCORE-05: members chronicled in different categories add up (2 players, 2023)."""
    s = blank(ED23, players=2)
    church, travel = InChronicle(Category.CHURCH), InChronicle(Category.TRAVEL)
    s = put(s, 0, 1, [church, church, travel])
    assert score_breakdown(s)[0].chronicle == 4


# --- SCORE-07: the winner and the tie-breakers --------------------------------------------


def tied(edition: str) -> GameState:
    """Seats 0 and 1 at 10 points each, seat 2 at 9; 4 living members each, no grain, no
    customers."""
    s = blank(edition)
    s = with_prestige(s, 0, 10)
    s = with_prestige(s, 1, 10)
    return with_prestige(s, 2, 9)


@pytest.mark.parametrize("edition", EDITIONS)
def test_score07_most_points_wins_whatever_the_tie_breakers(edition: str) -> None:
    """SCORE-07: a point more beats more grain, customers and living members."""
    s = tied(edition)
    s = with_prestige(s, 0, 11)
    s = give(s, 1, grain=5)
    s = serve_from_pile(s, 1, [8])  # 2 points, and a customer
    s = with_prestige(s, 1, 8)  # 8 + 2 = 10 < 11
    s = place(s, 1, 2, BLACK_BAG)
    assert [b.total for b in score_breakdown(s)] == [11, 10, 9]
    assert winners(s) == (0,)


def test_score07_2023_most_grain_breaks_the_tie() -> None:
    """SCORE-07, 2023: on equal points the most grain wins; customers served do not count."""
    s = tied(ED23)
    s = give(s, 0, grain=2)
    s = give(s, 1, grain=3)
    s = serve_from_pile(s, 0, [8, 5])  # 2 customers for 4 points
    s = with_prestige(s, 0, 6)
    assert [b.total for b in score_breakdown(s)] == [10, 10, 9]
    assert winners(s) == (1,)
    assert ranking_key(s, 0, 10) == (10, 2, 4)
    assert ranking_key(s, 1, 10) == (10, 3, 4)


def test_score07_2023_then_most_living_members() -> None:
    """SCORE-07, 2023: equal points and grain: the most living members wins; members in the
    black bag are alive, unborn, dead and removed ones are not."""
    s = tied(ED23)
    s = give(s, 0, grain=1)
    s = give(s, 1, grain=1)
    s = place(s, 0, 2, BLACK_BAG)  # 5 living
    s = place(s, 1, 2, OnChurch(2), source=UNBORN)  # 5 living, +3 church points
    s = with_prestige(s, 1, 7)
    s = place(s, 1, 1, GRAVEYARD)  # 4 living
    assert [s.living_members(k) for k in range(3)] == [5, 4, 4]
    assert [b.total for b in score_breakdown(s)] == [10, 10, 9]
    assert winners(s) == (0,)
    s = place(s, 0, 1, REMOVED)
    assert s.living_members(0) == 4
    assert winners(s) == (0, 1)


@pytest.mark.parametrize("edition", EDITIONS)
def test_score07_full_tie_is_a_shared_win(edition: str) -> None:
    """SCORE-07 (AMB-29): tied on points and on both tie-breakers: both win."""
    s = tied(edition)
    s = give(s, 0, grain=2)
    s = give(s, 1, grain=2)
    assert winners(s) == (0, 1)
    # Seat 2 also at 10 points, but without grain: it shares the win only in 2011.
    s = with_prestige(s, 2, 10)
    expected = {ED23: (0, 1), ED11: (0, 1, 2)}
    assert winners(s) == expected[edition]


def test_score07_2011_most_customers_breaks_the_tie() -> None:
    """SCORE-07, 2011: on equal points the most customers served wins; grain does not count."""
    s = tied(ED11)
    s = serve_from_pile(s, 0, [8, 5])  # 2 customers, 4 points
    s = with_prestige(s, 0, 6)
    s = serve_from_pile(s, 1, [1])  # 1 customer, 6 points
    s = with_prestige(s, 1, 4)
    s = give(s, 1, grain=5)
    assert [b.total for b in score_breakdown(s)] == [10, 10, 9]
    assert winners(s) == (0,)
    assert ranking_key(s, 0, 10) == (10, 2, 4)
    assert ranking_key(s, 1, 10) == (10, 1, 4)


def test_score07_2011_then_most_living_members() -> None:
    """SCORE-07, 2011: equal points and customers: the most living members wins."""
    s = tied(ED11)
    s = serve_from_pile(s, 0, [8])
    s = serve_from_pile(s, 1, [24])  # 2 and 6 points, one customer each
    s = with_prestige(s, 0, 8)
    s = with_prestige(s, 1, 4)
    s = place(s, 0, 1, InChronicle(Category.FARMYARD))
    assert [s.living_members(k) for k in range(3)] == [3, 4, 4]
    assert [b.total for b in score_breakdown(s)] == [10, 10, 9]
    assert winners(s) == (1,)


def test_score07_tie_breakers_differ_between_editions() -> None:
    """SCORE-07: the same position has a different winner in 2023 (grain) and 2011
    (customers)."""
    results = {}
    for edition in EDITIONS:
        s = tied(edition)
        s = serve_from_pile(s, 0, [8, 5])
        s = with_prestige(s, 0, 6)
        s = give(s, 1, grain=4)
        results[edition] = winners(s)
    assert results == {ED23: (1,), ED11: (0,)}
