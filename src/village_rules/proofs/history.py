"""The path of a game so far, as the concrete predicates of the catalogue see it."""

from __future__ import annotations

from dataclasses import dataclass, field

from village_rules.actions import Action
from village_rules.components import InChronicle, InGraveyard, Removed
from village_rules.pending import ChooseTurn
from village_rules.state import GameState


@dataclass
class History:
    """`states[i + 1]` is `apply(states[i], actions[i])`; the last state is the current one."""

    states: list[GameState]
    actions: list[Action] = field(default_factory=list)

    @property
    def last(self) -> GameState:
        return self.states[-1]

    def push(self, action: Action, after: GameState) -> None:
        self.actions.append(action)
        self.states.append(after)


def dead(state: GameState, seat: int) -> int:
    return sum(
        1 for loc in state.players[seat].members if isinstance(loc, InChronicle | InGraveyard | Removed)
    )


def turn_start(history: History) -> int | None:
    """Index of the state where the current turn was chosen (the last `ChooseTurn` before now)."""
    for i in range(len(history.states) - 2, -1, -1):
        if isinstance(history.states[i].pending, ChooseTurn):
            return i
    return None
