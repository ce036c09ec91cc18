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

__all__ = ["fast_constructor", "replace_function"]

_T = TypeVar("_T")


def fast_constructor(cls: type[_T]) -> Callable[..., _T]:
    """A function taking `cls`'s constructor fields positionally (all of them, in field
    order) and returning the frozen instance `cls(*values)` would."""
    twin, _ = _twin(cls)

    def build(*values: object) -> _T:
        obj = twin(*values)
        obj.__class__ = cls  # same slots, same layout: now a frozen instance
        return obj

    build.__doc__ = f"`{cls.__name__}(*values)`, built without the frozen per-field setattr."
    return build


def replace_function(cls: type[_T], names: tuple[str, ...]) -> Callable[[_T, dict[str, object]], _T] | None:
    """One compiled function `(obj, changes)` for changing exactly `names` of an instance
    of `cls` (what `dataclasses.replace(obj, **changes)` returns), or None when a name is
    not a constructor field. It passes the unchanged fields straight from `obj` and the
    changed ones from `changes` to the twin's constructor: no field loop, no list, no
    look-up per name. Callers keep it per set of names (a handful of call sites each)."""
    twin, params = _twin(cls)
    if not set(params).issuperset(names):
        return None
    args = ", ".join(f"changes[{n!r}]" if n in names else f"obj.{n}" for n in params)
    source = (
        "def replace(obj, changes):\n"
        f"    new = twin({args})\n"
        "    new.__class__ = cls\n"
        "    return new"
    )
    namespace: dict[str, object] = {"twin": twin, "cls": cls}
    exec(source, namespace)  # the source is built from the dataclass's own field names
    function: Callable[[_T, dict[str, object]], _T] = namespace["replace"]  # type: ignore[assignment]
    return function


_TWINS: dict[type, tuple[Callable[..., object], list[str]]] = {}


def _twin(cls: type[_T]) -> tuple[Callable[..., _T], list[str]]:
    """`_make_twin(cls)`, made once per class."""
    made = _TWINS.get(cls)
    if made is None:
        made = _TWINS[cls] = _make_twin(cls)
    return made  # type: ignore[return-value]


def _make_twin(cls: type[_T]) -> tuple[Callable[..., _T], list[str]]:
    """The builder twin of `cls` (same slots, plain `__init__` taking the constructor
    fields positionally) and the names of those fields, in order; TypeError for a class
    it cannot build faithfully."""
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
    probe = twin(*([None] * len(params)))
    try:
        probe.__class__ = cls
    except TypeError as exc:  # e.g. a Generic base: refused now, not at the first build
        raise TypeError(f"{cls.__name__}: its layout cannot be built by a twin ({exc})") from None
    return twin, params
