"""village_rules: the reference rules of the board game Village (2011 and 2023 Big Box).

Start here:
- `new_game(edition, players, seed)` sets up a game;
- `legal_actions(state)`, `chance_outcomes(state)`, `apply(state, action)` play it;
- `to_json` / `from_json` save and load a state;
- `load_edition(path)` loads your own component data (docs/data-format.md).
"""

from __future__ import annotations

from village_rules.actions import Action, ActionSyntaxError, format_action, parse_action
from village_rules.engine.core import apply, chance_outcomes, legal_actions
from village_rules.errors import (
    ActionTypeError,
    ArgumentTypeError,
    DataError,
    IllegalActionError,
    IncompleteGameError,
    LogFormatError,
    SetupError,
    StateFormatError,
    VillageError,
)
from village_rules.loader import EDITIONS, builtin_edition, load_edition
from village_rules.rules import Rules, Variant
from village_rules.scoring import ScoreBreakdown, score_breakdown, winners
from village_rules.serialization import from_json, to_json
from village_rules.setup import new_game
from village_rules.state import CHANCE, TERMINAL, GameState

__all__ = [
    "CHANCE",
    "EDITIONS",
    "TERMINAL",
    "Action",
    "ActionSyntaxError",
    "ActionTypeError",
    "ArgumentTypeError",
    "DataError",
    "GameState",
    "IllegalActionError",
    "IncompleteGameError",
    "LogFormatError",
    "Rules",
    "ScoreBreakdown",
    "SetupError",
    "StateFormatError",
    "Variant",
    "VillageError",
    "apply",
    "builtin_edition",
    "chance_outcomes",
    "format_action",
    "from_json",
    "legal_actions",
    "load_edition",
    "new_game",
    "parse_action",
    "score_breakdown",
    "to_json",
    "winners",
]
