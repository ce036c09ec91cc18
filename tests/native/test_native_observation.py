"""The native observation tensor (cpp/observation.cpp, `adapters.native_observation`) tied to
`observation_array`: the same float32 bytes for every observer (every seat, Carla's too) on
every state of the `tiny` and `solo` configurations, and on every state of seeded random
games of both editions and every player count (1: solo against Carla), with the readings and
starting compensation the fuzzer draws, so that some games play non-default readings. A
difference names the state (configuration and state, or game, seed and step) and each
segment of `layout` whose floats differ; a planted difference in the core is caught and named.

The native states are the core's own: each configuration's root loaded once and every child
a copy of its parent stepped by the action's id (as tests/native/test_native_transitions.py
walks them), each game stepped along by the same ids as the reference.

Needs NumPy (the adapters' extras) besides the native core: skipped without it, failed
instead under VILLAGE_REQUIRE_EXTRAS=1 (CI's extras lane) and VILLAGE_REQUIRE_NATIVE=1
(tests/conftest.py)."""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

import pytest
from native_walk import walk
from support import TINY_STATES

np = pytest.importorskip("numpy")

from village_rules.adapters.native_observation import (  # noqa: E402
    PLANTS,
    native_observation,
    observation_tables,
    segment_differences,
)
from village_rules.adapters.observation import layout  # noqa: E402
from village_rules.adapters.observation_array import observation_array  # noqa: E402
from village_rules.adapters.positions import NativePosition, position_of  # noqa: E402
from village_rules.data.loader import builtin_edition  # noqa: E402
from village_rules.engine.core import apply, chance_outcomes, legal_actions  # noqa: E402
from village_rules.engine.setup import new_game  # noqa: E402
from village_rules.errors import ParameterError  # noqa: E402
from village_rules.explore.configs import configuration  # noqa: E402
from village_rules.explore.search import roots  # noqa: E402
from village_rules.fuzz.games import FuzzGame, plan_game  # noqa: E402
from village_rules.model.actions import action_id  # noqa: E402
from village_rules.model.chance import sample  # noqa: E402
from village_rules.model.state import GameState  # noqa: E402
from village_rules.native import NotSupportedError, _core  # noqa: E402
from village_rules.native.engine import native_game  # noqa: E402
from village_rules.policies import policy_named  # noqa: E402
from village_rules.rules.register import reading  # noqa: E402


class ObservationTieError(AssertionError):
    """The core's tensor of a state differs from `observation_array`'s: the message names the
    state, the observer and every segment that differs."""


@dataclass
class Compared:
    """What a tie compared: states, and tensors (one per state and observer)."""

    states: int = 0
    tensors: int = 0


def reference_bytes(state: GameState, observer: int) -> bytes:
    """`observation_array`'s tensor as little-endian float32 bytes (the core's form)."""
    return observation_array(state, observer).astype("<f4").tobytes()


def tie_state(game: _core.Game, state: GameState, where: str, compared: Compared, plant: str = "") -> None:
    """The core's tensor of `game` (holding `state`) is `observation_array(state, observer)`'s,
    byte for byte, for every seat as observer; else `ObservationTieError` naming `where`, the
    observer and the segments that differ. `plant`: a difference planted in the core (`PLANTS`)."""
    data = state.rules.data
    players = 1 if state.is_solo else state.num_players
    for observer in range(state.num_players):
        native = native_observation(game, data, observer, plant)
        reference = reference_bytes(state, observer)
        if native != reference:
            differing = "; ".join(segment_differences(data, players, native, reference))
            raise ObservationTieError(f"{where}, observer {observer}: {differing}")
        compared.tensors += 1
    compared.states += 1


# --- every state of a configuration -------------------------------------------------------


def tie_every_state(name: str, plant: str = "") -> Compared:
    """Every state of the configuration's reachable graph at its first player count, breadth
    first from every set-up deal, one per fingerprint (as the explorer merges them)."""
    compared = Compared()
    for state, game in walk(name):
        tie_state(game, state, f"{name} state {compared.states}", compared, plant)
    return compared


def test_every_state_of_tiny_has_the_same_tensor_natively() -> None:
    compared = tie_every_state("tiny")
    print(f"tiny: {compared}")
    assert compared.states == TINY_STATES  # the explorer's pinned figure
    assert compared.tensors == 2 * TINY_STATES


def test_every_state_of_solo_has_the_same_tensor_natively() -> None:
    # one player against Carla: her board's segments, her seat as an observer too
    compared = tie_every_state("solo")
    print(f"solo: {compared}")
    assert compared.states == 23_644
    assert compared.tensors == 2 * 23_644


# --- seeded random games ------------------------------------------------------------------

SETUPS = (
    *(("original-2011", n) for n in (2, 3, 4)),
    *(("big-box-2023", n) for n in (1, 2, 3, 4, 5)),
)
"""Every edition and player count (solo: the 2023 edition's, against Carla)."""

GAMES = 48
"""Seeded games, six of each set-up."""


def fuzz_plan(index: int, seed: int = 0) -> FuzzGame:
    """Game `index`: the set-up of `SETUPS` in turn; its seed, readings and starting
    compensation drawn as `village-rules fuzz --seed S --edition E --players P` draws them."""
    edition, players = SETUPS[index % len(SETUPS)]
    return plan_game(seed, index, edition, players)


def non_default(plan: FuzzGame) -> bool:
    """Whether the game plays a reading other than its edition's default."""
    return any(letter != reading(amb).default(plan.edition) for amb, letter in plan.variant.choices)


def tie_game(plan: FuzzGame, compared: Compared, plant: str = "") -> None:
    """The fuzzer's game of `plan` (its random policy, chance drawn from `random.Random(plan.seed)`),
    every state tied, the set-up's first state to the end; the native game stepped along."""
    state = new_game(builtin_edition(plan.edition), plan.players, plan.seed, plan.variant)
    data, rng, policy = state.rules.data, random.Random(plan.seed), policy_named(plan.policy)
    game = native_game(state)
    setup = f"{plan.edition}, {plan.players} players, {plan.variant.choices}"
    where = f"game {plan.index} (seed {plan.seed}, {setup})"
    step = 0
    while True:
        tie_state(game, state, f"{where} step {step}", compared, plant)
        if state.is_terminal:
            return
        if state.is_chance:
            action = sample(chance_outcomes(state), rng)
        else:
            action = policy(state, legal_actions(state), rng)
        game.apply(action_id(data, action))
        state = apply(state, action)
        step += 1


def test_every_state_of_seeded_games_has_the_same_tensor_natively() -> None:
    compared = Compared()
    plans = [fuzz_plan(index) for index in range(GAMES)]
    for plan in plans:
        tie_game(plan, compared)
    off_default = sum(1 for plan in plans if non_default(plan))
    print(f"{GAMES} games ({off_default} with a reading other than the edition's default): {compared}")
    assert {(p.edition, p.players) for p in plans} == set(SETUPS)
    assert off_default >= GAMES // 2
    assert any(not p.variant.starting_compensation for p in plans)
    assert compared.states > 10_000


@pytest.mark.by_hand  # a larger budget of the test above (tests/README.md, "By hand")
@pytest.mark.slow
@pytest.mark.parametrize("seed", range(1, 4))
def test_more_seeded_games_have_the_same_tensor_natively(seed: int) -> None:
    compared = Compared()
    for index in range(4 * GAMES):
        tie_game(fuzz_plan(index, seed), compared)
    print(f"seed {seed}, {4 * GAMES} games: {compared}")


# --- the tie can fail, and says where -----------------------------------------------------


def test_a_planted_difference_in_the_core_is_caught_and_named() -> None:
    """The core's customer pile forgets its last tile: the tie fails at the first state,
    naming the game, the step, the observer and the segment."""
    (plant,) = PLANTS
    plan = fuzz_plan(1)
    with pytest.raises(ObservationTieError) as caught:
        tie_game(plan, Compared(), plant)
    message = str(caught.value)
    assert message.startswith(f"game 1 (seed {plan.seed}, original-2011, 3 players, "), message
    assert "step 0, observer 0: customer_pile[" in message and "native 0.0, reference 1.0" in message, message
    assert ";" not in message, "only the planted segment differs"


def test_segment_differences_names_every_segment_that_differs() -> None:
    """An altered Python tensor: two entries changed, in two segments of a solo layout."""
    state = new_game("big-box-2023", 1, 3)
    data = state.rules.data
    tensor = observation_array(state, 0).astype("<f4")
    by_name = {segment.name: segment for segment in layout(data, 1)}
    altered = tensor.copy()
    altered[by_name["p1_goods"].offset + 2] += 1.0
    altered[by_name["carla_owed"].offset] = 7.0
    assert segment_differences(data, 1, tensor.tobytes(), tensor.tobytes()) == []
    assert segment_differences(data, 1, altered.tobytes(), tensor.tobytes()) == [
        f"p1_goods[2]: native {float(tensor[by_name['p1_goods'].offset + 2]) + 1.0}, "
        f"reference {float(tensor[by_name['p1_goods'].offset + 2])}",
        f"carla_owed[0]: native 7.0, reference {float(tensor[by_name['carla_owed'].offset])}",
    ]
    assert segment_differences(data, 1, altered.tobytes()[:-4], tensor.tobytes()) == [
        f"the length: native {len(tensor) - 1} floats, reference {len(tensor)}"
    ]


# --- what the core refuses ----------------------------------------------------------------


def test_an_observer_that_is_not_a_seat_is_refused() -> None:
    state = new_game("original-2011", 2, 4)
    position = position_of(state, "native")
    assert isinstance(position, NativePosition)
    for observer in (-1, 2):
        with pytest.raises(ParameterError, match="observer"):
            position.observation(observer)
        with pytest.raises(ParameterError, match="observer"):
            position.observation_string(observer)
        with pytest.raises(ValueError, match=r"observer: must be a seat 0\.\.1"):
            position.game.observation(observer)
    with pytest.raises(ValueError, match="no observation plant named 'x'"):
        position.game.observation(0, "x")


def test_tables_without_the_observation_data_are_refused() -> None:
    """A game of tables `observation_tables` never saw: NotSupportedError, never a guess."""
    data = configuration("tiny").data
    copy = replace(data, fingerprint=f"{data.fingerprint}, a copy the observation never saw")
    state = roots(data, 2)[0].state
    state = replace(state, rules=replace(state.rules, data=copy))
    game = native_game(state)
    with pytest.raises(NotSupportedError, match="no observation data"):
        game.observation(0)
    assert observation_tables(copy).observes
    assert game.observation(0) == reference_bytes(state, 0)
