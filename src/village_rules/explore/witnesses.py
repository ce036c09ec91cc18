"""A path of the explored graph as a game log `village-rules replay` reproduces.

The explorer starts from every set-up deal; a log starts from `new_game`'s seed. The log of
a witness therefore uses the first seed (counting from 0, at most `MAX_SEED_SEARCH`) whose
set-up is the witness's starting state, and records the configuration's file as its data.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from village_rules.data.edition import EditionData
from village_rules.drivers.play import GameLog
from village_rules.engine.setup import new_game
from village_rules.model.actions import Action, format_action
from village_rules.model.state import GameState
from village_rules.rules.variant import Variant

MAX_SEED_SEARCH = 10_000


def seed_of(data: EditionData, players: int, root: GameState, variant: Variant | None = None) -> int | None:
    """The first seed whose set-up is `root`, or None within `MAX_SEED_SEARCH` seeds."""
    for seed in range(MAX_SEED_SEARCH):
        if new_game(data, players, seed, variant) == root:
            return seed
    return None


def witness_log(
    data: EditionData,
    data_file: Path,
    players: int,
    root: GameState,
    *,
    actions: Sequence[Action],
    variant: Variant | None = None,
) -> GameLog | None:
    """The witness as a replayable log, or None if no seed sets up its starting state."""
    seed = seed_of(data, players, root, variant)
    if seed is None:
        return None
    return GameLog(
        data.edition,
        players,
        seed,
        tuple(format_action(a) for a in actions),
        variant or Variant(),
        str(data_file),
        data.fingerprint,
    )
