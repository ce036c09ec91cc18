"""The native core (issue 39, docs/native.md): the reference's game in C++17, tied to it step
by step (tests/native/). Importable only where the optional extension was built; the rest
of village_rules never needs it.

    from village_rules.native import NativeEngine
    engine = NativeEngine()
    engine.new_game_from(edition="original-2011", players=3, seed=7)
    engine.legal_actions()  # the reference's action ids, in the reference's order

Every game (2 to 5 players, and the solo game against Carla) runs natively from its set-up
to its scores. A step the core did not implement would raise `NotSupportedError` (never a
wrong answer), and the tools would fall back to the reference there.
"""

from __future__ import annotations

try:
    from village_rules.native import _core  # noqa: F401 (the compiled extension)
except ImportError as exc:  # pragma: no cover - depends on how the package was installed
    raise ImportError(
        "village_rules.native needs the compiled native core, which this install does not have "
        "(built without a working C++17 compiler, or with VILLAGE_RULES_NATIVE=0); "
        "reinstall with a compiler to build it (docs/native.md). "
        f"The pure-Python engine (village_rules) works without it. ({exc})"
    ) from exc

from village_rules.native.engine import SUPPORTED, IllegalIdError, NativeEngine, NotSupportedError

__all__ = ["SUPPORTED", "IllegalIdError", "NativeEngine", "NotSupportedError"]
