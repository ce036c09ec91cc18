"""`frozen_build.fast_constructor`: the builder twin gives exactly the frozen instance the
dataclass's own constructor gives (type, value, hash, pickle, refused mutation)."""

from __future__ import annotations

import dataclasses
import pickle
from dataclasses import dataclass, field

import pytest

from village_rules import new_game
from village_rules.data.tally import Tally
from village_rules.model.evolve import replace
from village_rules.model.frozen_build import fast_constructor, replace_function
from village_rules.model.state import GameState, MarketDay, PlayerState, Supply


def _init_values(obj: object) -> list[object]:
    return [getattr(obj, f.name) for f in dataclasses.fields(obj) if f.init]  # type: ignore[arg-type]


@pytest.mark.parametrize("players", [1, 2, 5])
def test_fast_state_is_the_constructors_state(players: int) -> None:
    state = new_game("big-box-2023", players, seed=3)
    object.__setattr__(state, "legal_cache", ())  # a filled cache must not be carried over
    built = fast_constructor(GameState)(*_init_values(state))
    assert type(built) is GameState
    assert built == state and hash(built) == hash(state)
    assert built.legal_cache is None  # the init=False field gets its default
    assert pickle.loads(pickle.dumps(built)) == state
    with pytest.raises(dataclasses.FrozenInstanceError):
        built.round = 2  # type: ignore[misc]


@pytest.mark.parametrize("cls", [PlayerState, Supply])
def test_fast_parts_are_the_constructors_parts(cls: type[PlayerState] | type[Supply]) -> None:
    state = new_game("original-2011", 3, seed=1)
    part: PlayerState | Supply = state.players[2] if cls is PlayerState else state.supply
    built = fast_constructor(cls)(*_init_values(part))
    assert type(built) is cls and built == part and hash(built) == hash(part)
    assert repr(built) == repr(part)


def test_defaults_are_not_shared_wrongly() -> None:
    day = MarketDay(trigger=0, current=1, passed=(0,), trigger_sold=False)
    built = fast_constructor(MarketDay)(0, 1, (0,), False, 0, False, False)
    assert built == day and repr(built) == repr(day)


def test_refuses_classes_it_cannot_build_faithfully() -> None:
    @dataclass(frozen=True, slots=True)
    class Checked:
        n: int

        def __post_init__(self) -> None:
            if self.n < 0:
                raise ValueError("negative")

    @dataclass(frozen=True)
    class NoSlots:
        n: int

    @dataclass(frozen=True, slots=True)
    class Factory:
        items: list[int] = field(default_factory=list, init=False)

    with pytest.raises(TypeError, match="layout"):
        fast_constructor(Tally)  # its Generic base gives it another layout
    with pytest.raises(TypeError, match="__post_init__"):
        fast_constructor(Checked)  # would skip the validation
    with pytest.raises(TypeError, match="slot"):
        fast_constructor(NoSlots)
    with pytest.raises(TypeError, match="plain default"):
        fast_constructor(Factory)


@pytest.mark.parametrize(
    "changes",
    [{}, {"round": 4}, {"turn": None, "round": 2, "start_player": 1}, {"start_player": 1, "round": 2}],
)
def test_fast_replace_is_dataclasses_replace(changes: dict[str, object]) -> None:
    state = new_game("big-box-2023", 3, seed=5)
    object.__setattr__(state, "legal_cache", ())
    function = replace_function(GameState, tuple(changes))
    assert function is not None
    fast = function(state, changes)
    slow = dataclasses.replace(state, **changes)  # type: ignore[arg-type]
    assert fast is not None and type(fast) is GameState
    assert fast == slow and fast is not state and fast.legal_cache is None
    assert [getattr(fast, f.name) for f in dataclasses.fields(GameState)] == [
        getattr(slow, f.name) for f in dataclasses.fields(GameState)
    ]


def test_fast_replace_leaves_unknown_names_to_dataclasses_replace() -> None:
    state = new_game("original-2011", 2, seed=5)
    assert replace_function(GameState, ("rounds",)) is None
    assert replace_function(GameState, ("legal_cache",)) is None  # not a constructor field
    with pytest.raises(TypeError):
        replace(state, rounds=3)  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="legal_cache"):
        replace(state, legal_cache=())
