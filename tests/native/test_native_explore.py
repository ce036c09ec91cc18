"""The native explorer's breadth-first loop (issue 40, item 1; cpp/explore.cpp) tied to the
Python explorer (`explore.search.explore`, without its checks): the same roots, states,
edges, levels, terminal states by what ended the game and deadlocks on every configuration
explored here, with one thread or several; its fingerprint merges exactly the states whose
JSON (round 0) is the same, and its packed frontier gives back every state it holds; a
fingerprint that merges two distinct states and a packing that loses a field (planted bugs)
are each caught and named.

Skipped with a reason when the extension is not built, failed instead under
VILLAGE_REQUIRE_NATIVE=1 (tests/conftest.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import deque
from dataclasses import replace

import pytest
from support import LARGE_PINNED, NATIVE_PINNED, ROOT

from village_rules.checks.invariants import state_violations
from village_rules.engine.core import apply
from village_rules.engine.end_of_game import ended_by
from village_rules.explore.configs import configuration
from village_rules.explore.native import (
    NativeExploration,
    differences,
    explore_counts,
    shortest_end_actions,
)
from village_rules.explore.search import ExplorationLimitError, explore, roots
from village_rules.native import _core
from village_rules.native.engine import native_game


def python_figures(name: str) -> dict[str, object]:
    """The Python explorer's figures of a shipped configuration (no invariants: a count alone)."""
    config = configuration(name)
    result = explore(config.data, config.player_counts[0], check=False)
    return {
        "roots": result.roots,
        "states": result.states,
        "edges": result.edges,
        "depth": result.depth,
        "terminal": dict(result.terminal),
        "deadlocks": result.deadlocks,
    }


def assert_tied(native: NativeExploration, python: dict[str, object]) -> None:
    assert native.engine_exceptions == 0, native.first_exception
    assert differences(native, python) == [], f"{native.config}: {differences(native, python)}"
    assert native.figures() == python


@pytest.fixture(scope="module")
def tiny_python() -> dict[str, object]:
    return python_figures("tiny")


def test_the_native_loop_counts_tiny_as_the_python_explorer_does(tiny_python: dict[str, object]) -> None:
    native = explore_counts("tiny")
    assert_tied(native, tiny_python)
    # the quotiented set (test_native_seen.py): at 10^4 states its 1 MiB directory is most of it
    assert 2**20 < native.seen_bytes < 2 * 2**20
    assert 0 < native.collision_probability < 1e-10


@pytest.mark.parametrize("workers", [1, 2])
def test_a_checked_exploration_checks_every_state_once(tiny_python: dict[str, object], workers: int) -> None:
    # every state of tiny checked natively (cpp/checks.cpp, tied to the Python checker by
    # test_native_checks.py): none breaks an invariant, as the Python explorer finds
    checked = explore_counts("tiny", check=True, workers=workers)
    assert_tied(checked, tiny_python)
    assert (checked.states_checked, checked.edges_checked) == (checked.states, checked.edges)
    assert (checked.violation_count, checked.violations) == (0, [])
    assert explore(configuration("tiny").data, 2).violation_count == 0
    assert explore_counts("tiny").states_checked == 0  # unchecked unless asked


def test_a_checked_exploration_names_the_violations_the_python_checker_finds() -> None:
    # explored from a broken root (a coin too many in seat 0's farmyard): the first state
    # named breaks what the Python checker says it breaks, in its words, and so does every
    # state after it, as nothing takes the coin back out of the game
    root = roots(configuration("tiny").data, 2)[0].state
    broken = root.with_player(0, replace(root.players[0], coins=root.players[0].coins + 1))
    want = [str(v) for v in state_violations(broken)]
    assert want and want[0].startswith("conservation.coins [coins]")
    raw = _core.explore([native_game(broken)], 10**6, check=True)
    assert raw["violation_count"] == raw["states_checked"] == raw["states"] > 1000
    first = str(raw["violations"][0])
    assert first.startswith(want[0] + " in {"), first[:200]
    assert json.loads(first[len(want[0]) + len(" in ") :])["players"][0]["coins"] == root.players[0].coins + 1
    assert len(raw["violations"]) == 10  # the first ten named, every one counted


def test_the_native_loop_counts_solo_as_the_python_explorer_does() -> None:
    # one player against Carla: the solo steps (her board, the fate tiles) in the loop
    assert_tied(explore_counts("solo"), python_figures("solo"))


@pytest.mark.slow  # ~15 s: the Python explorer's two configurations of 3 x 10^4 states
@pytest.mark.parametrize("name", ["small", "births"])
def test_the_native_loop_counts_small_and_births_as_the_python_explorer_does(name: str) -> None:
    assert_tied(explore_counts(name), python_figures(name))


LARGE_FIGURES: dict[str, object] = {**LARGE_PINNED, "deadlocks": 0}
"""`support.LARGE_PINNED` (the Python explorer's pins), with no deadlock; natively 8 to 18 s."""


@pytest.mark.slow  # 5-12 s: 2.0 million states, on two threads
def test_the_native_loop_counts_large_as_the_python_explorer_pinned_it() -> None:
    large = explore_counts("large", workers=2)
    assert_tied(large, LARGE_FIGURES)
    assert large.bytes_per_state <= 10  # issue 40: a compact seen set, 10 bytes a state at most


def _shortest_ends(name: str) -> dict[str, int]:
    """The Python explorer's graph of `name`, breadth first from its roots: what ended the
    game -> the fewest actions to such an end."""
    config = configuration(name)
    graph = explore(config.data, config.player_counts[0], check=False, graph=True).graph
    assert graph is not None
    depth = {sid: 0 for sid, _ in graph.roots}
    queue = deque(depth)
    while queue:
        sid = queue.popleft()
        for target, _ in graph.edges[sid]:
            if target not in depth:
                depth[target] = depth[sid] + 1
                queue.append(target)
    out: dict[str, int] = {}
    for sid, ended in graph.ends.items():
        out[ended] = min(out.get(ended, depth[sid]), depth[sid])
    return out


@pytest.mark.parametrize(("name", "workers"), [("tiny", 1), ("tiny", 2), ("solo", 2)])
def test_the_shortest_game_to_each_end_replays_on_the_reference(name: str, workers: int) -> None:
    # each state's parent and move (6 bytes a state) give a shortest witness: replayed with the
    # reference's apply from its root, it ends the game as said, in as few actions as the
    # Python explorer's own graph allows
    config = configuration(name)
    players = config.player_counts[0]
    native = explore_counts(name, workers=workers)
    assert native.parents_bytes >= 6 * native.states
    games = shortest_end_actions(config.data, native)
    fewest = _shortest_ends(name)
    assert set(games) == set(fewest) == set(native.terminal)
    starts = roots(config.data, players)
    for ended, (root, actions) in games.items():
        state = starts[root].state
        for action in actions:
            state = apply(state, action)
        assert state.is_terminal and ended_by(state) == ended, (ended, actions)
        assert len(actions) == fewest[ended], ended


@pytest.mark.by_hand  # CI leaves it out (tests/README.md, "By hand")
@pytest.mark.slow  # 30-90 s on 2 cores: 1.5 x 10^7 states and 2.1 x 10^7 edges, every one checked
def test_the_native_loop_explores_longer_with_every_invariant_as_pinned() -> None:
    # issue 40, item 5: a configuration of >= 10^7 states, nearer the real game than large
    # (a life-time track of 4, 2 customers), counted by the native loop alone (the Python
    # explorer would take hours), every state and edge checked, within the memory it says
    longer = explore_counts("longer", workers=2, check=True, max_states=2 * 10**7)
    assert_tied(longer, {**NATIVE_PINNED["longer", 2], "deadlocks": 0})
    assert longer.states >= 10**7
    checked = (longer.states_checked, longer.edges_checked, longer.violation_count)
    assert checked == (longer.states, longer.edges, 0)
    assert longer.bytes_per_state <= 10


@pytest.mark.by_hand  # CI leaves it out (tests/README.md, "By hand")
@pytest.mark.slow  # 5 to 8 minutes on 2 cores, 4.4 GB: deselected in CI (.ci/run), run by hand
def test_the_native_loop_explores_longest_with_every_invariant_as_pinned() -> None:
    # issue 40, item 5: a configuration of >= 10^8 states, explored to exhaustion with every
    # state and transition invariant (not yet the queries, which are not native)
    longest = explore_counts("longest", workers=2, check=True, max_states=2 * 10**8)
    assert_tied(longest, {**NATIVE_PINNED["longest", 2], "deadlocks": 0})
    assert longest.states >= 10**8
    checked = (longest.states_checked, longest.edges_checked, longest.violation_count)
    assert checked == (longest.states, longest.edges, 0)
    assert longest.bytes_per_state <= 10
    assert longest.seen_bytes + longest.parents_bytes + 2 * longest.frontier_bytes < 16 * 2**30


@pytest.mark.parametrize("name", ["tiny", "solo"])
def test_the_fingerprint_merges_exactly_the_states_whose_json_is_the_same(name: str) -> None:
    # every state keyed by its JSON with the round 0 beside its fingerprint: no fingerprint
    # shared by two JSONs, no JSON under two fingerprints; and every state unpacked from the
    # frontier's bytes (cpp/pack.hpp) writes the JSON of the state packed
    native = explore_counts(name, check_json=True)
    assert native.json_error == ""
    assert native.figures() == explore_counts(name).figures()


@pytest.mark.slow  # ~10 s: the JSON of 6 x 10^4 states
@pytest.mark.parametrize("name", ["small", "births"])
def test_every_state_of_small_and_births_packs_and_fingerprints_as_its_json(name: str) -> None:
    assert explore_counts(name, check_json=True).json_error == ""


def test_a_packing_that_loses_a_field_is_caught_and_named(tiny_python: dict[str, object]) -> None:
    # the planted bug packs every state with its players' life-time dropped: the states
    # expanded are not those reached, the counts part from the Python explorer's, and the
    # JSON check names the first state packed and what came back
    planted = explore_counts("tiny", plant="pack forgets players.lifetime")
    assert differences(planted, tiny_python), planted.figures()
    error = explore_counts("tiny", plant="pack forgets players.lifetime", check_json=True).json_error
    head = "packing loses part of a state: packed "
    assert error.startswith(head), error[:200]
    packed, end = json.JSONDecoder().raw_decode(error, len(head))
    unpacked = json.loads(error[end + len(", unpacked ") :])
    assert [p["lifetime"] for p in unpacked["players"]] == [0] * len(unpacked["players"])
    assert any(p["lifetime"] for p in packed["players"])
    for player in packed["players"]:
        player["lifetime"] = 0
    assert packed == unpacked


def test_a_fingerprint_merging_distinct_states_is_caught_and_named(tiny_python: dict[str, object]) -> None:
    # the planted bug leaves the players' life-time out of the fingerprint: states that
    # differ only there are merged, so fewer states are counted
    planted = explore_counts("tiny", plant="omit players.lifetime")
    found = differences(planted, tiny_python)
    assert found and found[0].startswith("states: native "), found
    assert planted.states < int(str(tiny_python["states"]))
    # keyed by their JSON too, the first two states merged are named: they differ in a
    # player's life-time alone
    error = explore_counts("tiny", plant="omit players.lifetime", check_json=True).json_error
    head = "the fingerprint merges two distinct states: "
    assert error.startswith(head), error[:200]
    first, end = json.JSONDecoder().raw_decode(error, len(head))
    assert error[end : end + 5] == " and "
    second = json.loads(error[end + 5 :])
    assert first != second
    for player in (*first["players"], *second["players"]):
        player["lifetime"] = 0
    assert first == second
    with pytest.raises(ValueError, match="unknown planted bug"):
        explore_counts("tiny", plant="omit everything")


def test_the_fingerprint_is_the_same_in_every_process() -> None:
    # no seed, no pointer: a root's fingerprint computed under another PYTHONHASHSEED
    data = configuration("tiny").data
    here = [_core.fingerprint(native_game(r.state)) for r in roots(data, 2)]
    code = (
        "from village_rules.explore.configs import configuration\n"
        "from village_rules.explore.search import roots\n"
        "from village_rules.native import _core\n"
        "from village_rules.native.engine import native_game\n"
        "print([_core.fingerprint(native_game(r.state)) for r in roots(configuration('tiny').data, 2)])\n"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345", "PYTHONPATH": str(ROOT / "src")}
    there = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert there.stdout.strip() == str(here)
    assert len(set(here)) == len(here)


def test_the_state_budget_stops_the_loop_as_the_python_explorer_does() -> None:
    with pytest.raises(ExplorationLimitError, match="more than 100 distinct states"):
        explore_counts("tiny", max_states=100)
    with pytest.raises(ExplorationLimitError, match="more than 100 distinct states"):
        explore_counts("tiny", max_states=100, workers=2)


@pytest.mark.parametrize("workers", [2, 3])
def test_threads_that_share_each_level_count_what_one_does(
    tiny_python: dict[str, object], workers: int
) -> None:
    # each thread owns the fingerprints whose segment is its number modulo the threads, and
    # dedupes them alone: the counts are the sequential loop's and the Python explorer's
    assert_tied(explore_counts("tiny", workers=workers), tiny_python)
    assert explore_counts("solo", workers=workers).figures() == explore_counts("solo").figures()
    # a planted merge merges the same states whichever thread owns them
    planted = explore_counts("tiny", plant="omit players.lifetime").figures()
    assert explore_counts("tiny", plant="omit players.lifetime", workers=workers).figures() == planted


def test_a_thread_count_the_loop_cannot_take_is_refused() -> None:
    with pytest.raises(ValueError, match="workers must be 1 to 64, not 0"):
        explore_counts("tiny", workers=0)
    with pytest.raises(ValueError, match="one worker only"):
        explore_counts("tiny", workers=2, check_json=True)
    with pytest.raises(ValueError, match="workers must be 1 to 64, not 0"):  # the core's own guard
        _core.explore([native_game(roots(configuration("tiny").data, 2)[0].state)], 100, workers=0)
