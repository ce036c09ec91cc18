"""Drivers: play a game with policies and a seeded RNG, and replay a logged game exactly.

A `GameLog` holds everything needed to reproduce a game in any process: the edition (or
the data file), the player count, the setup seed, the variant, and every action in the
text notation, chance outcomes included.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field

from village_rules.actions import Action, format_action, parse_action
from village_rules.chance import sample
from village_rules.engine.core import apply, chance_outcomes, legal_actions
from village_rules.errors import VillageError
from village_rules.loader import builtin_edition, load_edition
from village_rules.rules import Variant
from village_rules.setup import new_game
from village_rules.state import GameState

Policy = Callable[[GameState, Sequence[Action], random.Random], Action]
"""Chooses one of the legal actions of the seat to act."""


def random_policy(state: GameState, legal: Sequence[Action], rng: random.Random) -> Action:
    """Uniformly random among the legal actions."""
    return legal[rng.randrange(len(legal))]


class LogFormatError(VillageError, ValueError):
    """A game log file that cannot be read."""


@dataclass(frozen=True)
class GameLog:
    edition: str
    players: int
    seed: int
    actions: tuple[str, ...]
    variant: Variant = field(default_factory=Variant)
    data_file: str | None = None

    def initial_state(self) -> GameState:
        data = load_edition(self.data_file) if self.data_file else builtin_edition(self.edition)
        return new_game(data, self.players, self.seed, self.variant)

    def to_json(self) -> str:
        raw = asdict(self)
        raw["actions"] = list(self.actions)
        return json.dumps({"format": "village-rules-log", "format_version": 1, **raw}, indent=1)

    @staticmethod
    def from_json(text: str) -> GameLog:
        try:
            raw = json.loads(text)
            if raw.pop("format", None) != "village-rules-log" or raw.pop("format_version", None) != 1:
                raise LogFormatError("not a village-rules-log, version 1")
            variant = Variant(**raw.pop("variant"))
            return GameLog(variant=variant, actions=tuple(raw.pop("actions")), **raw)
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            if isinstance(exc, LogFormatError):
                raise
            raise LogFormatError(f"unreadable game log: {exc}") from None


def step(state: GameState, policies: Sequence[Policy], rng: random.Random) -> Action:
    """The next action: a chance outcome drawn with `rng`, or the acting seat's choice."""
    if state.is_chance:
        return sample(chance_outcomes(state), rng)
    return policies[state.current_player()](state, legal_actions(state), rng)


def play(
    state: GameState,
    policies: Sequence[Policy],
    rng: random.Random,
    max_steps: int = 1_000_000,
    on_step: Callable[[GameState, Action, GameState], None] | None = None,
) -> tuple[GameState, list[Action]]:
    """Play to the end (or `max_steps` actions); returns the final state and the actions."""
    actions: list[Action] = []
    while not state.is_terminal and len(actions) < max_steps:
        action = step(state, policies, rng)
        after = apply(state, action)
        if on_step is not None:
            on_step(state, action, after)
        actions.append(action)
        state = after
    return state, actions


def replay(initial: GameState, actions: Sequence[str | Action]) -> GameState:
    """Apply logged actions (text or values) in order; raises on the first illegal one."""
    state = initial
    for a in actions:
        state = apply(state, parse_action(a) if isinstance(a, str) else a)
    return state


def play_logged(
    edition: str, players: int, seed: int, variant: Variant | None = None, max_steps: int = 1_000_000
) -> tuple[GameState, GameLog]:
    """A seeded random game and its replayable log (setup and play use `seed`)."""
    v = variant or Variant()
    state = new_game(edition, players, seed, v)
    rng = random.Random(seed)
    final, actions = play(state, [random_policy] * players, rng, max_steps)
    return final, GameLog(edition, players, seed, tuple(format_action(a) for a in actions), v)
