"""Explicit checks of the engine's own bookkeeping, in place of bare `assert`s.

They raise `InternalError` (naming the place) and hold under `python -O`; each
also narrows the checked value's type for mypy, as the asserts did."""

from __future__ import annotations

from typing import TypeVar

from village_rules.errors import InternalError

T = TypeVar("T")


def present(value: T | None, where: str, what: str) -> T:
    """`value`, which the rules guarantee to exist here (`what` says what it is)."""
    if value is None:
        raise InternalError(where, f"{what} is missing")
    return value


def expect(value: object, kind: type[T], where: str) -> T:
    """`value`, which the step guarantees to be of `kind` (e.g. the action of a step)."""
    if not isinstance(value, kind):
        raise InternalError(where, f"expected a {kind.__name__}, got {value!r}")
    return value
