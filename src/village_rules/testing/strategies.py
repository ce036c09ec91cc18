"""Hypothesis strategies for games of Village: editions, player counts, set-ups, states
reached by legal play, and the legal (or illegal) actions of a state.

Play is driven by Hypothesis' own choices (`sampled_from` over the legal actions or the
chance outcomes), so a failing example shrinks to the shortest sequence of actions.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from hypothesis import strategies as st

from village_rules.data.loader import EDITIONS, builtin_edition
from village_rules.drivers.play import EndlessGameError, GameLog, game_bound, random_policy, step
from village_rules.engine.core import apply, chance_outcomes, legal_actions
from village_rules.engine.setup import new_game
from village_rules.model.actions import Action, action_universe, format_action
from village_rules.model.state import GameState
from village_rules.rules.register import READINGS
from village_rules.rules.variant import Variant

MAX_SEED = 2**32 - 1


@dataclass(frozen=True, slots=True)
class GameSetup:
    """Everything `new_game` needs: a drawn set-up that can be printed and replayed."""

    edition: str
    players: int
    seed: int
    variant: Variant = field(default_factory=Variant)

    def new_game(self) -> GameState:
        """The set-up's new game."""
        return new_game(builtin_edition(self.edition), self.players, self.seed, self.variant)

    def log(self, actions: Sequence[Action | str]) -> GameLog:
        """The replayable log of `actions` played from this set-up."""
        texts = tuple(a if isinstance(a, str) else format_action(a) for a in actions)
        return GameLog(self.edition, self.players, self.seed, texts, self.variant)


@dataclass(frozen=True, slots=True)
class GameRun:
    """A game played from `setup`: `states[0]` is the set-up, `states[i + 1]` follows
    `actions[i]`."""

    setup: GameSetup
    actions: tuple[Action, ...]
    states: tuple[GameState, ...]

    @property
    def final(self) -> GameState:
        """The last state of the run."""
        return self.states[-1]

    def log(self) -> GameLog:
        """The run as a replayable game log."""
        return self.setup.log(self.actions)


def editions() -> st.SearchStrategy[str]:
    """The built-in editions ("big-box-2023", "original-2011")."""
    return st.sampled_from(EDITIONS)


def player_counts(edition: str) -> st.SearchStrategy[int]:
    """The player counts the edition is for, 1 (the 2023 solo mode) included (shrinks
    towards the fewest)."""
    return st.sampled_from(builtin_edition(edition).playable_counts)


def reading_choices() -> st.SearchStrategy[tuple[tuple[str, str], ...]]:
    """Explicit AMB choices (`village_rules.rules.register`): each entry keeps its edition
    default or gets one of its letters; shrinks towards no choice at all."""
    per_entry = [st.one_of(st.none(), st.sampled_from(entry.letter_names)) for entry in READINGS]

    def chosen(picks: tuple[str | None, ...]) -> tuple[tuple[str, str], ...]:
        return tuple((e.amb, x) for e, x in zip(READINGS, picks, strict=True) if x is not None)

    return st.tuples(*per_entry).map(chosen)


def variants() -> st.SearchStrategy[Variant]:
    """Every combination of the selectable readings (shrinks towards the defaults)."""
    return st.builds(
        Variant,
        starting_compensation=st.booleans().map(lambda b: not b),
        readings=reading_choices(),
    )


def seeds() -> st.SearchStrategy[int]:
    """Seeds for new games."""
    return st.integers(0, MAX_SEED)


@st.composite
def game_setups(
    draw: st.DrawFn,
    edition: str | None = None,
    players: int | None = None,
    variant: Variant | None = None,
) -> GameSetup:
    """Set-up parameters: edition, player count, seed, variant (any not fixed is drawn)."""
    ed = edition if edition is not None else draw(editions())
    n = players if players is not None else draw(player_counts(ed))
    seed = draw(seeds())
    v = variant if variant is not None else draw(variants())
    return GameSetup(ed, n, seed, v)


def setups(
    edition: str | None = None, players: int | None = None, variant: Variant | None = None
) -> st.SearchStrategy[GameState]:
    """Freshly set-up games (`new_game` of a drawn edition, player count, seed, variant)."""
    return game_setups(edition, players, variant).map(GameSetup.new_game)


def next_actions(state: GameState) -> list[Action]:
    """What can happen next: the chance outcomes at a chance node, else the legal actions."""
    if state.is_chance:
        return [a for a, _ in chance_outcomes(state)]
    return legal_actions(state)


def legal_actions_of(state: GameState) -> st.SearchStrategy[Action]:
    """One of the state's legal actions (or chance outcomes); nothing at the end."""
    options = next_actions(state)
    return st.sampled_from(options) if options else st.nothing()


def illegal_actions_of(state: GameState) -> st.SearchStrategy[Action]:
    """An action of the edition's action universe that `apply` must reject here."""
    allowed = set(next_actions(state))
    illegal = [a for a in action_universe(state.rules.data) if a not in allowed]
    return st.sampled_from(illegal) if illegal else st.nothing()


@st.composite
def game_runs(
    draw: st.DrawFn,
    max_steps: int = 120,
    random_prefix: int = 0,
    setup: st.SearchStrategy[GameSetup] | None = None,
) -> GameRun:
    """A game played from a drawn set-up: first up to `random_prefix` actions of a seeded
    random game (to reach late positions cheaply), then up to `max_steps` actions chosen
    by Hypothesis among the legal ones. Stops early at the end of the game."""
    s = draw(setup if setup is not None else game_setups())
    state = s.new_game()
    states = [state]
    actions: list[Action] = []
    if random_prefix:
        prefix = draw(st.integers(0, random_prefix), label="random prefix length")
        rng = random.Random(draw(seeds(), label="random prefix seed"))
        policies = [random_policy] * state.num_players
        for _ in range(prefix):
            if state.is_terminal:
                break
            action = step(state, policies, rng)
            state = apply(state, action)
            actions.append(action)
            states.append(state)
    steps = draw(st.integers(0, max_steps), label="steps")
    for _ in range(steps):
        if state.is_terminal:
            break
        action = draw(st.sampled_from(next_actions(state)))
        state = apply(state, action)
        actions.append(action)
        states.append(state)
    return GameRun(s, tuple(actions), tuple(states))


def reachable_states(
    max_steps: int = 120,
    random_prefix: int = 0,
    setup: st.SearchStrategy[GameSetup] | None = None,
) -> st.SearchStrategy[GameState]:
    """States reached by legal play (see `game_runs`)."""
    return game_runs(max_steps, random_prefix, setup).map(lambda run: run.final)


@st.composite
def finished_games(draw: st.DrawFn, setup: st.SearchStrategy[GameSetup] | None = None) -> GameRun:
    """A whole seeded random game, set-up to the end (about 0.2-1 s each)."""
    s = draw(setup if setup is not None else game_setups())
    rng = random.Random(draw(seeds(), label="policy seed"))
    state = s.new_game()
    states = [state]
    actions: list[Action] = []
    policies = [random_policy] * state.num_players
    bound = game_bound(None)
    while not state.is_terminal:
        if len(actions) >= bound:  # reported with its log, not played for ever
            raise EndlessGameError(bound, actions, s.log(actions))
        action = step(state, policies, rng)
        state = apply(state, action)
        actions.append(action)
        states.append(state)
    return GameRun(s, tuple(actions), tuple(states))
