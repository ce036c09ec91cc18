"""The native explorer's breadth-first loop (issue 40, item 1): every state of a reduced
configuration visited in C++ over the optional native core (village_rules/native/cpp/
explore.cpp), counted as the Python explorer counts them (`search.explore` with
`check=False`). Importable only where the extension was built (`village_rules.native`);
it sits in the explore layer, above the native core, as it reads the explorer's roots.

The roots are the reference's own (`search.roots`: every set-up deal), each loaded into the
core from its canonical JSON (`NativeEngine.load_state`); the edges are every legal id and
every chance outcome; two states are one when they are equal but for the round counter
(search.py `fingerprint`), here by a 64-bit fingerprint of the fields the canonical JSON
writes, the same in every process. Why: the Python explorer walks about 6,500 states a
second, and the native core plays each step far faster; the counts tie the two
(tests/native/test_native_explore.py), so a larger configuration can be counted natively.

    from village_rules.explore.native import explore_counts
    explore_counts("tiny").states  # 10,175, as explore(configuration("tiny").data, 2)
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from village_rules.data.edition import EditionData
from village_rules.drivers.serialization import state_to_dict
from village_rules.explore.configs import configuration
from village_rules.explore.parallel import ExplorationStoppedError
from village_rules.explore.search import MAX_STATES, ExplorationLimitError, roots
from village_rules.explore.seen import SeenFigures
from village_rules.model.actions import Action, action_from_id
from village_rules.model.state import GameState
from village_rules.native import _core
from village_rules.native.engine import READINGS_USED, tables_for
from village_rules.rules.variant import Variant

MAX_WORKERS = 64
"""The most threads a native exploration takes (cpp/explore.cpp `run`)."""

PLANTS = ("omit players.lifetime", "pack forgets players.lifetime")
"""The bugs a test can plant (cpp/explore.hpp Plant): a field left out of the fingerprint,
so that it merges distinct states; a packed frontier (cpp/pack.hpp) that loses a field, so
that the states expanded are not the states reached."""

Progress = Callable[[int, int, int, int], None]
"""Called after every breadth-first level with (depth, states, edges, frontier)."""


@dataclass
class NativeExploration(SeenFigures):
    """What the native loop counted: the figures `search.Exploration` has without checks."""

    config: str
    players: int
    roots: int
    states: int
    edges: int
    depth: int
    """Breadth-first levels below the roots: the length of the longest shortest path."""
    terminal: Counter[str] = field(default_factory=Counter)
    """Distinct terminal states by what ended the game (`ended_by`)."""
    deadlocks: int = 0
    engine_exceptions: int = 0
    """Steps the core refused or failed (none expected: every step is native); the first's
    message is `first_exception`."""
    first_exception: str = ""
    seen_bytes: int = 0
    seconds: float = 0.0
    """Wall seconds of the C++ loop (the roots' set-up and loading excluded)."""
    json_error: str = ""
    """With `check_json`: the first state the fingerprint merged with a distinct one, or
    split from an equal one, named by its JSON (empty: the fingerprint agreed everywhere)."""
    workers: int = 1
    """The threads that shared each level."""
    frontier_bytes: int = 0
    """The largest level's states, packed (cpp/pack.hpp), in bytes."""
    parents_bytes: int = 0
    """Each state's parent and move (6 bytes a state): what the shortest witnesses need."""
    shortest_end: dict[str, tuple[int, list[int]]] = field(default_factory=dict)
    """What ended the game -> a shortest game so ended: its root's index (`search.roots`)
    and the action ids from that root's state (`shortest_end_actions` makes them actions)."""
    states_checked: int = 0
    """With `check`: the states whose invariants the native checker ran (every state, once)."""
    edges_checked: int = 0
    """With `check`: the edges whose transition invariants it ran (every edge)."""
    violation_count: int = 0
    violations: list[str] = field(default_factory=list)
    """The first violations found, each with its state's JSON (at most 10; all are counted)."""

    @property
    def states_per_second(self) -> float:
        """Distinct states per wall second of the loop."""
        return self.states / max(self.seconds, 1e-9)

    def figures(self) -> dict[str, object]:
        """The figures the Python explorer's are compared with (`differences`)."""
        return {
            "roots": self.roots,
            "states": self.states,
            "edges": self.edges,
            "depth": self.depth,
            "terminal": dict(self.terminal),
            "deadlocks": self.deadlocks,
        }


def native_game(state: GameState) -> _core.Game:
    """A native game holding the reference state `state` (as `NativeEngine.load_state`)."""
    raw = state_to_dict(state)
    rules_json = json.dumps(raw["rules"], sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    game = _core.Game(tables_for(state.rules.data))
    game.load(raw, rules_json, {amb: state.rules.reading(amb) for amb in READINGS_USED})
    return game


def explore_counts(
    config: str | EditionData,
    players: int | None = None,
    *,
    variant: Variant | None = None,
    max_states: int = MAX_STATES,
    plant: str = "",
    check_json: bool = False,
    progress: Progress | None = None,
    workers: int = 1,
    check: bool = False,
    stop: Callable[[], bool] | None = None,
) -> NativeExploration:
    """Count every state reachable from every set-up deal of `config` (a shipped
    configuration's name, or edition data), breadth first in C++: the figures of the
    Python explorer's `explore(data, players, variant=variant, check=False)`.

    `players` defaults to the configuration's first player count (1 for `solo`).
    `check_json` also keys every state by its JSON (round 0) and names the first state the
    fingerprint merges or splits wrongly (`json_error`; slow, for tests; one worker only).
    `workers` threads share each level, each the owner of a part of the fingerprints (their
    segment modulo `workers`), as the Python explorer's processes are: the counts are the
    same for any number. `check` runs the state invariants natively on every state and the
    transition invariants on every edge (cpp/checks.cpp, tied to `checks.invariants` by
    tests/native/test_native_checks.py and test_native_transitions.py): the Python
    explorer's `check=True`. `stop` is asked between batches of 2,048 states (after Python's
    signal handlers have run): true stops the run with `ExplorationStoppedError` (the command
    line's Ctrl-C and SIGTERM). `plant` is a test hook (`PLANTS`).
    Raises `ExplorationLimitError` past `max_states` distinct states."""
    if isinstance(config, str):
        name, data = config, configuration(config).data
    else:
        name, data = data_name(config), config
    if players is None:
        players = data.playable_counts[0]
    if not 1 <= workers <= MAX_WORKERS:
        raise ValueError(f"workers must be 1 to {MAX_WORKERS}, not {workers}")
    if check_json and workers != 1:
        raise ValueError("check_json keys every state in one table: it runs with one worker only")
    if plant and plant not in PLANTS:
        raise ValueError(f"unknown planted bug {plant!r} (known: {', '.join(PLANTS)})")
    games = [native_game(root.state) for root in roots(data, players, variant)]
    raw = _core.explore(games, max_states, plant, check_json, progress, workers, check, stop)
    if raw["limit_reached"]:
        raise ExplorationLimitError(max_states, int(raw["depth"]), int(raw["frontier"]))
    if raw["stopped"]:
        raise ExplorationStoppedError(
            f"stopped on request at depth {int(raw['depth'])} after {int(raw['states']):,} distinct states "
            "(the native loop keeps no checkpoint: run it again to finish)",
            None,
        )
    return NativeExploration(
        config=name,
        players=players,
        roots=int(raw["roots"]),
        states=int(raw["states"]),
        edges=int(raw["edges"]),
        depth=int(raw["depth"]),
        terminal=Counter({str(k): int(v) for k, v in dict(raw["terminal"]).items()}),
        deadlocks=int(raw["deadlocks"]),
        engine_exceptions=int(raw["engine_exceptions"]),
        first_exception=str(raw["first_exception"]),
        seen_bytes=int(raw["seen_bytes"]),
        seconds=float(raw["seconds"]),
        json_error=str(raw["json_error"]),
        workers=int(raw["workers"]),
        frontier_bytes=int(raw["frontier_bytes"]),
        parents_bytes=int(raw["parents_bytes"]),
        shortest_end={
            str(ended): (int(root), [int(i) for i in ids])
            for ended, (root, ids) in dict(raw["shortest_end"]).items()
        },
        states_checked=int(raw["states_checked"]),
        edges_checked=int(raw["edges_checked"]),
        violation_count=int(raw["violation_count"]),
        violations=[str(v) for v in raw["violations"]],
    )


def shortest_end_actions(
    data: EditionData, exploration: NativeExploration
) -> dict[str, tuple[int, list[Action]]]:
    """The shortest game to each end the exploration reached, as the reference's actions:
    what ended the game -> (the root's index among `search.roots(data, players)`, the actions
    from its state), replayable with `apply` (tests/native/test_native_explore.py does)."""
    return {
        ended: (root, [action_from_id(data, i) for i in ids])
        for ended, (root, ids) in exploration.shortest_end.items()
    }


def data_name(data: EditionData) -> str:
    """A name for edition data in a report."""
    return data.name


def differences(native: NativeExploration, python: dict[str, object]) -> list[str]:
    """Each figure where the native count differs from the Python explorer's (`python`: the
    same keys as `NativeExploration.figures`), in words; empty when they tie."""
    mine = native.figures()
    return [
        f"{key}: native {mine[key]}, Python {python[key]}"
        for key in mine
        if key in python and mine[key] != python[key]
    ]
