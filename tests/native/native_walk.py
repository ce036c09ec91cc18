"""The breadth-first walk the native ties share: every distinct state of a shipped
configuration with the native core's game beside the reference's state, so that a tie
compares the two at every state or every edge (tests/native/test_native_events.py,
_transitions.py, _observation.py). Imported only by tests/native/ modules, which are
collected only where the core is built (tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from village_rules.engine.core import apply
from village_rules.explore.configs import configuration
from village_rules.explore.search import fingerprint, moves, roots
from village_rules.model.actions import Action, action_id
from village_rules.model.state import GameState
from village_rules.native import _core
from village_rules.native.engine import native_game

Step = Callable[[GameState, Action, _core.Game], tuple[GameState, _core.Game]]
"""Steps one edge: (state, action, the state's native game) -> the child's pair. It may
compare what it likes on the way; it must not step the game it is given (copy it)."""


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
    config = configuration(name)
    seen: set[int] = set()
    frontier = [(root.state, native_game(root.state)) for root in roots(config.data, config.player_counts[0])]
    while frontier:
        level: list[tuple[GameState, _core.Game]] = []
        for state, game in frontier:
            key = fingerprint(state)
            if key in seen:
                continue
            seen.add(key)
            yield state, game
            level.extend(step(state, action, game) for action, _ in moves(state))
        frontier = level
