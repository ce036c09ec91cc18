"""Setting up a game (2023 p. 3; 2011 "Setup"), for every edition and player count.

Rules: SET-01 … SET-10 and SEED-01 (specs/rules.md).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from fractions import Fraction

import pytest

from village_rules import (
    EDITIONS,
    SetupError,
    Variant,
    apply,
    builtin_edition,
    chance_outcomes,
    legal_actions,
    new_game,
    to_json,
)
from village_rules.data.components import (
    FARMYARD,
    INFLUENCE,
    UNBORN,
    ActionSpace,
    Category,
    Cube,
    Good,
)
from village_rules.data.edition import Row
from village_rules.data.tally import Tally
from village_rules.model.actions import DrawCube, PickCube
from village_rules.model.pending import ChooseCompensationCube, SeedDraw
from village_rules.model.state import PLAYER_COLOURS, GameState

BB = "big-box-2023"
OE = "original-2011"
GAMES = [(edition, n) for edition in EDITIONS for n in builtin_edition(edition).player_counts]
SEEDS = (0, 1, 99, 20231)
NO_COMPENSATION = Variant(starting_compensation=False)

# The README's supply totals: coins, grain, goods of each kind, influence cubes of each colour.
TOTALS = {BB: (25, 25, 12, 33), OE: (15, 20, 8, 18)}


def game_id(param: tuple[str, int]) -> str:
    return f"{param[0]}-{param[1]}p"


GAME_IDS = [game_id(g) for g in GAMES]


def dealt(state: GameState) -> list[int]:
    return [t for t in (*state.market_available, *state.market_waiting) if t is not None]


# --- SET-01 -------------------------------------------------------------------------------


def test_set01_supported_player_counts() -> None:
    assert GAMES == [(BB, 2), (BB, 3), (BB, 4), (BB, 5), (OE, 2), (OE, 3), (OE, 4)]
    for edition, n in GAMES:
        assert new_game(edition, n, seed=0).num_players == n


@pytest.mark.parametrize(
    ("edition", "players", "allowed"),
    [(BB, 6, "2-5"), (BB, 0, "2-5"), (OE, 1, "2-4"), (OE, 5, "2-4"), (OE, -3, "2-4")],
)
def test_set01_unsupported_player_count_raises(edition: str, players: int, allowed: str) -> None:
    with pytest.raises(SetupError) as info:
        new_game(edition, players, seed=0)
    assert info.value.rule == "SET-01"
    assert str(info.value).startswith("SET-01: ")
    assert allowed in info.value.problem
    assert f"not {players}" in info.value.problem
    # The same with the edition passed as data.
    with pytest.raises(SetupError) as info:
        new_game(builtin_edition(edition), players, seed=0)
    assert info.value.rule == "SET-01"


def test_set01_solo_only_in_2023() -> None:
    """SET-01 / SOLO-01: 2023 is for 1-5 players (1: the solo mode, pp. 15-19); the 2011
    edition has no solo mode, and the refusal says so."""
    state = new_game(BB, 1, seed=5, variant=NO_COMPENSATION)
    assert state.is_solo and state.num_players == 2  # the player's seat and Carla's
    with pytest.raises(SetupError, match="SET-01") as info:
        new_game(OE, 1, seed=5)
    assert "no solo mode" in info.value.problem
    with pytest.raises(SetupError, match="SET-01") as info:
        new_game(BB, 6, seed=5)
    assert "or 1 (the solo mode" in info.value.problem


# --- SET-02, SET-03, SET-04 ----------------------------------------------------------------


@pytest.mark.parametrize(("edition", "n"), GAMES, ids=GAME_IDS)
@pytest.mark.parametrize("seed", SEEDS)
def test_set02_set03_family_members_tokens(edition: str, n: int, seed: int) -> None:
    """SET-02: 11 members (4x1, 3x2, 2x3, 2x4); the four "1"s on the farmyard, the rest
    unborn. SET-03: life-time token right of the quill (0), prestige 0."""
    state = new_game(edition, n, seed)
    assert [p.colour for p in state.players] == list(PLAYER_COLOURS[:n])
    assert len(set(PLAYER_COLOURS[:n])) == n
    for p in state.players:
        assert p.members == (FARMYARD,) * 4 + (UNBORN,) * 7
        assert [state.number_of(i) for i in range(11)] == [1, 1, 1, 1, 2, 2, 2, 3, 3, 4, 4]
        assert all(state.number_of(i) == 1 for i, loc in enumerate(p.members) if loc == FARMYARD)
        assert p.lifetime == 0
        assert p.prestige == 0
        assert p.customers == ()
        assert p.markers == ()
        assert p.goods == Tally()
    for seat in range(n):
        assert state.living_members(seat) == 4


@pytest.mark.parametrize(("edition", "n"), GAMES, ids=GAME_IDS)
def test_set04_one_coin_each_from_the_supply(edition: str, n: int) -> None:
    state = new_game(edition, n, seed=3, variant=NO_COMPENSATION)
    coins = TOTALS[edition][0]
    assert [p.coins for p in state.players] == [1] * n
    assert state.supply.coins == coins - n


# --- SET-05 ---------------------------------------------------------------------------------

# (available spaces filled, waiting spaces filled, labels of the empty spaces)
MARKET = {
    (BB, 2): (3, 5, {"3-5", "4-5"}),
    (BB, 3): (4, 5, {"4-5"}),
    (BB, 4): (5, 5, set()),
    (BB, 5): (5, 5, set()),
    (OE, 2): (3, 5, {"3", "4"}),
    (OE, 3): (4, 5, {"4"}),
    (OE, 4): (5, 5, set()),
}


@pytest.mark.parametrize(("edition", "n"), GAMES, ids=GAME_IDS)
@pytest.mark.parametrize("seed", SEEDS)
def test_set05_customers_dealt_onto_the_spaces_in_use(edition: str, n: int, seed: int) -> None:
    """2023 p. 3 step 6: 4-5 players all 10 spaces; 3 players the "4-5" space stays empty;
    2 players "3-5" and "4-5" stay empty (2011: "4"; "3" and "4")."""
    d = builtin_edition(edition)
    state = new_game(edition, n, seed)
    available, waiting, empty_labels = MARKET[(edition, n)]
    layout = d.market_layout(n)
    assert {s.label for s in d.market_spaces} - {s.label for s in layout} == empty_labels
    assert all(s.min_players <= n for s in layout)
    assert [s.position for s in layout if s.row is Row.AVAILABLE] == list(range(1, available + 1))
    assert [s.position for s in layout if s.row is Row.WAITING] == list(range(1, waiting + 1))
    assert len(state.market_available) == available
    assert len(state.market_waiting) == waiting
    tiles = dealt(state)
    assert len(tiles) == available + waiting  # every space in use is filled
    assert len(set(tiles)) == len(tiles)
    all_ids = {t.id for t in d.customers}
    assert set(tiles) <= all_ids
    # The face-down pile holds the rest, as a sorted set.
    assert len(state.customer_pile) == 24 - len(tiles)
    assert set(state.customer_pile) == all_ids - set(tiles)
    assert list(state.customer_pile) == sorted(state.customer_pile)


def test_set05_pile_sizes() -> None:
    sizes = {(e, n): len(new_game(e, n, seed=8).customer_pile) for e, n in GAMES}
    assert sizes == {
        (BB, 2): 16,
        (BB, 3): 15,
        (BB, 4): 14,
        (BB, 5): 14,
        (OE, 2): 16,
        (OE, 3): 15,
        (OE, 4): 14,
    }


def test_set05_different_seeds_usually_deal_different_markets() -> None:
    for edition, n in GAMES:
        deals = {tuple(dealt(new_game(edition, n, seed))) for seed in range(20)}
        assert len(deals) >= 15, (edition, n)


def test_set05_every_tile_can_be_dealt() -> None:
    """The deal is drawn from the whole pile: over many seeds every tile turns up."""
    seen: set[int] = set()
    for seed in range(60):
        seen.update(dealt(new_game(OE, 2, seed)))
    assert seen == set(range(1, 25))


# --- SET-06 ---------------------------------------------------------------------------------

# Open chronicle spaces per category and open graves (reconstructed data, docs/reconstructions.md),
# and the spaces covered by unused members (2023: plus the 2 marriage spaces).
OPEN = {
    (BB, 2): (2, 4, 15 + 6 + 2),
    (BB, 3): (3, 6, 10 + 4 + 2),
    (BB, 4): (4, 8, 5 + 2 + 2),
    (BB, 5): (5, 10, 0 + 0 + 2),
    (OE, 2): (2, 4, 10 + 4),
    (OE, 3): (3, 6, 5 + 2),
    (OE, 4): (4, 8, 0),
}


@pytest.mark.parametrize(("edition", "n"), GAMES, ids=GAME_IDS)
def test_set06_open_and_blocked_chronicle_and_graveyard(edition: str, n: int) -> None:
    d = builtin_edition(edition)
    state = new_game(edition, n, seed=4)
    per_category, graves, blocked = OPEN[(edition, n)]
    for category in Category:
        assert state.chronicle_count(category) == 0
        assert state.chronicle_free(category) == per_category
        assert d.chronicle_open(category, n) + d.chronicle_blocked(category, n) == len(
            dict(d.chronicle_spaces)[category]
        )
    assert state.chronicle_free_total() == 5 * per_category
    assert state.graveyard_count() == 0
    assert state.graveyard_free() == graves
    assert d.blocked_spaces(n) == blocked
    marriage = 2 if edition == BB else 0
    total = sum(len(labels) for _, labels in d.chronicle_spaces) + len(d.graveyard)
    assert d.blocked_spaces(n) - marriage == total - 5 * per_category - graves
    # The blocked spaces can be covered by the unused colours (2023: 5 colours, 2011: 4).
    colours = 5 if edition == BB else 4
    assert d.blocked_spaces(n) - marriage <= (colours - n) * 11


# --- SET-07, SET-09 -------------------------------------------------------------------------


@pytest.mark.parametrize(("edition", "n"), GAMES, ids=GAME_IDS)
def test_set07_set09_markers_and_starting_player(edition: str, n: int) -> None:
    """SET-07: the next starting player marker lies on the council chamber (nobody holds it).
    SET-09: seat 0, the oldest player, starts."""
    state = new_game(edition, n, seed=2)
    assert state.next_start_holder is None
    assert state.start_player == 0
    assert state.round == 1
    assert state.turn is None
    assert state.market_day is None
    assert state.mass is None
    assert state.deaths_owed == (0,) * n
    assert state.end_triggered_by is None
    assert state.final_turns is None
    assert not state.is_terminal


# --- SET-08, SEED-01 ------------------------------------------------------------------------


@pytest.mark.parametrize(("edition", "n"), GAMES, ids=GAME_IDS)
@pytest.mark.parametrize("seed", SEEDS)
def test_set08_general_supply_totals_are_conserved(edition: str, n: int, seed: int) -> None:
    """Supply + farmyards (+ green bag) = the component totals; 4 monks in the black bag."""
    coins, grain, goods_each, cubes_each = TOTALS[edition]
    state = new_game(edition, n, seed)
    assert state.supply.coins + sum(p.coins for p in state.players) == coins
    assert state.supply.grain + sum(p.grain for p in state.players) == grain
    for good in Good:
        assert state.supply.goods[good] == goods_each
    for colour in INFLUENCE:
        held = sum(p.cubes[colour] for p in state.players)
        assert state.supply.cubes[colour] + state.green_bag[colour] + held == cubes_each
    assert state.supply.cubes[Cube.PLAGUE] + state.green_bag[Cube.PLAGUE] == 6
    assert all(p.cubes[Cube.PLAGUE] == 0 for p in state.players)
    assert state.cubes_on_board() == 0
    assert state.bag_monks == 4
    assert state.monks_aside == 0
    assert state.bag_members() == []


@pytest.mark.parametrize(("edition", "n"), GAMES, ids=GAME_IDS)
def test_seed01_green_bag_filled_for_round_one(edition: str, n: int) -> None:
    """SEED-01: setup ends with the setup card's cubes and all 6 plague cubes in the green
    bag and the first seeding draw pending (2023 4-5 players: after the compensation choice)."""
    d = builtin_edition(edition)
    card = d.setup_card(n)
    state = new_game(edition, n, seed=5)
    if isinstance(state.pending, ChooseCompensationCube):
        assert (edition, n) in {(BB, 4), (BB, 5)}
        state = apply(state, PickCube(Cube.ORANGE))
    expected = card.cubes_added.plus(Tally.of({Cube.PLAGUE: 6}))
    assert state.green_bag == expected
    assert state.supply.cubes[Cube.PLAGUE] == 0
    first = card.cubes_per_space[0]
    assert first[0] is ActionSpace.GRAIN_HARVEST
    assert state.pending == SeedDraw(ActionSpace.GRAIN_HARVEST, first[1])
    assert state.is_chance
    outcomes = dict(chance_outcomes(state))
    total = expected.total()
    assert outcomes == {DrawCube(c): Fraction(k, total) for c, k in expected.items}
    assert total == {2: 22, 3: 26, 4: 30, 5: 34}[n]


@pytest.mark.parametrize(("edition", "n"), GAMES, ids=GAME_IDS)
def test_seed01_without_compensation_the_bag_is_filled_at_setup(edition: str, n: int) -> None:
    state = new_game(edition, n, seed=5, variant=NO_COMPENSATION)
    card = builtin_edition(edition).setup_card(n)
    assert state.green_bag == card.cubes_added.add(Cube.PLAGUE, 6)
    assert isinstance(state.pending, SeedDraw)
    for colour in INFLUENCE:
        assert state.supply.cubes[colour] == TOTALS[edition][3] - card.cubes_added[colour]


@pytest.mark.parametrize("n", [4, 5])
def test_set08_green_bag_empty_before_seeding(n: int) -> None:
    """While the 4th player chooses a compensation cube, round 1 has not begun: the bag is
    empty and the plague cubes are all in the supply."""
    state = new_game(BB, n, seed=9)
    assert state.pending == ChooseCompensationCube(3)
    assert state.green_bag == Tally()
    assert state.supply.cubes[Cube.PLAGUE] == 6
    assert state.cubes_on_board() == 0


# --- SET-10 ---------------------------------------------------------------------------------


def _holdings(state: GameState) -> list[tuple[int, int, int]]:
    """(grain, coins, influence cubes) per seat."""
    return [(p.grain, p.coins, p.cubes.total()) for p in state.players]


@pytest.mark.parametrize("seed", SEEDS)
def test_set10_compensation_by_seat(seed: int) -> None:
    """2023 p. 3 step 14: seat 1 one grain, seat 2 one random cube, seat 3 a chosen cube,
    seat 4 one extra coin; seat 0 has the starting player marker."""
    two = new_game(BB, 2, seed)
    assert _holdings(two) == [(0, 1, 0), (1, 1, 0)]
    assert two.supply.grain == 24
    three = new_game(BB, 3, seed)
    assert _holdings(three) == [(0, 1, 0), (1, 1, 0), (0, 1, 1)]
    (colour,) = list(three.players[2].cubes)
    assert colour in INFLUENCE
    assert isinstance(three.pending, SeedDraw)
    four = new_game(BB, 4, seed)
    assert _holdings(four) == [(0, 1, 0), (1, 1, 0), (0, 1, 1), (0, 1, 0)]
    assert four.pending == ChooseCompensationCube(3)
    assert four.current_player() == 3
    five = new_game(BB, 5, seed)
    assert _holdings(five) == [(0, 1, 0), (1, 1, 0), (0, 1, 1), (0, 1, 0), (0, 2, 0)]
    assert five.supply.coins == 25 - 5 - 1
    assert five.pending == ChooseCompensationCube(3)


@pytest.mark.parametrize("n", [4, 5])
@pytest.mark.parametrize("colour", INFLUENCE)
def test_set10_fourth_player_chooses_any_colour(n: int, colour: Cube) -> None:
    state = new_game(BB, n, seed=1)
    assert legal_actions(state) == [PickCube(c) for c in INFLUENCE]
    after = apply(state, PickCube(colour))
    assert after.players[3].cubes == Tally.of({colour: 1})
    card = builtin_edition(BB).setup_card(n)
    assert after.green_bag == card.cubes_added.add(Cube.PLAGUE, 6)
    assert isinstance(after.pending, SeedDraw)
    # Everything else is as before the choice.
    assert after.players[:3] == state.players[:3]
    assert after.players[4:] == state.players[4:]


def test_set10_random_cube_uses_every_colour() -> None:
    """The 3rd player's cube is random ("rolling the die"): every colour turns up."""
    colours = Counter(next(iter(new_game(BB, 3, seed).players[2].cubes)) for seed in range(120))
    assert set(colours) == set(INFLUENCE)
    assert min(colours.values()) >= 12


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_set10_variant_switches_compensation_off(n: int) -> None:
    state = new_game(BB, n, seed=6, variant=NO_COMPENSATION)
    assert _holdings(state) == [(0, 1, 0)] * n
    assert state.supply.grain == 25
    assert isinstance(state.pending, SeedDraw)
    assert state.rules.variant == NO_COMPENSATION


@pytest.mark.parametrize("n", [2, 3, 4])
def test_set10_2011_has_no_compensation(n: int) -> None:
    for variant in (Variant(), NO_COMPENSATION):
        state = new_game(OE, n, seed=6, variant=variant)
        assert _holdings(state) == [(0, 1, 0)] * n
        assert isinstance(state.pending, SeedDraw)


# --- determinism ----------------------------------------------------------------------------


@pytest.mark.parametrize(("edition", "n"), GAMES, ids=GAME_IDS)
def test_same_inputs_same_state(edition: str, n: int) -> None:
    for seed in SEEDS:
        a = new_game(edition, n, seed)
        b = new_game(builtin_edition(edition), n, seed)
        assert a == b
        assert to_json(a) == to_json(b)
        assert hash(a) == hash(b)


_CHILD = """
import json
from village_rules import EDITIONS, builtin_edition, new_game, to_json
games = [(e, n) for e in EDITIONS for n in builtin_edition(e).player_counts]
print(json.dumps([to_json(new_game(e, n, s)) for e, n in games for s in (0, 1, 99, 20231)]))
"""


@pytest.mark.parametrize("hash_seed", ["0", "4242"])
def test_setup_is_deterministic_across_processes(hash_seed: str) -> None:
    env = dict(os.environ, PYTHONHASHSEED=hash_seed)
    result = subprocess.run(
        [sys.executable, "-c", _CHILD], capture_output=True, text=True, env=env, check=True, timeout=60
    )
    child = json.loads(result.stdout)
    here = [to_json(new_game(e, n, s)) for e, n in GAMES for s in SEEDS]
    assert len(child) == len(here) == 28
    assert child == here
