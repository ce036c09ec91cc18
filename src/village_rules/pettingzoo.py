"""Supported entry point `village_rules.pettingzoo`: Village as a PettingZoo AEC environment
(the optional `pettingzoo` extra).

The code lives in `village_rules.adapters.pettingzoo`; this module re-exports its public
names so that imports of `village_rules.pettingzoo` keep working (docs/api.md, "Entry
points").
"""

from __future__ import annotations

from village_rules.adapters.pettingzoo import (
    VillageEnv,
    env,
    raw_env,
)

__all__ = [
    "VillageEnv",
    "env",
    "raw_env",
]
