"""Supported entry point `village_rules.incremental`: `IncrementalChecker`, the invariants over
what each step changed.

The code lives in `village_rules.checks.incremental`; this module re-exports its public
names so that imports of `village_rules.incremental` keep working (docs/api.md, "Entry
points").
"""

from __future__ import annotations

from village_rules.checks.incremental import (
    FastTest,
    IncrementalChecker,
    StateCheck,
)

__all__ = [
    "FastTest",
    "IncrementalChecker",
    "StateCheck",
]
