"""The explicit setup deal (setup.deal_outcomes / game_from_deal): the path the adapters
use to make the setup chance nodes, and the one new_game(seed) samples from."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from village_rules import SetupError, Variant, deal_outcomes, game_from_deal, new_game, to_json
from village_rules.data.components import Cube
from village_rules.data.loader import builtin_edition
from village_rules.engine.setup import board_after
from village_rules.model.actions import Action, DrawCube, DrawCustomer
from village_rules.model.chance import sample

CONFIGS = [("original-2011", n) for n in (2, 3, 4)] + [("big-box-2023", n) for n in (2, 3, 4, 5)]
VARIANTS = [Variant(), Variant(starting_compensation=False), Variant(readings={"AMB-01": "b"})]


def _sampled_deal(edition: str, players: int, seed: int, variant: Variant) -> list[Action]:
    rng = random.Random(seed)
    dealt: list[Action] = []
    while outcomes := deal_outcomes(edition, players, dealt, variant):
        assert sum(p for _, p in outcomes) == 1
        dealt.append(sample(outcomes, rng))
    return dealt


@pytest.mark.parametrize(("edition", "players"), CONFIGS)
@pytest.mark.parametrize("variant", VARIANTS)
def test_new_game_is_the_explicit_deal_sampled_from_the_seed(
    edition: str, players: int, variant: Variant
) -> None:
    """SET-05 / SET-10: new_game(seed) and game_from_deal(the deal sampled with the same
    seed) give the same state, so both paths set up the same game."""
    for seed in (0, 1, 7):
        dealt = _sampled_deal(edition, players, seed, variant)
        assert to_json(game_from_deal(edition, players, dealt, variant)) == to_json(
            new_game(edition, players, seed, variant)
        )


@pytest.mark.parametrize(("edition", "players"), CONFIGS)
def test_the_deal_is_a_customer_per_market_space_then_the_random_cube(edition: str, players: int) -> None:
    """SET-05: one customer per market space in use; SET-10: 2023 with compensation, the
    3rd seat's random cube (an influence colour) comes last."""
    data = builtin_edition(edition)
    dealt = _sampled_deal(edition, players, 3, Variant())
    spaces = len(data.market_layout(players))
    customers = [a for a in dealt if isinstance(a, DrawCustomer)]
    cubes = [a for a in dealt if isinstance(a, DrawCube)]
    assert len({a.tile for a in customers}) == len(customers) == spaces
    random_seats = sum(1 for k in data.starting_compensation[:players] if k.value == "random_cube")
    assert len(cubes) == random_seats
    assert dealt[len(customers) :] == cubes
    state = game_from_deal(edition, players, dealt)
    on_market = [t for t in (*state.market_available, *state.market_waiting) if t is not None]
    assert on_market == [a.tile for a in customers]


def test_first_deal_step_is_uniform_over_every_tile() -> None:
    outcomes = deal_outcomes("big-box-2023", 3)
    data = builtin_edition("big-box-2023")
    tiles = sorted(t.id for t in data.customers)
    assert [a for a, _ in outcomes] == [DrawCustomer(t) for t in tiles]
    assert {p for _, p in outcomes} == {Fraction(1, len(data.customers))}


def test_a_wrong_or_incomplete_deal_is_a_setup_error() -> None:
    dealt = _sampled_deal("big-box-2023", 3, 0, Variant())
    with pytest.raises(SetupError, match=r"SET-05.*is not possible"):
        game_from_deal("big-box-2023", 3, [dealt[0], dealt[0], *dealt[2:]])
    with pytest.raises(SetupError, match="incomplete"):
        game_from_deal("big-box-2023", 3, dealt[:-1])
    with pytest.raises(SetupError, match="SET-10"):
        game_from_deal("big-box-2023", 3, [*dealt[:-1], DrawCube(Cube.PLAGUE)])
    with pytest.raises(SetupError, match="SET-01"):
        deal_outcomes("original-2011", 5)


def test_board_after_shows_the_customers_dealt_so_far() -> None:
    dealt = _sampled_deal("original-2011", 2, 5, Variant())[:3]
    board = board_after("original-2011", 2, dealt)
    shown = [t for t in board.market_available if t is not None]
    assert shown == [a.tile for a in dealt if isinstance(a, DrawCustomer)]
    assert all(t is None for t in board.market_waiting)
    assert len(board.customer_pile) == len(builtin_edition("original-2011").customers) - 3
