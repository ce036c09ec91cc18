"""The church action space: entering with a brown cube or three time.

Rules checked: CHU-01 (2023 p. 10; 2011 "Church").
"""

from __future__ import annotations

import pytest
from support import bare_with_spare_cubes as bare
from support import count_at, do

from village_rules.data.components import (
    BLACK_BAG,
    FARMYARD,
    ActionSpace,
    Cube,
    OnCouncil,
)
from village_rules.data.tally import Tally
from village_rules.drivers.scenario import (
    give,
    place,
)
from village_rules.engine.core import apply, legal_actions
from village_rules.errors import IllegalActionError
from village_rules.model.actions import (
    ChurchEnter,
    Pay,
)
from village_rules.model.pending import (
    ChoosePayment,
    ChooseTurn,
)

NONE: Tally[Cube] = Tally()


def test_chu01_p10_brown_or_three_time() -> None:
    """CHU-01, 2023 p. 10: a farmyard member into the black bag for 1 brown OR 3 time."""
    state = give(bare(), 0, cubes={Cube.BROWN: 1})
    asking = do(state, 0, ActionSpace.CHURCH, ChurchEnter(1))
    assert asking.pending == ChoosePayment(0, ChurchEnter(1))
    assert set(legal_actions(asking)) == {Pay(0, NONE), Pay(1, NONE)}

    trace: list[str] = []
    brown = apply(asking, Pay(0, NONE), trace)
    assert "CHU-01" in trace
    assert brown.players[0].members[0] == BLACK_BAG
    assert brown.players[0].cubes == NONE
    assert brown.players[0].lifetime == 0
    assert brown.supply.cubes[Cube.BROWN] == state.supply.cubes[Cube.BROWN] + 1

    time = apply(asking, Pay(1, NONE))
    assert time.players[0].members[0] == BLACK_BAG
    assert time.players[0].cubes == Tally.of({Cube.BROWN: 1})
    assert time.players[0].lifetime == 3


def test_chu01_without_brown_costs_three_time() -> None:
    """CHU-01: no brown cube and no coin: the only way is 3 time (applied at once)."""
    state = bare()
    after = do(state, 0, ActionSpace.CHURCH, ChurchEnter(1))
    assert after.players[0].members[0] == BLACK_BAG
    assert after.players[0].lifetime == 3
    assert count_at(after, 0, FARMYARD) == 3
    assert after.pending == ChooseTurn(1)


def test_chu01_coin_for_the_brown_cube() -> None:
    """CHU-01 / COIN-01: with 1 coin and no brown, the coin or 3 time."""
    state = give(bare(), 0, coins=1)
    asking = do(state, 0, ActionSpace.CHURCH, ChurchEnter(1))
    assert set(legal_actions(asking)) == {Pay(0, Tally.of({Cube.BROWN: 1})), Pay(1, NONE)}
    paid = apply(asking, Pay(0, Tally.of({Cube.BROWN: 1})))
    assert paid.players[0].coins == 0
    assert paid.players[0].lifetime == 0
    assert paid.players[0].members[0] == BLACK_BAG


def test_chu01_needs_a_farmyard_member() -> None:
    """CHU-01: only a farmyard member can enter the black bag."""
    state = place(bare(), 0, 2, OnCouncil(1))
    with pytest.raises(IllegalActionError) as err:
        do(state, 0, ActionSpace.CHURCH, ChurchEnter(2))
    assert err.value.rule == "CHU-01"
    assert "farmyard" in err.value.reason
