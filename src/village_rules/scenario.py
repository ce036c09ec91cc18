"""Supported entry point `village_rules.scenario`: building concrete game situations for tests,
examples and counterexamples.

The code lives in `village_rules.drivers.scenario`; this module re-exports its public names
so that imports of `village_rules.scenario` keep working (docs/api.md, "Entry points").
"""

from __future__ import annotations

from village_rules.drivers.scenario import (
    acting,
    arrange_market,
    at,
    clear_board,
    emptied,
    give,
    place,
    put_cubes,
    ready,
    set_lifetime,
    strip,
    strip_all,
    unborn_count,
)

__all__ = [
    "acting",
    "arrange_market",
    "at",
    "clear_board",
    "emptied",
    "give",
    "place",
    "put_cubes",
    "ready",
    "set_lifetime",
    "strip",
    "strip_all",
    "unborn_count",
]
