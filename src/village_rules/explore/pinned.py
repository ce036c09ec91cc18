"""The pinned figures of the shipped configurations (`pins/counts.json`, package data), and
the comparison `explore --expect` makes with them (issue 40, item 6).

A shipped configuration's reachable game is a fact the project pins: a rule or data change
that alters it must be noticed by whoever runs the explorer, not only by the library's tests.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from village_rules.data.shipped import shipped_folder
from village_rules.errors import VillageError
from village_rules.explore.search import Exploration

PINS = shipped_folder("village_rules.explore", "pins") / "counts.json"


class NoPinnedFiguresError(VillageError):
    """`--expect` for a configuration and player count with no pinned figures."""


@dataclass(frozen=True, slots=True)
class Pinned:
    """One configuration's pinned figures at one player count."""

    roots: int
    states: int
    edges: int
    depth: int
    terminal: dict[str, int]
    reachable: frozenset[str] | None
    """The catalogue queries with a witness, where pinned (None: not pinned); compared only
    for the queries a run decided (a path query without its monitor is not decided)."""


def pinned(name: str, players: int) -> Pinned:
    """The pinned figures of shipped configuration `name` at `players` players;
    `NoPinnedFiguresError` naming the pinned ones when there are none."""
    table = json.loads(PINS.read_text(encoding="utf-8"))
    key = f"{name}/{players}"
    if key not in table:
        known = ", ".join(k.replace("/", " at ") + " player(s)" for k in table if k != "about")
        raise NoPinnedFiguresError(
            f"explore --expect: no pinned figures for {name} at {players} player(s) (pinned: {known})"
        )
    row = table[key]
    reachable = row.get("reachable")
    return Pinned(
        row["roots"],
        row["states"],
        row["edges"],
        row["depth"],
        dict(row["terminal"]),
        None if reachable is None else frozenset(reachable),
    )


class Counted(Protocol):
    """What `--expect` compares of a run: the Python explorer's `Exploration`, or the native
    loop's `NativeExploration` (which decides no query)."""

    @property
    def roots(self) -> int:
        """The set-up deals explored from."""
    @property
    def states(self) -> int:
        """The distinct states."""
    @property
    def edges(self) -> int:
        """The edges."""
    @property
    def depth(self) -> int:
        """The breadth-first levels below the roots."""
    @property
    def terminal(self) -> Mapping[str, int]:
        """The distinct terminal states by what ended the game."""


def pinned_states(name: str, players: int) -> int | None:
    """The pinned count of distinct states of shipped configuration `name` at `players`
    players, None where none is pinned: what a run will reach, known before it starts."""
    row = json.loads(PINS.read_text(encoding="utf-8")).get(f"{name}/{players}")
    return None if row is None else int(row["states"])


FIGURES = ("roots", "states", "edges", "depth", "terminal")
"""The figures `--expect` compares, by their names on `Pinned` and on `Exploration`."""


def _figures(of: Pinned | Counted) -> dict[str, object]:
    """`FIGURES` of a pin or a run (the ends as a dict in name order, as the pins hold them)."""
    out: dict[str, object] = {name: getattr(of, name) for name in FIGURES}
    out["terminal"] = dict(sorted(of.terminal.items()))
    return out


def differences(pin: Pinned, result: Counted) -> list[str]:
    """Each figure of `result` that differs from `pin`, as "what: pinned X, now Y" (the
    reachable queries only for a run that decided queries: an `Exploration`)."""
    now, was = _figures(result), _figures(pin)
    out = [f"{what}: pinned {was[what]}, now {now[what]}" for what in FIGURES if now[what] != was[what]]
    if pin.reachable is not None and isinstance(result, Exploration):
        reached = frozenset(name for name, v in result.verdicts.items() if v.reachable)
        asked = frozenset(name for name, v in result.verdicts.items() if v.decided)
        if reached != pin.reachable & asked:
            out.append(
                f"reachable queries: pinned {sorted(pin.reachable & asked)}, now {sorted(reached)}"
            )
    return out
