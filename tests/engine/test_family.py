"""The family action space: a birth, calling a member home.

Rules checked: FAM-01..02 (2023 p. 6; 2011 "Family").
"""

from __future__ import annotations

import pytest
from support import bare_with_spare_cubes as bare
from support import count_at, do

from village_rules.data.components import (
    BLACK_BAG,
    FARMYARD,
    UNBORN,
    ActionSpace,
    AtCraft,
    Building,
    Category,
    InChronicle,
    Location,
    OnChurch,
    OnCouncil,
    Travelling,
)
from village_rules.drivers.scenario import (
    acting,
    place,
)
from village_rules.engine.core import legal_actions
from village_rules.errors import IllegalActionError
from village_rules.model.actions import (
    Birth,
    CallHome,
    Skip,
)


def test_fam01_p6_example_must_take_the_two() -> None:
    """FAM-01, 2023 p. 6 example: one "2", two "3"s and two "4"s left in the supply: the
    birth must bring the "2"."""
    state = bare()
    state = place(state, 0, 2, InChronicle(Category.FARMYARD))
    state = place(state, 0, 2, OnCouncil(1))
    unborn = [state.number_of(i) for i, loc in enumerate(state.players[0].members) if loc == UNBORN]
    assert unborn == [2, 3, 3, 4, 4]
    legal = legal_actions(acting(state, 0, ActionSpace.FAMILY))
    assert set(legal) == {Birth(), CallHome(OnCouncil(1), 2), Skip()}
    trace: list[str] = []
    after = do(state, 0, ActionSpace.FAMILY, Birth(), trace)
    assert trace[0] == "FAM-01"
    assert after.players[0].members[6] == FARMYARD  # the last "2"
    assert [after.number_of(i) for i, loc in enumerate(after.players[0].members) if loc == UNBORN] == [
        3,
        3,
        4,
        4,
    ]
    assert count_at(after, 0, FARMYARD) == 5


def test_fam01_no_birth_when_supply_is_empty() -> None:
    """FAM-01 / AMB-25: with no unborn member left, there is no birth."""
    state = bare()
    for n in (2, 2, 2, 3, 3, 4, 4):
        state = place(state, 0, n, InChronicle(Category.FARMYARD), source=UNBORN)
    with pytest.raises(IllegalActionError) as err:
        do(state, 0, ActionSpace.FAMILY, Birth())
    assert err.value.rule == "FAM-01"
    assert "unborn" in err.value.reason


@pytest.mark.parametrize(
    "location",
    [OnCouncil(2), OnChurch(3), AtCraft(Building.SMITHY), Travelling("__first_city__")],
)
def test_fam02_call_a_board_member_home(location: Location) -> None:
    """FAM-02 / AMB-24: any living member on the board can be called home to the farmyard."""
    state = bare()
    if isinstance(location, Travelling):
        location = Travelling(state.rules.data.cities[0].id)
    state = place(state, 0, 3, location)
    assert CallHome(location, 3) in legal_actions(acting(state, 0, ActionSpace.FAMILY))
    trace: list[str] = []
    after = do(state, 0, ActionSpace.FAMILY, CallHome(location, 3), trace)
    assert trace[0] == "FAM-02"
    assert after.players[0].members[7] == FARMYARD
    assert count_at(after, 0, location) == 0
    assert count_at(after, 0, UNBORN) == 6  # no birth


def test_fam02_bag_and_dead_members_cannot_be_called_home() -> None:
    """FAM-02: members in the black bag or in the chronicle are not on the board."""
    state = bare()
    state = place(state, 0, 1, BLACK_BAG)
    state = place(state, 0, 1, InChronicle(Category.CHURCH))
    legal = legal_actions(acting(state, 0, ActionSpace.FAMILY))
    assert set(legal) == {Birth(), Skip()}
    for where in (BLACK_BAG, InChronicle(Category.CHURCH)):
        with pytest.raises(IllegalActionError) as err:
            do(state, 0, ActionSpace.FAMILY, CallHome(where, 1))
        assert err.value.rule == "FAM-02"


def test_fam02_wrong_number_cannot_be_called_home() -> None:
    """FAM-02: the named member must be there."""
    state = place(bare(), 0, 1, OnCouncil(2))
    with pytest.raises(IllegalActionError) as err:
        do(state, 0, ActionSpace.FAMILY, CallHome(OnCouncil(2), 2))
    assert "numbered 2" in err.value.reason
