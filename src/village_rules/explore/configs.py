"""The reduced configurations the explorer ships (`configs/*.json`, package data) and how
a data file is accepted for exploration.

A reduced configuration is an edition data file with a `"reduced"` key saying what it
reduces (scripts/make_reduced_configs.py writes the shipped ones). It is a legal input to
the unchanged engine: every rule of its edition applies, with fewer pieces. A data file
without the key is a whole game, far too large to visit every state of: it is refused
unless forced, with its size in words.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from village_rules.data.edition import EditionData
from village_rules.data.loader import load_edition
from village_rules.data.shipped import shipped_folder
from village_rules.errors import VillageError

CONFIGS = shipped_folder("village_rules.explore", "configs")
"""The shipped reduced configurations, one JSON file each."""


class UnknownConfigurationError(VillageError):
    """A configuration that is neither a shipped name nor an existing data file."""


class NotReducedError(VillageError):
    """A data file without the `reduced` key given to the explorer without `force`."""


@dataclass(frozen=True, slots=True)
class Configuration:
    """A data file to explore and the player counts it allows."""

    name: str
    path: Path
    data: EditionData

    @property
    def player_counts(self) -> tuple[int, ...]:
        """The player counts it can be set up for (1: the solo game, where it has one)."""
        return self.data.playable_counts


def shipped_names() -> list[str]:
    """The names of the shipped reduced configurations, in file-name order."""
    return sorted(p.stem for p in CONFIGS.glob("*.json"))


def configuration(name_or_path: str, *, force: bool = False) -> Configuration:
    """A shipped configuration by name, or a data file by path.

    Raises `UnknownConfigurationError` for a name that is neither (no such file),
    `DataError` for a bad file and `NotReducedError` for a whole game unless `force`."""
    shipped = CONFIGS / f"{name_or_path}.json"
    known = shipped_names()
    path = shipped if name_or_path in known else Path(name_or_path)
    if path != shipped and not path.exists() and not path.is_symlink():
        raise UnknownConfigurationError(
            f"unknown configuration {name_or_path} (known: {', '.join(known)}), or a path to a data "
            f"file: there is no file {name_or_path}"
        )
    data = load_edition(path)
    if data.reduced is None and not force:
        raise NotReducedError(f"{path}: {whole_game(data)}; explore it anyway with --force")
    return Configuration(path.stem if path == shipped else str(path), path, data)


def whole_game(data: EditionData) -> str:
    """Why a data file without the `reduced` key is too large to visit every state of."""
    card = data.setup_card(data.player_counts[0])
    return (
        f"not a reduced configuration (no 'reduced' key): {data.name} has {len(data.family_numbers)} "
        f"members a player, {card.cubes_per_round} cubes a round for {data.player_counts[0]} players, "
        f"a life-time track of {data.lifetime_track_length} and {len(data.customers)} customers, "
        "and far more reachable states than any machine can visit (docs/exploration.md)"
    )
