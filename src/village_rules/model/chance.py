"""Resolving chance events with an explicit, seeded random number generator.

A chance event is a list of (outcome, exact probability). `sample` picks one using only
`rng.randrange`, so the same seed gives the same outcome in any process.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache
from math import lcm
from typing import TypeVar

T = TypeVar("T")


def sample(outcomes: Sequence[tuple[T, Fraction]], rng: random.Random) -> T:
    """Draw one outcome with exactly its probability."""
    if not outcomes:
        raise ValueError("a chance event needs at least one outcome")
    denominator = lcm(*(p.denominator for _, p in outcomes))
    ticket = rng.randrange(denominator)
    for outcome, p in outcomes:
        ticket -= p.numerator * (denominator // p.denominator)  # = p * denominator, in integers
        if ticket < 0:
            return outcome
    raise ValueError("chance outcome probabilities do not sum to 1")


def uniform(items: Sequence[T]) -> list[tuple[T, Fraction]]:
    """Each item with the same probability 1 / len(items)."""
    if not items:
        return []
    p = _fraction(1, len(items))
    return [(x, p) for x in items]


def proportional(counts: Sequence[tuple[T, int]]) -> list[tuple[T, Fraction]]:
    """Each outcome with probability count / total (drawing a piece from a bag)."""
    total = sum(n for _, n in counts)
    return [(x, _fraction(n, total)) for x, n in counts if n > 0]


@lru_cache(maxsize=4096)
def _fraction(numerator: int, denominator: int) -> Fraction:
    """`Fraction(numerator, denominator)`, kept: a third of all steps are draws from a bag
    and building a `Fraction` (a Python-level gcd and normalisation) was a visible part of
    each; the counts are small, so the same few hundred pairs recur. A `Fraction` is
    immutable, so sharing one is safe."""
    return Fraction(numerator, denominator)
