"""Which engine plays a tool's games: the reference (the Python engine) or the native core
(issue 39, item 2). The names, whether this install has the core, and the one rule every
tool follows: the native core by default where it is built, the reference otherwise, and a
clear refusal (never a silent fall-back) when the native core is asked for and not built.

Each tool raises the refusal as its own error type, naming its own option (`fuzz
--engine`, the adapters' `engine` parameter), so this module returns the problem as text.
"""

from __future__ import annotations

import importlib.util

NATIVE = "native"
REFERENCE = "reference"
ENGINES: tuple[str, ...] = (NATIVE, REFERENCE)
"""`native`: the C++ core (built by `pip install .` where a C++17 compiler works),
`reference`: the Python engine."""

NOT_BUILT = (
    "native: this install has no native core (built without a C++17 compiler or with "
    "VILLAGE_RULES_NATIVE=0; docs/native.md): use {reference}"
)
"""The refusal of the native core where it is not built; `{reference}` is how the tool asks
for the reference engine."""


def native_built() -> bool:
    """Whether this install has the compiled native core. Looking for the extension imports
    `village_rules.native`, which raises ImportError where the core is not built: that is a
    no, not an error."""
    try:
        return importlib.util.find_spec("village_rules.native._core") is not None
    except ImportError:
        return False


def choose(engine: str | None, built: bool, reference: str = REFERENCE) -> tuple[str, str | None]:
    """The engine to use for `engine` (None: the default) on an install where the native
    core is `built` or not, and the problem (None when there is none): an unknown name, or
    the native core asked for where it is not built (which names `reference`, the tool's
    own way of asking for the reference engine)."""
    if engine is None:
        return (NATIVE if built else REFERENCE), None
    if engine not in ENGINES:
        return REFERENCE, f"must be one of {', '.join(ENGINES)}, not {engine!r}"
    if engine == NATIVE and not built:
        return REFERENCE, NOT_BUILT.format(reference=reference)
    return engine, None
