"""The crafts action spaces: training, producing, buying with cubes or grain, the mill.

Rules checked: CRAFT-01..04, COIN-01 (2023 p. 7; 2011 "Crafts").
"""

from __future__ import annotations

import pytest
from support import bare as bare_of
from support import bare_with_spare_cubes as bare
from support import count_at, do

from village_rules.data.components import (
    FARMYARD,
    ActionSpace,
    AtCraft,
    Building,
    Cube,
    Good,
)
from village_rules.data.tally import Tally
from village_rules.drivers.scenario import (
    acting,
    give,
    place,
)
from village_rules.engine.core import legal_actions
from village_rules.errors import IllegalActionError
from village_rules.model.actions import (
    Buy,
    Mill,
    Produce,
    Train,
)
from village_rules.rules.variant import Variant

WAINWRIGHT = AtCraft(Building.WAINWRIGHT)
NONE: Tally[Cube] = Tally()


def test_craft01_p7_wainwright_example_with_time() -> None:
    """CRAFT-01, 2023 p. 7 example: Chris places a member below the wainwright (2 time
    training) and produces a wagon (another 2 time)."""
    state = bare()
    wagons = state.supply.goods[Good.WAGON]
    trace: list[str] = []
    after = do(state, 0, ActionSpace.CRAFTS, Train(Building.WAINWRIGHT, 1, Good.WAGON), trace)
    assert after.players[0].lifetime == 4
    assert after.players[0].goods == Tally.of({Good.WAGON: 1})
    assert after.supply.goods[Good.WAGON] == wagons - 1
    assert after.players[0].members[0] == WAINWRIGHT
    assert count_at(after, 0, FARMYARD) == 3
    assert trace[:2] == ["TIME-01", "CRAFT-01"]


def test_craft03_p7_wainwright_example_with_cubes() -> None:
    """CRAFT-03, 2023 p. 7 example: instead, 1 orange + 1 pink buy the wagon, no member
    placed and no time spent."""
    state = give(bare(), 0, cubes={Cube.ORANGE: 1, Cube.PINK: 1})
    trace: list[str] = []
    after = do(state, 0, ActionSpace.CRAFTS, Buy(Building.WAINWRIGHT, Good.WAGON), trace)
    assert trace[0] == "CRAFT-03"
    assert after.players[0].goods == Tally.of({Good.WAGON: 1})
    assert after.players[0].cubes == NONE
    assert after.players[0].lifetime == 0
    assert after.players[0].members == state.players[0].members
    assert after.supply.cubes[Cube.ORANGE] == state.supply.cubes[Cube.ORANGE] + 1
    assert after.supply.cubes[Cube.PINK] == state.supply.cubes[Cube.PINK] + 1


@pytest.mark.parametrize(("reading", "alone"), [("a", False), ("b", True)])
def test_craft01_amb26_training_without_producing_only_under_b(reading: str, alone: bool) -> None:
    """CRAFT-01 / AMB-26: training places the member and produces (a, the default in both
    editions); under b the member may be trained without producing. A generated mutant
    (issue 25: `reading("AMB-26") < "b"`) swapped the two, and only the golden logs saw it."""
    state = bare_of(variant=Variant(readings={"AMB-26": reading}))
    offered = legal_actions(acting(state, 0, ActionSpace.CRAFTS))
    trains = [a for a in offered if isinstance(a, Train)]
    assert trains
    assert any(a.good is None for a in trains) is alone
    assert any(a.good is not None for a in trains)


def test_craft01_training_needs_a_farmyard_member_of_that_number() -> None:
    """CRAFT-01: only a farmyard member can be trained (no "2" at home here)."""
    state = bare()
    with pytest.raises(IllegalActionError) as err:
        do(state, 0, ActionSpace.CRAFTS, Train(Building.SMITHY, 2, Good.PLOW))
    assert err.value.rule == "CRAFT-01"
    assert "numbered 2" in err.value.reason


def test_craft01_building_makes_only_its_goods() -> None:
    """CRAFT-01..03: the smithy makes plows, not wagons."""
    state = give(bare(), 0, cubes={Cube.ORANGE: 1, Cube.PINK: 1})
    for action in (
        Train(Building.SMITHY, 1, Good.WAGON),
        Buy(Building.SMITHY, Good.WAGON),
        Produce(Building.SMITHY, Good.WAGON),
    ):
        with pytest.raises(IllegalActionError) as err:
            do(state, 0, ActionSpace.CRAFTS, action)
        assert "plow" in err.value.reason


@pytest.mark.parametrize(
    ("building", "good", "time"),
    [
        (Building.WAINWRIGHT, Good.WAGON, 2),
        (Building.STABLES, Good.HORSE, 3),
        (Building.STABLES, Good.OX, 3),
        (Building.OFFICE, Good.SCROLL, 2),
        (Building.SMITHY, Good.PLOW, 3),
    ],
)
def test_craft02_produce_with_a_trained_member(building: Building, good: Good, time: int) -> None:
    """CRAFT-02: a trained member produces again for the production time only (p. 7)."""
    state = place(bare(), 0, 2, AtCraft(building))
    trace: list[str] = []
    after = do(state, 0, ActionSpace.CRAFTS, Produce(building, good), trace)
    assert after.players[0].lifetime == time
    assert after.players[0].goods == Tally.of({good: 1})
    assert after.players[0].members == state.players[0].members  # stays below the building
    assert "CRAFT-02" in trace


def test_craft02_produce_needs_a_trained_member() -> None:
    """CRAFT-02: without a member below the smithy, no production for time."""
    state = place(bare(), 0, 1, AtCraft(Building.OFFICE))
    with pytest.raises(IllegalActionError) as err:
        do(state, 0, ActionSpace.CRAFTS, Produce(Building.SMITHY, Good.PLOW))
    assert err.value.rule == "CRAFT-02"
    assert "trained member" in err.value.reason


@pytest.mark.parametrize(
    ("building", "good", "cubes", "grain"),
    [
        (Building.STABLES, Good.HORSE, {}, 3),
        (Building.STABLES, Good.OX, {}, 3),
        (Building.OFFICE, Good.SCROLL, {Cube.PINK: 1}, 0),
        (Building.SMITHY, Good.PLOW, {Cube.ORANGE: 1, Cube.PINK: 1}, 0),
    ],
)
def test_craft03_buy_with_cubes_or_grain(
    building: Building, good: Good, cubes: dict[Cube, int], grain: int
) -> None:
    """CRAFT-03: the purchase price goes back to the supply (grain at the stables)."""
    state = give(bare(), 0, cubes=cubes, grain=grain)
    after = do(state, 0, ActionSpace.CRAFTS, Buy(building, good))
    assert after.players[0].goods == Tally.of({good: 1})
    assert after.players[0].cubes == NONE
    assert after.players[0].grain == 0
    assert after.supply.grain == state.supply.grain + grain
    assert after.players[0].lifetime == 0


def test_craft03_stables_need_three_grain_not_coins() -> None:
    """CRAFT-03: 2 grain + coins cannot buy a horse (coins stand in for cubes only)."""
    state = give(bare(), 0, grain=2, coins=2)
    with pytest.raises(IllegalActionError) as err:
        do(state, 0, ActionSpace.CRAFTS, Buy(Building.STABLES, Good.HORSE))
    assert err.value.rule == "CRAFT-03"
    assert "3 grain" in err.value.reason
    assert "2 grain" in err.value.reason


def test_coin01_coin_for_the_pink_cube_of_a_wagon() -> None:
    """COIN-01: 1 orange + 1 coin buys the wagon (the coin replaces the pink cube)."""
    state = give(bare(), 0, cubes={Cube.ORANGE: 1}, coins=1)
    trace: list[str] = []
    after = do(state, 0, ActionSpace.CRAFTS, Buy(Building.WAINWRIGHT, Good.WAGON), trace)
    assert "COIN-01" in trace
    assert after.players[0].goods == Tally.of({Good.WAGON: 1})
    assert after.players[0].coins == 0
    assert after.players[0].cubes == NONE
    assert after.supply.coins == state.supply.coins + 1


def test_craft04_mill_two_time_two_grain_two_coins() -> None:
    """CRAFT-04: the mill: 2 time + 2 grain -> 2 coins; no member is placed."""
    state = give(bare(), 0, grain=3)
    trace: list[str] = []
    after = do(state, 0, ActionSpace.CRAFTS, Mill(), trace)
    assert "CRAFT-04" in trace
    assert after.players[0].coins == 2
    assert after.players[0].grain == 1
    assert after.players[0].lifetime == 2
    assert after.supply.coins == state.supply.coins - 2
    assert after.supply.grain == state.supply.grain + 2
    assert after.players[0].members == state.players[0].members


def test_craft04_mill_needs_two_grain() -> None:
    """CRAFT-04: 1 grain is not enough for the mill."""
    state = give(bare(), 0, grain=1)
    assert Mill() not in legal_actions(acting(state, 0, ActionSpace.CRAFTS))
    with pytest.raises(IllegalActionError) as err:
        do(state, 0, ActionSpace.CRAFTS, Mill())
    assert err.value.rule == "CRAFT-04"
    assert "1 grain" in err.value.reason
