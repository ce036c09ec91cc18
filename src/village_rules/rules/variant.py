"""The rules a game is played by: an edition's component data plus the variant choices
that the ambiguity register (specs/ambiguities.md) makes selectable."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from village_rules.data.edition import EditionData
from village_rules.errors import InternalError
from village_rules.rules.register import normalise, reading

_DEFAULTS: dict[tuple[str, str], str] = {}
"""(AMB ID, edition) -> its default letter, filled as the engine asks (`Variant.reading`)."""

_IN_FORCE: dict[tuple[object, str, str], str] = {}
"""(variant's choices, AMB ID, edition) -> the letter in force, filled as the engine asks
(`Rules.reading`, called several times per step). A variant's choices are a normalised
tuple and the register is a constant, so the letter for a key never changes."""


@dataclass(frozen=True, slots=True)
class Variant:
    """Selectable readings. `Variant()` plays each edition by the literal reading of its
    own text.

    - `starting_compensation` (AMB-11): play the 2023 recommended starting compensations
      (ignored for editions that have none).
    - `readings`: (AMB ID, letter) choices that override the edition's default reading,
      e.g. `Variant(readings={"AMB-26": "a"})`; the register is `village_rules.rules.register`.
      Stored checked and sorted, so equal choices give equal variants.
    """

    starting_compensation: bool = True
    readings: tuple[tuple[str, str], ...] | Mapping[str, str] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "readings", normalise(self.readings))

    @property
    def choices(self) -> tuple[tuple[str, str], ...]:
        """The explicit (AMB ID, letter) choices, sorted."""
        if not isinstance(self.readings, tuple):  # __post_init__ normalises it
            raise InternalError("Variant.choices", f"readings not normalised: {self.readings!r}")
        return self.readings

    def reading(self, amb: str, edition: str) -> str:
        """The letter in force for `amb` in `edition`: the choice, else the default."""
        for chosen, letter in self.choices:
            if chosen == amb:
                return letter
        # The register is a constant, so each (entry, edition) default is looked up once:
        # the engine asks for readings on every step.
        key = (amb, edition)
        default = _DEFAULTS.get(key)
        if default is None:
            default = _DEFAULTS[key] = reading(amb).default(edition)
        return default

    def with_reading(self, amb: str, letter: str) -> Variant:
        """This variant with `amb` set to `letter` (which may be the default)."""
        others = [(a, x) for a, x in self.choices if a != amb]
        return replace(self, readings=(*others, (amb, letter)))


@dataclass(frozen=True, slots=True)
class Rules:
    """The rules a game is played by: the edition data and the variant."""
    data: EditionData
    variant: Variant = Variant()

    @property
    def edition(self) -> str:
        """The edition's name, e.g. 'big-box-2023'."""
        return self.data.edition

    def reading(self, amb: str) -> str:
        """The reading letter in force for the register entry `amb` (e.g. "AMB-26")."""
        variant = self.variant
        key = (variant.readings, amb, self.data.edition)  # a tuple (Variant.__post_init__)
        letter = _IN_FORCE.get(key)
        if letter is None:
            letter = _IN_FORCE[key] = variant.reading(amb, self.data.edition)
        return letter
