"""The score pump (catalogue query 13b) decided by exhaustion, on the graph with prestige
projected out.

A pump is a lasso whose cycle raises a player's prestige: played again and again, it gives
that player an unbounded score. The explorer's fingerprint holds every seat's prestige
(`search.fingerprint`), so a pump reachable in a configuration would give unboundedly many
distinct states and the ordinary exploration would never end; that it ends already says
there is none. This module says so directly, and finds the pump where there is one:

- it explores the **projected graph**, whose states are the game's states with the round
  counter and every seat's prestige taken out (`pump_key`), each edge labelled with the
  prestige it gives each seat. A pump is a cycle of this graph on which some seat's gains
  add up to more than 0; since the projected graph is finite even where the game has a
  pump, the run ends either way;
- an edge lies on a cycle exactly when both its ends are in one strongly connected
  component (networkx), and a cycle whose gains add up to more than 0 has an edge that
  raises prestige. So when no prestige-raising edge lies inside a component, no pump is
  reachable: **unreachable by exhaustion**. Otherwise, for each such edge, the shortest
  cycle through it, entered at its state nearest a set-up, is a candidate lasso; the
  shortest candidate that the real engine replays (stem, then cycle back to the same
  projected state with the seat's prestige higher) is the witness;
- the projection is exact only if no rule reads prestige during play (the engine writes it
  in `gain_prestige` and reads it in the final scoring alone). This is checked, not
  assumed: at every projected state the same state with every seat's prestige raised by
  `SHIFT` must offer the same moves, each leading to the same projected state with the same
  gains (`PumpResult.blind_failures`). A failure leaves the query undecided.
"""

from __future__ import annotations

import itertools
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

import networkx as nx

from village_rules.data.edition import EditionData
from village_rules.engine.core import apply
from village_rules.errors import VillageError
from village_rules.explore.parallel import ExplorationStoppedError
from village_rules.explore.search import (
    MAX_STATES,
    ExplorationLimitError,
    QueryVerdict,
    Root,
    moves,
    path_to,
    replay,
    roots,
)
from village_rules.model.actions import Action, format_action
from village_rules.model.evolve import replace
from village_rules.model.state import GameState
from village_rules.proofs.catalogue.catalogue import PATH
from village_rules.rules.variant import Variant

PUMP = "score-pump"
"""The catalogue query this module decides."""
SHIFT = 1
"""How much prestige the blindness check adds to every seat (module docstring)."""
MAX_FAILURES = 5
"""Blindness failures kept as text (all are counted)."""

Gains = tuple[int, ...]
"""The prestige an edge gives each seat."""


def without_prestige(state: GameState) -> GameState:
    """The state with the round counter and every seat's prestige set to 0."""
    return replace(state, round=0, players=tuple(replace(p, prestige=0) for p in state.players))


def pump_key(state: GameState) -> int:
    """The 64-bit fingerprint of a state without its round counter and prestige."""
    return hash(without_prestige(state))


def gains(before: GameState, after: GameState) -> Gains:
    """The prestige each seat gained from `before` to `after` (negative for a loss)."""
    return tuple(b.prestige - a.prestige for a, b in zip(before.players, after.players, strict=True))


def shifted(state: GameState, amount: int = SHIFT) -> GameState:
    """The state with every seat's prestige raised by `amount`."""
    return replace(state, players=tuple(replace(p, prestige=p.prestige + amount) for p in state.players))


@dataclass(frozen=True, slots=True)
class Lasso:
    """A pump: from set-up deal `root`, the `stem`, then a `cycle` that returns to the same
    projected state with seat `seat`'s prestige `gain` higher. The shortest of the
    candidates (module docstring), not proved the shortest of all lassos."""

    root: int
    stem: tuple[Action, ...]
    cycle: tuple[Action, ...]
    seat: int
    gain: int


@dataclass
class PumpResult:
    """What the projected run found (module docstring)."""

    states: int = 0
    """Distinct projected states (the game's states without round counter and prestige)."""
    edges: int = 0
    raising: int = 0
    """Edges that raise some seat's prestige."""
    falling: int = 0
    """Edges that lower some seat's prestige (none in the engine: it only adds prestige)."""
    cycle_states: int = 0
    """Projected states on some cycle."""
    pump_edges: int = 0
    """Prestige-raising edges that lie on a cycle."""
    blind_checked: int = 0
    """Projected states at which the prestige-blindness check ran."""
    blind_failures: int = 0
    failures: list[str] = field(default_factory=list)
    lasso: Lasso | None = None

    @property
    def decided(self) -> bool:
        """Whether the verdict stands: the engine was blind to prestige everywhere, and a
        prestige-raising edge on a cycle (if any) gave a lasso the engine replays."""
        return self.blind_failures == 0 and (self.pump_edges == 0 or self.lasso is not None)

    @property
    def reason(self) -> str:
        """Why the verdict is what it is, in words."""
        if self.blind_failures:
            return (
                f"not decided: the engine reads prestige at {self.blind_failures} projected state(s), "
                f"so the graph without prestige is not exact; first: {self.failures[0]}"
            )
        if self.lasso is not None:
            lasso = self.lasso
            return (
                f"a lasso of {len(lasso.stem) + len(lasso.cycle)} actions: {len(lasso.stem)} to a cycle of "
                f"{len(lasso.cycle)} that raises seat {lasso.seat}'s prestige by {lasso.gain} each time round"
            )
        if self.pump_edges:
            return (
                f"not decided: {self.pump_edges} prestige-raising edge(s) on cycles, none replayed as a pump"
            )
        return (
            f"no cycle of the {self.states:,} states without prestige raises it ({self.edges:,} edges, "
            f"{self.raising:,} raise a seat's prestige, {self.cycle_states:,} states on cycles; prestige "
            f"checked unread at every state)"
        )

    def verdict(self) -> QueryVerdict:
        """The query's verdict for the explorer's table: the lasso (stem then one cycle) as its
        witness, or none."""
        witness = None
        if self.lasso is not None:
            witness = (self.lasso.root, (*self.lasso.stem, *self.lasso.cycle))
        return QueryVerdict(PUMP, PATH, witness, decided=self.decided, reason=self.reason)


@dataclass
class _Run:
    """The projected graph as it is explored: per state id its parent, move in and depth;
    the edges (source, target, move index, gains)."""

    parent: array[int] = field(default_factory=lambda: array("l"))
    move: array[int] = field(default_factory=lambda: array("H"))
    depth: array[int] = field(default_factory=lambda: array("l"))
    edges: list[tuple[int, int, int, Gains]] = field(default_factory=list)


def explore_pump(
    data: EditionData,
    players: int,
    *,
    variant: Variant | None = None,
    max_states: int = MAX_STATES,
    stop: Callable[[], bool] | None = None,
) -> PumpResult:
    """Explore the projected graph of a configuration breadth first from every set-up deal
    and decide the score pump on it (module docstring). Raises `ExplorationLimitError` past
    `max_states` projected states and `parallel.ExplorationStoppedError` when `stop()` becomes true."""
    starts = roots(data, players, variant)
    result = PumpResult()
    run = _Run()
    ids: dict[int, int] = {}
    frontier: list[tuple[int, GameState]] = []
    for i, root in enumerate(starts):
        key = pump_key(root.state)
        if key not in ids:
            ids[key] = len(run.parent)
            run.parent.append(-1 - i)
            run.move.append(0)
            run.depth.append(0)
            frontier.append((ids[key], root.state))
    level = 0
    while frontier:
        if stop is not None and stop():
            raise ExplorationStoppedError(
                f"stopped at depth {level} of the score pump's run; nothing saved", None
            )
        following: list[tuple[int, GameState]] = []
        for sid, state in frontier:
            out = moves(state)
            _check_blind(result, state, out)
            for k, (action, _) in enumerate(out):
                after = apply(state, action)
                key = pump_key(after)
                target = ids.get(key)
                if target is None:
                    target = ids[key] = len(run.parent)
                    run.parent.append(sid)
                    run.move.append(k)
                    run.depth.append(level + 1)
                    following.append((target, after))
                    if len(run.parent) > max_states:
                        raise ExplorationLimitError(max_states, level + 1, len(following))
                run.edges.append((sid, target, k, gains(state, after)))
        frontier = following
        level += 1
    result.states = len(run.parent)
    _analyse(result, run, starts)
    return result


def _check_blind(result: PumpResult, state: GameState, out: Sequence[tuple[Action, Fraction | None]]) -> None:
    """The prestige-blindness check at one projected state (module docstring): the same
    state with every seat's prestige `SHIFT` higher offers the same moves (none at an end),
    each to the same projected state with the same gains."""
    result.blind_checked += 1
    raised = shifted(state)
    problem = None
    if moves(raised) != list(out):
        problem = "other moves"
    else:
        for action, _ in out:
            a, b = apply(state, action), apply(raised, action)
            if pump_key(a) != pump_key(b) or gains(state, a) != gains(raised, b):
                problem = f"{format_action(action)} leads elsewhere"
                break
    if problem is not None:
        result.blind_failures += 1
        if len(result.failures) < MAX_FAILURES:
            result.failures.append(
                f"with every seat's prestige {SHIFT} higher, {problem} (round {state.round})"
            )


def _analyse(result: PumpResult, run: _Run, starts: list[Root]) -> None:
    """Count the edges, find the prestige-raising ones on cycles, and the lasso."""
    g: nx.DiGraph[int] = nx.DiGraph()
    g.add_nodes_from(range(result.states))
    for u, v, k, gained in run.edges:
        result.edges += 1
        result.raising += any(x > 0 for x in gained)
        result.falling += any(x < 0 for x in gained)
        if not g.has_edge(u, v):
            g.add_edge(u, v, move=k)
    component: dict[int, int] = {}
    sizes: dict[int, int] = {}
    for i, members in enumerate(nx.strongly_connected_components(g)):
        sizes[i] = len(members)
        for u in members:
            component[u] = i
    result.cycle_states = sum(1 for u in g if sizes[component[u]] > 1 or g.has_edge(u, u))
    pumps = [
        (u, v, k, gained) for u, v, k, gained in run.edges if component[u] == component[v] and max(gained) > 0
    ]
    result.pump_edges = len(pumps)
    if pumps:
        result.lasso = _shortest_lasso(run, g, component, pumps, starts)


def _shortest_lasso(
    run: _Run,
    g: nx.DiGraph[int],
    component: dict[int, int],
    pumps: list[tuple[int, int, int, Gains]],
    starts: list[Root],
) -> Lasso | None:
    """Of the shortest cycles through each prestige-raising edge on a cycle, each entered
    at its state nearest a set-up, the shortest lasso the engine replays as a pump."""
    candidates: list[tuple[int, list[tuple[int, int]]]] = []  # (length, cycle as (state, move))
    for u, v, k, _ in sorted(pumps, key=lambda e: (run.depth[e[0]], e[0], e[2])):
        if candidates and run.depth[u] + 1 >= min(c[0] for c in candidates):
            break
        inside = g.subgraph(s for s, c in component.items() if c == component[u])
        back: list[int] = nx.shortest_path(inside, v, u)
        cycle = [(u, k)] + [(a, g.edges[a, b]["move"]) for a, b in itertools.pairwise(back)]
        entry = min(range(len(cycle)), key=lambda i: (run.depth[cycle[i][0]], i))
        cycle = cycle[entry:] + cycle[:entry]
        candidates.append((run.depth[cycle[0][0]] + len(cycle), cycle))
    for _, cycle in sorted(candidates, key=lambda c: c[0]):
        lasso = _replayed(run, starts, cycle)
        if lasso is not None:
            return lasso
    return None


def _replayed(run: _Run, starts: list[Root], cycle: list[tuple[int, int]]) -> Lasso | None:
    """The lasso to `cycle` replayed on the engine from its set-up, when it is a pump there:
    the cycle comes back to the same projected state with some seat's prestige higher."""
    root, stem = path_to(lambda n: (run.parent[n], run.move[n]), starts, cycle[0][0])
    entered = state = replay(starts[root].state, stem)
    actions: list[Action] = []
    try:
        for _, k in cycle:
            action = moves(state)[k][0]
            actions.append(action)
            state = apply(state, action)
    except (IndexError, VillageError):
        return None
    gained = gains(entered, state)
    if pump_key(state) != pump_key(entered) or max(gained) <= 0:
        return None
    seat = max(range(len(gained)), key=lambda s: (gained[s], -s))
    return Lasso(root, stem, tuple(actions), seat, gained[seat])
