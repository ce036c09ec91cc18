"""Helpers shared by the test modules (imported as `support`; tests/ is on the path).

- `bare`, `with_spare_cubes`, `bare_with_spare_cubes`: constructed positions with an empty
  board, for the rule-by-rule tests;
- `loses_a_coin_at_the_market`: the injected bug the fuzz and machine meta-tests must catch;
- `get_at`, `json_paths`: walking parsed JSON by key path, for the mutation tests;
- `count_at`, `do`: counting members at a location, performing an action of a space;
- `rules_texts`: the folder of the rules texts, from `VILLAGE_RULES_TEXTS` (else a skip);
- `run_with_file_limit`, `plain_write`: a command run as on a full disk, and the in-place
  write the full-disk tests must catch;
- `TINY_STATES`, `TINY_EDGES`, `TINY_DEPTH`: the explorer's pinned figures of `tiny` at 2
  players, which several explorer and benchmark tests print and compare.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from village_rules.data.components import ActionSpace, Cube, Location
from village_rules.drivers.scenario import acting, emptied, put_cubes
from village_rules.engine.core import apply, apply_steps
from village_rules.engine.events import SubStep
from village_rules.model.actions import Action, Serve
from village_rules.model.evolve import replace as evolve
from village_rules.model.state import GameState
from village_rules.rules.variant import Variant

KeyPath = tuple[str | int, ...]

ROOT = Path(__file__).resolve().parents[1]
"""The repository's top folder."""
TESTS = ROOT / "tests"

TINY_STATES = 10_175
"""Distinct states of the `tiny` configuration at 2 players (docs/exploration.md)."""
TINY_EDGES = 11_369
TINY_DEPTH = 30

LARGE_PINNED: dict[str, object] = {
    # pinned by both explorers' slow tests: tests/explore/test_explore.py (Python) and
    # tests/native/test_native_explore.py (native)
    # the large configuration (>= 10^6 states), counted over 2 worker processes without the
    # invariants (its checked run is `village-rules explore large --workers 2`, docs/exploration.md);
    # one process counts the same. 2,002,089 states and 2,718,371 edges until issue 43: its
    # AMB-45 marker (`Turn.took_last_cube`, set on a final action that empties the board
    # whatever the reading, read only under AMB-45 b) tells 341 states apart that were one,
    # each with its 2 outgoing edges; the terminal states and the depth are unchanged, and
    # the commit before issue 43's merge still counts the old figures (measured 2026-12-06)
    "roots": 1,
    "states": 2_002_430,
    "edges": 2_719_053,
    "depth": 90,
    "terminal": {"chronicle": 109_022, "chronicle and graveyard": 124_517, "graveyard": 146_682},
}


NATIVE_PINNED: dict[tuple[str, int], dict[str, object]] = {
    # counted by the native explorer alone (tests/native/test_native_explore.py, slow), which
    # is tied to the Python explorer on tiny, solo, small, births and large: the Python
    # explorer would take hours here (issue 40, item 5: configurations nearer the real game)
    ("longer", 2): {
        # large with a life-time track of 4 and 2 customers; measured 2026-12-07
        "roots": 2,
        "states": 15_388_849,
        "edges": 20_777_341,
        "depth": 88,
        "terminal": {"chronicle": 603_515, "chronicle and graveyard": 550_008, "graveyard": 1_606_854},
        # decided by `explore longer --engine native` (2026-12-07): proofs/explorer holds each witness
        "reachable": [
            "end-market-other", "free-final-action", "grain-short-at-harvest", "mass-four-monks",
            "shared-win", "short-seeding", "trigger-final-action", "two-deaths-one-turn",
        ],
    },
    ("longest", 2): {
        # large with a life-time track of 5 and 3 customers; measured 2026-12-07 (every state
        # and transition invariant checked on 2 threads: 284 s, 4.4 GB resident)
        "roots": 3,
        "states": 118_182_004,
        "edges": 153_774_647,
        "depth": 103,
        "terminal": {"chronicle": 2_733_638, "chronicle and graveyard": 4_385_621, "graveyard": 14_387_255},
        "reachable": [
            "end-market-other", "free-final-action", "grain-short-at-harvest", "mass-four-monks",
            "shared-win", "short-seeding", "trigger-final-action", "two-deaths-one-turn",
        ],
    },
}


PINNED: dict[tuple[str, int], dict[str, object]] = {
    # config, players -> the reachable game's figures. A rule or data change that alters the
    # reachable game changes these: check the change is meant, then pin the new figures.
    ("tiny", 2): {
        "roots": 2,
        "states": TINY_STATES,
        "edges": TINY_EDGES,
        "depth": TINY_DEPTH,
        "terminal": {"chronicle": 408, "chronicle and graveyard": 1_387},
        # end-market-other (1a) is unreachable: the 12-action "witness" the explorer printed before
        # triggered the end before the market day opened (tests/proofs/test_event_semantics.py)
        "reachable": {"free-final-action", "shared-win", "grain-short-at-harvest"},
    },
    ("births", 2): {
        "roots": 2,
        "states": 32_250,
        "edges": 36_638,
        "depth": 27,
        "terminal": {"chronicle": 1_420, "chronicle and graveyard": 4_338},
        "reachable": {"free-final-action", "shared-win", "grain-short-at-harvest"},
    },
}

SLOW_PINNED: dict[tuple[str, int], dict[str, object]] = {
    ("solo", 1): {
        # issue 43: +1,032 states and edges, the round mass AMB-33 c (and AMB-45 b) now holds
        # before the last mass when the player ends the game in the turn that empties the board
        "roots": 2,
        "states": 23_644,
        "edges": 26_876,
        "depth": 42,
        "terminal": {"chronicle": 538, "chronicle and graveyard": 2_494, "graveyard": 868},
    },
    ("small", 2): {
        "roots": 2,
        "states": 31_598,
        "edges": 41_800,
        "depth": 19,
        "terminal": {"chronicle": 2_198, "chronicle and graveyard": 3_980},
    },
}
"""The shipped configurations' figures the slow tests pin (`explore --expect` reads the same
figures from `village_rules/explore/pins/counts.json`; tests/explore/test_honest_output.py
compares them)."""


TEXTS_VARIABLE = "VILLAGE_RULES_TEXTS"
TEXTS_SKIP = f"{TEXTS_VARIABLE} is not set"


def rules_texts() -> Path:
    """The folder of the rules texts the data files cite (the README's "The rules"), named by
    the environment variable `VILLAGE_RULES_TEXTS`. The texts are not part of the repository:
    unset, the test is skipped with the reason; CI sets it (and `VILLAGE_REQUIRE_TEXTS=1`,
    which turns the skip into a failure, tests/conftest.py). Set to a folder that is not
    there, the test fails."""
    value = os.environ.get(TEXTS_VARIABLE, "")
    if not value:
        pytest.skip(f"{TEXTS_SKIP}: set it to the folder of the rules texts to compare the data with them")
    folder = Path(value)
    if not folder.is_dir():
        pytest.fail(f"{TEXTS_VARIABLE}={value!r} is not a folder")
    return folder


def bare(players: int = 3, edition: str = "big-box-2023", variant: Variant | None = None) -> GameState:
    """A ready game (seed 0) with an empty board and empty farmyards: every "1" on its
    farmyard, all cubes, goods, grain and coins in the supply."""
    return emptied(edition, players, variant=variant)


def with_spare_cubes(state: GameState) -> GameState:
    """Cubes on two spaces so that the next player has a real choice (no automatic take)."""
    state = put_cubes(state, ActionSpace.FAMILY, {Cube.BROWN: 1, Cube.GREEN: 1})
    return put_cubes(state, ActionSpace.CHURCH, {Cube.PINK: 1, Cube.ORANGE: 1})


def bare_with_spare_cubes(players: int = 3) -> GameState:
    """2023 `bare`, with spare cubes on two spaces (`with_spare_cubes`)."""
    return with_spare_cubes(bare(players))


def loses_a_coin_at_the_market(state: GameState, action: Action, trace: list[str] | None = None) -> GameState:
    """The engine with an injected bug: every Serve loses a coin from the supply (the COINS
    invariant must catch it)."""
    after = apply(state, action, trace=trace)
    if isinstance(action, Serve):
        return replace(after, supply=replace(after.supply, coins=after.supply.coins - 1))
    return after


def planted_steps(
    planted: Callable[..., GameState],
) -> Callable[[GameState, Action, list[str] | None], tuple[SubStep, ...]]:
    """`apply_steps` with a planted `apply` (a rule bug injected into the explorer, which
    takes its steps by sub-steps when it judges queries): the engine's sub-steps, the last
    ending where the planted step ends (and raising where it raises)."""

    def steps(state: GameState, action: Action, trace: list[str] | None = None) -> tuple[SubStep, ...]:
        after = planted(state, action, trace=trace)
        real = apply_steps(state, action)
        return (*real[:-1], replace(real[-1], after=after))

    return steps


def get_at(raw: Any, path: KeyPath) -> Any:
    """The node of parsed JSON at a key path."""
    node = raw
    for k in path:
        node = node[k]
    return node


def json_paths(node: Any, path: KeyPath = ()) -> list[KeyPath]:
    """Every key path of parsed JSON, the root's () first, depth first."""
    out = [path]
    if isinstance(node, dict):
        for k, v in node.items():
            out += json_paths(v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += json_paths(v, (*path, i))
    return out


def count_at(state: GameState, seat: int, location: Location) -> int:
    """How many of `seat`'s members are at `location`."""
    return sum(1 for loc in state.players[seat].members if loc == location)


def do(
    state: GameState, seat: int, space: ActionSpace, action: Action, trace: list[str] | None = None
) -> GameState:
    """`seat` performs `action` of `space` (as if it had just taken a cube there)."""
    return apply(acting(state, seat, space), action, trace)


def run_with_file_limit(argv: Sequence[str], limit: int) -> subprocess.CompletedProcess[str]:
    """Run `argv` with files capped at `limit` bytes (`RLIMIT_FSIZE`, SIGXFSZ ignored), so a
    write past the cap fails with EFBIG as it would on a full disk. tests/ is on its path."""

    def cap_files() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    path = os.pathsep.join(p for p in (str(TESTS), os.environ.get("PYTHONPATH", "")) if p)
    return subprocess.run(
        list(argv),
        preexec_fn=cap_files,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": path},
        check=False,
    )


def plain_write(path: Path, text: str) -> None:
    """The bug the full-disk tests must catch: a write in place, half a file under the final name."""
    path.write_text(text, encoding="utf-8")


def six_grain_farmyard(state: GameState, seat: int, amount: int) -> GameState:
    """A rule change for the link's tests (issue 23): `harvest.take_grain` with a farmyard
    holding one grain more than its capacity (6 in both editions)."""
    p = state.players[seat]
    room = state.rules.data.grain_capacity + 1 - p.grain
    amount = max(0, min(amount, room, state.supply.grain))
    state = evolve(state, supply=evolve(state.supply, grain=state.supply.grain - amount))
    return state.with_player(seat, evolve(p, grain=p.grain + amount))
