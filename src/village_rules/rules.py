"""The rules a game is played by: an edition's component data plus the variant choices
that the ambiguity register (specs/ambiguities.md) makes selectable."""

from __future__ import annotations

from dataclasses import dataclass

from village_rules.edition import EditionData


@dataclass(frozen=True, slots=True)
class Variant:
    """Selectable readings. The defaults are the library's chosen readings.

    - `starting_compensation` (AMB-11): play the 2023 recommended starting compensations
      (ignored for editions that have none).
    - `coin_substitution_at_well` (AMB-01): a coin may stand in for one of the well's three
      same-coloured cubes.
    """

    starting_compensation: bool = True
    coin_substitution_at_well: bool = True


@dataclass(frozen=True, slots=True)
class Rules:
    data: EditionData
    variant: Variant = Variant()

    @property
    def edition(self) -> str:
        return self.data.edition
