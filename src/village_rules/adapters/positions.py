"""Where an adapted game stands, on either engine (issue 39, item 2): the reference's
`GameState`, or a game of the native core.

The OpenSpiel game and the PettingZoo environment step through a `Position`: who acts,
the legal ids, the chance outcomes (as the reference's actions with exact probabilities,
in the reference's order), the position after an action, the returns, and the observation
tensor and string. So the game tree's moves, chance, returns and observations come from the
chosen engine: on the native core the tensor is the core's own (`native_observation`,
tied to `observation_array` byte for byte) and the string its canonical JSON (byte for byte
the reference's). Only what reads the whole reference state (the invariant checker,
`render`, `VillageState.state`, the environment's `game_state`, the returns of a truncated
game) asks for `state`, which a native position decodes from the core's JSON once and
keeps. Both engines give the same histories, returns and observations;
tests/native/test_native_adapters.py plays them side by side.

Which engine: the adapters' `engine` parameter, `native` or `reference`; asking for the
native core where it is not built is a `ParameterError`, never a silent fall-back. Unset,
the adapters follow the rule of `fuzz` and `explore` (`drivers.engine_choice`): the native
core where it is built, the reference otherwise. The native core is the faster on every
line of benchmarks/bench_adapters.py (docs/native.md, "The adapters on the core": 3
players, random playouts about 2x without observations and 2x with a tensor at every
decision; the PettingZoo environment, which observes every step, about 2.5x).
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Protocol

import numpy as np

from village_rules.adapters.observation import check_observer, observation_string
from village_rules.adapters.observation_array import observation_array
from village_rules.adapters.truncation import truncated_returns
from village_rules.data.edition import EditionData
from village_rules.drivers import engine_choice
from village_rules.drivers.engine_choice import NATIVE
from village_rules.drivers.serialization import from_json, to_json
from village_rules.engine.core import apply, chance_outcomes, legal_actions
from village_rules.engine.scoring import ReturnsKind, returns
from village_rules.errors import InternalError, ParameterError
from village_rules.model.actions import Action, action_from_id, action_id
from village_rules.model.state import GameState

if TYPE_CHECKING:
    from village_rules.native import _core

__all__ = ["NativePosition", "Position", "ReferencePosition", "engine_named", "position_of"]


class Position(Protocol):
    """One node of a game on one engine; immutable (a move makes a new position)."""

    @property
    def is_chance(self) -> bool:
        """Whether a chance event is pending."""
        ...

    @property
    def is_terminal(self) -> bool:
        """Whether the game is over by the rules."""
        ...

    @property
    def state(self) -> GameState:
        """The reference's state of this node (for observations and checks)."""
        ...

    def current_player(self) -> int:
        """The seat to decide; negative at a chance event and at the end."""
        ...

    def legal_ids(self) -> list[int]:
        """The ids of the legal actions, ascending; empty at chance and at the end."""
        ...

    def outcomes(self) -> list[tuple[Action, Fraction]]:
        """The pending chance event's outcomes and exact probabilities, in the reference's order."""
        ...

    def after(self, action: Action) -> Position:
        """The position after `action` (a legal action or a chance outcome)."""
        ...

    def returns(self, kind: ReturnsKind) -> tuple[Fraction, ...]:
        """`engine.scoring.returns` of this node (zeros before the end)."""
        ...

    def truncated_returns(self, kind: ReturnsKind) -> tuple[Fraction, ...]:
        """What a game cut off at this node pays (`truncation.truncated_returns`)."""
        ...

    def to_json(self) -> str:
        """The node's state as the reference's canonical JSON."""
        ...

    def observation(self, observer: int) -> np.ndarray:
        """The observation tensor of the node as seat `observer` sees it: `observation_array`'s
        float32 array, the caller's own."""
        ...

    def observation_string(self, observer: int) -> str:
        """The observation string of the node (`observation.observation_string`: its JSON)."""
        ...


class ReferencePosition:
    """A position of the reference engine: its `GameState`."""

    __slots__ = ("state",)

    def __init__(self, state: GameState) -> None:
        self.state = state

    @property
    def is_chance(self) -> bool:  # noqa: D102
        return self.state.is_chance

    @property
    def is_terminal(self) -> bool:  # noqa: D102
        return self.state.is_terminal

    def current_player(self) -> int:  # noqa: D102
        return self.state.current_player()

    def legal_ids(self) -> list[int]:  # noqa: D102
        data = self.state.rules.data
        return sorted(action_id(data, a) for a in legal_actions(self.state))

    def outcomes(self) -> list[tuple[Action, Fraction]]:  # noqa: D102
        return chance_outcomes(self.state)

    def after(self, action: Action) -> ReferencePosition:  # noqa: D102
        return ReferencePosition(apply(self.state, action))

    def returns(self, kind: ReturnsKind) -> tuple[Fraction, ...]:  # noqa: D102
        return returns(self.state, kind)

    def truncated_returns(self, kind: ReturnsKind) -> tuple[Fraction, ...]:  # noqa: D102
        return truncated_returns(self.state, kind)

    def to_json(self) -> str:  # noqa: D102
        return to_json(self.state)

    def observation(self, observer: int) -> np.ndarray:  # noqa: D102
        return observation_array(self.state, observer)

    def observation_string(self, observer: int) -> str:  # noqa: D102
        return observation_string(self.state, observer)


class NativePosition:
    """A position of the native core: its game, never stepped in place (`after` steps a
    copy), with `seats` seats; the observation tensor and string are the core's own, and the
    reference's state is decoded from it only when asked for (`state`)."""

    __slots__ = ("_decoded", "data", "game", "seats")

    def __init__(
        self, game: _core.Game, data: EditionData, seats: int, state: GameState | None = None
    ) -> None:
        self.game = game
        self.data = data
        self.seats = seats
        self._decoded = state

    @property
    def state(self) -> GameState:  # noqa: D102
        if self._decoded is None:
            self._decoded = from_json(self.game.to_json())
        return self._decoded

    @property
    def is_chance(self) -> bool:  # noqa: D102
        return self.game.is_chance()

    @property
    def is_terminal(self) -> bool:  # noqa: D102
        return self.game.is_terminal()

    def current_player(self) -> int:  # noqa: D102
        return self.game.current_player()

    def legal_ids(self) -> list[int]:  # noqa: D102
        return sorted(self.game.legal())

    def outcomes(self) -> list[tuple[Action, Fraction]]:  # noqa: D102
        return [(action_from_id(self.data, i), Fraction(n, d)) for i, n, d in self.game.chance()]

    def after(self, action: Action) -> NativePosition:
        """The position after `action`, stepped on a copy of the core's game. An action the
        core refuses gets the reference's own error for it (`IllegalActionError`, naming the
        rule), as on the reference engine, and this position is unchanged."""
        from village_rules.native import IllegalIdError  # noqa: PLC0415 - the optional extension

        game = self.game.copy()
        try:
            game.apply(action_id(self.data, action))
        except IllegalIdError:
            apply(self.state, action)  # raises the reference's error for this action
            raise InternalError(
                "positions.NativePosition.after", f"the core refused {action}, which the reference applies"
            ) from None
        return NativePosition(game, self.data, self.seats)

    def returns(self, kind: ReturnsKind) -> tuple[Fraction, ...]:  # noqa: D102
        game = self.game
        if not game.is_terminal():
            return tuple(Fraction(0) for _ in range(self.seats))  # `returns` before the end
        if kind == "score":
            return tuple(Fraction(total) for total in game.scores())
        if kind != "win":
            raise ParameterError("kind", f"returns takes 'win' or 'score', not {kind!r}")
        best = game.winners()
        return tuple(Fraction(1, len(best)) if seat in best else Fraction(0) for seat in range(self.seats))

    def truncated_returns(self, kind: ReturnsKind) -> tuple[Fraction, ...]:  # noqa: D102
        return truncated_returns(self.state, kind)

    def to_json(self) -> str:  # noqa: D102
        return self.game.to_json()

    def observation(self, observer: int) -> np.ndarray:  # noqa: D102
        check_observer(observer, self.seats)
        return np.frombuffer(self.game.observation(observer), "<f4").astype(np.float32)

    def observation_string(self, observer: int) -> str:  # noqa: D102
        check_observer(observer, self.seats)
        return self.game.to_json()  # byte for byte the reference's to_json


def engine_named(engine: str | None) -> str:
    """The engine an adapter plays on: `engine`, or when None or "" the default of every
    tool (`engine_choice.choose`: the native core where it is built, else the reference);
    `ParameterError` naming the `engine` parameter for an unknown name or a native core this
    install lacks."""
    built = engine_choice.native_built()
    chosen, problem = engine_choice.choose(engine or None, built, reference="engine='reference'")
    if problem is not None:
        raise ParameterError("engine", problem)
    return chosen


def position_of(state: GameState, engine: str) -> Position:
    """The position of `state` on `engine` (a name `engine_named` gave)."""
    if engine != NATIVE:
        return ReferencePosition(state)
    # the optional extension, imported only for a native position
    from village_rules.adapters.native_observation import observation_tables  # noqa: PLC0415
    from village_rules.native import NativeEngine  # noqa: PLC0415

    native = NativeEngine()
    native.load_state(state)
    observation_tables(state.rules.data)  # the game's tables, with the tensor's data
    return NativePosition(native.game, state.rules.data, state.num_players, state)
