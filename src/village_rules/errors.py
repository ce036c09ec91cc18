"""The library's exceptions. Each says which rule, field or file is at fault."""

from __future__ import annotations

from typing import Literal

from village_rules.rule_ids import RuleId

NotARule = Literal["CHANCE", "STEP"]
"""What an `IllegalActionError` names when no rule of specs/rules.md is at fault: a chance
outcome the pending event does not have, or a wrapper's (PettingZoo) step protocol."""


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

    def __init__(self, rule: RuleId, problem: str) -> None:
        self.rule = rule
        self.problem = problem
        super().__init__(f"{rule}: {problem}")


class FuzzArgumentError(VillageError, ValueError):
    """A fuzz run that cannot be made as asked (`village_rules.fuzz.runner.run_fuzz`, `village-rules
    fuzz`): names the option at fault, e.g. ``--games``, ``--shard`` or ``--backend``."""

    def __init__(self, option: str, problem: str) -> None:
        self.option = option
        self.problem = problem
        super().__init__(f"{option}: {problem}")


class FuzzBackendError(VillageError, RuntimeError):
    """The machinery that plays a fuzz run's games failed (a worker process died, a Ray
    cluster could not be reached or lost a task): names the backend; no game is at fault."""

    def __init__(self, backend: str, problem: str) -> None:
        self.backend = backend
        self.problem = problem
        super().__init__(f"fuzz backend {backend}: {problem}")


class FuzzReportError(VillageError, ValueError):
    """A fuzz report file (`village-rules fuzz --json`) that cannot be read, or reports that
    do not make up one run (`village-rules fuzz-merge`): names the file and the field."""

    def __init__(self, file: str, key: str, problem: str) -> None:
        self.file = file
        self.key = key
        self.problem = problem
        super().__init__(f"{file}: {key or '<top level>'}: {problem}")


class ArgumentTypeError(VillageError, TypeError):
    """A public function was called with an argument of the wrong type (names the argument)."""


class ActionTypeError(ArgumentTypeError):
    """`apply` was given something that is not an action value with correctly typed fields
    (a text, another object, `Serve("7")`…); see `actions.check_action`."""


class IllegalActionError(VillageError, ValueError):
    """`apply` was given an action the rules do not allow now; the state is unchanged."""

    def __init__(self, rule: RuleId | NotARule, action: str, reason: str) -> None:
        self.rule = rule
        self.action = action
        self.reason = reason
        super().__init__(f"{rule}: {action!r} is not allowed: {reason}")


class LogFormatError(VillageError, ValueError):
    """A game log (see `village_rules.drivers.play.GameLog`) that cannot be read: names the field at fault."""


class ShowError(VillageError, ValueError):
    """A picture or report request that cannot be met (e.g. `show --at K` past the log's end)."""


class ViewError(VillageError, ValueError):
    """A file the step-through viewer cannot tell as a story (`village-rules view`): not a
    game log or witness, or one that cannot be replayed."""


class IncompleteGameError(VillageError, ValueError):
    """A replayed game log stops before the end of the game (`replay_log(..., complete=True)`)."""


class ParameterError(VillageError, ValueError):
    """A parameter of a game wrapper (OpenSpiel, PettingZoo) or of `returns` that is not
    allowed; the message names the parameter and the values it takes."""

    def __init__(self, parameter: str, problem: str) -> None:
        super().__init__(f"parameter {parameter!r}: {problem}")
        self.parameter = parameter


class ReadingError(VillageError, ValueError):
    """An unknown ambiguity ID or reading letter (see `village_rules.rules.register`)."""


class InternalError(VillageError, RuntimeError):
    """A check of the library's own bookkeeping failed: a step handed an action of another
    kind, a member it has just looked up missing, a market day or mass that should be in
    progress but is not. Names where and what; it means a bug in village-rules (or a state
    built past `from_json`'s checks), never a wrong move (that is `IllegalActionError`) nor
    bad input.

    Raised by explicit checks in place of bare `assert`s, so they hold under `python -O`.
    `from_json`'s playability check catches it as a `VillageError`."""

    def __init__(self, where: str, problem: str) -> None:
        self.where = where
        self.problem = problem
        super().__init__(f"internal check failed in {where}: {problem}")


class OutputError(VillageError, ValueError):
    """A file or folder a command was asked to write that cannot be written, or must not be
    (it is one of the command's inputs): names it. Nothing was changed (see
    `village_rules.data.files`)."""

    def __init__(self, file: str, problem: str) -> None:
        self.file = file
        self.problem = problem
        super().__init__(f"{file}: {problem}")
