"""The library's exceptions. Each says which rule, field or file is at fault."""

from __future__ import annotations


class VillageError(Exception):
    """Base class of every error this library raises on purpose."""


class DataError(VillageError, ValueError):
    """An edition data file is malformed: names the file, the key path and the problem."""

    def __init__(self, file: str, key: str, problem: str) -> None:
        self.file = file
        self.key = key
        self.problem = problem
        super().__init__(f"{file}: {key or '<top level>'}: {problem}")


class StateFormatError(VillageError, ValueError):
    """A serialized state is malformed: names the JSON path and the problem."""

    def __init__(self, path: str, problem: str) -> None:
        self.path = path
        self.problem = problem
        super().__init__(f"state JSON at {path or '$'}: {problem}")


class SetupError(VillageError, ValueError):
    """A setup request the rules do not allow (e.g. an unsupported player count)."""

    def __init__(self, rule: str, problem: str) -> None:
        self.rule = rule
        self.problem = problem
        super().__init__(f"{rule}: {problem}")


class IllegalActionError(VillageError, ValueError):
    """`apply` was given an action the rules do not allow now; the state is unchanged."""

    def __init__(self, rule: str, action: str, reason: str) -> None:
        self.rule = rule
        self.action = action
        self.reason = reason
        super().__init__(f"{rule}: {action!r} is not allowed: {reason}")


class LogFormatError(VillageError, ValueError):
    """A game log (see `village_rules.play.GameLog`) that cannot be read: names the field at fault."""


class ReadingError(VillageError, ValueError):
    """An unknown ambiguity ID or reading letter (see `village_rules.readings`)."""
