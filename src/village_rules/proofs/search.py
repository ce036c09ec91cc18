"""Witness concretisation: a guided search on the real engine.

The solver's abstract path says *what* must happen (which counters must move); this search
makes the engine do it. Each attempt sets up a real game with `new_game` and plays it with
a steering policy: every decision and every chance outcome (a witness may choose any
outcome with non-zero probability) is scored by the query's `Steer`, the best one is taken
(a little randomness keeps attempts apart), and after every step the query's concrete
predicate is evaluated on the real states. Only when it holds is there a witness.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from village_rules.drivers.play import GameLog
from village_rules.engine.core import apply, chance_outcomes, legal_actions
from village_rules.engine.setup import new_game
from village_rules.model.actions import Action, format_action
from village_rules.model.state import GameState
from village_rules.proofs.history import History
from village_rules.rules.variant import Variant

Scorer = Callable[[GameState, Action], float]
"""Higher is preferred. Called for decisions and for chance outcomes alike."""
ConcretePredicate = Callable[[History], bool]
"""The query's predicate on the real game path (usually on its last state or step)."""


def uniform_scorer(state: GameState, action: Action) -> float:
    """A scorer that prefers no action (every action scores 0)."""
    return 0.0


@dataclass(frozen=True)
class Steer:
    """How the search steers: a scorer, how often it picks at random instead, how many
    actions one attempt plays at most, and whether it starts new attempts on new seeds."""

    scorer: Scorer = uniform_scorer
    randomness: float = 0.3
    max_actions: int = 4000


@dataclass(frozen=True, slots=True)
class Witness:
    """A game the search found that reaches a query's target: its log and history."""
    log: GameLog
    attempts: int
    history: History

    @property
    def final(self) -> GameState:
        """The state the witness ends in."""
        return self.history.last


def _choose(state: GameState, options: Sequence[Action], steer: Steer, rng: random.Random) -> Action:
    if rng.random() < steer.randomness:
        return options[rng.randrange(len(options))]
    scored = [(steer.scorer(state, a), rng.random(), i) for i, a in enumerate(options)]
    return options[max(scored)[2]]


def attempt(
    edition: str,
    players: int,
    seed: int,
    steer: Steer,
    goal: ConcretePredicate,
    *,
    variant: Variant | None = None,
    deadline: float | None = None,
) -> History | None:
    """One steered game from a real set-up; the history up to the first state meeting `goal`
    (None if the game ends, `steer.max_actions` are played or `deadline` passes first)."""
    rng = random.Random(seed)
    history = History([new_game(edition, players, seed, variant or Variant())])
    while len(history.actions) < steer.max_actions:
        if deadline is not None and len(history.actions) % 256 == 0 and time.perf_counter() > deadline:
            return None
        state = history.last
        if state.is_terminal:
            return None
        chance = state.is_chance
        options = [a for a, p in chance_outcomes(state) if p > 0] if chance else legal_actions(state)
        action = _choose(state, options, steer, rng)
        history.push(action, apply(state, action))
        if goal(history):
            return history
    return None


def search(
    edition: str,
    players: int,
    steer: Steer,
    goal: ConcretePredicate,
    seconds: float,
    *,
    first_seed: int = 0,
    max_attempts: int = 10_000,
    finish_first: bool = False,
) -> tuple[Witness | None, int]:
    """Steered attempts on seeds first_seed, first_seed + 1, ... until a witness or the time
    budget runs out; returns the witness (or None) and the number of attempts made. Every
    attempt stops at the deadline, except the first one with `finish_first` (the seed of a
    stored witness, which should be replayed to its end whatever the budget)."""
    deadline = time.perf_counter() + seconds
    tried = 0
    for seed in range(first_seed, first_seed + max_attempts):
        if tried and time.perf_counter() > deadline:
            break
        tried += 1
        history = attempt(
            edition, players, seed, steer, goal, deadline=None if finish_first and tried == 1 else deadline
        )
        if history is not None:
            log = GameLog(edition, players, seed, tuple(format_action(a) for a in history.actions), Variant())
            return Witness(log, tried, history), tried
    return None, tried
