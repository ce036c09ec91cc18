"""Stage: search (the steered witness search).

Witness concretisation: a guided search on the real engine.

The solver's abstract path says *what* must happen (which counters must move); this search
makes the engine do it. Each attempt sets up a real game with `new_game` and plays it with
a steering policy: every decision and every chance outcome (a witness may choose any
outcome with non-zero probability) is scored by the query's `Steer`, the best one is taken
(a little randomness keeps attempts apart), and after every step the query's concrete
predicate is evaluated on the real states. Only when it holds is there a witness.

The budget is a number of seeded games (each at most `Steer.max_actions` actions), never a
time: the same query, seeds and budget give the same witness, or none, on any machine.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from village_rules.drivers.play import GameLog
from village_rules.engine.core import apply, chance_outcomes, legal_actions
from village_rules.engine.setup import new_game
from village_rules.model.actions import Action, format_action
from village_rules.model.state import GameState
from village_rules.proofs.search.history import History
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
        """The state the witness's log ends in: after the whole step of its last action (the
        history may stop at the sub-step inside it where the query holds)."""
        h = self.history
        if not h.actions:
            return h.last
        last = max(i for i, forced in enumerate(h.forced) if not forced)
        return apply(h.states[last], h.actions[last])


def options(state: GameState) -> list[Action]:
    """The options at `state`: its legal actions, or its chance outcomes of non-zero
    probability (a witness may take any of them)."""
    if state.is_chance:
        return [a for a, p in chance_outcomes(state) if p > 0]
    return legal_actions(state)


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
) -> History | None:
    """One steered game from a real set-up; the history up to the first state meeting `goal`
    (None if the game ends or `steer.max_actions` are played first)."""
    return _play(edition, players, seed, steer, goal, variant=variant)[0]


def _play(
    edition: str, players: int, seed: int, steer: Steer, goal: ConcretePredicate, *, variant: Variant | None
) -> tuple[History | None, int]:
    """`attempt`, and the number of actions it played."""
    rng = random.Random(seed)
    history = History([new_game(edition, players, seed, variant or Variant())])
    while history.step_count < steer.max_actions:
        state = history.last
        if state.is_terminal:
            break
        action = _choose(state, options(state), steer, rng)
        if history.play(action, goal):  # judged after every sub-step of the step
            return history, history.step_count
    return None, history.step_count


def search_steps(
    edition: str,
    players: int,
    steer: Steer,
    goal: ConcretePredicate,
    steps: int,
    *,
    variant: Variant | None = None,
) -> tuple[Witness | None, int, int]:
    """Steered games on seeds 0, 1, ... until one meets `goal` or `steps` engine steps are
    played in all (each game at most the steps left, and at most `steer.max_actions`): the
    witness (or None), the games played and the steps played. The budget of a search that
    keeps no games apart (the archive steer's runs) in the same unit, for comparing them."""
    left, seed = steps, 0
    while left > 0:
        limit = Steer(steer.scorer, steer.randomness, min(steer.max_actions, left))
        history, played = _play(edition, players, seed, limit, goal, variant=variant)
        seed += 1
        if history is not None:
            log = GameLog(edition, players, seed - 1, tuple(format_action(a) for a in history.decisions),
                          variant or Variant())
            return Witness(log, seed, history), seed, steps - left + played
        left -= max(played, 1)
    return None, seed, steps


SHORTEN_GAMES = 200
"""Seeded games `prove` plays after the first witness, each cut one action below the
shortest witness so far, to store the shortest it finds (issue 41: witnesses a person can
read). A game cut short is cheap, so they cost less than the search that found the first."""


def search(
    edition: str,
    players: int,
    steer: Steer,
    goal: ConcretePredicate,
    games: int,
    *,
    first_seed: int = 0,
    hint: int | None = None,
    variant: Variant | None = None,
    shorten: int = 0,
) -> tuple[Witness | None, int]:
    """Steered games on seed `hint` (a stored witness's seed, when given), then on seeds
    first_seed, first_seed + 1, ... (`games` of them, the hint skipped), until one meets
    `goal`, all played by `variant` (default: each edition's own readings). With `shorten`,
    the next `shorten` seeds of that order are played too, each game stopped one action
    before the shortest witness so far, and the shortest witness is kept (the first found
    among equals). Returns the witness (or None) and the number of games played.

    Deterministic, and reproducible from the stored seed: a second search given the kept
    witness's seed as `hint` plays it first, then seeds that the first search played too
    (`first_seed` onwards, at most as many as it did), so it keeps the same witness."""
    rules = variant or Variant()
    order = [] if hint is None else [hint]
    order += [s for s in range(first_seed, first_seed + games + shorten + 1) if s != hint]
    best: tuple[History, int, int] | None = None
    tried, stop = 0, games
    for seed in order:
        if tried >= stop:
            break
        tried += 1
        limit = steer if best is None else Steer(steer.scorer, steer.randomness, best[0].step_count - 1)
        if limit.max_actions <= 0:
            break
        history = attempt(edition, players, seed, limit, goal, variant=rules)
        if history is None:
            continue
        if best is None:
            stop = tried + shorten
        best = (history, seed, tried)
    if best is None:
        return None, tried
    history, seed, found_at = best
    log = GameLog(edition, players, seed, tuple(format_action(a) for a in history.decisions), rules)
    return Witness(log, found_at, history), tried
