"""The grain harvest action space: harvest with a farmyard member, yields, the five-grain limit.

Rules checked: HARV-01..03, TURN-03 (2023 p. 5 - p. 6; 2011 "Grain harvest").
"""

from __future__ import annotations

from dataclasses import replace as _replace

import pytest
from support import bare as plain
from support import bare_with_spare_cubes as bare
from support import do

from village_rules.data.components import (
    ActionSpace,
    Cube,
    Good,
    OnCouncil,
)
from village_rules.data.tally import Tally
from village_rules.drivers.scenario import (
    acting,
    at,
    give,
    place,
    put_cubes,
)
from village_rules.engine.core import apply, legal_actions
from village_rules.errors import IllegalActionError
from village_rules.model.actions import (
    Harvest,
    Skip,
    TakeCube,
)
from village_rules.model.pending import (
    ChooseAction,
    ChooseTurn,
)
from village_rules.rules.variant import Variant


def test_p5_plague_cube_example_then_harvest() -> None:
    """TURN-03 / HARV-02, 2023 p. 5 example: Chris takes a plague cube from the grain
    harvest, returns it to the supply, moves his token 2 spaces, and may then harvest."""
    state = put_cubes(bare(), ActionSpace.GRAIN_HARVEST, {Cube.PLAGUE: 1, Cube.BROWN: 1})
    plague = state.supply.cubes[Cube.PLAGUE]
    took = apply(at(state, ChooseTurn(0)), TakeCube(ActionSpace.GRAIN_HARVEST, Cube.PLAGUE))
    assert took.players[0].lifetime == 2
    assert took.supply.cubes[Cube.PLAGUE] == plague + 1
    assert took.pending == ChooseAction(0, ActionSpace.GRAIN_HARVEST)
    assert set(legal_actions(took)) == {Harvest(), Skip()}
    done = apply(took, Harvest())
    assert done.players[0].grain == 2
    assert done.players[0].lifetime == 2
    assert done.pending == ChooseTurn(1)


def test_harv01_needs_a_farmyard_member() -> None:
    """HARV-01: with no member on the farmyard the harvest cannot be performed."""
    state = bare()
    for _ in range(4):
        state = place(state, 0, 1, OnCouncil(1))
    with pytest.raises(IllegalActionError) as err:
        do(state, 0, ActionSpace.GRAIN_HARVEST, Harvest())
    assert err.value.rule == "HARV-01"
    assert "farmyard" in err.value.reason
    # Taking the cube is still allowed; the action is then simply not performed.
    state = put_cubes(state, ActionSpace.GRAIN_HARVEST, {Cube.BROWN: 1})
    after = apply(at(state, ChooseTurn(0)), TakeCube(ActionSpace.GRAIN_HARVEST, Cube.BROWN))
    assert after.players[0].grain == 0
    assert after.players[0].cubes == Tally.of({Cube.BROWN: 1})
    assert after.pending == ChooseTurn(1)


@pytest.mark.parametrize(
    ("goods", "grain"),
    [
        ({}, 2),
        ({Good.HORSE: 1}, 2),
        ({Good.OX: 1}, 2),
        ({Good.PLOW: 1}, 2),
        ({Good.HORSE: 1, Good.PLOW: 1}, 3),
        ({Good.OX: 1, Good.PLOW: 1}, 4),
        ({Good.OX: 1, Good.HORSE: 1, Good.PLOW: 2}, 4),  # one combination only
        ({Good.OX: 2, Good.PLOW: 2}, 4),
    ],
)
def test_harv02_p6_yields_and_goods_are_kept(goods: dict[Good, int], grain: int) -> None:
    """HARV-02, 2023 p. 6: 2 grain; 3 with horse + plow; 4 with ox + plow (at most 4);
    the goods and the farmyard members stay."""
    state = give(bare(), 0, goods=goods)
    supply_grain = state.supply.grain
    trace: list[str] = []
    after = do(state, 0, ActionSpace.GRAIN_HARVEST, Harvest(), trace)
    assert after.players[0].grain == grain
    assert after.supply.grain == supply_grain - grain
    assert after.players[0].goods == Tally.of(goods)
    assert after.players[0].members == state.players[0].members
    assert trace[:2] == ["HARV-01", "HARV-02"]


def test_harv03_farmyard_holds_at_most_five_grain() -> None:
    """HARV-03 / AMB-02: 4 grain + ox and plow harvest to 5; the rest stays in the supply."""
    state = give(bare(), 0, grain=4, goods={Good.OX: 1, Good.PLOW: 1})
    supply_grain = state.supply.grain
    trace: list[str] = []
    after = do(state, 0, ActionSpace.GRAIN_HARVEST, Harvest(), trace)
    assert after.players[0].grain == 5
    assert after.supply.grain == supply_grain - 1
    assert "HARV-03" in trace


def test_harv03_is_traced_only_when_the_limit_cuts_the_yield() -> None:
    """HARV-03 in the rule trace: 3 grain + 2 reaches 5 exactly (the limit cuts nothing, no
    HARV-03); 4 + 2 is cut (HARV-03). A generated mutant (issue 25: `grain * amount > limit`)
    traced HARV-03 for the first with every state still right."""
    for grain, cut in ((3, False), (4, True), (0, False)):
        trace: list[str] = []
        after = do(give(bare(), 0, grain=grain), 0, ActionSpace.GRAIN_HARVEST, Harvest(), trace)
        assert after.players[0].grain == min(5, grain + 2)
        assert ("HARV-03" in trace) is cut, (grain, trace)


def test_harv03_amb03_b_the_payout_due_is_the_yield_up_to_the_farmyards_room() -> None:
    """HARV-03 with AMB-03 b (the supply must pay in full): the payout due is the yield cut
    to the room left (5 grain at most), so 1 grain in the supply pays a harvest onto 4 grain
    but not one onto an empty farmyard (yield 2). A generated mutant (issue 25: the room as
    `limit ** grain`) allowed and refused the wrong ones."""



    base = plain(variant=Variant(readings={"AMB-03": "b"}))
    for grain, allowed in ((4, True), (0, False), (3, False)):
        state = give(base, 0, grain=grain)
        state = _replace(state, supply=_replace(state.supply, grain=1))
        offered = legal_actions(acting(state, 0, ActionSpace.GRAIN_HARVEST))
        assert (Harvest() in offered) is allowed, (grain, offered)


def test_harv03_full_farmyard_may_still_harvest() -> None:
    """HARV-03 / AMB-02: with 5 grain the harvest is allowed and adds nothing."""
    state = give(bare(), 0, grain=5)
    assert Harvest() in legal_actions(acting(state, 0, ActionSpace.GRAIN_HARVEST))
    after = do(state, 0, ActionSpace.GRAIN_HARVEST, Harvest())
    assert after.players[0].grain == 5
    assert after.supply.grain == state.supply.grain
