"""The conformance runner: play every input on the reference and the implementation under
test side by side and compare them at every step (`compare`); on the first difference,
shrink the game (`shrink`), say what differs and which rules the reference applied there,
and keep the game as a replayable `village-rules-log`.

A step is compared before every action and after the last: the seat to act or the end, the
legal ids in order, the chance outcomes and their exact probabilities, the state's canonical
JSON, the scores. The choices come from the reference's answers (a seeded generator, a
golden game's generator, or a stored log's actions), so both engines are given the same
action ids. An implementation that crashes, hangs, answers garbage or raises is a verdict
(`FAILED`) naming the step, never a traceback.
"""

from __future__ import annotations

import functools
import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from village_rules.conform.compare import FAILED, Difference, compare
from village_rules.conform.inputs import GOLDEN, SEEDED, STATES, WITNESS, GameInput
from village_rules.conform.protocol import (
    CHANCE,
    ConformError,
    Engine,
    GameSetup,
    ImplementationError,
    Observation,
    observe,
)
from village_rules.conform.reference import ReferenceEngine, setup_data
from village_rules.conform.shrink import ddmin
from village_rules.data.edition import EditionData
from village_rules.engine.guards import present
from village_rules.errors import VillageError
from village_rules.model.chance import sample

SHRINK_REPLAYS = 400
"""The most replays ddmin may spend on one failing game (a count)."""

Chooser = Callable[[int, Observation], int | None]
"""At step k, with the reference's observation: the index of the option to apply, or None
to stop there."""


class Recorder:
    """Receives the reference's side of every compared step (`pack.PackWriter`)."""

    def start_game(self, game: GameInput) -> None:
        """A game begins."""

    def step(self, obs: Observation, applied: int | None) -> None:
        """A step's reference observation and the id applied after it (None at the last)."""

    def end_game(self) -> None:
        """The game is over (or cut)."""


@dataclass
class Played:
    """One replay: the choice indices made, the action ids applied, and the first difference
    (with the step: how many actions had been applied when it showed) or None."""

    choices: list[int] = field(default_factory=list)
    actions: list[int] = field(default_factory=list)
    difference: Difference | None = None
    step: int = 0

    @property
    def failed(self) -> bool:
        """Whether a difference was found."""
        return self.difference is not None


@dataclass
class Failure:
    """The first difference found, after shrinking."""

    kind: str
    name: str
    setup: GameSetup
    step: int
    difference: Difference
    actions: tuple[int, ...]
    """The action ids from the set-up to the step (the failing game)."""
    found_at: int
    """The step where it was first seen, before shrinking."""
    replays: int = 0
    rules: tuple[str, ...] = ()
    """The rule IDs the reference applied on the last action (none at the set-up)."""
    note: str = ""


@dataclass
class Coverage:
    """What a run compared, per input kind."""

    games: Counter[str] = field(default_factory=Counter)
    steps: Counter[str] = field(default_factory=Counter)
    states: Counter[str] = field(default_factory=Counter)
    """Per explorer configuration: the states compared."""
    edges: Counter[str] = field(default_factory=Counter)
    """Per explorer configuration: the edges (steps from a state) compared."""
    combinations: set[tuple[str, int]] = field(default_factory=set)
    readings: set[tuple[str, str]] = field(default_factory=set)
    """(AMB, letter) chosen explicitly in some seeded game."""


def _guard(call: Callable[[], object], what: str) -> object:
    """Run an implementation's call; anything it raises becomes `ImplementationError`."""
    try:
        return call()
    except ImplementationError:
        raise
    except Exception as exc:  # the implementation under test raised: a verdict
        raise ImplementationError(f"{what}: the engine raised {type(exc).__name__}: {exc}") from None


def chooser(game: GameInput) -> Chooser:
    """How a game's steps are chosen (`GameInput`)."""
    if game.actions is not None:
        stored = game.actions

        def from_log(step: int, obs: Observation) -> int | None:
            if step >= len(stored):
                return None
            try:
                return obs.options.index(stored[step])
            except ValueError:
                raise ConformError(
                    f"{game.name}: action {step + 1} (id {stored[step]}) is not offered by the reference: "
                    "a stale stored game"
                ) from None

        return from_log
    if game.golden_rng is not None:
        rng = random.Random()
        rng.setstate(game.golden_rng)  # type: ignore[arg-type]  # a getstate() tuple (inputs)

        def golden(step: int, obs: Observation) -> int | None:
            if obs.player == CHANCE:
                return obs.options.index(sample(sorted(obs.chance), rng))
            ordered = sorted(obs.legal)
            return obs.legal.index(ordered[rng.randrange(len(ordered))])

        return golden
    rng = random.Random(f"village-rules conform choices {game.choice_seed}")
    most = game.max_steps

    def seeded(step: int, obs: Observation) -> int | None:
        if step >= most:
            return None
        if obs.player == CHANCE:
            return sample([(k, p) for k, (_, p) in enumerate(obs.chance)], rng)
        return rng.randrange(len(obs.legal))

    return seeded


class Replaying:
    """A chooser for shrinking: the given action ids in order, each one skipped when it is
    not offered at that step (so leaving any of them out still gives a playable game);
    stops when they run out. `used` counts the ids consumed so far (applied or skipped)."""

    def __init__(self, actions: Sequence[int]) -> None:
        self.actions = actions
        self.used = 0

    def __call__(self, step: int, obs: Observation) -> int | None:
        options = obs.options
        while self.used < len(self.actions):
            ident = self.actions[self.used]
            self.used += 1
            if ident in options:
                return options.index(ident)
        return None


def play(  # noqa: PLR0917 - the engines, the game and how it is played, as every caller has them
    ref: ReferenceEngine,
    impl: Engine | None,
    setup: GameSetup,
    choose: Chooser,
    data: EditionData,
    recorder: Recorder | None = None,
) -> Played:
    """Play one game on both engines (the reference alone when `impl` is None), comparing
    every step; stops at the first difference, the end, or when `choose` says so."""
    played = Played()
    ref.new_game(setup)
    if impl is not None:
        try:
            _guard(lambda: impl.new_game(setup), "new_game")
        except ImplementationError as exc:
            played.difference = Difference(FAILED, f"new_game: {exc}")
            return played
    step = 0
    while True:
        r = observe(ref)
        if impl is not None:
            try:
                i = observe(impl)
            except ImplementationError as exc:
                played.difference, played.step = Difference(FAILED, str(exc)), step
                return played
            found = compare(r, i, data)
            if found is not None:
                played.difference, played.step = found, step
                return played
        index = None if r.terminal or not r.options else choose(step, r)
        action = None if index is None else r.options[index]
        if recorder is not None:
            recorder.step(r, action)
        if index is None or action is None:
            return played
        ref.apply(action)
        played.choices.append(index)
        played.actions.append(action)
        step += 1
        if impl is not None:
            try:
                _guard(functools.partial(impl.apply, action), "apply")
            except ImplementationError as exc:
                played.difference, played.step = Difference(FAILED, f"apply {action}: {exc}"), step
                return played


class Runner:
    """Runs inputs against one implementation (or the reference alone, to write a pack),
    counting what it covered, and stops at the first failure (`failure`)."""

    def __init__(
        self,
        impl: Engine | None,
        *,
        recorder: Recorder | None = None,
        shrink_replays: int = SHRINK_REPLAYS,
        progress: Callable[[str], None] | None = None,
    ) -> None:
        self.impl = impl
        self.ref = ReferenceEngine()
        self.recorder = recorder
        self.shrink_replays = shrink_replays
        self.coverage = Coverage()
        self.failure: Failure | None = None
        self.progress = progress

    def run_game(self, game: GameInput) -> bool:
        """Compare one game; False (and `failure` set) at a difference."""
        data = _data(game.setup, game.name)
        if self.recorder is not None:
            self.recorder.start_game(game)
        try:
            played = play(self.ref, self.impl, game.setup, chooser(game), data, self.recorder)
        except VillageError as exc:
            raise ConformError(f"{game.name}: the reference refused it: {exc}") from None
        if self.recorder is not None:
            self.recorder.end_game()
        self.coverage.games[game.kind] += 1
        self.coverage.steps[game.kind] += len(played.actions) + (0 if played.failed else 1)
        if game.kind == SEEDED:
            self.coverage.combinations.add((data.edition, game.setup.players))
            self.coverage.readings.update(game.setup.readings)
        if played.difference is None:
            return True
        self.failure = self.shrunk(game, played, data)
        return False

    def shrunk(self, game: GameInput, played: Played, data: EditionData) -> Failure:
        """The failure of `played`, its choices shrunk by ddmin (not for a failed
        implementation: a crashed or hung one cannot be replayed)."""
        first = present(played.difference, "conform.runner.shrunk", "the difference of a failed game")
        best = played
        replays = 0
        if first.kind != FAILED and self.impl is not None and played.step > 0:
            impl = self.impl
            results: dict[tuple[int, ...], Played] = {}

            def fails(actions: Sequence[int]) -> int | None:
                chooser = Replaying(actions)
                again = play(self.ref, impl, game.setup, chooser, data)
                if again.difference is None or again.difference.kind == FAILED:
                    return None
                kept = tuple(actions[: chooser.used])
                results[kept] = again
                return chooser.used

            try:
                kept, replays = ddmin(played.actions[: played.step], fails, self.shrink_replays)
            except ImplementationError:
                kept = played.actions[: played.step]
            best = results.get(tuple(kept), played)
        difference = present(best.difference, "conform.runner.shrunk", "the difference of the shrunk game")
        return Failure(
            kind=game.kind,
            name=game.name,
            setup=game.setup,
            step=best.step,
            difference=difference,
            actions=tuple(best.actions[: best.step]),
            found_at=played.step,
            replays=replays,
            rules=self.rules_at(game.setup, best.actions[: best.step]),
        )

    def rules_at(self, setup: GameSetup, actions: Sequence[int]) -> tuple[str, ...]:
        """The rule IDs the reference applied on the last of `actions` (none for none)."""
        if not actions:
            return ()
        self.ref.new_game(setup)
        for action in actions[:-1]:
            self.ref.apply(action)
        trace: list[str] = []
        self.ref.apply_traced(actions[-1], trace)
        return tuple(dict.fromkeys(trace))


def _data(setup: GameSetup, name: str) -> EditionData:
    try:
        return setup_data(setup)
    except VillageError as exc:
        raise ConformError(f"{name}: {exc}") from None


def probability_text(p: Fraction) -> str:
    """A probability as the protocol writes it."""
    return f"{p.numerator}/{p.denominator}"


__all__ = [
    "GOLDEN",
    "SEEDED",
    "STATES",
    "WITNESS",
    "Coverage",
    "Failure",
    "Played",
    "Recorder",
    "Runner",
    "chooser",
    "play",
    "probability_text",
]
