"""The explorer's seen-set: 64-bit state fingerprints in one flat open-addressing table.

A Python `set` of ints costs about 60 bytes per entry; this table stores the fingerprint
alone, 8 bytes per slot, filled to at most 80% and grown by half, so it holds between 10
and 15 bytes per distinct state (`bytes_per_state`), the figure TLC's fingerprint sets
are judged by. Slot value 0 means empty, so the fingerprint 0 is stored as 1 (one more
way for two states to collide, counted in `collision_probability`).
"""

from __future__ import annotations

from array import array

_MASK = (1 << 64) - 1
_MAX_LOAD = 0.8
_GROWTH = 1.5


def _slot_key(fingerprint: int) -> int:
    """The fingerprint as a non-zero signed 64-bit value (the table's item type)."""
    key = fingerprint & _MASK
    if key == 0:
        key = 1
    return key - (1 << 64) if key >= 1 << 63 else key


class SeenSet:
    """A set of 64-bit fingerprints: `add` says whether a fingerprint is new."""

    def __init__(self, capacity: int = 1 << 12) -> None:
        size = _prime_at_least(int(capacity / _MAX_LOAD))
        self._table = array("q", bytes(8 * size))
        self._count = 0
        self._limit = int(size * _MAX_LOAD)

    def __len__(self) -> int:
        return self._count

    def __contains__(self, fingerprint: int) -> bool:
        key = _slot_key(fingerprint)
        table = self._table
        size = len(table)
        i = key % size
        step = 1 + (key >> 17) % (size - 1)  # double hashing over a prime size
        while True:
            slot = table[i]
            if slot == 0:
                return False
            if slot == key:
                return True
            i = (i + step) % size

    def add(self, fingerprint: int) -> bool:
        """Insert a fingerprint; True if it was not in the set yet."""
        key = _slot_key(fingerprint)
        table = self._table
        size = len(table)
        i = key % size
        step = 1 + (key >> 17) % (size - 1)
        while True:
            slot = table[i]
            if slot == 0:
                table[i] = key
                self._count += 1
                if self._count > self._limit:
                    self._grow()
                return True
            if slot == key:
                return False
            i = (i + step) % size

    def _grow(self) -> None:
        old = self._table
        size = _prime_at_least(int(len(old) * _GROWTH))
        table = array("q", bytes(8 * size))
        for key in old:
            if key == 0:
                continue
            i = key % size
            step = 1 + (key >> 17) % (size - 1)
            while table[i] != 0:
                i = (i + step) % size
            table[i] = key
        self._table = table
        self._limit = int(size * _MAX_LOAD)

    @property
    def nbytes(self) -> int:
        """The table's size in bytes."""
        return self._table.itemsize * len(self._table)

    @property
    def bytes_per_state(self) -> float:
        """The table's bytes per fingerprint held."""
        return self.nbytes / max(self._count, 1)

    def keys(self) -> list[int]:
        """Every fingerprint held, in table order (for checkpoints)."""
        return [k for k in self._table if k != 0]


def _prime_at_least(size: int) -> int:
    """A prime at least `size`: with a prime table size every double-hashing step visits
    every slot."""
    n = max(size, 17) | 1
    while not _is_prime(n):
        n += 2
    return n


def _is_prime(n: int) -> bool:
    if n < 2 or n % 2 == 0:
        return n == 2
    k = 3
    while k * k <= n:
        if n % k == 0:
            return False
        k += 2
    return True


class SeenFigures:
    """What an exploration's seen set says of itself, from its `states` and `seen_bytes`
    (the Python explorer's `Exploration` and the native one's `NativeExploration`)."""

    states: int
    seen_bytes: int

    @property
    def bytes_per_state(self) -> float:
        """The seen-set's bytes per distinct state."""
        return self.seen_bytes / max(self.states, 1)

    @property
    def collision_probability(self) -> float:
        """The chance that two distinct states shared a fingerprint (`collision_probability`)."""
        return collision_probability(self.states)


def collision_probability(states: int, bits: int = 64) -> float:
    """The probability that two of `states` distinct states share a fingerprint, for
    fingerprints spread uniformly over `bits` bits: about n(n-1)/2 / 2**bits (TLC reports
    the same estimate). A collision would make the explorer skip a state it never saw."""
    return min(1.0, states * (states - 1) / 2 / 2.0**bits)
