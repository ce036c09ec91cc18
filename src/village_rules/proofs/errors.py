"""Stage: shared (every stage).

Errors of the proofs package."""

from __future__ import annotations

from village_rules.errors import VillageError


class UnknownQueryError(VillageError):
    """A query name that is not in the catalogue (`village-rules prove --list`)."""


class WitnessError(VillageError):
    """A stored witness that no longer replays, or whose final state misses the query."""


class ProveArgumentError(VillageError):
    """A `village-rules prove` option out of range (a bound below 1, a player count no row has)."""
