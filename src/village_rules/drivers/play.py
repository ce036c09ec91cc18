"""Drivers: play a game with policies and a seeded RNG, and replay a logged game exactly.

A `GameLog` holds everything needed to reproduce a game in any process: the edition (or
the data file), the player count, the setup seed, the variant, and every action in the
text notation, chance outcomes included.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from village_rules.data.edition import EditionData
from village_rules.data.files import resolved
from village_rules.data.jsonio import MAX_LOG_CHARS, JsonInputError, is_version, read_json
from village_rules.data.loader import EDITIONS, builtin_edition, load_edition
from village_rules.drivers.artefacts import artefact_kind
from village_rules.engine.core import apply, chance_outcomes, legal_actions
from village_rules.engine.setup import new_game
from village_rules.errors import IllegalActionError, IncompleteGameError, LogFormatError, VillageError
from village_rules.model.actions import Action, ActionSyntaxError, format_action, parse_action
from village_rules.model.chance import sample
from village_rules.model.render import pending_words
from village_rules.model.state import GameState
from village_rules.rules.register import (
    LEGACY_WELL_FLAG,
    legacy_well_choice,
    readings_from_json,
    variant_to_json,
)
from village_rules.rules.variant import Variant

__all__ = [
    "LOG_FORMAT",
    "LOG_FORMAT_VERSION",
    "GameLog",
    "LogFormatError",  # defined in village_rules.errors; re-exported for code that imports it here
    "Policy",
    "Replayed",
    "play",
    "play_logged",
    "random_policy",
    "replay",
    "replay_log",
    "step",
]

Policy = Callable[[GameState, Sequence[Action], random.Random], Action]
"""Chooses one of the legal actions of the seat to act."""


def random_policy(state: GameState, legal: Sequence[Action], rng: random.Random) -> Action:
    """Uniformly random among the legal actions."""
    return legal[rng.randrange(len(legal))]


LOG_FORMAT = "village-rules-log"
LOG_FORMAT_VERSION = 1
_LOG_KEYS = frozenset(
    {
        "format",
        "format_version",
        "edition",
        "players",
        "seed",
        "actions",
        "variant",
        "data_file",
        "data_fingerprint",
        "query",
    }
)
_FINGERPRINT = re.compile(r"[0-9a-f]{64}")
PACKAGE_DATA = "village_rules:"
"""A `data_file` that starts so names a file shipped inside the package by its path there
(`village_rules:explore/configs/tiny.json`, the explorer's configurations), the same on
every machine and install, where an absolute path would point into one site-packages."""
_PACKAGE = Path(__file__).resolve().parents[1]


def data_file_name(path: Path) -> str:
    """What a log records as its `data_file` for the data file `path`: a file shipped in the
    package as `PACKAGE_DATA` and its path there, any other file as its absolute path."""
    full = resolved(path)
    if full.is_relative_to(_PACKAGE):
        return PACKAGE_DATA + full.relative_to(_PACKAGE).as_posix()
    return str(full)


def data_path(data_file: str) -> Path:
    """The file a log's `data_file` names: a `PACKAGE_DATA` name inside this install's
    package, any other as the path it is. An absolute path into another install's package
    (how logs recorded shipped configurations before `PACKAGE_DATA`) that does not exist
    here is read from this package, so old logs replay on any machine (the fingerprint the
    log records still has to match). `LogFormatError` for a package name outside it."""
    if data_file.startswith(PACKAGE_DATA):
        inner = PurePosixPath(data_file.removeprefix(PACKAGE_DATA))
        if not inner.parts or inner.is_absolute() or ".." in inner.parts:
            raise LogFormatError(
                f"game log: field 'data_file' is {data_file!r}: after {PACKAGE_DATA!r} it must give"
                " a path inside the package, such as 'village_rules:explore/configs/tiny.json'"
            )
        return _PACKAGE.joinpath(*inner.parts)
    path = Path(data_file)
    parts = path.parts
    if path.is_absolute() and not path.exists() and "village_rules" in parts:
        at = len(parts) - 1 - parts[::-1].index("village_rules")
        moved = _PACKAGE.joinpath(*parts[at + 1 :])
        if moved.is_file():
            return moved
    return path


MAX_PATH_CHARS = 4096
"""The longest `data_file` path a log may give (Linux's own limit, PATH_MAX)."""


@dataclass(frozen=True)
class GameLog:
    """A replayable game: edition, player count, seed, variant and the actions as text.

    `data_fingerprint` binds the log to the data it was played on (the `fingerprint` of the
    `EditionData`, as saved states record it): replaying on other data is refused. Logs
    written before it existed lack it; they are accepted on the shipped editions only."""

    edition: str
    players: int
    seed: int
    actions: tuple[str, ...]
    variant: Variant = field(default_factory=Variant)
    data_file: str | None = None
    data_fingerprint: str | None = None
    query: tuple[str, str] | None = None
    """For a proof witness: (query name, where the query is defined: "catalogue", or the
    path of the user's module given to `prove --queries`), so `replay` and `view` can say
    which query it shows; written only when set (other logs do not have the field)."""

    def __post_init__(self) -> None:
        # A log on a shipped edition that names no fingerprint is bound to the shipped data
        # of this version (so `GameLog(...)` and its `to_json` round trip compare equal).
        if self.data_fingerprint is None and not self.data_file and self.edition in EDITIONS:
            object.__setattr__(self, "data_fingerprint", builtin_edition(self.edition).fingerprint)

    def data(self) -> EditionData:
        """The edition data the log is played on, checked against what the log records:
        `LogFormatError` (or `DataError` for an unreadable data file) naming what differs."""
        if not self.data_file:
            data = builtin_edition(self.edition)
            where = f"the shipped data of {self.edition}"
        else:
            data = load_edition(data_path(self.data_file))
            where = f"the data file {self.data_file}"
            if self.data_fingerprint is None:
                raise LogFormatError(
                    f"game log: field 'data_fingerprint' is missing: a log on {where} must record the "
                    "fingerprint of the data it was played on, or the file may have changed since"
                )
            if data.edition != self.edition:
                raise LogFormatError(
                    f"game log: field 'edition' is {self.edition!r}, but {where} is edition {data.edition!r}"
                )
        if self.data_fingerprint is not None and data.fingerprint != self.data_fingerprint:
            raise LogFormatError(
                f"game log: field 'data_fingerprint': the log was played on data {self.data_fingerprint},"
                f" but {where} is now {data.fingerprint}: the data changed since, so the game would"
                " not replay as it was played"
            )
        return data

    def initial_state(self) -> GameState:
        """The game's state before its first action (on the data checked by `data`)."""
        return new_game(self.data(), self.players, self.seed, self.variant)

    def recorded_fingerprint(self) -> str:
        """The fingerprint `to_json` writes: the one given, else that of the data the log
        names now (the shipped edition, or `data_file` as it is)."""
        if self.data_fingerprint is not None:
            return self.data_fingerprint
        data = load_edition(data_path(self.data_file)) if self.data_file else builtin_edition(self.edition)
        return data.fingerprint

    def to_json(self) -> str:
        """The log as JSON text (format village-rules-log, version 1), with the fingerprint
        of its data (`recorded_fingerprint`)."""
        raw = asdict(self)
        raw["actions"] = list(self.actions)
        raw["variant"] = variant_to_json(self.variant.starting_compensation, self.variant.choices)
        raw["data_fingerprint"] = self.recorded_fingerprint()
        if self.query is None:
            del raw["query"]
        else:
            raw["query"] = {"name": self.query[0], "source": self.query[1]}
        return json.dumps({"format": "village-rules-log", "format_version": 1, **raw}, indent=1)

    @staticmethod
    def from_json(text: str, source: str | None = None) -> GameLog:
        """Parse and validate a log written by `to_json`; raises `LogFormatError` naming the
        field at fault (and `source`, the file, when given). `data_file` may be omitted (the
        shipped data is then used), and so may `data_fingerprint` on the shipped data."""
        try:
            return GameLog._from_json(text)
        except LogFormatError as exc:
            if source is None:
                raise
            raise LogFormatError(f"{source}: {exc}") from None

    @staticmethod
    def _from_json(text: str) -> GameLog:
        try:
            raw = read_json(text, MAX_LOG_CHARS, "game log")
        except JsonInputError as exc:
            raise LogFormatError(f"unreadable game log: {exc.problem}") from None
        if not isinstance(raw, dict):
            raise LogFormatError(f"game log: expected a JSON object, got {_kind(raw)}")
        kind = artefact_kind(raw, LOG_FORMAT)
        if kind is not None:
            raise LogFormatError(f"not a game log: this is {kind}")
        unknown = sorted(set(raw) - _LOG_KEYS)
        if unknown:
            raise LogFormatError(f"game log: unknown field(s): {', '.join(map(repr, unknown))}")
        if raw.get("format") != LOG_FORMAT:
            raise LogFormatError(f"game log: field 'format' must be {LOG_FORMAT!r}")
        version = raw.get("format_version")
        if not is_version(version, LOG_FORMAT_VERSION):
            raise LogFormatError(f"game log: field 'format_version' must be the integer {LOG_FORMAT_VERSION}")
        data_file = raw.get("data_file")
        if data_file is not None and not isinstance(data_file, str):
            raise LogFormatError(
                f"game log: field 'data_file' must be a string or null, got {_kind(data_file)}"
            )
        if data_file is not None and (
            len(data_file) > MAX_PATH_CHARS or any(c < " " or c == "\x7f" for c in data_file)
        ):
            raise LogFormatError(
                f"game log: field 'data_file' must be a file path of at most {MAX_PATH_CHARS} characters"
                " without control characters (such as NUL)"
            )
        fingerprint = raw.get("data_fingerprint")
        if fingerprint is not None and (
            not isinstance(fingerprint, str) or not _FINGERPRINT.fullmatch(fingerprint)
        ):
            raise LogFormatError(
                "game log: field 'data_fingerprint' must be the 64 hexadecimal digits of a data fingerprint"
            )
        edition = _required(raw, "edition")
        if not isinstance(edition, str):
            raise LogFormatError(f"game log: field 'edition' must be a string, got {_kind(edition)}")
        if data_file is None and edition not in EDITIONS:
            raise LogFormatError(
                f"game log: field 'edition' must be one of {', '.join(EDITIONS)} (or give 'data_file'),"
                f" got {edition!r}"
            )
        players = _integer(raw, "players")
        seed = _integer(raw, "seed")
        if seed < 0:
            raise LogFormatError(f"game log: field 'seed' must be 0 or more (SET-01), got {seed}")
        variant = _variant(_required(raw, "variant"))
        actions = _required(raw, "actions")
        if not isinstance(actions, list):
            raise LogFormatError(f"game log: field 'actions' must be a list of strings, got {_kind(actions)}")
        for i, a in enumerate(actions):
            if not isinstance(a, str):
                raise LogFormatError(f"game log: field 'actions[{i}]' must be a string, got {_kind(a)}")
        return GameLog(edition, players, seed, tuple(actions), variant, data_file, fingerprint, _query(raw))


def _query(raw: dict[str, Any]) -> tuple[str, str] | None:
    """The optional `query` field of a proof witness: {"name": str, "source": str}."""
    if "query" not in raw:
        return None
    value = raw["query"]
    if (
        not isinstance(value, dict)
        or set(value) != {"name", "source"}
        or not all(isinstance(value[k], str) and value[k] and len(value[k]) <= MAX_PATH_CHARS for k in value)
    ):
        raise LogFormatError(
            "game log: field 'query' must be an object {\"name\": text, \"source\": text} "
            "(the query a proof witness shows and where it is defined)"
        )
    return (value["name"], value["source"])


def _kind(value: object) -> str:
    """The JSON kind of a parsed value, for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"


def _required(raw: dict[str, Any], key: str) -> object:
    if key not in raw:
        raise LogFormatError(f"game log: missing field {key!r}")
    value: object = raw[key]
    return value


def _integer(raw: dict[str, Any], key: str) -> int:
    value = _required(raw, key)
    if type(value) is not int:
        raise LogFormatError(f"game log: field {key!r} must be an integer, got {_kind(value)}")
    return value


def _variant(value: object) -> Variant:
    """`{"starting_compensation": bool, "readings": {AMB: letter}}`; the version-1 flag
    `coin_substitution_at_well` is read as the AMB-01 reading a (true) or b (false)."""
    if not isinstance(value, dict):
        raise LogFormatError(f"game log: field 'variant' must be an object, got {_kind(value)}")
    expected = {"starting_compensation", LEGACY_WELL_FLAG if LEGACY_WELL_FLAG in value else "readings"}
    if set(value) != expected:
        raise LogFormatError(
            f"game log: field 'variant' must have exactly the keys {', '.join(sorted(expected))};"
            f" got {', '.join(sorted(map(str, value))) or 'none'}"
        )
    flag = value["starting_compensation"]
    if not isinstance(flag, bool):
        raise LogFormatError(
            f"game log: field 'variant.starting_compensation' must be a boolean, got {_kind(flag)}"
        )

    def fail(path: str, problem: str) -> LogFormatError:
        return LogFormatError(f"game log: field {path!r} {problem}")

    if LEGACY_WELL_FLAG in value:
        choice = legacy_well_choice(value[LEGACY_WELL_FLAG], f"variant.{LEGACY_WELL_FLAG}", fail)
        return Variant(flag, (choice,))
    return Variant(flag, readings_from_json(value["readings"], "variant.readings", fail))


def step(state: GameState, policies: Sequence[Policy], rng: random.Random) -> Action:
    """The next action: a chance outcome drawn with `rng`, or the acting seat's choice."""
    if state.is_chance:
        return sample(chance_outcomes(state), rng)
    return policies[state.current_player()](state, legal_actions(state), rng)


MAX_GAME_STEPS = 50_000
"""Actions after which a game played to its end that has not ended is reported as one that
does not end (a real game of five players takes a few thousand). The one bound of every
tool that plays games to the end: the fuzzer (`fuzz.games.MAX_STEPS` is this), `play`,
`play_logged` and `village-rules play`, the policy surveys, the test strategies. Read when
a game is played (`game_bound`), so a test can lower it. Before, `play` went on for a
million actions and returned an unfinished game as if it had ended, and other loops had no
bound at all: a rule change that made nobody die hung `check` and the test suite."""


def game_bound(max_steps: int | None) -> int:
    """`max_steps`, or `MAX_GAME_STEPS` for a game played to its end (None)."""
    return MAX_GAME_STEPS if max_steps is None else max_steps


class EndlessGameError(VillageError):
    """A game played to its end did not end within `MAX_GAME_STEPS` actions: a rules bug
    (or a policy that never ends a game). Carries the actions played and, where the caller
    knows the set-up, the replayable `log`."""

    def __init__(self, steps: int, actions: Sequence[Action], log: GameLog | None = None) -> None:
        super().__init__(
            f"the game did not end within {steps:,} actions (the bound of every game played to its "
            "end, drivers.play.MAX_GAME_STEPS): a rule or policy that never ends a game"
        )
        self.steps = steps
        self.actions = tuple(actions)
        self.log = log

    def with_log(self, log: GameLog) -> EndlessGameError:
        """The same error carrying `log`."""
        return EndlessGameError(self.steps, self.actions, log)


def play(
    state: GameState,
    policies: Sequence[Policy],
    rng: random.Random,
    max_steps: int | None = None,
    on_step: Callable[[GameState, Action, GameState], None] | None = None,
) -> tuple[GameState, list[Action]]:
    """Play to the end; returns the final state and the actions. With `max_steps`, stop
    after that many actions (a prefix the caller asked for). Without, a game that has not
    ended after `MAX_GAME_STEPS` actions raises `EndlessGameError` with its actions."""
    bound = game_bound(max_steps)
    actions: list[Action] = []
    while not state.is_terminal and len(actions) < bound:
        action = step(state, policies, rng)
        after = apply(state, action)
        if on_step is not None:
            on_step(state, action, after)
        actions.append(action)
        state = after
    if max_steps is None and not state.is_terminal:
        raise EndlessGameError(bound, actions)
    return state, actions


def replay(initial: GameState, actions: Sequence[str | Action]) -> GameState:
    """Apply logged actions (text or values) in order; raises on the first illegal one.

    The error (`ActionSyntaxError` or `IllegalActionError`, with its `rule` and `reason`)
    says which action failed: its message starts with "action k of N:" (k counts from 1)."""
    state = initial
    total = len(actions)
    for k, a in enumerate(actions, start=1):
        try:
            state = apply(state, parse_action(a) if isinstance(a, str) else a)
        except IllegalActionError as exc:
            raise IllegalActionError(exc.rule, exc.action, f"action {k} of {total}: {exc.reason}") from exc
        except ActionSyntaxError as exc:
            raise ActionSyntaxError(f"action {k} of {total}: {exc}") from exc
    return state


@dataclass(frozen=True)
class Replayed:
    """The outcome of replaying a game log: the state reached and how many actions it took."""

    state: GameState
    actions: int

    @property
    def complete(self) -> bool:
        """True when the log reaches the end of the game (final scoring done)."""
        return self.state.is_terminal

    def describe(self) -> str:
        """One line for people: finished, or where the log stops."""
        if self.complete:
            return f"complete: the game ended after {self.actions} actions"
        s = self.state
        # the pending step's words name the seat that acts, or the chance event
        return (
            f"INCOMPLETE: the log stops before the end of the game, after {self.actions} actions "
            f"(round {s.round}, waiting for {pending_words(s.pending)})"
        )


def replay_log(log: GameLog, complete: bool = False) -> Replayed:
    """Set up the logged game and replay its actions. `Replayed.complete` says whether the
    log reaches the end of the game; with `complete=True` a log that stops early raises
    `IncompleteGameError` instead. Bad logs raise `LogFormatError`, `DataError`,
    `SetupError`, `ActionSyntaxError` or `IllegalActionError` (all `VillageError`)."""
    result = Replayed(replay(log.initial_state(), log.actions), len(log.actions))
    if complete and not result.complete:
        raise IncompleteGameError(result.describe())
    return result


def play_logged(
    edition: str,
    players: int,
    seed: int,
    variant: Variant | None = None,
    max_steps: int | None = None,
    *,
    policies: Sequence[Policy] | None = None,
) -> tuple[GameState, GameLog]:
    """A seeded game and its replayable log (setup and play use `seed`): random seats, or
    `policies[i]` in seat i (one `random.Random(seed)` draws chance and the policies' ties,
    as the fuzzer's games do); played to its end unless `max_steps` is given
    (`EndlessGameError` carrying the log, as `play`)."""
    v = variant or Variant()
    state = new_game(edition, players, seed, v)
    rng = random.Random(seed)
    seats = list(policies) if policies is not None else [random_policy] * players

    def log_of(actions: Sequence[Action]) -> GameLog:
        return GameLog(edition, players, seed, tuple(format_action(a) for a in actions), v)

    try:
        final, actions = play(state, seats, rng, max_steps)
    except EndlessGameError as endless:
        raise endless.with_log(log_of(endless.actions)) from None
    return final, log_of(actions)
