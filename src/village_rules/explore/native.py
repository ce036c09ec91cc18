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

import os
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from village_rules.data.edition import EditionData
from village_rules.errors import OutputError
from village_rules.explore.checkpoint import CheckpointError
from village_rules.explore.configs import configuration
from village_rules.explore.memory import resident_bytes
from village_rules.explore.native_checkpoint import check_resumable, header, require_build_id, run_identity
from village_rules.explore.parallel import ExplorationStoppedError, MemoryBudgetError
from village_rules.explore.search import MAX_STATES, ExplorationLimitError, QueryVerdict, roots
from village_rules.explore.seen import SeenFigures
from village_rules.model.actions import Action, action_from_id
from village_rules.native import _core
from village_rules.native.engine import native_game
from village_rules.native.predicates import MONITORS, PREDICATE_PLANTS, STEP_QUERIES, set_high_scores
from village_rules.proofs.catalogue.catalogue import HIGH_SCORE
from village_rules.proofs.catalogue.query import PATH, STEP
from village_rules.rules.variant import Variant

MAX_WORKERS = 64
"""The most threads a native exploration takes (cpp/explore.cpp `run`)."""

PLANTS = ("omit players.lifetime", "pack forgets players.lifetime")
"""The bugs a test can plant (cpp/explore.hpp Plant): a field left out of the fingerprint,
so that it merges distinct states; a packed frontier (cpp/pack.hpp) that loses a field, so
that the states expanded are not the states reached."""

Progress = Callable[[int, int, int, int], None]
"""Called after every breadth-first level with (depth, states, edges, frontier)."""

CHECKPOINT_EVERY = 500_000
"""The default states between two periodic checkpoints (the Python explorer's too)."""

FLOOR_BYTES_PER_STATE = 13.5
"""The least memory a state costs the native loop, whatever the run: 7.5 bytes in the seen set
at its fullest (6-byte slots, at most 80% full) and 6 for its parent and move. The packed
frontier, the threads' buffers and the interpreter come on top (`large`'s 2.0 million states
peak at about 55 bytes a state, the interpreter included), so a budget below this floor
cannot be met (`memory_floor`)."""


def memory_floor(states: int, workers: int) -> int:
    """The least resident memory, in bytes, a native run of `states` distinct states on
    `workers` threads needs for its seen sets and parents alone (each thread's seen set has a
    1 MiB directory): a `max_memory` below it is refused before the work."""
    return int(states * FLOOR_BYTES_PER_STATE) + workers * 2**20


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
    checkpoints_written: int = 0
    """With `checkpoint`: the files written (at the level boundaries after every
    `checkpoint_every` states)."""
    checkpoint_bytes: int = 0
    """The last checkpoint's size in bytes."""
    resumed_states: int | None = None
    """With `resume`: the distinct states the checkpoint held (None: started from the roots)."""
    resumed_depth: int | None = None
    """With `resume`: the levels the checkpoint had finished."""
    query_witness: dict[str, tuple[int, list[int]]] | None = None
    """With `queries`: each `STEP` query met on some edge -> a shortest witness (its root's
    index and the action ids from that root's state, the last the edge's); None: not judged."""
    monitor: str | None = None
    """With `monitor`: the `PATH` query whose monitor's product was explored."""
    monitor_witness: tuple[int, list[int]] | None = None
    """With `monitor`: a shortest witness of its query (as `query_witness`), None if no edge
    of the product meets it."""
    monitors: tuple[str, ...] = ()
    """The `PATH` queries whose monitors' product was explored (`monitor` or `monitors`)."""
    monitor_witnesses: dict[str, tuple[int, list[int]]] = field(default_factory=dict)
    """Each of `monitors` met on some edge of the product -> a shortest witness of its query."""
    rules_fired: frozenset[str] | None = None
    """With `queries` or monitors: every rule ID the edges fired (their rule events), as the
    Python explorer's `Exploration.rules_fired`, so that a query none of whose situations
    can arise is called vacuous; None where not every edge was judged (every `STEP` query met
    on some thread, which then stops judging: no query is left unreachable then)."""

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
    checkpoint: Path | None = None,
    checkpoint_every: int = CHECKPOINT_EVERY,
    resume: Path | None = None,
    max_memory: int | None = None,
    queries: bool = False,
    monitor: str | None = None,
    monitors: Sequence[str] = (),
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
    line's Ctrl-C and SIGTERM). `plant` is a test hook (`PLANTS`, or a native predicate made
    to differ: `native.predicates.PREDICATE_PLANTS`).
    Raises `ExplorationLimitError` past `max_states` distinct states.

    With `checkpoint`, the run is saved there (atomically: the old file or the whole new
    one) at the first level boundary after every `checkpoint_every` distinct states, and
    where it stops early (`stop`, `max_states`, `max_memory`: the error says it was saved).
    `resume` goes on from such a file to exactly the counts, checks and shortest games of an
    uninterrupted run (on another thread count the same counts, and shortest games of the
    same lengths); a file that cannot continue this run is refused before the work
    (`CheckpointError`, naming the problem: `native_checkpoint.check_resumable`). With
    `max_memory` (bytes), the run stops with `MemoryBudgetError` at the first batch after
    which this process holds more (explore/memory.py; not checked where /proc is missing).

    With `queries`, every `STEP` query of the catalogue is judged natively after every
    sub-step of every edge (native/predicates.py, tied to the Python predicates by
    tests/native/test_native_predicates.py), as the Python explorer judges them:
    `query_witness` holds a shortest witness of each met (`query_verdicts` makes them the
    Python explorer's `QueryVerdict`s). The verdicts are not kept in a checkpoint, so
    `queries` with `checkpoint` or `resume` is refused.

    With `monitor` (a `PATH` query's name with a native monitor: `native.predicates.MONITORS`)
    the product of the graph and the monitor's value is explored, as the Python explorer's
    `explore(monitor=)` does: the counts are the product's, and `query_witness` holds the
    query's shortest witness if an edge meets it (`monitor_verdict`). Give the query's own
    `variant` (`Query.variant`) for a query with a reading of its own. Refused with
    `check_json`, a planted bug of the loop or a checkpoint.

    With `monitors` (several such names, whose queries share their readings) one product of
    the graph and all their values is explored: each query's shortest witness is as long as
    on its own monitor's product (a breadth-first walk of any product meets each query at the
    fewest actions a game needs), in one run instead of one run each (`monitor_verdicts`)."""
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
    if plant and plant not in (*PLANTS, *PREDICATE_PLANTS):
        known = ", ".join((*PLANTS, *PREDICATE_PLANTS))
        raise ValueError(f"unknown planted bug {plant!r} (known: {known})")
    if check_json and (checkpoint is not None or resume is not None):
        raise ValueError("check_json keeps every state's JSON, which a checkpoint does not hold")
    if checkpoint_every < 1:
        raise ValueError(f"checkpoint_every must be at least 1 state, not {checkpoint_every}")
    if queries and (checkpoint is not None or resume is not None):
        raise ValueError("the queries' verdicts are not kept in a checkpoint: no queries with a checkpoint")
    if queries:
        set_high_scores(data, HIGH_SCORE)
    if monitor is not None and monitors:
        raise ValueError("give one monitor (monitor=) or several (monitors=), not both")
    product = (monitor,) if monitor is not None else tuple(monitors)
    for name_of in product:
        if name_of not in MONITORS:
            raise ValueError(f"no native monitor for {name_of!r} (known: {', '.join(MONITORS)})")
    if len(set(product)) != len(product):
        raise ValueError(f"a monitor named twice: {', '.join(product)}")
    checkpointed = checkpoint is not None or resume is not None
    if product and (check_json or plant in PLANTS or checkpointed):
        raise ValueError("a monitor's product is explored without check_json, a planted bug or a checkpoint")
    starts = roots(data, players, variant)
    saving = None
    if checkpoint is not None or resume is not None:
        identity = run_identity(data, players, starts, check=check, plant=plant)
        if resume is not None:  # before the work: the header here, the whole body in C++
            check_resumable(resume, identity)
        if checkpoint is not None:
            require_build_id(checkpoint)
            try:  # the C++ writer makes its temporary file beside the checkpoint
                checkpoint.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise OutputError(str(checkpoint), f"cannot be written: {exc.strerror or exc}") from None
        saving = _core.Checkpointing(
            save="" if checkpoint is None else os.fspath(checkpoint),
            every=checkpoint_every,
            resume="" if resume is None else os.fspath(resume),
            header=header(identity),
        )
    over: list[int] = []  # the resident bytes that passed `max_memory`

    def asked() -> bool:  # between batches, on this thread
        if stop is not None and stop():
            return True
        if max_memory is not None:
            held = resident_bytes([os.getpid()])
            if held is not None and held > max_memory:
                over.append(held)
                return True
        return False

    games = [native_game(root.state) for root in starts]
    predicate_plant = plant if plant in PREDICATE_PLANTS else ""
    for game in games:  # a native predicate made to differ (native/predicates.py), for the ties' tests
        game.set_predicate_plant(predicate_plant)
    plant = "" if predicate_plant else plant
    try:
        raw = _core.explore(
            games, max_states, plant, check_json, progress, workers, check, asked, saving, queries,
            list(product),
        )
    except _core.CheckpointDamagedError as exc:
        raise CheckpointError(resume or Path(), str(exc)) from None
    except _core.CheckpointUnwritableError as exc:
        raise OutputError(str(checkpoint), str(exc)) from None
    kept = (
        f"; checkpoint written to {checkpoint}: continue with --resume {checkpoint}"
        if raw["saved"]
        else "; nothing saved (without --checkpoint FILE the native loop keeps no checkpoint: "
        "give one to be able to resume)"
    )
    where = f"at depth {int(raw['depth'])} after {int(raw['states']):,} distinct states"
    if raw["limit_reached"]:
        saved = kept if raw["saved"] else ""
        raise ExplorationLimitError(max_states, int(raw["depth"]), int(raw["frontier"]), saved)
    if raw["stopped"] and over and max_memory is not None:
        raise MemoryBudgetError(
            f"the native explorer holds {over[0] / 2**20:,.0f} MiB, more than --max-memory "
            f"{max_memory / 2**20:,.0f} MiB, {where}{kept}"
        )
    if raw["stopped"]:
        saved_to = checkpoint if raw["saved"] else None
        raise ExplorationStoppedError(f"stopped on request {where}{kept}", saved_to)
    witnesses = {
        str(query): (int(root), [int(i) for i in ids])
        for query, (root, ids) in dict(raw["query_witness"]).items()
    }
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
        checkpoints_written=int(raw["checkpoints_written"]),
        checkpoint_bytes=int(raw["checkpoint_bytes"]),
        resumed_states=None if int(raw["resumed_states"]) < 0 else int(raw["resumed_states"]),
        resumed_depth=None if int(raw["resumed_depth"]) < 0 else int(raw["resumed_depth"]),
        query_witness={q: w for q, w in witnesses.items() if q in STEP_QUERIES} if queries else None,
        monitor=monitor,
        monitor_witness=None if monitor is None else witnesses.get(monitor),
        monitors=product,
        monitor_witnesses={q: w for q, w in witnesses.items() if q in product},
        rules_fired=None if raw["rules_fired"] is None else frozenset(str(r) for r in raw["rules_fired"]),
    )


def monitor_verdict(data: EditionData, exploration: NativeExploration) -> QueryVerdict | None:
    """The verdict of the `PATH` query decided on the product with its monitor
    (`explore_counts(monitor=)`), as the Python explorer's; None without a monitor."""
    if exploration.monitor is None:
        return None
    found = exploration.monitor_witness
    witness = None if found is None else (found[0], tuple(action_from_id(data, i) for i in found[1]))
    return QueryVerdict(exploration.monitor, PATH, witness)


def monitor_verdicts(data: EditionData, exploration: NativeExploration) -> dict[str, QueryVerdict]:
    """The verdict of each `PATH` query whose monitor the product explored (`monitor` or
    `monitors`), as the Python explorer's on its own product."""
    out: dict[str, QueryVerdict] = {}
    for name in exploration.monitors:
        found = exploration.monitor_witnesses.get(name)
        witness = None if found is None else (found[0], tuple(action_from_id(data, i) for i in found[1]))
        out[name] = QueryVerdict(name, PATH, witness)
    return out


def query_verdicts(data: EditionData, exploration: NativeExploration) -> dict[str, QueryVerdict]:
    """The native run's verdict of every `STEP` query it judged (`explore_counts(queries=True)`),
    as the Python explorer's: reachable with a shortest witness (the root's index and the
    reference's actions), or unreachable by exhaustion (no edge meets it). Empty when the
    queries were not judged."""
    if exploration.query_witness is None:
        return {}
    out: dict[str, QueryVerdict] = {}
    for name in STEP_QUERIES:
        found = exploration.query_witness.get(name)
        witness = None if found is None else (found[0], tuple(action_from_id(data, i) for i in found[1]))
        out[name] = QueryVerdict(name, STEP, witness)
    return out


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
