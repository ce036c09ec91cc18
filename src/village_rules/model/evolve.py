"""A faster `dataclasses.replace` for the state's own classes (`GameState`, `PlayerState`,
`Supply`, `MarketDay`): the engine makes a few of these copies per action, and the
generic `replace` (a field loop, keyword arguments, then the frozen `__init__`) was the
largest single cost of `apply`.

For those classes it builds the copy with `frozen_build.replace_function` (one compiled
function per set of changed names, no per-field frozen setattr); any other class, or a
name that is not a constructor field, goes to `dataclasses.replace` itself (with its
errors). The type checker sees `dataclasses.replace`
(so field names and types stay checked).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from village_rules.model.frozen_build import replace_function
from village_rules.model.state import GameState, MarketDay, PlayerState, Supply

__all__ = ["replace"]

_T = TypeVar("_T")


_FAST_CLASSES: frozenset[type] = frozenset({GameState, PlayerState, Supply, MarketDay})

_BY_NAMES: dict[tuple[object, ...], Callable[[object, dict[str, object]], object]] = {}
"""(class, *changed names) -> the function that makes that copy: one dictionary look-up
per `replace`, then one compiled function (`frozen_build.replace_function`)."""


def _slow(obj: object, changes: dict[str, object]) -> object:
    return dataclasses.replace(obj, **changes)  # type: ignore[type-var]


def _function(key: tuple[object, ...]) -> Callable[[object, dict[str, object]], object]:
    cls, *names = key
    function: Callable[[object, dict[str, object]], object] | None = None
    if cls in _FAST_CLASSES:
        function = replace_function(cls, tuple(names))  # type: ignore[arg-type]
    _BY_NAMES[key] = function or _slow
    return _BY_NAMES[key]


if TYPE_CHECKING:
    from dataclasses import replace
else:

    def replace(obj: _T, /, **changes: object) -> _T:
        """`dataclasses.replace(obj, **changes)`, faster for the state's classes."""
        key = (obj.__class__, *changes)
        function = _BY_NAMES.get(key) or _function(key)
        return function(obj, changes)
