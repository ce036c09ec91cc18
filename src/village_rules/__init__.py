"""village_rules: the reference rules of the board game Village (2011 and 2023 Big Box).

Start here:

- `new_game(edition, players, seed)` sets up a game;
- `legal_actions(state)`, `chance_outcomes(state)`, `apply(state, action)` play it;
- `to_json` / `from_json` save and load a state;
- `load_edition(path)` loads your own component data (docs/data-format.md);
- the rulebook's pieces, as enums: `Cube`, `Good`, `ActionSpace`, `Building`, `Category`,
  `Compensation`, `TieBreaker` (what `village_rules.scenario` builds situations with);
- for game-tree and RL code (docs/rl.md): `legal_action_ids`, `legal_mask`,
  `chance_outcome_ids`, `action_id` / `action_from_id`, `returns`, `score_bounds`, the
  explicit setup deal `deal_outcomes` / `game_from_deal`, and the adapters
  `village_rules.openspiel` and `village_rules.pettingzoo` (optional extras).

`__all__` lists every supported name; tests/test_public_api.py keeps it, the API page
and this list in step.
"""

from __future__ import annotations

from village_rules.adapters.bounds import ScoreBounds, max_chance_outcomes, score_bounds
from village_rules.adapters.ids import (
    action_from_id,
    action_id,
    chance_outcome_ids,
    legal_action_ids,
    legal_mask,
    num_distinct_actions,
)
from village_rules.data.components import (
    ActionSpace,
    Building,
    Category,
    Compensation,
    Cube,
    Good,
    TieBreaker,
)
from village_rules.data.loader import EDITIONS, builtin_edition, load_edition
from village_rules.drivers.serialization import from_json, to_json
from village_rules.engine.core import apply, chance_outcomes, legal_actions
from village_rules.engine.scoring import ScoreBreakdown, returns, score_breakdown, winners
from village_rules.engine.setup import deal_outcomes, game_from_deal, new_game
from village_rules.errors import (
    ActionTypeError,
    ArgumentTypeError,
    DataError,
    IllegalActionError,
    IncompleteGameError,
    LogFormatError,
    ParameterError,
    SetupError,
    StateFormatError,
    VillageError,
)
from village_rules.model.actions import Action, ActionSyntaxError, format_action, parse_action
from village_rules.model.state import CHANCE, TERMINAL, GameState
from village_rules.rules.variant import Rules, Variant

__all__ = [
    "CHANCE",
    "EDITIONS",
    "TERMINAL",
    "Action",
    "ActionSpace",
    "ActionSyntaxError",
    "ActionTypeError",
    "ArgumentTypeError",
    "Building",
    "Category",
    "Compensation",
    "Cube",
    "DataError",
    "GameState",
    "Good",
    "IllegalActionError",
    "IncompleteGameError",
    "LogFormatError",
    "ParameterError",
    "Rules",
    "ScoreBounds",
    "ScoreBreakdown",
    "SetupError",
    "StateFormatError",
    "TieBreaker",
    "Variant",
    "VillageError",
    "action_from_id",
    "action_id",
    "apply",
    "builtin_edition",
    "chance_outcome_ids",
    "chance_outcomes",
    "deal_outcomes",
    "format_action",
    "from_json",
    "game_from_deal",
    "legal_action_ids",
    "legal_actions",
    "legal_mask",
    "load_edition",
    "max_chance_outcomes",
    "new_game",
    "num_distinct_actions",
    "parse_action",
    "returns",
    "score_bounds",
    "score_breakdown",
    "to_json",
    "winners",
]
