"""The breadth-first walk the native ties share: every distinct state of a shipped
configuration with the native core's game beside the reference's state, so that a tie
compares the two at every state or every edge (tests/native/test_native_events.py,
_transitions.py, _observation.py, _predicates.py). Imported only by tests/native/ modules, which are
collected only where the core is built (tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TypeVar

from village_rules.engine.core import apply
from village_rules.explore.configs import configuration
from village_rules.explore.search import fingerprint, moves, roots
from village_rules.model.actions import Action, action_id
from village_rules.model.state import GameState
from village_rules.native import _core
from village_rules.native.engine import native_game
from village_rules.rules.variant import Variant

Step = Callable[[GameState, Action, _core.Game], tuple[GameState, _core.Game]]
"""Steps one edge: (state, action, the state's native game) -> the child's pair. It may
compare what it likes on the way; it must not step the game it is given (copy it)."""

T = TypeVar("T")

CarryingStep = Callable[[GameState, Action, _core.Game, T], tuple[GameState, _core.Game, T]]
"""`Step` with a value carried along the path (a monitor's value, say): (state, action, the
state's native game, the state's value) -> the child's triple."""


def copy_and_apply(state: GameState, action: Action, game: _core.Game) -> tuple[GameState, _core.Game]:
    """The plain step: the reference's `apply`, and a copy of the native game stepped by the id."""
    child = game.copy()
    child.apply(action_id(state.rules.data, action))
    return apply(state, action), child


def walk(name: str, step: Step = copy_and_apply) -> Iterator[tuple[GameState, _core.Game]]:
    """Every state of the configuration's reachable graph at its first player count, breadth
    first from every set-up deal, one per fingerprint (as the explorer merges them), with its
    native game. Each is yielded before its out-edges (every decision and chance outcome,
    `search.moves`) are stepped by `step`."""

    def carried(
        state: GameState, action: Action, game: _core.Game, value: None
    ) -> tuple[GameState, _core.Game, None]:
        return (*step(state, action, game), None)

    for state, game, _ in walk_carrying(name, carried, None):
        yield state, game


def walk_carrying(
    name: str, step: CarryingStep[T], start: T, variant: Variant | None = None
) -> Iterator[tuple[GameState, _core.Game, T]]:
    """`walk`, with a value carried from each root (`start`) along the edges by `step`: a
    state merged with one met before keeps the value of the path that met it first (the
    breadth-first tree's). `variant`: the readings the configuration is played by (default:
    its edition's own)."""
    config = configuration(name)
    seen: set[int] = set()
    starts = roots(config.data, config.player_counts[0], variant)
    frontier = [(root.state, native_game(root.state), start) for root in starts]
    while frontier:
        level: list[tuple[GameState, _core.Game, T]] = []
        for state, game, value in frontier:
            key = fingerprint(state)
            if key in seen:
                continue
            seen.add(key)
            yield state, game, value
            level.extend(step(state, action, game, value) for action, _ in moves(state))
        frontier = level
