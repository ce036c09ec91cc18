"""Where a data value comes from: a rules text, a worked example, or a reconstruction."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class SourceKind(StrEnum):
    RULEBOOK = "rulebook"
    DERIVED = "derived"
    RECONSTRUCTED = "reconstructed"


@dataclass(frozen=True, slots=True)
class Provenance:
    """`kind: where`, e.g. `rulebook: village-big-box-2023-rulebook.txt p. 7`."""

    kind: SourceKind
    where: str

    @staticmethod
    def parse(text: str) -> Provenance:
        kind, sep, where = text.partition(":")
        where = where.strip()
        if not sep or not where:
            raise ValueError("expected '<kind>: <source>', e.g. 'rulebook: <file> p. 7'")
        try:
            source_kind = SourceKind(kind.strip())
        except ValueError:
            allowed = ", ".join(k.value for k in SourceKind)
            raise ValueError(f"unknown provenance kind {kind.strip()!r} (allowed: {allowed})") from None
        return Provenance(source_kind, where)

    def __str__(self) -> str:
        return f"{self.kind.value}: {self.where}"
