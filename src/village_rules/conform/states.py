"""Every state of a shipped reduced configuration, compared: the fourth input of `conform`.

The explorer (`explore.search.explore(..., graph=True)`) enumerates the configuration's
state graph; this walks that graph in the explorer's discovery order, rebuilding each state
on the reference from its discovering edge, and at each state has the implementation
`load` it (the reference's canonical JSON) and compares everything at it (`compare`);
then, for every edge out of it in the engine's order, loads it again, applies the edge's id
and compares the state reached. Discovery order is breadth first, so the first state that
differs is at the fewest actions from a set-up deal: its path is already a shortest
failing game (no shrinking needed)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from village_rules.conform.compare import FAILED, Difference, compare, state_difference
from village_rules.conform.inputs import STATES
from village_rules.conform.protocol import Engine, GameSetup, ImplementationError, Observation, observe
from village_rules.conform.reference import ReferenceEngine
from village_rules.conform.runner import Failure, Runner
from village_rules.data.edition import EditionData
from village_rules.drivers.serialization import to_json
from village_rules.engine.core import apply
from village_rules.engine.guards import present
from village_rules.explore.configs import Configuration, configuration
from village_rules.explore.search import Graph, Root, explore, moves, roots
from village_rules.model.actions import action_id
from village_rules.model.state import GameState

CONFIGS = ("tiny", "solo", "small", "births")
"""The shipped configurations `conform` walks by default (`large` is two million states)."""


@dataclass(frozen=True, slots=True)
class StatesRecord:
    """One compared state for a pack: its name, the reference's observation, and every edge
    as (action id, the canonical JSON of the state it reaches)."""

    name: str
    obs: Observation
    edges: tuple[tuple[int, str], ...]


@functools.lru_cache(maxsize=len(CONFIGS))
def configuration_graph(name: str) -> tuple[Configuration, Graph]:
    """A configuration and its whole state graph at its first player count (the explorer's,
    remembered: a run, or a test session, walks a configuration more than once)."""
    config = configuration(name)
    graph = explore(config.data, config.player_counts[0], check=False, graph=True, queries=()).graph
    return config, present(graph, "conform.states", "the explored graph (graph=True)")


TICK_STATES = 500
"""How often a walk tells its progress (in states)."""


def walk(
    runner: Runner,
    name: str,
    most: int | None,
    record: Callable[[StatesRecord], None] | None = None,
    tick: Callable[[int, int], None] | None = None,
) -> bool:
    """Compare the first `most` states (all when None) of configuration `name`; False (and
    `runner.failure` set) at the first difference. `tick(done, total)` is told how far the
    walk got, every `TICK_STATES` states."""
    config, graph = configuration_graph(name)
    data = config.data
    players = config.player_counts[0]
    starts = roots(data, players)
    states: dict[int, GameState] = {}
    origin: dict[int, tuple[int, int]] = {}  # state id -> (parent id, action id); a root: (-1 - index, -1)
    for index, ((sid, _), root) in enumerate(zip(graph.roots, starts, strict=True)):
        if sid not in states and sid not in origin:
            states[sid] = root.state
            origin[sid] = (-1 - index, -1)
    ref = ReferenceEngine()
    impl = runner.impl
    total = len(graph.edges) if most is None else min(most, len(graph.edges))
    for sid in range(total):
        if tick is not None and sid % TICK_STATES == 0:
            tick(sid, total)
        state = states.pop(sid)
        ref.set_state(state)
        r = observe(ref)
        out = moves(state)
        edges = graph.edges[sid]
        if len(out) != len(edges):
            raise AssertionError(f"{name}: the explorer's graph and the engine disagree at state {sid}")
        found = None if impl is None else _at_state(impl, r, data)
        if found is not None:
            runner.failure = _failure(name, config.path, players, starts, origin, sid, None, found, data)
            return False
        kept: list[tuple[int, str]] = []
        for k, ((target, _), (action, _)) in enumerate(zip(edges, out, strict=True)):
            ident = action_id(data, action)
            after = apply(state, action)
            text = to_json(after)
            if target > sid and target not in states and target not in origin:
                states[target] = after
                origin[target] = (sid, ident)
            kept.append((ident, text))
            runner.coverage.edges[name] += 1
            if impl is None:
                continue
            found = _on_edge(impl, r.state, ident, text, reload=k > 0)
            if found is not None:
                runner.failure = _failure(name, config.path, players, starts, origin, sid, ident, found, data)
                return False
        runner.coverage.states[name] += 1
        if record is not None:
            record(StatesRecord(f"{name} state {sid}", r, tuple(kept)))
    return True


def _at_state(impl: Engine, r: Observation, data: EditionData) -> Difference | None:
    try:
        impl.load(r.state)
        i = observe(impl)
    except ImplementationError as exc:
        return Difference(FAILED, f"load: {exc}")
    except Exception as exc:  # an in-process engine raised
        return Difference(FAILED, f"load: the engine raised {type(exc).__name__}: {exc}")
    return compare(r, i, data)


def _on_edge(impl: Engine, state: str, ident: int, expected: str, *, reload: bool) -> Difference | None:
    try:
        if reload:
            impl.load(state)
        impl.apply(ident)
        got = impl.state_json()
    except ImplementationError as exc:
        return Difference(FAILED, f"apply {ident}: {exc}")
    except Exception as exc:  # an in-process engine raised
        return Difference(FAILED, f"apply {ident}: the engine raised {type(exc).__name__}: {exc}")
    if not isinstance(got, str):
        return Difference(FAILED, f"state_json answered {type(got).__name__}, not JSON text")
    return state_difference(expected, got)


def _failure(  # noqa: PLR0917 - the walk's locals that locate the state
    name: str,
    path: Path,
    players: int,
    starts: Sequence[Root],
    origin: dict[int, tuple[int, int]],
    sid: int,
    last: int | None,
    found: Difference,
    data: EditionData,
) -> Failure:
    actions: list[int] = [] if last is None else [last]
    node = sid
    parent, ident = origin[node]
    while parent >= 0:
        actions.append(ident)
        node = parent
        parent, ident = origin[node]
    actions.reverse()
    root = starts[-1 - parent]
    deal = tuple(action_id(data, a) for a in root.deal)
    setup = GameSetup(players=players, data_file=str(path), deal=deal)
    runner_rules: tuple[str, ...] = ()
    if actions:
        ref = ReferenceEngine()
        ref.new_game(setup)
        for a in actions[:-1]:
            ref.apply(a)
        trace: list[str] = []
        ref.apply_traced(actions[-1], trace)
        runner_rules = tuple(dict.fromkeys(trace))
    return Failure(
        kind=STATES,
        name=f"{name} state {sid}" + ("" if last is None else f", edge {last}"),
        setup=setup,
        step=len(actions),
        difference=found,
        actions=tuple(actions),
        found_at=len(actions),
        rules=runner_rules,
        note="breadth first: no shorter path reaches it",
    )
