"""Breadth-first exploration of every reachable state of one configuration, on the real engine.

From every outcome of the explicit set-up deal (`deal_outcomes`), every decision
(`legal_actions`) and every chance outcome (`chance_outcomes`) is applied, and each state
reached is kept once, by its fingerprint (`fingerprint`: the whole state but the round
counter, which no rule reads, so a cycle of rounds is a cycle of the graph). At every new
state every state invariant is checked; on every edge every transition invariant and every
`STEP` query of the catalogue. The first edge (in breadth-first order) where a query holds
gives its shortest witness; a `STEP` query that holds on no edge is unreachable by
exhaustion.

Budgets are counts, never seconds: `max_states` stops a configuration larger than it with
`ExplorationLimitError` (nothing else is written), so the same inputs give the same
verdicts on any machine.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Protocol

from village_rules.checks.invariants import Violation, state_violations, transition_violations
from village_rules.data.edition import EditionData
from village_rules.engine.core import apply, apply_steps, chance_outcomes, legal_actions
from village_rules.engine.end_of_game import ended_by
from village_rules.engine.events import SubStep
from village_rules.engine.setup import deal_outcomes, game_from_deal
from village_rules.errors import ParameterError, VillageError
from village_rules.explore.monitors import Monitor, Value, fold
from village_rules.explore.seen import SeenFigures, SeenSet
from village_rules.model.actions import Action, format_action
from village_rules.model.evolve import replace
from village_rules.model.state import GameState
from village_rules.proofs.catalogue.catalogue import CATALOGUE, STEP, Query
from village_rules.proofs.model.abstraction import abstract
from village_rules.proofs.model.model import Constants, broken_clauses, broken_initial
from village_rules.proofs.search.history import History
from village_rules.rules.variant import Variant

Progress = Callable[["Snapshot"], None]
"""Called after every breadth-first level and every `PROGRESS_EVERY` new states."""

PROGRESS_EVERY = 50_000
REFINEMENT = "refinement"
"""The violation recorded where an engine step breaks a clause of the z3 model."""
ENGINE_EXCEPTION = "engine.exception"
"""The violation recorded where `legal_actions`, `chance_outcomes` or `apply` raised."""
MAX_STATES = 4_000_000
"""The default budget of distinct states: twice `large`'s 2,002,430 (about 30 bytes each
beside the frontier)."""
MAX_VIOLATIONS = 20
"""Violations kept in the result (all are counted)."""


class ExplorationLimitError(VillageError):
    """The configuration has more reachable states than the budget allows."""

    def __init__(self, limit: int, depth: int, frontier: int, saved: str = "") -> None:
        self.limit = limit
        super().__init__(
            f"more than {limit:,} distinct states (reached at depth {depth}, {frontier:,} states still "
            f"to expand): raise --max-states if the memory allows, or explore a smaller configuration{saved}"
        )


def fingerprint(state: GameState) -> int:
    """A state's 64-bit fingerprint: the hash of everything but the round counter.

    Python's hash of the frozen state (its fields, recursively) within one process; only
    equal states are merged, so the counts do not depend on the hash's seed, only the
    (reported) chance of a collision does."""
    return hash(replace(state, round=0))


def seen_key(state: GameState, value: Value, *, monitored: bool) -> int:
    """The seen-set's key of a state: its fingerprint, or with a monitor the hash of the
    fingerprint and the monitor's value (a state of the product)."""
    return hash((fingerprint(state), value)) if monitored else fingerprint(state)


def moves(state: GameState) -> list[tuple[Action, Fraction | None]]:
    """The edges out of a state in the engine's order: the chance outcomes with their
    probabilities, or the legal decisions (probability None); none at the end."""
    if state.is_terminal:
        return []
    if state.is_chance:
        return list(chance_outcomes(state))
    return [(a, None) for a in legal_actions(state)]


@dataclass(frozen=True, slots=True)
class Root:
    """One complete set-up deal: its outcomes, its probability and the game it sets up."""

    deal: tuple[Action, ...]
    probability: Fraction
    state: GameState


def roots(data: EditionData, players: int, variant: Variant | None = None) -> list[Root]:
    """Every complete set-up deal in the engine's order (SET-05, SET-10), with its probability."""
    out: list[Root] = []
    stack: list[tuple[tuple[Action, ...], Fraction]] = [((), Fraction(1))]
    while stack:
        dealt, p = stack.pop()
        outcomes = deal_outcomes(data, players, dealt, variant)
        if not outcomes:
            out.append(Root(dealt, p, game_from_deal(data, players, dealt, variant)))
            continue
        for action, q in reversed(outcomes):
            stack.append(((*dealt, action), p * q))
    return out


@dataclass(frozen=True, slots=True)
class Snapshot:
    """How far a run has got (for the progress display)."""

    states: int
    frontier: int
    depth: int
    edges: int
    seen_bytes: int
    memory: int | None = None
    """The bytes resident in the explorer's processes, where known (`memory.resident_bytes`)."""


@dataclass(frozen=True, slots=True)
class QueryVerdict:
    """A `STEP` query's verdict on a configuration: the shortest witness path or none."""

    query: str
    horizon: str
    witness: tuple[int, tuple[Action, ...]] | None
    """(root index, the actions from that root's state) of the first edge where it holds."""
    decided: bool = True
    """False for a `PATH` query explored without its monitor: no witness is then no verdict."""
    reason: str = ""
    """Why, where the verdict needs more words than its witness (the score pump: `pump`)."""

    @property
    def reachable(self) -> bool:
        """Whether some edge of the graph meets the query."""
        return self.witness is not None


@dataclass
class Exploration(SeenFigures):
    """What a run found: the graph's size and shape, the checks' results, the queries."""

    players: int
    roots: int
    states: int = 0
    edges: int = 0
    depth: int = 0
    """Breadth-first levels below the roots: the length of the longest shortest path."""
    terminal: Counter[str] = field(default_factory=Counter)
    """Distinct terminal states by what ended the game (`ended_by`)."""
    deadlocks: int = 0
    """States that are not terminal yet offer no decision and no chance outcome."""
    violations: list[tuple[int, Violation]] = field(default_factory=list)
    violation_count: int = 0
    states_checked: int = 0
    edges_checked: int = 0
    edges_refined: int = 0
    """Edges on which the z3 model's clauses were checked (`refinement=True`)."""
    verdicts: dict[str, QueryVerdict] = field(default_factory=dict)
    seen_bytes: int = 0
    rules_fired: frozenset[str] | None = None
    """The rule IDs (`specs/rules.md`) that some explored edge fires, when asked for
    (`explore(..., rules=True)`): what the configuration's games exercise, by exhaustion."""
    graph: Graph | None = None
    """The whole state graph, when asked for (`explore(..., graph=True)`)."""


@dataclass
class Graph:
    """The explored state graph by state id (discovery order): for analyses of its shape
    (`shape`). Kept only when asked for: it costs far more than the seen-set."""

    roots: list[tuple[int, Fraction]] = field(default_factory=list)
    """(state id, probability of its set-up deal)."""
    edges: list[list[tuple[int, Fraction | None]]] = field(default_factory=list)
    """Per state: (target id, the chance outcome's probability, or None for a decision)."""
    ends: dict[int, str] = field(default_factory=dict)
    """Terminal state id -> what ended the game (`ended_by`)."""


@dataclass
class _Parents:
    """Per state id (discovery order): its parent's id and the index of the move into it."""

    parent: array[int] = field(default_factory=lambda: array("l"))
    move: array[int] = field(default_factory=lambda: array("H"))

    def add(self, parent: int, move: int) -> None:
        self.parent.append(parent)
        self.move.append(move)


def explore(
    data: EditionData,
    players: int,
    *,
    variant: Variant | None = None,
    max_states: int = MAX_STATES,
    queries: Sequence[Query] = CATALOGUE,
    check: bool = True,
    graph: bool = False,
    refinement: bool = False,
    monitor: Monitor | None = None,
    progress: Progress | None = None,
    rules: bool = False,
) -> Exploration:
    """Visit every state reachable from every set-up deal, breadth first (module docstring).

    `check=False` skips the invariants (for a count alone); `graph=True` keeps every edge
    (`Exploration.graph`); `refinement=True` checks the z3 model's clauses on every edge
    (the abstractions of the states before and after) and at every set-up (`REFINEMENT`
    violations); `rules=True` collects the rule IDs every edge fires
    (`Exploration.rules_fired`). With a `monitor` it visits the product of the graph and the monitor's value
    and decides that monitor's `PATH` query exactly (`monitors`); the counts are then the
    product's. Raises `ExplorationLimitError` when more than `max_states` distinct states
    are reachable."""
    if refinement and players == 1:
        raise ParameterError("refinement", "the z3 model has no Carla: refinement is for 2 or more players")
    link = Constants.of(data, players) if refinement else None
    watched = monitor.query if monitor is not None else None
    step_queries = [q for q in queries if q.horizon == STEP or q.name == watched]
    edge_checks = EdgeChecks(check, link, monitor, {q.name: q for q in step_queries})
    if rules:
        edge_checks.fired = set()
    starts = roots(data, players, variant)
    result = Exploration(players=players, roots=len(starts))
    for q in queries:
        if q not in step_queries:
            result.verdicts[q.name] = QueryVerdict(q.name, q.horizon, None, decided=False)
    found: dict[str, tuple[int, int]] = {}  # query -> (state id of the edge's source, move)
    seen = SeenSet()
    parents = _Parents()
    kept = Graph() if graph else None
    ids: dict[int, int] = {}  # fingerprint -> state id, only for the graph
    frontier: list[tuple[int, GameState, Value]] = []
    start_value = monitor.start if monitor is not None else None
    for i, root in enumerate(starts):
        fp = seen_key(root.state, start_value, monitored=monitor is not None)
        if seen.add(fp):
            frontier.append((len(parents.parent), root.state, start_value))
            parents.add(-1 - i, 0)
            if kept is not None:
                ids[fp] = len(parents.parent) - 1
                kept.edges.append([])
            if check:
                check_state(result, len(parents.parent) - 1, root.state)
            if link is not None:
                broken = broken_initial(abstract(root.state), link)
                if broken:
                    record(result, len(parents.parent) - 1, [refines("set-up", broken)])
        if kept is not None:
            kept.roots.append((ids[fp], root.probability))
    depth = 0
    while frontier:
        level: list[tuple[int, GameState, Value]] = []
        for sid, state, value in frontier:
            out = expand(sid, state, value, tally=result, checks=edge_checks, hits=found)
            if kept is not None and not out and state.is_terminal:
                kept.ends[sid] = ended_by(state)
            for fp, k, after, new, probability in out:
                if seen.add(fp):
                    cid = len(parents.parent)
                    parents.add(sid, k)
                    level.append((cid, after, new))
                    if kept is not None:
                        ids[fp] = cid
                        kept.edges.append([])
                    if check:
                        check_state(result, cid, after)
                    if len(parents.parent) > max_states:
                        raise ExplorationLimitError(max_states, depth + 1, len(level))
                    if progress is not None and cid % PROGRESS_EVERY == 0:
                        progress(Snapshot(cid + 1, len(level), depth + 1, result.edges, seen.nbytes))
                if kept is not None:
                    kept.edges[sid].append((ids[fp], probability))
        if level:
            depth += 1
        frontier = level
        if progress is not None:
            progress(Snapshot(len(parents.parent), len(frontier), depth, result.edges, seen.nbytes))
    result.states = len(parents.parent)
    result.depth = depth
    result.seen_bytes = seen.nbytes
    result.graph = kept
    if edge_checks.fired is not None:
        result.rules_fired = frozenset(edge_checks.fired)
    for q in step_queries:
        hit = found.get(q.name)
        witness = None
        if hit is not None:
            index, path = path_to(lambda n: (parents.parent[n], parents.move[n]), starts, hit[0])
            witness = (index, (*path, moves(replay(starts[index].state, path))[hit[1]][0]))
        result.verdicts[q.name] = QueryVerdict(q.name, q.horizon, witness)
    return result


class Counts(Protocol):
    """Where checks are counted: an `Exploration`, or one worker's share of it (`parallel`)."""

    violations: list[tuple[int, Violation]]
    violation_count: int
    states_checked: int
    edges_checked: int


class Tally(Counts, Protocol):
    """Where an expansion is counted (`expand`): an `Exploration`, or one worker's share."""

    edges: int
    deadlocks: int
    terminal: Counter[str]
    edges_refined: int


@dataclass
class EdgeChecks:
    """What `expand` checks on every edge of a run, and the `STEP` queries not met yet."""

    check: bool
    """Every transition invariant."""
    link: Constants | None
    """The z3 model's clauses (`refinement=True`), or None."""
    monitor: Monitor | None
    pending: dict[str, Query]
    """The queries still without a witness (a query is removed when an edge meets it)."""
    fired: set[str] | None = None
    """The rule IDs the edges fired so far (`apply`'s trace), when collected."""


Successor = tuple[int, int, GameState, Value, Fraction | None]
"""An edge's target: its seen-set key (`seen_key`), the move's index, the state, the monitor's
value, the chance outcome's probability (None for a decision)."""


def expand(
    sid: int,
    state: GameState,
    value: Value,
    *,
    tally: Tally,
    checks: EdgeChecks,
    hits: dict[str, tuple[int, int]],
) -> list[Successor]:
    """Every edge out of state `sid`, in the engine's order (`moves`), each applied and
    checked (`checks`), counted in `tally`: the successors. A state without edges is
    counted as terminal (by `ended_by`) or as a deadlock; an engine exception is an
    `ENGINE_EXCEPTION` violation (and, in `moves`, a deadlock). A pending query that holds
    on an edge is recorded in `hits` (query -> (sid, move index)) and is no longer pending.
    The one edge loop of both `explore` and the workers of `parallel`."""
    try:
        out = moves(state)
    except VillageError as exc:  # the engine refused to go on: a finding, not a crash
        record(tally, sid, [Violation(ENGINE_EXCEPTION, "legal_actions", "moves", str(exc))])
        tally.deadlocks += 1
        return []
    if not out:
        if state.is_terminal:
            tally.terminal[ended_by(state)] += 1
        else:
            tally.deadlocks += 1
        return []
    monitor, link, pending = checks.monitor, checks.link, checks.pending
    alpha = abstract(state) if link is not None else None
    successors: list[Successor] = []
    fired = checks.fired
    trace: list[str] | None = [] if fired is not None else None
    judged = bool(pending) or monitor is not None or link is not None  # by sub-steps and their events
    steps: tuple[SubStep, ...] = ()
    for k, (action, probability) in enumerate(out):
        try:
            if judged:
                steps = apply_steps(state, action, trace)
                after = steps[-1].after
            else:
                after = apply(state, action) if trace is None else apply(state, action, trace=trace)
        except VillageError as exc:
            if trace is not None:
                trace.clear()
            record(tally, sid, [Violation(ENGINE_EXCEPTION, format_action(action), "a state", str(exc))])
            continue
        tally.edges += 1
        if fired is not None and trace:
            fired.update(trace)
            trace.clear()
        if checks.check:
            check_edge(tally, sid, state, action, after)
        if link is not None and alpha is not None:
            tally.edges_refined += 1
            # every sub-step a step of the model (a forced decision included)
            broken, at = [], alpha
            for sub in steps:
                following = abstract(sub.after)
                broken = broken_clauses(at, following, link)
                if broken:
                    break
                at = following
            if broken:
                record(tally, sid, [refines(format_action(action), broken)])
        new, monitored = fold(monitor, value, steps) if monitor is not None else (None, False)
        if pending:
            watched = monitor.query if monitor is not None else None
            met = {watched} if monitored else set()
            others = [(name, q) for name, q in pending.items() if name != watched]
            if others:
                history = History([state])
                for sub in steps:  # each query judged after every sub-step, with its events
                    history.push_sub(sub)
                    met.update(name for name, q in others if name not in met and q.concrete(history))
            for name in [n for n in pending if n in met]:
                hits[name] = (sid, k)
                del pending[name]
        successors.append((seen_key(after, new, monitored=monitor is not None), k, after, new, probability))
    return successors


def refines(where: str, broken: list[str]) -> Violation:
    """The violation of the z3 model's clauses `broken` on an edge or set-up."""
    return Violation(REFINEMENT, where, "every clause of the z3 model", "broken: " + ", ".join(broken))


def check_state(result: Counts, sid: int, state: GameState) -> None:
    """Every state invariant at state `sid`, recorded in `result`."""
    legal = None if state.is_chance or state.is_terminal else legal_actions(state)
    result.states_checked += 1
    record(result, sid, state_violations(state, legal))


def check_edge(result: Counts, sid: int, before: GameState, action: Action, after: GameState) -> None:
    """Every transition invariant on an edge out of state `sid`, recorded in `result`."""
    result.edges_checked += 1
    record(result, sid, transition_violations(before, action, after))


def record(result: Counts, sid: int, found: list[Violation]) -> None:
    """Count the violations `found` at state `sid`, keeping the first `MAX_VIOLATIONS`."""
    result.violation_count += len(found)
    room = MAX_VIOLATIONS - len(result.violations)
    result.violations.extend((sid, v) for v in found[: max(room, 0)])


def path_to(
    parent_of: Callable[[int], tuple[int, int]], starts: Sequence[Root], sid: int
) -> tuple[int, tuple[Action, ...]]:
    """The root index and the actions from it to state `sid` (a shortest path), given each
    state's parent and the index of the move into it (a root's parent is -1 - its index)."""
    indices: list[int] = []
    node = sid
    parent, move = parent_of(node)
    while parent >= 0:
        indices.append(move)
        node = parent
        parent, move = parent_of(node)
    root = -1 - parent
    actions: list[Action] = []
    state = starts[root].state
    for k in reversed(indices):
        action = moves(state)[k][0]
        actions.append(action)
        state = apply(state, action)
    return root, tuple(actions)


def replay(state: GameState, actions: Sequence[Action]) -> GameState:
    """The state after `actions` from `state`."""
    for action in actions:
        state = apply(state, action)
    return state
