"""An engine named as `module:attr` (`conform --engine`, `serve --engine`)."""

from __future__ import annotations

import importlib

from village_rules.conform.protocol import ConformError, Engine


def load_engine(spec: str) -> Engine:
    """The engine `module:attr` names: `attr` is an engine object, or a class or function
    called with no arguments that returns one. `ConformError` says what is wrong."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise ConformError(f"--engine {spec!r}: expected module:attr, e.g. mypackage.engine:MyEngine")
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # any failure to import is the user's module's: say which
        raise ConformError(
            f"--engine {spec!r}: cannot import {module_name}: {type(exc).__name__}: {exc}"
        ) from None
    target: object = module
    for part in attr.split("."):
        if not hasattr(target, part):
            raise ConformError(f"--engine {spec!r}: {module_name} has no attribute {attr}")
        target = getattr(target, part)
    if callable(target) and (isinstance(target, type) or not isinstance(target, Engine)):
        try:
            target = target()
        except Exception as exc:  # the user's constructor failed
            raise ConformError(
                f"--engine {spec!r}: calling {attr}() raised {type(exc).__name__}: {exc}"
            ) from None
    if not isinstance(target, Engine):
        missing = [
            m
            for m in (
                "new_game",
                "load",
                "current_player",
                "legal_actions",
                "chance_outcomes",
                "apply",
                "state_json",
                "scores",
                "winners",
            )
            if not callable(getattr(target, m, None))
        ]
        raise ConformError(
            f"--engine {spec!r}: not an engine: it lacks {', '.join(missing)} (docs/conformance.md)"
        )
    return target
