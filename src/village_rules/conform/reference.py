"""The reference engine behind the engine protocol: what every implementation is compared
with, and what `serve` offers over JSON lines when given no other engine."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from village_rules.conform.protocol import ConformError, GameSetup
from village_rules.data.edition import EditionData
from village_rules.data.loader import builtin_edition, load_edition
from village_rules.drivers.serialization import from_json, to_json
from village_rules.engine.core import apply, chance_outcomes, legal_actions
from village_rules.engine.scoring import score_breakdown, winners
from village_rules.engine.setup import game_from_deal, new_game
from village_rules.model.actions import action_from_id, action_id
from village_rules.model.state import GameState
from village_rules.rules.variant import Variant


def setup_data(setup: GameSetup) -> EditionData:
    """The edition data a set-up names (a shipped edition or a data file)."""
    if (setup.edition is None) == (setup.data_file is None):
        raise ConformError("a game names exactly one of an edition and a data file")
    if setup.edition is not None:
        return builtin_edition(setup.edition)
    return load_edition(Path(str(setup.data_file)))


def initial_state(setup: GameSetup) -> GameState:
    """The reference's set-up game for `setup`."""
    data = setup_data(setup)
    variant = Variant(setup.starting_compensation, setup.readings)
    if (setup.seed is None) == (setup.deal is None):
        raise ConformError("a game gives exactly one of a seed and a set-up deal")
    if setup.seed is not None:
        return new_game(data, setup.players, setup.seed, variant)
    deal = [action_from_id(data, i) for i in setup.deal or ()]
    return game_from_deal(data, setup.players, deal, variant)


class ReferenceEngine:
    """The reference (`village_rules.engine`) as an `Engine`. `trace` on `apply_traced`
    gives the rule IDs the reference applied on a step (for the runner's report)."""

    def __init__(self) -> None:
        self._state: GameState | None = None
        self._loaded: tuple[str, GameState] | None = None

    @property
    def state(self) -> GameState:
        """The current state; `ConformError` before any game."""
        if self._state is None:
            raise ConformError("no game: call new_game or load first")
        return self._state

    def new_game(self, setup: GameSetup) -> None:
        """Set up a game as `setup` says."""
        self._state = initial_state(setup)

    def load(self, state_json: str) -> None:
        """Make a saved state current (`from_json`; the last one loaded is remembered, as
        the state walk loads one state again before each edge out of it)."""
        if self._loaded is None or self._loaded[0] != state_json:
            self._loaded = (state_json, from_json(state_json))
        self._state = self._loaded[1]

    def set_state(self, state: GameState) -> None:
        """Make a state current (in process only)."""
        self._state = state

    def current_player(self) -> int:
        """The seat to act, CHANCE or TERMINAL."""
        return self.state.current_player()

    def legal_actions(self) -> list[int]:
        """The legal action ids in the engine's order."""
        state = self.state
        if state.is_chance or state.is_terminal:
            return []
        data = state.rules.data
        return [action_id(data, a) for a in legal_actions(state)]

    def chance_outcomes(self) -> list[tuple[int, Fraction]]:
        """(id, probability) of the pending chance event, in the engine's order."""
        state = self.state
        if not state.is_chance:
            return []
        data = state.rules.data
        return [(action_id(data, a), p) for a, p in chance_outcomes(state)]

    def apply(self, action: int) -> None:
        """Apply an action id."""
        self.apply_traced(action, None)

    def apply_traced(self, action: int, trace: list[str] | None) -> None:
        """Apply an action id, appending the IDs of the rules applied to `trace`."""
        state = self.state
        self._state = apply(state, action_from_id(state.rules.data, action), trace=trace)

    def state_json(self) -> str:
        """The current state as canonical JSON."""
        return to_json(self.state)

    def scores(self) -> list[int] | None:
        """Every seat's final total at the end; None before."""
        state = self.state
        return [b.total for b in score_breakdown(state)] if state.is_terminal else None

    def winners(self) -> list[int] | None:
        """The winning seats at the end (`winners`: after the tie-breaks); None before."""
        state = self.state
        return list(winners(state)) if state.is_terminal else None
