"""Fast positional constructors for the state's frozen, slotted dataclasses.

A frozen dataclass's `__init__` stores each field with `object.__setattr__` (one Python
call per field: ~1.4 µs for the 20 fields of `GameState`), and the engine builds a few
states per action. Here each such class gets a *builder twin*: a plain class with the very
same `__slots__` (so the same memory layout) whose `__init__` stores the fields with
ordinary slot assignments; the built object's class is then set to the frozen class
(CPython allows `__class__` assignment between classes of the same layout). The result is
an ordinary frozen instance (equal, hashed, pickled and refused mutation exactly like one
made by the constructor) at about a fifth of the cost.

Only for classes without `__post_init__` (nothing to validate or normalise) whose every
field is a slot; `fast_constructor` refuses any other class. Fields that are not
constructor arguments (`init=False`) get their default, as the dataclass's `__init__` gives
them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TypeVar

__all__ = ["fast_constructor"]

_T = TypeVar("_T")


def fast_constructor(cls: type[_T]) -> Callable[..., _T]:
    """A function taking `cls`'s constructor fields positionally (all of them, in field
    order) and returning the frozen instance `cls(*values)` would."""
    if not dataclasses.is_dataclass(cls) or hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__}: only dataclasses without __post_init__ are built fast")
    fields = dataclasses.fields(cls)
    slots = tuple(getattr(cls, "__slots__", ()))
    if sorted(slots) != sorted(f.name for f in fields):
        raise TypeError(f"{cls.__name__}: every field must be a slot, and only the fields")
    params = [f.name for f in fields if f.init]
    defaults: dict[str, object] = {}
    body: list[str] = []
    for f in fields:
        if f.init:
            body.append(f"    self.{f.name} = {f.name}")
        elif f.default is not dataclasses.MISSING:
            defaults[f"_default_{f.name}"] = f.default
            body.append(f"    self.{f.name} = _default_{f.name}")
        else:
            raise TypeError(f"{cls.__name__}.{f.name}: a non-init field needs a plain default")
    # Generated like the dataclass's own __init__ (dataclasses also compiles source text):
    # a loop over setattr would cost what this saves.
    source = f"def __init__(self, {', '.join(params)}):\n" + ("\n".join(body) or "    pass")
    namespace: dict[str, object] = dict(defaults)
    exec(source, namespace)  # the source is built above from the dataclass's own field names
    twin: Callable[..., _T] = type(
        f"_{cls.__name__}Builder", (), {"__slots__": slots, "__init__": namespace["__init__"]}
    )

    def build(*values: object) -> _T:
        obj = twin(*values)
        obj.__class__ = cls  # same slots, same layout: now a frozen instance
        return obj

    build.__doc__ = f"`{cls.__name__}(*values)`, built without the frozen per-field setattr."
    return build
