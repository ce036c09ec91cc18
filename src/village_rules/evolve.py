"""A faster `dataclasses.replace` for the state's own classes (`GameState`, `PlayerState`,
`Supply`, `MarketDay`): the engine makes a few of these copies per action, and the
generic `replace` (a field loop, keyword arguments, then the frozen `__init__`) was the
largest single cost of `apply`.

For those classes it builds the copy with `frozen_build.fast_replacer` (one compiled
function per set of changed names, no per-field frozen setattr); any other class, or a
name that is not a constructor field, goes to `dataclasses.replace` itself (with its
errors). The type checker sees `dataclasses.replace`
(so field names and types stay checked).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from village_rules.frozen_build import fast_replacer
from village_rules.state import GameState, MarketDay, PlayerState, Supply

__all__ = ["replace"]

_T = TypeVar("_T")


_REPLACERS: dict[type, Callable[[object, dict[str, object]], object | None]] = {
    cls: fast_replacer(cls) for cls in (GameState, PlayerState, Supply, MarketDay)
}

if TYPE_CHECKING:
    from dataclasses import replace
else:

    def replace(obj: _T, /, **changes: object) -> _T:
        """`dataclasses.replace(obj, **changes)`, faster for the state's classes."""
        fast = _REPLACERS.get(obj.__class__)
        if fast is not None:
            new = fast(obj, changes)
            if new is not None:
                return new
        return dataclasses.replace(obj, **changes)
