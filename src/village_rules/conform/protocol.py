"""The engine protocol `conform` drives: what any implementation of the game offers.

An implementation holds one current game. It sets one up (`new_game`, from an edition or a
data file, a player count, readings, and a seed or an explicit set-up deal), or takes a
saved state (`load`, the reference's canonical JSON), then answers about the current
state in the reference's own encoding: the seat to act (or `CHANCE`, `TERMINAL`), the
legal actions as the reference's integer action ids in the reference's order, the chance
outcomes as ids with exact probabilities, the state as `to_json` writes it, the final
scores; and it applies an action id. `ReferenceEngine` (`reference.py`) is the reference
itself behind this protocol; `ProtocolEngine` (`client.py`) is a subprocess spoken to in
JSON lines (`wire.py`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Protocol, runtime_checkable

from village_rules.errors import VillageError
from village_rules.model.state import CHANCE, TERMINAL

__all__ = [
    "CHANCE",
    "TERMINAL",
    "ConformError",
    "Engine",
    "GameSetup",
    "ImplementationError",
    "Observation",
]


class ConformError(VillageError):
    """Bad input to `conform`: an unknown input kind, a bad budget, an engine that cannot be
    loaded, a command that cannot be started. The command line exits 2."""


class ImplementationError(Exception):
    """The implementation under test failed to answer: it crashed, hung past the per-step
    limit, printed something that is not JSON, answered in the wrong shape, or raised. The
    runner turns it into a verdict naming the step, never a traceback."""


@dataclass(frozen=True, slots=True)
class GameSetup:
    """How a game is set up: `edition` (a shipped edition's name) or `data_file` (a path to
    an edition data file), the player count, the readings (AMB ID, letter) and the 2023
    starting compensation, and either `seed` (`new_game`'s) or `deal` (the set-up deal's
    outcome ids in order, `game_from_deal`)."""

    players: int
    edition: str | None = None
    data_file: str | None = None
    seed: int | None = None
    deal: tuple[int, ...] | None = None
    readings: tuple[tuple[str, str], ...] = ()
    starting_compensation: bool = True

    def to_message(self) -> dict[str, object]:
        """The `new_game` request's fields (docs/conformance.md)."""
        out: dict[str, object] = {"players": self.players}
        if self.edition is not None:
            out["edition"] = self.edition
        if self.data_file is not None:
            out["data_file"] = self.data_file
        if self.seed is not None:
            out["seed"] = self.seed
        if self.deal is not None:
            out["deal"] = list(self.deal)
        out["readings"] = dict(self.readings)
        out["starting_compensation"] = self.starting_compensation
        return out

    def describe(self) -> str:
        """One line for the report: where the data comes from, players, seed or deal, readings."""
        where = self.edition if self.edition is not None else f"data file {self.data_file}"
        start = f"seed {self.seed}" if self.seed is not None else f"a deal of {len(self.deal or ())} outcomes"
        readings = " ".join(f"{a}={x}" for a, x in self.readings)
        extra = ("" if self.starting_compensation else ", no starting compensation") + (
            f", readings {readings}" if readings else ""
        )
        return f"{where}, {self.players} player{'s' if self.players != 1 else ''}, {start}{extra}"


@dataclass(frozen=True, slots=True)
class Observation:
    """Everything compared at one step: the seat to act (or `CHANCE` / `TERMINAL`), the
    legal action ids in order, the chance outcomes (id, probability) in order, the state's
    canonical JSON text, the final scores and the winning seats (None before the end)."""

    player: int
    legal: tuple[int, ...]
    chance: tuple[tuple[int, Fraction], ...]
    state: str
    scores: tuple[int, ...] | None = field(default=None)
    winners: tuple[int, ...] | None = field(default=None)

    @property
    def terminal(self) -> bool:
        """Whether the game is over."""
        return self.player == TERMINAL

    @property
    def options(self) -> tuple[int, ...]:
        """The ids a step may apply: the chance outcomes at a chance node, else the legal ids."""
        return tuple(i for i, _ in self.chance) if self.player == CHANCE else self.legal


@runtime_checkable
class Engine(Protocol):
    """An implementation of the game, driven one step at a time (module docstring)."""

    def new_game(self, setup: GameSetup) -> None:
        """Set up a new game; it becomes the current one."""

    def load(self, state_json: str) -> None:
        """Make the state written as `state_json` (the reference's `to_json`) current."""

    def current_player(self) -> int:
        """The seat to act, `CHANCE` or `TERMINAL`."""

    def legal_actions(self) -> list[int]:
        """The legal action ids in the reference's order; empty at chance and at the end."""

    def chance_outcomes(self) -> list[tuple[int, Fraction]]:
        """(id, exact probability) of the pending chance event, in the reference's order."""

    def apply(self, action: int) -> None:
        """Apply the action (or chance outcome) id to the current state."""

    def state_json(self) -> str:
        """The current state as the reference's canonical JSON (`to_json`)."""

    def scores(self) -> list[int] | None:
        """The final total of every seat at the end; None before it."""

    def winners(self) -> list[int] | None:
        """The winning seats at the end, after the tie-breaks (more than one only after a
        full tie); None before it."""


def observe(engine: Engine) -> Observation:
    """Ask an engine everything compared at one step; `ImplementationError` naming the
    question for an answer of the wrong shape (or an exception the engine raised)."""
    try:
        player = engine.current_player()
        legal = engine.legal_actions()
        chance = engine.chance_outcomes()
        state = engine.state_json()
        scores = engine.scores()
        winners = engine.winners()
    except ImplementationError:
        raise
    except Exception as exc:  # the engine under test raised: a verdict, not a traceback
        raise ImplementationError(f"the engine raised {type(exc).__name__}: {exc}") from None
    if not _whole(player):
        raise ImplementationError(f"current_player answered {player!r}, not an integer")
    if not isinstance(legal, list | tuple) or not all(_whole(i) for i in legal):
        raise ImplementationError(f"legal_actions answered {_short(legal)}, not a list of integer ids")
    pairs: list[tuple[int, Fraction]] = []
    for item in chance if isinstance(chance, list | tuple) else [None]:
        if not (isinstance(item, tuple | list) and len(item) == 2 and _whole(item[0])):
            raise ImplementationError(
                f"chance_outcomes answered {_short(chance)}, not (id, probability) pairs"
            )
        if not isinstance(item[1], Fraction):
            raise ImplementationError(
                f"chance_outcomes gave the probability {item[1]!r}, not an exact Fraction"
            )
        pairs.append((item[0], item[1]))
    if not isinstance(state, str):
        raise ImplementationError(f"state_json answered {type(state).__name__}, not JSON text")
    if scores is not None and (not isinstance(scores, list | tuple) or not all(_whole(s) for s in scores)):
        raise ImplementationError(f"scores answered {_short(scores)}, not a list of integers or None")
    if winners is not None and (not isinstance(winners, list | tuple) or not all(_whole(s) for s in winners)):
        raise ImplementationError(f"winners answered {_short(winners)}, not a list of seats or None")
    return Observation(
        player,
        tuple(legal),
        tuple(pairs),
        state,
        None if scores is None else tuple(scores),
        None if winners is None else tuple(winners),
    )


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _short(value: object, limit: int = 120) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
