"""Village as an OpenSpiel game (optional extra `openspiel`: `pip install village-rules[openspiel]`).

Importing this module registers two games with pyspiel (docs/rl.md):

- `python_village`: returns are the win shared out (1 split among the winners, constant sum 1);
- `python_village_score`: returns are the final totals of prestige (general sum).

Parameters: `edition` (`big-box-2023` or `original-2011`), `players`, the options of
`Variant` (`starting_compensation`), one string parameter per switchable entry of the
ambiguity register (`amb_01`, `amb_26`, …: a reading letter, or "" for the edition's
default; `village-rules ambiguities` lists them), `max_moves`, and `engine`: `native` (the
C++ core, observations included) or `reference` (the Python engine); "", the default, is the
native core where it is built and the reference otherwise, as for `fuzz` and `explore`
(`village_rules.adapters.positions`). The same game tree and observations on either.
The game is sequential, explicitly stochastic and of perfect information
(`village_rules.adapters.observation` states the information model). The setup's random deal and
compensation cube are its first chance nodes, so one loaded game covers every setup.
A chance outcome is given as a code below `max_chance_outcomes()` (24), its index among the
draws of its kind (`village_rules.adapters.chance_codes`), not as its action id; decisions
are action ids. `players=1` is the solo game against Carla (score game only): she is part
of the environment, her fate tiles are chance nodes and she never decides.

Length: a game of Village has no finite bound on its length (`village_rules.adapters.bounds`; with
4 players there is a reachable cycle, tests/engine/test_unbounded.py), so the game is played
*truncated*: once `max_moves` moves (decisions plus chance outcomes,
the setup's included) are made without an end, the state is terminal and `truncated()`
says so; its returns are then an equal share of the win (`python_village`) or the totals
the final scoring gives the state as it stands (`python_village_score`), as the PettingZoo
environment pays them (`village_rules.adapters.truncation`). The default limit is more
than ten times the longest seeded random game seen; one that leaves no room for a
decision is refused.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from enum import Enum
from fractions import Fraction
from typing import Literal

import numpy as np
import pyspiel

from village_rules.adapters.bounds import DEFAULT_MAX_MOVES, max_chance_outcomes, score_bounds
from village_rules.adapters.chance_codes import action_of_code, code_range, coded_outcomes
from village_rules.adapters.ids import (
    action_id_of,
    num_distinct_actions,
)
from village_rules.adapters.observation import tensor_size
from village_rules.adapters.observation_array import observation_array
from village_rules.adapters.positions import NativePosition, Position, engine_named, position_of
from village_rules.adapters.truncation import (
    SOLO_HAS_NO_WINNER,
    check_max_moves,
    moves_before_first_decision,
)
from village_rules.checks.invariants import check
from village_rules.data.edition import EditionData
from village_rules.data.loader import EDITIONS, builtin_edition
from village_rules.drivers.engine_choice import NATIVE, REFERENCE
from village_rules.drivers.serialization import from_json
from village_rules.engine.scoring import ReturnsKind
from village_rules.engine.setup import board_after, deal_outcomes, game_from_deal
from village_rules.errors import InternalError, ParameterError, ReadingError
from village_rules.model.actions import Action, action_from_id
from village_rules.model.state import GameState
from village_rules.rules.register import READINGS, check_choice
from village_rules.rules.variant import Variant

__all__ = ["SCORE_GAME", "WIN_GAME", "VillageGame", "VillageState", "check_state", "load"]

WIN_GAME = "python_village"
SCORE_GAME = "python_village_score"

_VARIANT_DEFAULTS: dict[str, bool | int | str] = {
    # Every reading option of `Variant` whose default is a bool, int or str (a StrEnum
    # included, given by its value) is a game parameter of the same name.
    f.name: getattr(Variant(), f.name)
    for f in fields(Variant)
    if isinstance(getattr(Variant(), f.name), bool | int | str)
}
_VARIANT_FLAGS = tuple(_VARIANT_DEFAULTS)

_READING_PARAMS: dict[str, str] = {
    # One parameter per switchable register entry: "" plays the edition's own default.
    "amb_" + entry.amb.removeprefix("AMB-"): entry.amb
    for entry in READINGS
}


def _base(default: bool | int | str) -> type:
    """The pyspiel parameter type of a `Variant` option."""
    if isinstance(default, bool):
        return bool
    return int if isinstance(default, int) else str


_DEFAULTS: dict[str, object] = {
    "edition": "big-box-2023",
    "players": 3,
    **{name: (str(v) if isinstance(v, str) else v) for name, v in _VARIANT_DEFAULTS.items()},
    **dict.fromkeys(_READING_PARAMS, ""),
    "max_moves": DEFAULT_MAX_MOVES,
    "engine": "",
}


def _game_type(short_name: str, kind: ReturnsKind) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=short_name,
        long_name="Village (" + ("win share" if kind == "win" else "score") + ")",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=(
            pyspiel.GameType.Utility.CONSTANT_SUM if kind == "win" else pyspiel.GameType.Utility.GENERAL_SUM
        ),
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max(builtin_edition(e).max_players for e in EDITIONS),
        # The score game also plays solo (1 player against Carla, who is part of the
        # environment); the win game needs a winner to share out.
        min_num_players=1 if kind == "score" else min(builtin_edition(e).min_players for e in EDITIONS),
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=dict(_DEFAULTS),
    )


class VillageGame(pyspiel.Game):
    """A loaded Village game: one edition, player count and variant; every setup."""

    kind: ReturnsKind = "win"

    def __init__(self, params: dict[str, object] | None = None) -> None:
        merged = {**_DEFAULTS, **(params or {})}
        edition = merged["edition"]
        if edition not in EDITIONS:
            raise ParameterError("edition", f"one of {', '.join(EDITIONS)}, not {edition!r}")
        self.data: EditionData = builtin_edition(str(edition))
        players = merged["players"]
        if (
            not isinstance(players, int)
            or isinstance(players, bool)
            or not self.data.supports_players(players)
        ):
            solo = ", or 1 (solo against Carla)" if self.data.solo is not None else ""
            raise ParameterError(
                "players",
                f"{self.data.edition} is for {self.data.min_players}-{self.data.max_players} players{solo},"
                f" not {players!r}",
            )
        if players == 1 and self.kind == "win":
            raise ParameterError("players", SOLO_HAS_NO_WINNER + f"; load {SCORE_GAME!r}")
        options: dict[str, object] = {}
        for name, default in _VARIANT_DEFAULTS.items():
            value = merged[name]
            base = _base(default)
            if not isinstance(value, base) or (base is int and isinstance(value, bool)):
                raise ParameterError(name, f"a {base.__name__} like {default!r}, not {value!r}")
            options[name] = value
            if isinstance(default, Enum) and isinstance(value, str):
                kind = type(default)
                try:
                    options[name] = kind(value)  # a StrEnum option from its text
                except ValueError:
                    raise ParameterError(name, f"not a value of {kind.__name__}: {value!r}") from None
        readings: dict[str, str] = {}
        for name, amb in _READING_PARAMS.items():
            letter = merged[name]
            if not isinstance(letter, str):
                raise ParameterError(name, f"a reading letter of {amb} or '', not {letter!r}")
            if letter:
                try:
                    check_choice(amb, letter)
                except ReadingError as exc:
                    raise ParameterError(name, str(exc)) from None
                readings[amb] = letter
        options["readings"] = readings
        variant = Variant(**options)  # type: ignore[arg-type]
        max_moves = check_max_moves(merged["max_moves"], self.data, players, variant)
        engine = merged["engine"]
        if not isinstance(engine, str):
            raise ParameterError("engine", f"'native', 'reference' or '' (the default), not {engine!r}")
        self.spec = GameSpec(self.data, players, variant, max_moves, self.kind, engine_named(engine))
        if self.kind == "win":
            low, high, total = 0.0, 1.0, 1.0
        else:
            bounds = score_bounds(self.data, players, max_moves)
            low, high, total = float(bounds.low), float(bounds.high), None
        info = pyspiel.GameInfo(
            num_distinct_actions=num_distinct_actions(self.data),
            max_chance_outcomes=code_range(self.data, players),  # chance_codes.py
            num_players=players,
            min_utility=low,
            max_utility=high,
            utility_sum=total,
            # Decisions at most: every move is a decision or a chance outcome, and the
            # first `moves_before_first_decision` are chance (docs/rl.md, "Bounds").
            max_game_length=max_moves - moves_before_first_decision(self.data, players, variant),
        )
        game_type = _WIN_TYPE if self.kind == "win" else _SCORE_TYPE
        super().__init__(game_type, info, {k: merged[k] for k in _DEFAULTS})
        self.outcomes_per_node = max_chance_outcomes(self.data, players)
        """The most outcomes one chance node has (`bounds.max_chance_outcomes`, from the
        rules), the same figure as OpenSpiel's `max_chance_outcomes()`, the range of the
        chance outcome codes (`chance_codes.code_range`, from the action universe)."""

    def max_move_number(self) -> int:
        """`max_moves`: a move is a decision or a chance outcome (the deal's included) and a
        game stops at `max_moves` moves, so `move_number()` never exceeds it (and reaches it
        in a truncated game). OpenSpiel's default, max_game_length() +
        max_chance_nodes_in_history(), counts the chance moves twice over (39,948 for a
        2-player 2011 game at the default limit)."""
        return self.spec.max_moves

    def new_initial_state(self) -> VillageState:
        """A new game at its first chance node (the setup deal)."""
        return VillageState(self)

    def make_py_observer(
        self, iig_obs_type: pyspiel.IIGObservationType | None = None, params: dict[str, object] | None = None
    ) -> VillageObserver:
        """An observer of the game for OpenSpiel's algorithms (no parameters are supported)."""
        if params:
            raise ParameterError("observer params", f"none are supported, got {params!r}")
        perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        public = iig_obs_type is None or iig_obs_type.public_info
        return VillageObserver(self, perfect_recall, public)


class VillageScoreGame(VillageGame):
    kind: ReturnsKind = "score"


@dataclass(frozen=True, slots=True)
class GameSpec:
    """What a loaded game fixes: edition data, players, variant, length limit, returns."""

    data: EditionData
    players: int
    variant: Variant
    max_moves: int
    kind: ReturnsKind
    engine: str
    """The engine the moves are played on (`positions.engine_named`)."""

    def __deepcopy__(self, memo: dict[int, object]) -> GameSpec:
        return self  # immutable: a cloned state shares it

    def __reduce__(self) -> tuple[object, ...]:
        """Pickled by name: the adapters play the built-in editions only."""
        edition = self.data.edition
        return (_spec, (edition, self.players, self.variant, self.max_moves, self.kind, self.engine))


@dataclass(frozen=True, slots=True)
class Node:
    """Where a game stands: the setup deal so far, then the engine's position."""

    dealt: tuple[Action, ...] = ()
    position: Position | None = None
    moves: int = 0
    truncated: bool = False

    def __deepcopy__(self, memo: dict[int, object]) -> Node:
        return self  # immutable (positions never change): cloning a state is cheap

    def __reduce__(self) -> tuple[object, ...]:
        """Pickled as the state's JSON (a few KB) and its engine, not the engine objects."""
        position = self.position
        text = None if position is None else position.to_json()
        engine = NATIVE if isinstance(position, NativePosition) else REFERENCE
        return (_node, (self.dealt, text, self.moves, self.truncated, engine))


def _spec(  # noqa: PLR0917 - unpickling GameSpec
    edition: str, players: int, variant: Variant, max_moves: int, kind: ReturnsKind, engine: str
) -> GameSpec:
    return GameSpec(builtin_edition(edition), players, variant, max_moves, kind, engine)


def _node(
    dealt: tuple[Action, ...], text: str | None, moves: int, truncated: bool, engine: str
) -> Node:
    position = None if text is None else position_of(from_json(text), engine)
    return Node(dealt, position, moves, truncated)


class VillageState(pyspiel.State):
    """A node of the game tree: a setup deal in progress, or a position of the engine.

    Every Python attribute is immutable and shared by `clone()`, so a clone costs no copy
    of the engine state."""

    def __init__(self, game: VillageGame) -> None:
        super().__init__(game)
        self.spec = game.spec
        self.node = Node()

    @property
    def state(self) -> GameState | None:
        """The reference's state of this node (on the native engine: decoded from the core's
        state), or None while the setup is being dealt."""
        position = self.node.position
        return None if position is None else position.state

    # --- who acts -----------------------------------------------------------------------

    def current_player(self) -> int:
        """The seat to act, or OpenSpiel's CHANCE or TERMINAL player id."""
        node = self.node
        if node.truncated:
            return int(pyspiel.PlayerId.TERMINAL)
        position = node.position
        if position is None:
            return int(pyspiel.PlayerId.CHANCE)
        player = position.current_player()
        if player >= 0:
            return player
        return int(pyspiel.PlayerId.CHANCE if position.is_chance else pyspiel.PlayerId.TERMINAL)

    def is_terminal(self) -> bool:
        """True when the game is over, by the rules or at the `max_moves` limit."""
        node = self.node
        return node.truncated or (node.position is not None and node.position.is_terminal)

    def truncated(self) -> bool:
        """Whether the game ended at the `max_moves` limit rather than by the rules."""
        return self.node.truncated

    def _legal_actions(self, player: int) -> list[int]:
        node = self.node
        if node.position is None or node.truncated:
            return []
        return node.position.legal_ids()

    def _outcomes(self) -> list[tuple[Action, Fraction]]:
        """The engine's outcomes of this chance node (the deal's or the game's)."""
        node, spec = self.node, self.spec
        if node.truncated:
            return []
        if node.position is None:
            return deal_outcomes(spec.data, spec.players, node.dealt, spec.variant)
        return node.position.outcomes()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The chance outcomes as (code, probability), ascending by code, empty when not at
        a chance node: a code is the outcome's index among the draws of its kind
        (`chance_codes`), below `max_chance_outcomes()`."""
        spec = self.spec
        return [(c, float(p)) for c, p in coded_outcomes(spec.data, spec.players, self._outcomes())]

    # --- moves --------------------------------------------------------------------------

    def _chosen(self, action: int) -> Action:
        """The engine action of an id at a decision, or of a code at a chance node."""
        spec, index = self.spec, action_id_of(action)
        if self.node.position is None or self.node.position.is_chance:
            return action_of_code(spec.data, spec.players, self._outcomes(), index)
        return action_from_id(spec.data, index)

    def _apply_action(self, action: int) -> None:
        node, spec = self.node, self.spec
        chosen = self._chosen(action)
        position: Position | None
        if node.position is None:
            dealt = (*node.dealt, chosen)
            position = None
            if not deal_outcomes(spec.data, spec.players, dealt, spec.variant):
                start = game_from_deal(spec.data, spec.players, dealt, spec.variant)
                position = position_of(start, spec.engine)
        else:
            dealt, position = node.dealt, node.position.after(chosen)
        moves = node.moves + 1
        ended = position is not None and position.is_terminal
        self.node = Node(dealt, position, moves, truncated=moves >= spec.max_moves and not ended)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == int(pyspiel.PlayerId.CHANCE) and not self.is_terminal():
            return str(self._chosen(action))
        return str(action_from_id(self.spec.data, action))

    def returns(self) -> list[float]:
        """Each seat's return: 0 until the end, then as the game's `returns` parameter says."""
        node, spec = self.node, self.spec
        n = spec.players
        if not self.is_terminal():
            return [0.0] * n
        if node.position is None:  # the deal is shorter than max_moves (check_max_moves)
            raise InternalError("openspiel returns", "a terminal node has no game state")
        # [:n]: a solo game's engine state has Carla's seat too; she is no OpenSpiel player.
        if node.truncated:
            return [float(r) for r in node.position.truncated_returns(spec.kind)[:n]]
        return [float(r) for r in node.position.returns(spec.kind)[:n]]

    def __str__(self) -> str:
        node = self.node
        if node.position is None:
            return "setup deal: " + " ".join(str(a) for a in node.dealt)
        return node.position.observation_string(0)

    # --- observing ------------------------------------------------------------------

    def board(self) -> tuple[GameState, bool]:
        """The reference's state of the node (on the native engine: decoded from the core's)
        or of the setup deal in progress, and whether it is the deal's."""
        node, spec = self.node, self.spec
        if node.position is not None:
            return node.position.state, False
        return board_after(spec.data, spec.players, node.dealt, spec.variant), True


class VillageObserver:
    """OpenSpiel's PyObserver: the observation (or, with perfect recall, information
    state) tensor and string of a state from one player's view (docs/rl.md).

    Everything in Village is public, so an observer of private information only
    (`public_info=False`) sees nothing: an empty tensor and string."""

    def __init__(self, game: VillageGame, perfect_recall: bool, public: bool = True) -> None:
        self.perfect_recall = perfect_recall
        self.public = public
        size = tensor_size(game.data, game.spec.players) if public else 0
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: VillageState, player: int) -> None:
        """The tensor of `state` from `player`'s seat: the position's own (on the native
        engine the core's, with no reference state decoded), or the deal's board's."""
        if not self.public:
            return
        position = state.node.position
        if position is not None:
            self.tensor[:] = position.observation(player)
        else:
            board, _ = state.board()
            self.tensor[:] = observation_array(board, player, dealing=True)

    def string_from(self, state: VillageState, player: int) -> str:
        """The string of `state` from `player`'s seat: its JSON (on the native engine the
        core's, byte for byte the reference's), the deal so far, or the history."""
        if not self.public:
            return ""
        if self.perfect_recall:  # OpenSpiel's perfect-information convention: the history
            return str(state.history_str())
        position = state.node.position
        if position is None:
            return "setup deal: " + " ".join(str(a) for a in state.node.dealt)
        return position.observation_string(player)


_WIN_TYPE = _game_type(WIN_GAME, "win")
_SCORE_TYPE = _game_type(SCORE_GAME, "score")
pyspiel.register_game(_WIN_TYPE, VillageGame)
pyspiel.register_game(_SCORE_TYPE, VillageScoreGame)


def load(
    edition: str = "big-box-2023",
    players: int = 3,
    returns: Literal["win", "score"] = "win",
    **options: bool | int,
) -> pyspiel.Game:
    """`pyspiel.load_game` of the Village game with these parameters."""
    name = WIN_GAME if returns == "win" else SCORE_GAME
    return pyspiel.load_game(name, {"edition": edition, "players": players, **options})


def check_state(state: pyspiel.State) -> None:
    """A `state_checker_fn` for `pyspiel.random_sim_test`: the engine's invariant checkers
    (`village_rules.checks.invariants.check`) on the engine state of a Village node. Raises
    `InvariantError` naming the broken invariants."""
    if isinstance(state, VillageState) and state.state is not None:
        check(state.state)
