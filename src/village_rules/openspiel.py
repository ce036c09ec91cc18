"""Supported entry point `village_rules.openspiel`: Village as an OpenSpiel game (the optional
`openspiel` extra); importing it registers the game.

The code lives in `village_rules.adapters.openspiel`; this module re-exports its public
names so that imports of `village_rules.openspiel` keep working (docs/api.md, "Entry
points").
"""

from __future__ import annotations

from village_rules.adapters.openspiel import (
    SCORE_GAME,
    WIN_GAME,
    VillageGame,
    VillageState,
    check_state,
    load,
)

__all__ = [
    "SCORE_GAME",
    "WIN_GAME",
    "VillageGame",
    "VillageState",
    "check_state",
    "load",
]
