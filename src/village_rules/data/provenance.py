"""Where a data value comes from: a rules text, a worked example, a public secondary source,
or a reconstruction.

The kinds are ranked by authority (`SourceKind.rank`, lower is better): `rulebook` (stated
by one of the two rulebooks), `derived` (follows from their text or examples),
`secondary` (stated by a public source other than the rulebooks, such as a player aid, a
review or a publisher page, cited by its title in double quotes and its address), and
`reconstructed` (chosen to fit every constraint the texts give; see docs/reconstructions.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum


class SourceKind(StrEnum):
    """What kind of source a value of the data file comes from."""
    RULEBOOK = "rulebook"
    DERIVED = "derived"
    SECONDARY = "secondary"
    RECONSTRUCTED = "reconstructed"

    @property
    def rank(self) -> int:
        """0 = the best authority (rulebook) … 3 = reconstructed."""
        return list(SourceKind).index(self)


_TITLE = re.compile(r'"[^"]+"')
_ADDRESS = re.compile(r"\b(?:https?://)?[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}(?:/\S*)?", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Provenance:
    """`kind: where`, e.g. `rulebook: village-big-box-2023-rulebook.txt p. 7` or
    `secondary: "Recon 4: Village", https://www.playboardgamesbetter.com/2013/01/recon-4-village/ …`."""

    kind: SourceKind
    where: str

    @staticmethod
    def parse(text: str) -> Provenance:
        """Read a provenance text '<kind>: <source>'; raises ValueError otherwise."""
        kind, sep, where = text.partition(":")
        where = where.strip()
        if not sep or not where:
            raise ValueError("expected '<kind>: <source>', e.g. 'rulebook: <file> p. 7'")
        try:
            source_kind = SourceKind(kind.strip())
        except ValueError:
            allowed = ", ".join(k.value for k in SourceKind)
            raise ValueError(f"unknown provenance kind {kind.strip()!r} (allowed: {allowed})") from None
        if source_kind is SourceKind.SECONDARY and not (_TITLE.search(where) and _ADDRESS.search(where)):
            raise ValueError(
                "a 'secondary' source must be cited by its title in double quotes and its address, "
                "e.g. 'secondary: \"Recon 4: Village\", playboardgamesbetter.com …'"
            )
        return Provenance(source_kind, where)

    def __str__(self) -> str:
        return f"{self.kind.value}: {self.where}"
