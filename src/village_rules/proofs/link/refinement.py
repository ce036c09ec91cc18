"""Stage: link (the counts model; Hypothesis machines for both models).

The refinement check: the engine never takes a step the z3 model does not allow.

For a transition (before, action, after) of the real engine, the pair of abstract states
(alpha(before), alpha(after)) must satisfy the transition relation T of `model.py`. The
check runs on every step of the fuzzer's random games (`play` with `on_step`) and of the
Hypothesis machine (`RefinementMachine`); if the engine and the model ever disagree, the
"unreachable" verdicts built on the model would be worthless, so this is a test, not a
belief.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass, replace

from hypothesis import strategies as st

from village_rules.drivers.play import EndlessGameError, play, play_logged, random_policy
from village_rules.engine.core import apply_steps
from village_rules.engine.events import SubStep
from village_rules.engine.setup import new_game
from village_rules.errors import ParameterError
from village_rules.model.actions import Action, format_action
from village_rules.model.state import GameState
from village_rules.proofs.link.link import check_step as check_content_step
from village_rules.proofs.model.abstraction import AbstractState, abstract
from village_rules.proofs.model.content import content_vars
from village_rules.proofs.model.model import Constants, broken_clauses, broken_initial
from village_rules.rules.variant import Variant
from village_rules.testing.machine import VillageMachine
from village_rules.testing.strategies import GameSetup, game_setups


@dataclass(frozen=True, slots=True)
class Mismatch:
    """A step of the engine outside the model: which clauses it breaks, and where."""

    edition: str
    players: int
    seed: int
    step: int
    action: str
    clauses: tuple[str, ...]

    def __str__(self) -> str:
        return (
            f"{self.edition}, {self.players} players, seed {self.seed}, action {self.step} "
            f"({self.action}): the model's clauses {', '.join(map(repr, self.clauses))} do not hold"
        )


class RefinementError(AssertionError):
    """The engine took a step the z3 transition relation does not allow."""


def check_step(before: GameState, action: Action, after: GameState) -> list[str]:
    """The clauses of T that (alpha(before), alpha(after)) breaks; empty when it refines."""
    k = Constants.of(before.rules.data, before.num_players)
    return broken_clauses(abstract(before), abstract(after), k)


def check_game(edition: str, players: int, seed: int, max_steps: int | None = None) -> list[Mismatch]:
    """Play one seeded random game (the fuzzer's policy) and check every step against T: to
    its end (`EndlessGameError` with its log past `drivers.play.MAX_GAME_STEPS`), or its
    first `max_steps` actions. T has no Carla: a solo game (1 player) is refused with a
    `ParameterError`."""
    if players == 1:
        raise ParameterError("players", "the z3 model has no Carla: the refinement check is for 2 or more")
    state = new_game(edition, players, seed)
    k = Constants.of(state.rules.data, players)
    out: list[Mismatch] = []
    first = broken_initial(abstract(state), k)
    if first:
        out.append(Mismatch(edition, players, seed, 0, "new_game", tuple(first)))
    last: list[AbstractState] = [abstract(state)]
    count = [0]

    def on_step(before: GameState, action: Action, after: GameState) -> None:
        count[0] += 1
        for sub in apply_steps(before, action):  # every sub-step a step of T
            a = abstract(sub.after)
            broken = broken_clauses(last[0], a, k)
            if broken:
                out.append(Mismatch(edition, players, seed, count[0], _named(action, sub), tuple(broken)))
            last[0] = a

    try:
        play(state, [random_policy] * players, random.Random(seed), max_steps, on_step)
    except EndlessGameError as endless:
        raise endless.with_log(play_logged(edition, players, seed, max_steps=endless.steps)[1]) from None
    return out


def check_games(games: Iterable[tuple[str, int, int]], max_steps: int | None = None) -> list[Mismatch]:
    """The refinement mismatches of several seeded games (edition, players, seed)."""
    out: list[Mismatch] = []
    for edition, players, seed in games:
        out += check_game(edition, players, seed, max_steps)
    return out


class RefinementMachine(VillageMachine):
    """The Hypothesis machine, with every transition it takes also checked against T.

    T models each edition's default readings (e.g. AMB-12 a: the end needs the whole
    chronicle full), so this machine plays the defaults; the plain `VillageMachine` draws
    the other readings. T has no Carla, so the machine plays no solo games (issue 10)."""

    def setup_strategy(self) -> st.SearchStrategy[GameSetup]:
        """Set-ups with the default readings and 2-5 players (the ones the abstract model
        covers: it has no Carla)."""
        return (
            game_setups()
            .filter(lambda s: s.players > 1)
            .map(lambda s: replace(s, variant=Variant(s.variant.starting_compensation)))
        )

    def apply_action(self, state: GameState, action: Action, trace: list[str] | None = None) -> GameState:
        """Apply the action and check that every sub-step of the step (`engine.events`: the
        decision, then each decision the engine took itself) refines the abstract model."""
        steps = apply_steps(state, action, trace)
        for sub in steps:
            broken = check_step(sub.before, sub.action, sub.after)
            if broken:
                raise RefinementError(
                    f"{_named(action, sub)}: the engine step breaks the model's clauses {', '.join(broken)}"
                )
        return steps[-1].after


class ContentRefinementMachine(RefinementMachine):
    """The Hypothesis machine checking every transition against the rule-content model
    (`guarded.py`, through `link.check_step`): the step clause of the action's kind, the
    counts clauses and the state clauses. Hypothesis draws the actions, so its games follow
    no uniform policy (it shrinks towards the first legal actions and explores rare ones).
    It keeps alpha_c of the last state it reached, so each step is checked with the turn's
    path variables (the first step of a game without them)."""

    _path: tuple[GameState, dict[str, int]] | None = None

    def apply_action(self, state: GameState, action: Action, trace: list[str] | None = None) -> GameState:
        """Apply the action and check that every sub-step of the step refines the
        rule-content model, with the turn's path variables carried from sub-step to sub-step."""
        steps = apply_steps(state, action, trace)
        known = self._path
        before_vars = known[1] if known is not None and known[0] is state else None
        for sub in steps:
            broken = check_content_step(sub.before, sub.action, sub.after, before_vars)
            start = before_vars if before_vars is not None else content_vars(sub.before)
            before_vars = content_vars(sub.after, start)
            if broken:
                raise RefinementError(
                    f"{_named(action, sub)}: the engine step breaks the rule-content clauses "
                    f"{', '.join(broken)}"
                )
        self._path = (steps[-1].after, before_vars) if before_vars is not None else None
        return steps[-1].after


def _named(action: Action, sub: SubStep) -> str:
    """The step's action, and the forced decision within it that broke a clause."""
    text = format_action(action)
    return text if not sub.forced else f"{text}, then the forced {format_action(sub.action)}"
