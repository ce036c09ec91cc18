"""An immutable, hashable multiset of named pieces (cubes, goods, chronicle spaces…).

Counts are never negative: taking more than there is raises, so a bug cannot quietly
create a debt. Zero counts are not stored, so equal tallies compare and hash equal.

Kept small and fast: pairs are sorted by the key's value (a `StrEnum` member *is* its
value as a string, so keys compare directly), and `add` / `remove` of one key insert or
replace one pair instead of rebuilding and sorting a dict.
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
        """A tally of counts; raises ValueError for a negative count."""
        pairs = counts.items() if isinstance(counts, Mapping) else counts
        merged: dict[K, int] = {}
        for key, n in pairs:
            if n < 0:
                raise ValueError(f"negative count {n} for {key.value}")
            merged[key] = merged.get(key, 0) + n
        return Tally(tuple(sorted([(k, n) for k, n in merged.items() if n])))

    def __getitem__(self, key: K) -> int:
        for k, n in self.items:
            if k is key:
                return n
        return 0

    def __iter__(self) -> Iterator[K]:
        return (k for k, _ in self.items)

    def total(self) -> int:
        """The sum of all counts."""
        total = 0
        for _, n in self.items:
            total += n
        return total

    def as_dict(self) -> dict[K, int]:
        """The counts as a dictionary."""
        return dict(self.items)

    def add(self, key: K, n: int = 1) -> Tally[K]:
        """The tally with `n` more of `key`; raises ValueError for a negative `n`."""
        if n < 0:
            raise ValueError(f"cannot add {n} {key.value}")
        if n == 0:
            return self
        items = self.items
        for i, (k, have) in enumerate(items):
            if k is key:
                return Tally((*items[:i], (k, have + n), *items[i + 1 :]))
            if key < k:
                return Tally((*items[:i], (key, n), *items[i:]))
        return Tally((*items, (key, n)))

    def remove(self, key: K, n: int = 1) -> Tally[K]:
        """The tally with `n` fewer of `key`; raises ValueError when it has fewer."""
        items = self.items
        for i, (k, have) in enumerate(items):
            if k is key:
                if n < 0 or n > have:
                    break
                if n == have:
                    return Tally((*items[:i], *items[i + 1 :]))
                return Tally((*items[:i], (k, have - n), *items[i + 1 :])) if n else self
        else:
            have = 0
        if n < 0 or n > have:
            raise ValueError(f"cannot take {n} {key.value}: only {have}")
        return self

    def plus(self, other: Tally[K]) -> Tally[K]:
        """The sum of two tallies."""
        out = self
        for k, n in other.items:
            out = out.add(k, n)
        return out

    def minus(self, other: Tally[K]) -> Tally[K]:
        """This tally less `other`; raises ValueError when `other` holds more of a key."""
        out = self
        for k, n in other.items:
            have = out[k]
            if n > have:
                raise ValueError(f"cannot take {n} {k.value}: only {have}")
            out = out.remove(k, n)
        return out

    def covers(self, other: Tally[K]) -> bool:
        """True if every count in `other` is available here."""
        mine = self.items
        for key, n in other.items:
            for k, have in mine:
                if k is key:
                    if have < n:
                        return False
                    break
            else:
                if n > 0:
                    return False  # none of `key` here
        return True

    def __str__(self) -> str:
        return ", ".join(f"{n} {k.value}" for k, n in self.items) or "nothing"
