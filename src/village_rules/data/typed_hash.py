"""`typed_hash`: a frozen dataclass hash that includes the class and never hashes `None`.

A dataclass's generated `__hash__` is the hash of its fields' tuple, and two things in it
made the explorer's fingerprints (a state's hash) wrong:

- it ignores the class: `hash(Farmyard()) == hash(InGraveyard()) == hash(())`, and
  `OnCouncil(1)` hashes like `OnChurch(1)`. Equality still tells them apart, but two
  states that differ only in which such value a field holds (a member in the graveyard or
  removed) got one fingerprint, and one of them was never visited (found on `large`:
  2,506 collisions by depth 22);
- before Python 3.12, `hash(None)` is None's address, which differs from one process to
  the next whatever `PYTHONHASHSEED` says. A state holds many `None`s (no turn, no market
  day, no Carla, an empty market space), so a state's fingerprint differed between
  processes: a checkpoint resumed in a new process, or Ray actors, counted states twice.

The hash this installs is over (the class's name, its fields), with `None` replaced by a
constant string, in a field and inside a tuple field (the only places the state holds it).
It depends on `PYTHONHASHSEED` alone (through the strings), like a string's hash, and is
equal for equal values. Every class a `GameState` is built from carries it.
"""

from __future__ import annotations

import dataclasses
from typing import TypeVar

T = TypeVar("T")

NONE = "\x00None"
"""What stands for `None` in a hash: a string, hashed the same in every process."""


def _no_none(values: tuple[object, ...]) -> tuple[object, ...]:
    """A tuple field with `None` replaced (its other members hash themselves)."""
    return tuple(NONE if v is None else v for v in values) if None in values else values


def typed_hash(cls: type[T]) -> type[T]:
    """Give a frozen dataclass a `__hash__` over (its name, its hashed fields), `None`-free.

    The method is generated once per class (as `dataclasses` generates its own) so that it
    costs no more than the generated one: a field annotated as possibly `None` is replaced
    when it is, and a tuple field (which may hold `None`s) goes through `_no_none`."""
    fields = [
        f for f in dataclasses.fields(cls) if (f.hash if f.hash is not None else f.compare)  # type: ignore[arg-type]
    ]
    terms = [repr(cls.__qualname__)]
    for f in fields:
        kind = str(f.type)
        term = f"self.{f.name}"
        if "tuple[" in kind and "None" in kind:
            term = f"_no_none({term})"
        if "| None" in kind or "Optional[" in kind:
            term = f"(_NONE if self.{f.name} is None else {term})"
        terms.append(term)
    source = f"def __hash__(self):\n    return hash(({', '.join(terms)},))\n"
    namespace: dict[str, object] = {"_NONE": NONE, "_no_none": _no_none}
    exec(source, namespace)
    cls.__hash__ = namespace["__hash__"]  # type: ignore[assignment]
    return cls


@typed_hash
@dataclasses.dataclass(frozen=True, slots=True)
class _Probe:
    nothing: int | None
    some: tuple[int | None, ...]


def none_canary() -> int:
    """The hash of a value holding `None` (in a field and in a tuple), as `typed_hash` hashes
    it: the same in two processes with the same `PYTHONHASHSEED` (the explorer's workers and
    checkpoints compare it; before Python 3.12 `hash(None)` itself would not be)."""
    return hash(_Probe(None, (1, None)))
