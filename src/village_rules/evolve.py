"""A faster `dataclasses.replace` for the state's own classes (`GameState`, `PlayerState`,
`Supply`, `MarketDay`): the engine makes a few of these copies per action, and the
generic `replace` (a field loop, keyword arguments, then the frozen `__init__`) was the
largest single cost of `apply`.

It reads the constructor's fields in one C call (`operator.attrgetter`) and builds the
object positionally with `frozen_build.fast_constructor` (no per-field frozen setattr);
any other class, or a name that is not a constructor field, goes to
`dataclasses.replace` itself (with its errors). The type checker sees `dataclasses.replace`
(so field names and types stay checked).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from operator import attrgetter
from typing import TYPE_CHECKING, TypeVar

from village_rules.frozen_build import fast_constructor
from village_rules.state import GameState, MarketDay, PlayerState, Supply

__all__ = ["replace"]

_T = TypeVar("_T")


def _spec(cls: type) -> tuple[attrgetter[tuple[object, ...]], dict[str, int], Callable[..., object]]:
    names = tuple(f.name for f in dataclasses.fields(cls) if f.init)
    return attrgetter(*names), {n: i for i, n in enumerate(names)}, fast_constructor(cls)


_SPECS = {cls: _spec(cls) for cls in (GameState, PlayerState, Supply, MarketDay)}

if TYPE_CHECKING:
    from dataclasses import replace
else:

    def replace(obj: _T, /, **changes: object) -> _T:
        """`dataclasses.replace(obj, **changes)`, faster for the state's classes."""
        cls = type(obj)
        spec = _SPECS.get(cls)
        if spec is None:
            return dataclasses.replace(obj, **changes)
        getter, index, build = spec
        values = list(getter(obj))
        try:
            for name, value in changes.items():
                values[index[name]] = value
        except KeyError:
            return dataclasses.replace(obj, **changes)
        return build(*values)  # type: ignore[no-any-return]
