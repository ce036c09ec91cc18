"""An immutable, hashable multiset of named pieces (cubes, goods, chronicle spaces…).

Counts are never negative: taking more than there is raises, so a bug cannot quietly
create a debt. Zero counts are not stored, so equal tallies compare and hash equal.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Generic, TypeVar

K = TypeVar("K", bound=StrEnum)


@dataclass(frozen=True, slots=True)
class Tally(Generic[K]):
    """Sorted (key, positive count) pairs."""

    items: tuple[tuple[K, int], ...] = ()

    @staticmethod
    def of(counts: Mapping[K, int] | Iterable[tuple[K, int]]) -> Tally[K]:
        pairs = counts.items() if isinstance(counts, Mapping) else counts
        merged: dict[K, int] = {}
        for key, n in pairs:
            if n < 0:
                raise ValueError(f"negative count {n} for {key.value}")
            merged[key] = merged.get(key, 0) + n
        return Tally(tuple(sorted(((k, n) for k, n in merged.items() if n), key=_by_value)))

    def __getitem__(self, key: K) -> int:
        for k, n in self.items:
            if k is key:
                return n
        return 0

    def __iter__(self) -> Iterator[K]:
        return (k for k, _ in self.items)

    def total(self) -> int:
        return sum(n for _, n in self.items)

    def as_dict(self) -> dict[K, int]:
        return dict(self.items)

    def add(self, key: K, n: int = 1) -> Tally[K]:
        if n < 0:
            raise ValueError(f"cannot add {n} {key.value}")
        return self.plus(Tally(((key, n),)) if n else Tally())

    def remove(self, key: K, n: int = 1) -> Tally[K]:
        have = self[key]
        if n < 0 or n > have:
            raise ValueError(f"cannot take {n} {key.value}: only {have}")
        return self.minus(Tally(((key, n),)) if n else Tally())

    def plus(self, other: Tally[K]) -> Tally[K]:
        merged = dict(self.items)
        for k, n in other.items:
            merged[k] = merged.get(k, 0) + n
        return Tally.of(merged)

    def minus(self, other: Tally[K]) -> Tally[K]:
        merged = dict(self.items)
        for k, n in other.items:
            have = merged.get(k, 0)
            if n > have:
                raise ValueError(f"cannot take {n} {k.value}: only {have}")
            merged[k] = have - n
        return Tally.of(merged)

    def covers(self, other: Tally[K]) -> bool:
        """True if every count in `other` is available here."""
        return all(self[k] >= n for k, n in other.items)

    def __str__(self) -> str:
        return ", ".join(f"{n} {k.value}" for k, n in self.items) or "nothing"


def _by_value(pair: tuple[StrEnum, int]) -> str:
    return pair[0].value
