"""Supported entry point `village_rules.svg`: a state or the travel map drawn as SVG.

The code lives in `village_rules.pictures.svg`; this module re-exports its public names so
that imports of `village_rules.svg` keep working (docs/api.md, "Entry points").
"""

from __future__ import annotations

from village_rules.pictures.svg import (
    CUBE_COLOURS,
    PLAYER_FILLS,
    actor_of,
    map_layout,
    state_svg,
    touched_regions,
    travel_map_svg,
)

__all__ = [
    "CUBE_COLOURS",
    "PLAYER_FILLS",
    "actor_of",
    "map_layout",
    "state_svg",
    "touched_regions",
    "travel_map_svg",
]
