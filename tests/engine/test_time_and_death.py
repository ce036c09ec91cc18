"""Time and death (2023 p. 5 "The currency time", p. 12 "A family member passes away",
p. 13 example; 2011 "A family member passes away").

Rules checked: TIME-01, DEATH-01 .. DEATH-06.
"""

from __future__ import annotations

import importlib.resources
import json
from pathlib import Path

import pytest
from support import bare, with_spare_cubes

from village_rules.data.components import (
    BLACK_BAG,
    FARMYARD,
    GRAVEYARD,
    UNBORN,
    ActionSpace,
    AtCraft,
    Building,
    Category,
    Cube,
    Good,
    InChronicle,
    Location,
    OnChurch,
    OnCouncil,
    Travelling,
)
from village_rules.data.edition import EditionData
from village_rules.data.loader import load_edition
from village_rules.drivers.scenario import (
    acting,
    arrange_market,
    at,
    emptied,
    give,
    place,
    put_cubes,
    set_lifetime,
)
from village_rules.engine.context import Ctx
from village_rules.engine.core import apply, chance_outcomes, legal_actions
from village_rules.engine.time_and_death import spend_time
from village_rules.errors import IllegalActionError
from village_rules.model.actions import (
    Birth,
    ChurchEnter,
    Die,
    DrawMonk,
    Mill,
    Pass,
    Produce,
    Serve,
    Skip,
    TakeCube,
    Train,
)
from village_rules.model.pending import (
    ChooseAction,
    ChooseDying,
    ChooseTurn,
    MarketChoice,
)
from village_rules.model.state import GameState
from village_rules.rules.variant import Variant

SMITHY = AtCraft(Building.SMITHY)


def count_at(state: GameState, seat: int, location: Location) -> int:
    return sum(1 for loc in state.players[seat].members if loc == location)


# --- TIME-01 ------------------------------------------------------------------------------


def test_time01_time_moves_the_token() -> None:
    """TIME-01: producing a scroll with a trained member (2 time) moves the token 5 -> 7."""
    state = with_spare_cubes(bare())
    state = place(state, 0, 1, AtCraft(Building.OFFICE))
    state = set_lifetime(state, 0, 5)
    trace: list[str] = []
    after = apply(acting(state, 0, ActionSpace.CRAFTS), Produce(Building.OFFICE, Good.SCROLL), trace)
    assert after.players[0].lifetime == 7
    assert after.players[0].goods[Good.SCROLL] == 1
    assert trace[:2] == ["TIME-01", "CRAFT-02"]
    assert "DEATH-01" not in trace
    assert after.deaths_owed == (0, 0, 0)


def test_time01_token_stops_just_before_the_quill() -> None:
    """TIME-01 / DEATH-01 boundary: 7 + 2 = 9 (the last space of 10) kills nobody."""
    state = with_spare_cubes(bare())
    state = place(state, 0, 1, AtCraft(Building.OFFICE))
    state = set_lifetime(state, 0, 7)
    after = apply(acting(state, 0, ActionSpace.CRAFTS), Produce(Building.OFFICE, Good.SCROLL))
    assert after.players[0].lifetime == 9
    assert count_at(after, 0, InChronicle(Category.FARMYARD)) == 0
    assert after.living_members(0) == 4


def test_time01_track_has_ten_spaces() -> None:
    """TIME-01: the 2023 life-time track has 10 spaces (8 + 2 wraps to 0 past the quill);
    the length is from public secondary sources (docs/reconstructions.md §2)."""
    assert bare().rules.data.lifetime_track_length == 10
    state = with_spare_cubes(bare())
    state = place(state, 0, 1, AtCraft(Building.OFFICE))
    state = set_lifetime(state, 0, 8)
    after = apply(acting(state, 0, ActionSpace.CRAFTS), Produce(Building.OFFICE, Good.SCROLL))
    assert after.players[0].lifetime == 0


# --- DEATH-01 -----------------------------------------------------------------------------


def test_death01_one_pass_one_death() -> None:
    """DEATH-01: passing the quill once kills exactly one member (one of the four "1"s)."""
    state = with_spare_cubes(bare())
    state = place(state, 0, 2, AtCraft(Building.OFFICE))  # a trained "2"
    state = set_lifetime(state, 0, 9)
    trace: list[str] = []
    after = apply(acting(state, 0, ActionSpace.CRAFTS), Produce(Building.OFFICE, Good.SCROLL), trace)
    assert after.players[0].lifetime == 1
    assert "DEATH-01" in trace
    assert after.living_members(0) == 4  # 3 "1"s and the "2"
    assert count_at(after, 0, FARMYARD) == 3
    assert count_at(after, 0, InChronicle(Category.FARMYARD)) == 1
    assert after.deaths_owed == (0, 0, 0)
    assert after.pending == ChooseTurn(1)


def short_track_data(tmp_path: Path, length: int) -> EditionData:
    """The 2023 data with a life-time track of `length` spaces (a user data file)."""
    source = importlib.resources.files("village_rules") / "data" / "big-box-2023.json"
    raw = json.loads(source.read_text(encoding="utf-8"))
    raw["lifetime_track_length"]["value"] = length
    path = tmp_path / "short-track.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    return load_edition(path)


def test_death01_several_passes_several_deaths(tmp_path: Path) -> None:
    """DEATH-01 / AMB-08: with a 3-space track, training + producing at the smithy (6 time)
    passes the quill twice: two members die, each time the owner chooses among the ties."""
    state = emptied(short_track_data(tmp_path, 3), 3)
    state = with_spare_cubes(state)
    trace: list[str] = []
    after = apply(acting(state, 0, ActionSpace.CRAFTS), Train(Building.SMITHY, 1, Good.PLOW), trace)
    assert after.players[0].lifetime == 0  # 0 + 6 = 2 full rounds of 3
    assert "DEATH-01" in trace
    assert after.deaths_owed == (2, 0, 0)  # one spend of 6 time owes two deaths
    assert after.pending == ChooseDying(0)
    assert set(legal_actions(after)) == {Die(FARMYARD), Die(SMITHY)}
    done = apply(after, Die(SMITHY))
    # The second death has a single place left (the farmyard "1"s): resolved automatically.
    assert done.deaths_owed == (0, 0, 0)
    assert count_at(done, 0, InChronicle(Category.CRAFTS)) == 1
    assert count_at(done, 0, InChronicle(Category.FARMYARD)) == 1
    assert count_at(done, 0, FARMYARD) == 2
    assert done.pending == ChooseTurn(1)


def test_death01_spend_time_counts_every_pass() -> None:
    """DEATH-01: 21 time from space 0 of a 10-space track = 2 passes owed, token on 1."""
    state = bare()
    after = spend_time(state, 1, 21, Ctx())
    assert after.players[1].lifetime == 1
    assert after.deaths_owed == (0, 2, 0)


# --- DEATH-02 -----------------------------------------------------------------------------


def _ones_in_the_bag(edition: str, variant: Variant | None = None) -> GameState:
    """Seat 0: two "1"s dead, two in the black bag, a "2" on the council chamber, two "3"s
    (farmyard, office); the token one space before the quill, the office's scroll to make."""
    state = with_spare_cubes(bare(edition=edition, variant=variant))
    state = place(state, 0, 1, InChronicle(Category.FARMYARD))
    state = place(state, 0, 1, InChronicle(Category.CRAFTS))
    state = place(state, 0, 1, BLACK_BAG)
    state = place(state, 0, 1, BLACK_BAG)
    state = place(state, 0, 2, OnCouncil(2))  # the "2" (from the unborn supply)
    state = place(state, 0, 3, FARMYARD)
    state = place(state, 0, 3, AtCraft(Building.OFFICE), source=UNBORN)
    return set_lifetime(state, 0, 9)


@pytest.mark.parametrize("edition", ["big-box-2023", "original-2011"])
def test_death02_amb46_a_lowest_number_in_the_bag_nobody_dies(edition: str) -> None:
    """DEATH-02 / DEATH-05 (AMB-46 a, the default in both editions since issue 43): 2023
    p. 12 "it is always the one with the lowest number that has to die … A dying family
    member must be visible … otherwise you do not lose a family member" (2011 the same
    without the last clause): the lowest number is "1", both living "1"s are in the black
    bag, so nobody dies; the visible "2" and "3"s live and the death lapses."""
    state = _ones_in_the_bag(edition)
    trace: list[str] = []
    after = apply(acting(state, 0, ActionSpace.CRAFTS), Produce(Building.OFFICE, Good.SCROLL), trace)
    assert "DEATH-01" in trace and "DEATH-05" in trace and "DEATH-09" not in trace
    assert count_at(after, 0, OnCouncil(2)) == 1 and count_at(after, 0, FARMYARD) == 1
    assert count_at(after, 0, BLACK_BAG) == 2
    assert count_at(after, 0, InChronicle(Category.COUNCIL_CHAMBER)) == 0
    assert after.deaths_owed == (0, 0, 0)


@pytest.mark.parametrize("edition", ["big-box-2023", "original-2011"])
def test_death09_amb46_b_lowest_visible_number_dies(edition: str) -> None:
    """DEATH-09 (AMB-46 b, the engine's rule until issue 43): the "1"s are dead or in the
    bag, so the visible "2" dies, not the "3"."""
    state = _ones_in_the_bag(edition, Variant(readings={"AMB-46": "b"}))
    trace: list[str] = []
    after = apply(acting(state, 0, ActionSpace.CRAFTS), Produce(Building.OFFICE, Good.SCROLL), trace)
    assert "DEATH-09" in trace
    assert count_at(after, 0, InChronicle(Category.COUNCIL_CHAMBER)) == 1
    assert count_at(after, 0, OnCouncil(2)) == 0
    assert count_at(after, 0, BLACK_BAG) == 2  # bag members cannot die
    assert count_at(after, 0, FARMYARD) == 1  # the "3" lives
    assert after.players[0].members[4] == InChronicle(Category.COUNCIL_CHAMBER)


def test_death02_amb46_a_a_visible_member_of_the_lowest_number_dies_beside_the_bag() -> None:
    """DEATH-02 (AMB-46 a): one "1" in the bag and one on the farmyard: "several family
    members with the lowest number", the visible one dies; the bag's "1" lives."""
    state = with_spare_cubes(bare())
    state = place(state, 0, 1, InChronicle(Category.FARMYARD))
    state = place(state, 0, 1, InChronicle(Category.CRAFTS))
    state = place(state, 0, 1, BLACK_BAG)
    state = place(state, 0, 3, AtCraft(Building.OFFICE), source=UNBORN)
    state = set_lifetime(state, 0, 9)
    after = apply(acting(state, 0, ActionSpace.CRAFTS), Produce(Building.OFFICE, Good.SCROLL))
    assert count_at(after, 0, FARMYARD) == 0 and count_at(after, 0, BLACK_BAG) == 1
    assert count_at(after, 0, AtCraft(Building.OFFICE)) == 1


def test_death02_owner_chooses_among_tied_lowest() -> None:
    """DEATH-02: "1"s on the farmyard, council stage 1 and the travel map: the owner picks
    one place; members of the same number in one place are one choice."""
    state = with_spare_cubes(bare())
    state = place(state, 0, 1, OnCouncil(1))
    state = place(state, 0, 1, Travelling(state.rules.data.cities[0].id))
    state = place(state, 0, 2, FARMYARD)
    state = place(state, 0, 2, OnCouncil(3), source=UNBORN)
    state = give(state, 0, grain=2)
    state = set_lifetime(state, 0, 9)
    trace: list[str] = []
    after = apply(acting(state, 0, ActionSpace.CRAFTS), Mill(), trace)  # 2 time + 2 grain
    assert after.pending == ChooseDying(0)
    city = Travelling(state.rules.data.cities[0].id)
    assert set(legal_actions(after)) == {Die(FARMYARD), Die(OnCouncil(1)), Die(city)}
    with pytest.raises(IllegalActionError) as err:
        apply(after, Die(OnCouncil(3)))  # a "2": not among the lowest
    assert err.value.rule == "DEATH-02"
    assert "lowest" in err.value.reason
    chosen = apply(after, Die(city), trace)
    assert "DEATH-02" in trace
    assert count_at(chosen, 0, InChronicle(Category.TRAVEL)) == 1
    assert count_at(chosen, 0, OnCouncil(1)) == 1
    assert count_at(chosen, 0, FARMYARD) == 3  # two "1"s and a "2"
    assert chosen.deaths_owed == (0, 0, 0)


def test_death02_single_place_needs_no_choice() -> None:
    """DEATH-02: four "1"s all on the farmyard: one candidate place, no decision offered."""
    state = with_spare_cubes(bare())
    state = put_cubes(state, ActionSpace.FAMILY, {Cube.PLAGUE: 1})
    state = set_lifetime(state, 0, 8)
    after = apply(at(state, ChooseTurn(0)), TakeCube(ActionSpace.FAMILY, Cube.PLAGUE))
    assert after.pending == ChooseAction(0, ActionSpace.FAMILY)  # not dead yet (DEATH-06)
    assert after.deaths_owed == (1, 0, 0)
    done = apply(after, Skip())
    assert not isinstance(done.pending, ChooseDying)
    assert count_at(done, 0, FARMYARD) == 3
    assert count_at(done, 0, InChronicle(Category.FARMYARD)) == 1


# --- DEATH-03 / DEATH-04 ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("workplace", "category"),
    [
        (FARMYARD, Category.FARMYARD),
        (AtCraft(Building.STABLES), Category.CRAFTS),
        (OnCouncil(2), Category.COUNCIL_CHAMBER),
        (OnChurch(3), Category.CHURCH),
        (Travelling("__first_city__"), Category.TRAVEL),
    ],
)
def test_death03_chronicle_category_of_the_workplace(workplace: Location, category: Category) -> None:
    """DEATH-03: a dying member goes to the chronicle category where it worked."""
    state = with_spare_cubes(bare())
    if isinstance(workplace, Travelling):
        workplace = Travelling(state.rules.data.cities[0].id)
    # Only one "1" stays visible, at the workplace; the others are in the bag.
    state = place(state, 0, 1, BLACK_BAG)
    state = place(state, 0, 1, BLACK_BAG)
    state = place(state, 0, 1, BLACK_BAG)
    if workplace != FARMYARD:
        state = place(state, 0, 1, workplace)
    state = give(state, 0, grain=2)
    state = set_lifetime(state, 0, 8)
    trace: list[str] = []
    after = apply(acting(state, 0, ActionSpace.CRAFTS), Mill(), trace)  # 2 time + 2 grain
    assert after.players[0].coins == 2
    assert after.players[0].members[3] == InChronicle(category)
    assert "DEATH-03" in trace
    assert after.chronicle_count(category) == 1


def p13_position() -> GameState:
    """2023 p. 13: Chris (seat 0) has "1"s on church stage 4, the farmyard and council
    stage 1; the three church spaces of the 3-player chronicle are taken by others."""
    state = with_spare_cubes(bare())
    state = place(state, 1, 1, InChronicle(Category.CHURCH))
    state = place(state, 1, 1, InChronicle(Category.CHURCH))
    state = place(state, 2, 1, InChronicle(Category.CHURCH))
    state = place(state, 0, 1, OnChurch(4))
    state = place(state, 0, 1, OnCouncil(1))
    state = place(state, 0, 1, InChronicle(Category.TRAVEL))
    state = set_lifetime(state, 0, 8)
    # Chris passes the quill during his action (a plague cube, 2 time), then skips it.
    state = put_cubes(state, ActionSpace.GRAIN_HARVEST, {Cube.PLAGUE: 1})
    state = apply(at(state, ChooseTurn(0)), TakeCube(ActionSpace.GRAIN_HARVEST, Cube.PLAGUE))
    return apply(state, Skip())


def test_death04_p13_church_one_goes_to_the_graveyard() -> None:
    """DEATH-04, 2023 p. 13 example: the "1" on church stage 4 must go to the graveyard
    because all church spaces of the chronicle are occupied."""
    state = p13_position()
    assert state.chronicle_free(Category.CHURCH) == 0
    assert state.pending == ChooseDying(0)
    assert set(legal_actions(state)) == {Die(OnChurch(4)), Die(FARMYARD), Die(OnCouncil(1))}
    graves_before = state.graveyard_count()
    trace: list[str] = []
    after = apply(state, Die(OnChurch(4)), trace)
    assert trace[:2] == ["DEATH-02", "DEATH-04"]
    assert after.players[0].members[0] == GRAVEYARD
    assert after.graveyard_count() == graves_before + 1
    assert after.chronicle_count(Category.CHURCH) == 3
    assert after.end_triggered_by is None


@pytest.mark.parametrize(
    ("location", "category"),
    [(FARMYARD, Category.FARMYARD), (OnCouncil(1), Category.COUNCIL_CHAMBER)],
)
def test_death03_p13_any_other_one_goes_to_its_category(location: Location, category: Category) -> None:
    """DEATH-03, 2023 p. 13 example: any other "1" goes to its area of the chronicle."""
    state = p13_position()
    trace: list[str] = []
    after = apply(state, Die(location), trace)
    assert trace[:2] == ["DEATH-02", "DEATH-03"]
    assert after.chronicle_count(category) == 1
    assert count_at(after, 0, InChronicle(category)) == 1
    assert after.graveyard_count() == 0
    assert count_at(after, 0, OnChurch(4)) == 1


# --- DEATH-05 -----------------------------------------------------------------------------


def test_death05_no_visible_member_no_death() -> None:
    """DEATH-05: members in the black bag or not yet born cannot die; the pass is lost."""
    state = with_spare_cubes(bare())
    for _ in range(4):
        state = place(state, 0, 1, BLACK_BAG)
    state = set_lifetime(state, 0, 9)
    state = put_cubes(state, ActionSpace.GRAIN_HARVEST, {Cube.PLAGUE: 1})
    trace: list[str] = []
    # No farmyard member: the harvest is impossible, so the turn ends at once.
    after = apply(at(state, ChooseTurn(0)), TakeCube(ActionSpace.GRAIN_HARVEST, Cube.PLAGUE), trace)
    assert "DEATH-01" in trace
    assert "DEATH-05" in trace
    assert after.deaths_owed == (0, 0, 0)
    assert count_at(after, 0, BLACK_BAG) == 4
    assert count_at(after, 0, UNBORN) == 7
    assert after.players[0].lifetime == 1
    assert after.pending == ChooseTurn(1)


def test_death05_pass_is_not_carried_over() -> None:
    """DEATH-05 / AMB-23: the lost death is not owed later, once a member is visible again."""
    state = with_spare_cubes(bare())
    for _ in range(4):
        state = place(state, 0, 1, BLACK_BAG)
    state = set_lifetime(state, 0, 9)
    state = put_cubes(state, ActionSpace.GRAIN_HARVEST, {Cube.PLAGUE: 1})
    state = apply(at(state, ChooseTurn(0)), TakeCube(ActionSpace.GRAIN_HARVEST, Cube.PLAGUE))
    # Next turn of seat 0: a birth (no time) leaves the new "2" alive.
    state = apply(acting(state, 0, ActionSpace.FAMILY), Birth())
    assert state.players[0].members[4] == FARMYARD
    assert state.deaths_owed == (0, 0, 0)


# --- DEATH-06 -----------------------------------------------------------------------------


def test_death06_p12_example_smithy() -> None:
    """DEATH-06 / DEATH-02 / DEATH-03, 2023 p. 12 example: Chris takes a plague cube from
    crafts (2 time, past the quill), still performs the action: trains a "1" at the smithy
    (3 time) and produces a plow (3 time); then he lets the smithy "1" die -> crafts."""
    state = with_spare_cubes(bare())
    state = place(state, 0, 1, InChronicle(Category.FARMYARD))
    state = place(state, 0, 1, InChronicle(Category.TRAVEL))
    state = place(state, 0, 1, OnCouncil(1))  # a "1" on the board; one "1" on the farmyard
    state = place(state, 0, 3, FARMYARD)
    state = put_cubes(state, ActionSpace.CRAFTS, {Cube.PLAGUE: 1, Cube.ORANGE: 1})
    state = set_lifetime(state, 0, 9)
    trace: list[str] = []
    took = apply(at(state, ChooseTurn(0)), TakeCube(ActionSpace.CRAFTS, Cube.PLAGUE), trace)
    assert trace == ["TURN-01", "TURN-03", "TIME-01", "DEATH-01"]
    assert took.players[0].lifetime == 1
    assert took.deaths_owed == (1, 0, 0)
    assert took.living_members(0) == 3  # nobody has died before the action
    assert took.pending == ChooseAction(0, ActionSpace.CRAFTS)
    trained = apply(took, Train(Building.SMITHY, 1, Good.PLOW), trace)
    assert trained.players[0].lifetime == 7  # 1 + 3 + 3
    assert trained.players[0].goods[Good.PLOW] == 1
    assert trained.pending == ChooseDying(0)
    assert set(legal_actions(trained)) == {Die(SMITHY), Die(OnCouncil(1))}
    done = apply(trained, Die(SMITHY), trace)
    assert done.players[0].members[3] == InChronicle(Category.CRAFTS)
    assert done.players[0].members[2] == OnCouncil(1)
    assert done.players[0].goods[Good.PLOW] == 1
    assert done.chronicle_count(Category.CRAFTS) == 1
    assert done.pending == ChooseTurn(1)
    assert trace == [
        *["TURN-01", "TURN-03", "TIME-01", "DEATH-01"],  # the plague cube, past the quill
        *["TIME-01", "CRAFT-01"],  # training and production: 6 time
        *["DEATH-02", "DEATH-03"],  # then the chosen "1" dies, into the crafts chronicle
    ]


def test_death06_during_market_day_at_once() -> None:
    """DEATH-06: a later sale (1 green + 1 time) past the quill kills at once, while the
    market day goes on."""
    state = bare()
    state = with_spare_cubes(state)
    state = arrange_market(state, [8, 2, 5, 3])  # 8: 2 grain; 2: 3 grain; 5: a scroll
    state = put_cubes(state, ActionSpace.MARKET, {Cube.GREEN: 1})
    state = give(state, 0, grain=2)
    state = give(state, 1, grain=3, cubes={Cube.GREEN: 1})
    state = give(state, 2, goods={Good.SCROLL: 1}, cubes={Cube.GREEN: 1})
    state = set_lifetime(state, 1, 9)
    state = apply(at(state, ChooseTurn(0)), TakeCube(ActionSpace.MARKET, Cube.GREEN))
    state = apply(state, Serve(8))  # the free first sale of the market-day player
    assert state.pending == MarketChoice(1)
    trace: list[str] = []
    after = apply(state, Serve(2), trace)
    assert "DEATH-06" in trace
    assert after.market_day is not None  # the market day is still going on
    assert after.pending == MarketChoice(2)
    assert after.players[1].lifetime == 0
    assert count_at(after, 1, InChronicle(Category.FARMYARD)) == 1
    assert after.deaths_owed == (0, 0, 0)
    assert Pass() in legal_actions(after)


def test_death06_no_death_before_the_action_ends() -> None:
    """DEATH-06: the member that dies can be the one used in the action (church enter with
    3 time: the entering "1" goes into the bag and is safe; a farmyard "1" dies)."""
    state = with_spare_cubes(bare())
    state = place(state, 0, 1, OnCouncil(1))
    state = place(state, 0, 1, OnCouncil(1))
    state = place(state, 0, 1, OnCouncil(1))
    state = set_lifetime(state, 0, 8)
    after = apply(acting(state, 0, ActionSpace.CHURCH), ChurchEnter(1))  # 3 time, no brown
    assert after.players[0].lifetime == 1
    assert after.players[0].members[3] == BLACK_BAG
    assert count_at(after, 0, InChronicle(Category.COUNCIL_CHAMBER)) == 1
    assert count_at(after, 0, OnCouncil(1)) == 2


def test_death06_chosen_during_market_day_before_it_goes_on() -> None:
    """DEATH-06: a seller with tied "1"s who passes the quill chooses at once, in the
    middle of the market day; the day then goes on with the next seller."""
    state = with_spare_cubes(bare())
    state = arrange_market(state, [8, 2, 5, 3])
    state = put_cubes(state, ActionSpace.MARKET, {Cube.GREEN: 1})
    state = give(state, 0, grain=2)
    state = give(state, 1, grain=3, cubes={Cube.GREEN: 1})
    state = give(state, 2, goods={Good.SCROLL: 1}, cubes={Cube.GREEN: 1})
    state = place(state, 1, 1, OnCouncil(1))
    state = set_lifetime(state, 1, 9)
    state = apply(at(state, ChooseTurn(0)), TakeCube(ActionSpace.MARKET, Cube.GREEN))
    state = apply(state, Serve(8))
    dying = apply(state, Serve(2))
    assert dying.pending == ChooseDying(1)
    assert dying.market_day is not None
    assert set(legal_actions(dying)) == {Die(FARMYARD), Die(OnCouncil(1))}
    after = apply(dying, Die(OnCouncil(1)))
    assert count_at(after, 1, InChronicle(Category.COUNCIL_CHAMBER)) == 1
    assert after.pending == MarketChoice(2)
    assert after.market_day is not None


def test_death06_last_cube_death_resolved_before_the_mass() -> None:
    """DEATH-06 / ROUND-01: the player who takes the last cube (a plague cube, past the
    quill) loses the church "1" at the end of the action, before the mass: seat 1 then
    has the church majority alone."""
    state = bare()
    state = place(state, 0, 1, OnChurch(1))
    state = place(state, 0, 1, InChronicle(Category.FARMYARD))
    state = place(state, 0, 1, InChronicle(Category.CRAFTS))
    state = place(state, 0, 1, InChronicle(Category.TRAVEL))
    state = place(state, 0, 2, FARMYARD)
    state = place(state, 1, 1, OnChurch(1))
    state = set_lifetime(state, 0, 8)
    state = put_cubes(state, ActionSpace.FAMILY, {Cube.PLAGUE: 1})
    took = apply(at(state, ChooseTurn(0)), TakeCube(ActionSpace.FAMILY, Cube.PLAGUE))
    assert took.pending == ChooseAction(0, ActionSpace.FAMILY)
    trace: list[str] = []
    after = apply(took, Skip(), trace)
    assert trace.index("DEATH-03") < trace.index("ROUND-01") < trace.index("MASS-01")
    assert after.players[0].members[0] == InChronicle(Category.CHURCH)
    while after.mass is not None:
        after = apply(after, DrawMonk())
    assert [p.prestige for p in after.players] == [0, 2, 0]


def test_death06_plague_cube_from_the_market_dies_after_the_market_day() -> None:
    """DEATH-06 / AMB-27: the market-day player's plague-cube pass happens before the market
    day; that death is resolved at the end of the turn, after the market day."""
    state = with_spare_cubes(bare())
    state = arrange_market(state, [8, 2, 5, 3])
    state = put_cubes(state, ActionSpace.MARKET, {Cube.PLAGUE: 1})
    state = give(state, 0, grain=2)
    state = give(state, 1, grain=3, cubes={Cube.GREEN: 1})
    state = set_lifetime(state, 0, 8)
    state = apply(at(state, ChooseTurn(0)), TakeCube(ActionSpace.MARKET, Cube.PLAGUE))
    assert state.pending == MarketChoice(0)
    assert state.players[0].lifetime == 0
    state = apply(state, Serve(8))
    assert state.pending == MarketChoice(1)
    assert count_at(state, 0, FARMYARD) == 4  # not yet: the market day is going on
    trace: list[str] = []
    state = apply(state, Serve(2), trace)
    while state.is_chance:  # customers refilled from the pile
        state = apply(state, chance_outcomes(state)[0][0], trace)
    assert state.market_day is None
    assert count_at(state, 0, FARMYARD) == 3
    assert count_at(state, 0, InChronicle(Category.FARMYARD)) == 1
    assert trace.index("MKT-05") < trace.index("DEATH-03")
    assert state.pending == ChooseTurn(1)
