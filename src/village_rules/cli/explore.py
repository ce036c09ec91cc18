"""`village-rules explore`: visit every reachable state of a reduced configuration (docs/exploration.md)."""

from __future__ import annotations

import argparse
import contextlib
import random
import signal
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from village_rules.cli.options import needs, whole
from village_rules.cli.progress import Bar, add_quiet_flag, progress_bar
from village_rules.cli.terminal import SIGINT_EXIT, SIGTERM_EXIT
from village_rules.data.files import check_writable, write_text
from village_rules.drivers.play import data_file_name, play, random_policy
from village_rules.engine.end_of_game import ended_by
from village_rules.engine.setup import new_game
from village_rules.errors import VillageError
from village_rules.explore.checkpoint import require_fixed_hash_seed
from village_rules.explore.configs import CONFIGS, Configuration, configuration, shipped_names
from village_rules.explore.crosscheck import content_crosscheck, disagreements, model_proves
from village_rules.explore.memory import available as memory_available
from village_rules.explore.monitors import MONITORS
from village_rules.explore.parallel import ExplorationStoppedError, explore_parallel
from village_rules.explore.pinned import Counted, Pinned, differences, pinned, pinned_states
from village_rules.explore.pump import PUMP, explore_pump
from village_rules.explore.ray_pool import hash_seed, import_ray, session
from village_rules.explore.scope import scope_line, vacuous
from village_rules.explore.search import (
    MAX_STATES,
    Exploration,
    ExplorationLimitError,
    QueryVerdict,
    Snapshot,
    explore,
    roots,
)
from village_rules.explore.shape import MAX_SYSTEM, Shape, shape
from village_rules.explore.witnesses import witness_log, witness_name
from village_rules.proofs.catalogue.catalogue import CATALOGUE, Query, by_name
from village_rules.proofs.catalogue.query import STEP
from village_rules.rules.variant import Variant

if TYPE_CHECKING:  # the optional extension: imported where it runs (`_run_native`)
    from village_rules.explore.native import NativeExploration


class ExploreArgumentError(VillageError):
    """A bad option of `village-rules explore` (exit 2)."""


STATES_CEILING = 200_000_000
MAX_RANDOM_GAMES = 1_000_000
MAX_WORKERS = 256
CHECKPOINT_EVERY = 500_000
LASSO = "lasso"
ENGINES = ("reference", "native")

NATIVE_REFUSES = {
    "shape": "--shape",
    "refinement": "--refinement",
    "z3": "--z3",
}
"""The options the native loop does not do yet (issue 40: the whole graph's shape, the z3
links), refused before the work rather than ignored."""

NATIVE_RAY_REFUSES = {
    "checkpoint": "--checkpoint",
    "resume": "--resume",
    "max_memory": "--max-memory",
    "query": "--query",
    "witnesses": "--witnesses",
}
"""What the native loop on Ray actors does not do (explore/native_shards.py): it saves no
checkpoint, measures no memory across machines and decides no query, so it has no witness
(its threads do)."""


def register(subparsers: Any) -> None:
    """Add the `explore` subcommand to the command line's subparsers."""
    p = subparsers.add_parser(
        "explore", help="visit every reachable state of a reduced configuration, checking every invariant"
    )
    p.add_argument(
        "config",
        nargs="?",
        default="tiny",
        help=f"a shipped configuration ({', '.join(shipped_names())}) or a data file (default: tiny)",
    )
    p.add_argument("--players", type=int, help="player count (default: the configuration's first)")
    p.add_argument(
        "--max-states",
        type=whole(1, STATES_CEILING),
        default=MAX_STATES,
        help=f"stop with an error beyond this many distinct states (default {MAX_STATES:,})",
    )
    p.add_argument("--query", action="append", default=[], help="decide only these catalogue queries")
    p.add_argument("--no-check", action="store_true", help="count states without checking the invariants")
    p.add_argument(
        "--witnesses", type=Path, metavar="DIR", help="write each query's shortest witness log here"
    )
    p.add_argument(
        "--shape",
        action="store_true",
        help="keep the whole graph: cycles, liveness, the longest game, exact end probabilities",
    )
    p.add_argument(
        "--random-games",
        type=whole(0, MAX_RANDOM_GAMES),
        default=0,
        metavar="N",
        help="with --shape: also play N seeded random games and print their end frequencies",
    )
    p.add_argument(
        "--refinement",
        action="store_true",
        help="check the z3 model's clauses on every edge (the refinement link; 2 or more players)",
    )
    p.add_argument(
        "--z3",
        action="store_true",
        help="cross-check the z3 model: no reached query may be proved unreachable; which of the "
        "unreachable ones it proves",
    )
    p.add_argument(
        "--no-monitors",
        action="store_true",
        help="skip the product explorations that decide the path queries (two deaths in a turn, the mass), "
        "and the score pump's run on the graph without prestige",
    )
    p.add_argument(
        "--workers",
        type=whole(1, MAX_WORKERS),
        default=1,
        help="worker processes, the fingerprints partitioned among them: the same counts (default 1)",
    )
    p.add_argument(
        "--ray",
        action="store_true",
        help="run the --workers as Ray actors, on a local Ray instance or the cluster at --ray-address "
        "(the distributed extra, PYTHONHASHSEED set): the same counts",
    )
    p.add_argument(
        "--ray-address",
        metavar="ADDR",
        help="with --ray: the Ray cluster to run on (host:port, or 'auto'); default a new local instance",
    )
    p.add_argument(
        "--checkpoint",
        type=Path,
        metavar="FILE",
        help="save the run here every --checkpoint-every states, on Ctrl-C/SIGTERM and at a budget "
        "(the reference engine needs PYTHONHASHSEED set, the same when resuming; the native one does not)",
    )
    p.add_argument(
        "--checkpoint-every",
        type=whole(1, STATES_CEILING),
        default=CHECKPOINT_EVERY,
        metavar="N",
        help="with --checkpoint: save at the first level boundary after every N states "
        f"(default {CHECKPOINT_EVERY:,})",
    )
    p.add_argument(
        "--resume",
        type=Path,
        metavar="FILE",
        help="continue a run saved with --checkpoint by the same engine (a damaged file, or one of another "
        "configuration, player count, options or build, is refused before the work)",
    )
    p.add_argument(
        "--max-memory",
        type=whole(1, 1 << 30),
        metavar="MIB",
        help="stop with an error (and the checkpoint, if any) when the explorer's processes hold more; "
        "a shipped configuration whose pinned states cannot fit is refused before the work",
    )
    p.add_argument("--force", action="store_true", help="explore a data file that is not a reduced one")
    p.add_argument(
        "--expect",
        action="store_true",
        help="compare the run with the configuration's pinned figures (states, edges, depth, ends, "
        "reachable queries) and exit 1 naming each that differs",
    )
    p.add_argument("--list", action="store_true", help="list the shipped configurations and exit")
    p.add_argument(
        "--engine",
        choices=ENGINES,
        default="reference",
        help="reference: the Python explorer (every check and query; the default); native: the C++ "
        "loop (the native extra: counts, the state and transition invariants and the queries with "
        "their shortest witnesses, on --workers threads or Ray actors, with --checkpoint, --resume "
        "and --max-memory; not --shape, --refinement or --z3; the lasso and the score pump stay "
        "the reference's)",
    )
    add_quiet_flag(p)
    needs(p, "--ray-address", "--ray", "is for a run on Ray", lambda a: bool(a.ray))
    saving = "says how often to save"
    needs(p, "--checkpoint-every", "--checkpoint", saving, lambda a: a.checkpoint is not None)
    needs(p, "--random-games", "--shape", "compares the exact end frequencies", lambda a: bool(a.shape))
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """The `explore` subcommand; exit 0 when every check passed; 1 on a violation, a deadlock,
    no reachable end, a liveness failure (`--shape`) or a figure that differs from the pinned
    ones (`--expect`)."""
    if args.list:
        for name in shipped_names():
            c = configuration(name)
            counts = ", ".join(map(str, c.player_counts))
            print(f"{name:<8} {c.data.edition:<14} players {counts:<6} {c.data.reduced}")
        return 0
    queries = [by_name(q) for q in args.query] if args.query else list(CATALOGUE)
    config = configuration(args.config, force=args.force)
    players = args.players if args.players is not None else config.player_counts[0]
    if players not in config.player_counts:
        allowed = ", ".join(map(str, config.player_counts))
        raise ExploreArgumentError(
            f"explore --players: {config.name} is for {allowed} player(s), not {players}"
        )
    pin = pinned(config.name, players) if args.expect else None  # refused before the work
    known = pinned_states(config.name, players) if config.path.parent == CONFIGS else None
    if known is not None and known > args.max_states:  # a shipped size, known before the work
        raise ExploreArgumentError(
            f"explore --max-states {args.max_states:,}: {config.name} at {players} player(s) has "
            f"{known:,} distinct states (pinned), more than the states allowed; raise --max-states "
            f"to at least {known:,}"
        )
    if args.engine == "native":
        return _run_native(args, config, players, pin)
    if args.z3 and players == 1:  # before exploring, not after
        raise ExploreArgumentError("explore --z3: the z3 model has no Carla (2 or more players)")
    _check_scale_options(args)
    if args.witnesses is not None:
        args.witnesses.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    stopped: ExplorationStoppedError | None = None
    on_ray = session(args.ray_address, args.workers) if args.ray else contextlib.nullcontext()
    with on_ray, progress_bar(args.quiet, "states") as bar, _stop_requests() as asked:
        progress = _progress(bar) if bar.shown else None
        try:
            if args.shape:
                result = explore(
                    config.data,
                    players,
                    max_states=args.max_states,
                    queries=queries,
                    check=not args.no_check,
                    graph=True,
                    refinement=args.refinement,
                    progress=progress,
                    rules=True,
                )
            else:
                result = explore_parallel(
                    config.data,
                    players,
                    workers=args.workers,
                    max_states=args.max_states,
                    queries=queries,
                    check=not args.no_check,
                    refinement=args.refinement,
                    progress=progress,
                    checkpoint=args.checkpoint,
                    checkpoint_every=args.checkpoint_every,
                    resume=args.resume,
                    stop=asked.is_set,
                    max_memory=None if args.max_memory is None else args.max_memory * 2**20,
                    ray=args.ray,
                )
            graph_shape = shape(result.graph) if args.shape and result.graph is not None else None
            _decide_path_queries(
                config,
                players,
                result,
                queries,
                max_states=args.max_states,
                graph_shape=graph_shape,
                monitors=not args.no_monitors,
                workers=args.workers,
                ray=args.ray,
                stop=asked.is_set,
            )
        except ExplorationStoppedError as stop:
            stopped = stop
    if stopped is not None:
        print(f"village-rules explore: {stopped}", file=sys.stderr)
        return SIGTERM_EXIT if asked.signal == signal.SIGTERM else SIGINT_EXIT
    print(report(config, result, time.perf_counter() - start))
    failed = bool(result.violation_count or result.deadlocks)
    failed = _no_end(result) or failed
    if graph_shape is not None:
        print(shape_report(graph_shape, end_frequencies(config, players, args.random_games)))
        if graph_shape.stuck:
            stuck = f"{graph_shape.stuck:,} states can no longer reach an end"
            print(f"village-rules explore: liveness fails: {stuck}", file=sys.stderr)
            failed = True
    if pin is not None:
        failed = _differs(pin, result) or failed
    if args.z3:
        wrong = disagreements(config.data, players, result)
        proves = model_proves(config.data, players, result)
        print(f"z3 model    {len(wrong)} disagreement(s) with exhaustion")
        for d in wrong:
            print(f"  DISAGREES {d}")
        shown = ", ".join(f"{q} {'proved' if ok else 'not proved'}" for q, ok in proves.items())
        proved = sum(proves.values())
        print(f"  of the queries unreachable by exhaustion it proves {proved} of {len(proves)}: {shown}")
        content = content_crosscheck(config.data, players, result)
        print(f"rule-content model {len(content.disagreements)} disagreement(s) with exhaustion")
        for d in content.disagreements:
            print(f"  DISAGREES {d}")
        shown = ", ".join(f"{q} {'proved' if ok else 'not proved'}" for q, ok in content.proves.items())
        proved, of = sum(content.proves.values()), len(content.proves)
        print(f"  of its queries unreachable by exhaustion it proves {proved} of {of}: {shown}")
        failed = failed or bool(wrong) or bool(content.disagreements)
    if args.witnesses is not None:
        _write_witnesses(config, players, result.verdicts, args.witnesses)
    return 1 if failed else 0


def _decide_path_queries(
    config: Configuration,
    players: int,
    result: Exploration,
    queries: list[Query],
    *,
    max_states: int,
    graph_shape: Shape | None,
    monitors: bool,
    workers: int = 1,
    ray: bool = False,
    stop: Callable[[], bool] | None = None,
) -> None:
    """Decide each path query that has a monitor on the product with its monitor, the score
    pump on the graph without prestige (`explore.pump`), and the lasso by the graph's shape
    (no cycle, no lasso); and each `STEP` query with readings of its own (query 3 under
    AMB-46 b) on the graph of those readings, which the main run, under the edition's, does not
    explore (with --no-monitors it is not decided, said so)."""
    for q in queries:
        monitor = MONITORS.get(q.name) if monitors else None
        own_readings = q.horizon == STEP and q.variant != Variant()
        if own_readings and not monitors:
            why = _own_readings_skipped(q)
            result.verdicts[q.name] = QueryVerdict(q.name, q.horizon, None, decided=False, reason=why)
        elif own_readings or monitor is not None:  # one more run, under the query's readings
            run = explore_parallel(
                config.data,
                players,
                workers=workers,
                max_states=max_states,
                queries=[q],
                check=False,
                monitor=monitor,
                variant=q.variant,
                stop=stop,
                ray=ray,
            )
            result.verdicts[q.name] = run.verdicts[q.name]
        elif q.name == PUMP and monitors:
            pump = explore_pump(config.data, players, variant=q.variant, max_states=max_states, stop=stop)
            result.verdicts[q.name] = pump.verdict()
        elif q.name == PUMP:
            skipped = "not decided: --no-monitors skips its run on the graph without prestige"
            result.verdicts[q.name] = QueryVerdict(q.name, q.horizon, None, decided=False, reason=skipped)
        elif q.name == LASSO and graph_shape is not None and graph_shape.acyclic:
            result.verdicts[q.name] = QueryVerdict(q.name, q.horizon, None, decided=True)


def _progress(bar: Bar) -> Callable[[Snapshot], None]:
    def show(s: Snapshot) -> None:
        detail = (
            f"frontier {s.frontier:,}  depth {s.depth}  seen-set {s.seen_bytes / 2**20:,.1f} MiB"
            f"  memory {_mib(s.memory)}"
        )
        bar.update(s.states, None, "explore", detail)

    return show


def _mib(n: int | None) -> str:
    return "unknown" if n is None else f"{n / 2**20:,.0f} MiB"


class _Requests(threading.Event):
    """Set by the first Ctrl-C or SIGTERM during an exploration; `signal` says which."""

    signal: int = 0


@contextlib.contextmanager
def _stop_requests(at: str = "the end of this breadth-first level") -> Iterator[_Requests]:
    """For the length of a run: the first Ctrl-C or SIGTERM asks the explorer to stop at `at`
    (the Python explorer's level's end, the native loop's next batch boundary), saving its
    checkpoint if it has one; a second stops it at once."""
    asked = _Requests()
    if threading.current_thread() is not threading.main_thread():
        yield asked
        return

    def handle(signum: int, frame: FrameType | None) -> None:
        if asked.is_set():  # the second: stop at once, as the command line's own handler does
            before = previous.get(signal.Signals(signum))
            if callable(before):
                before(signum, frame)  # for SIGTERM: exit 143, "terminated" (cli.terminal)
            raise KeyboardInterrupt
        asked.signal = signum
        asked.set()
        print(
            f"\nvillage-rules explore: stopping at {at} (again to stop at once, saving nothing)",
            file=sys.stderr,
            flush=True,
        )

    previous = {s: signal.signal(s, handle) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield asked
    finally:
        for s, h in previous.items():
            signal.signal(s, h)


def _run_native(args: argparse.Namespace, config: Configuration, players: int, pin: Pinned | None) -> int:
    """`explore --engine native`: the C++ loop's counts and state invariants, on --workers
    threads; refuses what it does not do yet, and the missing extension, before the work."""
    given = [flag for name, flag in NATIVE_REFUSES.items() if getattr(args, name)]
    if given:
        raise ExploreArgumentError(
            f"explore --engine native: {', '.join(given)} not native yet (issue 40); "
            "run with --engine reference"
        )
    try:
        from village_rules.explore.native import MAX_WORKERS, explore_counts  # noqa: PLC0415 (optional)
    except ImportError as exc:
        raise ExploreArgumentError(
            f"explore --engine native: the native core is not built ({exc}); docs/native.md says how"
        ) from exc
    if args.workers > MAX_WORKERS:
        raise ExploreArgumentError(
            f"explore --engine native: at most {MAX_WORKERS} threads (--workers), not {args.workers}"
        )
    if args.ray:
        return _run_native_on_ray(args, config, players, pin)
    _check_native_memory(args, config, players)
    if args.checkpoint is not None:
        check_writable(args.checkpoint)
    queries = [by_name(q) for q in args.query] if args.query else list(CATALOGUE)
    judged = args.checkpoint is None and args.resume is None  # a checkpoint keeps no verdict
    if args.witnesses is not None:
        if not judged:
            raise ExploreArgumentError(
                "explore --engine native --witnesses: a run with --checkpoint or --resume judges no "
                "query, so it has no witness to write; leave out one or the other"
            )
        args.witnesses.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    with _stop_requests("the end of this batch of states") as asked:
        try:
            result = explore_counts(
                config.data,
                players,
                max_states=args.max_states,
                workers=args.workers,
                check=not args.no_check,
                stop=asked.is_set,
                checkpoint=args.checkpoint,
                checkpoint_every=args.checkpoint_every,
                resume=args.resume,
                max_memory=None if args.max_memory is None else args.max_memory * 2**20,
                queries=judged,
            )
            products = _native_products(args, config, players, queries, asked.is_set) if judged else {}
        except ExplorationStoppedError as stop:
            print(f"village-rules explore: {stop}", file=sys.stderr)
            return SIGTERM_EXIT if asked.signal == signal.SIGTERM else SIGINT_EXIT
    print(native_report(config, result, time.perf_counter() - start, queries, products))
    if args.witnesses is not None:
        chosen = {q.name for q in queries}
        verdicts = {q: v for q, v in _native_verdicts(config, result, products).items() if q in chosen}
        _write_witnesses(config, players, verdicts, args.witnesses)
    return _native_exit(result, pin, _native_reached(config, result, products))


def _run_native_on_ray(
    args: argparse.Namespace, config: Configuration, players: int, pin: Pinned | None
) -> int:
    """`explore --engine native --ray`: the native loop's shards as --workers Ray actors, on a
    local Ray instance or the cluster at --ray-address (the distributed extra)."""
    given = [flag for name, flag in NATIVE_RAY_REFUSES.items() if getattr(args, name) not in (None, [])]
    if given:
        raise ExploreArgumentError(
            f"explore --engine native --ray: {', '.join(given)} not on Ray; run on threads (without --ray)"
        )
    import_ray()  # before any work: the extra (RayUnavailableError names it)
    from village_rules.explore.native_shards import explore_sharded  # noqa: PLC0415 (optional)

    start = time.perf_counter()
    result = explore_sharded(
        config.data,
        players,
        shards=args.workers,
        check=not args.no_check,
        max_states=args.max_states,
        ray=True,
        ray_address=args.ray_address,
    )
    print(native_report(config, result, time.perf_counter() - start, on_ray=True))
    return _native_exit(result, pin, None)


def _native_exit(
    result: NativeExploration, pin: Pinned | None, reached: tuple[frozenset[str], frozenset[str]] | None
) -> int:
    """A native run's exit status (threads or Ray actors): 1 on a violation, a deadlock, an
    engine exception, no reachable end, or (with --expect) a figure or a reachable query
    (`reached`, where the run decided any) that differs from the pin."""
    failed = bool(result.violation_count or result.deadlocks or result.engine_exceptions)
    failed = _no_end(result) or failed
    if pin is not None:
        failed = _differs(pin, result, reached) or failed
    return 1 if failed else 0


def _native_reached(
    config: Configuration, r: NativeExploration, products: dict[str, Product]
) -> tuple[frozenset[str], frozenset[str]] | None:
    """The queries the native run decided and those it found reachable (None: none decided)."""
    verdicts = _native_verdicts(config, r, products)
    if not verdicts:
        return None
    decided = frozenset(q for q, v in verdicts.items() if v.decided)
    return decided, frozenset(q for q, v in verdicts.items() if v.reachable)


@dataclass(frozen=True, slots=True)
class Product:
    """A `PATH` query's verdict from a native product run, and the rule IDs that run's edges
    fired (None: not collected), by which a query none of whose situations arises there is
    called vacuous."""

    verdict: QueryVerdict
    fired: frozenset[str] | None


def _native_verdicts(
    config: Configuration, r: NativeExploration, products: dict[str, Product]
) -> dict[str, QueryVerdict]:
    """Every verdict of a native run: its `STEP` queries' and its monitors' products'."""
    from village_rules.explore.native import query_verdicts  # noqa: PLC0415 (optional, as the caller)

    return {**query_verdicts(config.data, r), **{q: p.verdict for q, p in products.items()}}


def _native_products(
    args: argparse.Namespace,
    config: Configuration,
    players: int,
    queries: list[Query],
    stop: Callable[[], bool],
) -> dict[str, Product]:
    """The queries the main run cannot decide, each under its own readings (as
    `_decide_path_queries`): every `PATH` query with a native monitor on a product of the graph
    and monitors, and every `STEP` query with readings of its own (query 3 under AMB-46 b) on
    the graph of those readings. One more run for the queries that share their readings, over
    the product with all of their monitors (the same verdicts and witness lengths as one
    product each, in one run), its `STEP` queries judged on it; none with --no-monitors (then
    such a `STEP` query is not decided, said so). A run past --max-states leaves its queries
    undecided (said so), not the run without its report. Each verdict comes with the rules that
    run's edges fired."""
    from village_rules.explore.native import (  # noqa: PLC0415 (optional)
        explore_counts,
        monitor_verdicts,
        query_verdicts,
    )
    from village_rules.native.predicates import MONITORS as NATIVE_MONITORS  # noqa: PLC0415 (optional)

    out: dict[str, Product] = {}
    groups: dict[Variant, list[Query]] = {}
    for q in queries:
        own_readings = q.horizon == STEP and q.variant != Variant()
        if args.no_monitors and own_readings:
            why = _own_readings_skipped(q)
            out[q.name] = Product(QueryVerdict(q.name, q.horizon, None, decided=False, reason=why), None)
        elif not args.no_monitors and (q.name in NATIVE_MONITORS or own_readings):
            groups.setdefault(q.variant, []).append(q)
    for variant, group in groups.items():
        steps = [q for q in group if q.horizon == STEP]
        try:
            run = explore_counts(
                config.data,
                players,
                variant=variant,
                max_states=args.max_states,
                workers=args.workers,
                stop=stop,
                monitors=[q.name for q in group if q.horizon != STEP],
                queries=bool(steps),
            )
        except ExplorationLimitError:
            for q in group:
                run_of = "the run under its readings" if q.horizon == STEP else "its monitor's product"
                past = f"not decided: {run_of} has more than {args.max_states:,} states (--max-states)"
                out[q.name] = Product(QueryVerdict(q.name, q.horizon, None, decided=False, reason=past), None)
            continue
        decided = {**monitor_verdicts(config.data, run), **query_verdicts(config.data, run)}
        for q in group:
            out[q.name] = Product(decided[q.name], run.rules_fired)
    return out


def _own_readings_skipped(q: Query) -> str:
    """Why a `STEP` query with readings of its own is not decided with --no-monitors."""
    readings = ", ".join(f"{amb} {letter}" for amb, letter in q.variant.choices)
    return f"not decided: its readings ({readings}) need a run of their own (--no-monitors)"


def _check_native_memory(args: argparse.Namespace, config: Configuration, players: int) -> None:
    """Refuse `--max-memory` before the work where it cannot be kept: no /proc to read the
    memory from, or a shipped configuration whose pinned state count needs more than the
    budget for its seen sets and parents alone (`explore.native.memory_floor`)."""
    if args.max_memory is None:
        return
    if not memory_available():
        raise ExploreArgumentError(
            "explore --max-memory: this system does not report processes' memory (/proc)"
        )
    from village_rules.explore.native import memory_floor  # noqa: PLC0415 (optional, imported by the caller)

    known = pinned_states(config.name, players) if config.path.parent == CONFIGS else None
    if known is None:
        return
    floor = memory_floor(known, args.workers)
    if floor > args.max_memory * 2**20:
        raise ExploreArgumentError(
            f"explore --max-memory {args.max_memory:,}: {config.name} at {players} player(s) has {known:,} "
            f"distinct states (pinned), which need at least {-(-floor // 2**20):,} MiB natively (the seen "
            "set and the parents alone); raise --max-memory or explore a smaller configuration"
        )


def _no_end(result: Counted) -> bool:
    """Say so on stderr when no end of the game was reached (exit 1: issue 40, item 6)."""
    if not result.terminal:
        print("village-rules explore: no end of the game is reachable in this configuration", file=sys.stderr)
    return not result.terminal


def _differs(
    pin: Pinned, result: Counted, native: tuple[frozenset[str], frozenset[str]] | None = None
) -> bool:
    """Print `--expect`'s verdict and each figure that differs from the pin; whether any does.
    `native`: the queries a native run decided and those it found reachable, compared with the
    pinned reachable queries as `differences` compares a Python run's."""
    changed = differences(pin, result)
    if native is not None and pin.reachable is not None:
        asked, reached = native
        if reached != pin.reachable & asked:
            pinned_reached = sorted(pin.reachable & asked)
            changed.append(f"reachable queries: pinned {pinned_reached}, now {sorted(reached)}")
    print(f"expect      {'DIFFERS from the pinned figures' if changed else 'matches the pinned figures'}")
    for line in changed:
        print(f"  DIFFERS {line}")
    return bool(changed)


def _sizes(r: Exploration | NativeExploration) -> list[str]:
    """Either explorer's report lines of the graph's size and its ends."""
    ends = ", ".join(f"{kind} {n:,}" for kind, n in sorted(r.terminal.items())) or "none"
    return [
        f"states      {r.states:,} distinct (64-bit fingerprints, collision probability "
        f"{r.collision_probability:.1e})",
        f"edges       {r.edges:,}",
        f"depth       {r.depth}",
        f"terminal    {sum(r.terminal.values()):,}: {ends}",
    ]


def native_report(
    config: Configuration,
    r: NativeExploration,
    seconds: float,
    queries: list[Query] | None = None,
    products: dict[str, Product] | None = None,
    *,
    on_ray: bool = False,
) -> str:
    """The native run's summary, in `report`'s words, and what it did not decide: each of
    `queries` (default: the catalogue) by the native verdict of a `STEP` query, or of a `PATH`
    query decided on its monitor's product (`products`); the lasso and the score pump are not
    decided natively. `on_ray`: the loop ran as shards on Ray actors, which decide no query."""
    shortest = ", ".join(f"{kind} in {len(ids)} actions" for kind, (_, ids) in sorted(r.shortest_end.items()))
    check = (
        f"every state invariant at {r.states_checked:,} states, every transition invariant on "
        f"{r.edges_checked:,} edges (natively, tied to the Python checker): {r.violation_count} violation(s)"
        if r.states_checked
        else "not checked (--no-check)"
    )
    lines = [
        f"village-rules explore {config.name} ({config.data.edition}, {r.players} player(s)): "
        f"every state reachable from {r.roots} set-up deal(s), breadth first, natively on "
        f"{r.workers} {'Ray actor(s)' if on_ray else 'thread(s)'}",
        scope_line(config.name, config.data, r.players),
        *_sizes(r),
        f"shortest    {shortest or 'no end reached'}",
        f"deadlocks   {r.deadlocks}",
        f"checks      {check}",
        f"seen-set    {r.seen_bytes:,} bytes, {r.bytes_per_state:.1f} bytes per state; the widest level "
        f"{r.frontier_bytes:,} bytes packed; parents {r.parents_bytes:,} bytes",
        *(
            ["queries     not decided on Ray actors (its threads decide the STEP queries: run without --ray)"]
            if on_ray
            else _native_queries(config, r, list(CATALOGUE) if queries is None else queries, products or {})
        ),
    ]
    saved = []
    if r.resumed_states is not None:
        saved.append(f"resumed at depth {r.resumed_depth} with {r.resumed_states:,} distinct states")
    if r.checkpoints_written:
        saved.append(f"written {r.checkpoints_written} time(s), the last {r.checkpoint_bytes:,} bytes")
    if saved:
        lines.append(f"checkpoint  {'; '.join(saved)}")
    if r.engine_exceptions:
        lines.append(f"ENGINE EXCEPTIONS {r.engine_exceptions}: the first: {r.first_exception}")
    lines += [f"VIOLATION {v}" for v in r.violations]
    lines.append(f"explored in {seconds:.1f} s ({r.states_per_second:,.0f} states/s in the loop)")
    return "\n".join(lines)


def _native_queries(
    config: Configuration, r: NativeExploration, queries: list[Query], products: dict[str, Product]
) -> list[str]:
    """The native run's query lines: each `STEP` query's verdict and each `PATH` query's on its
    monitor's product as `report` words them (vacuous where the run that decided it fired
    none of the query's rules); the others not decided natively."""
    verdicts = _native_verdicts(config, r, products)
    if not verdicts:
        return [
            "queries     not judged: a checkpoint keeps no query verdict (--checkpoint, --resume); "
            "run without them, or with --engine reference"
        ]
    lines = [
        "queries (natively after every sub-step, tied to the Python predicates; PATH queries on their "
        "monitors' products):"
    ]
    for q in queries:
        v = verdicts.get(q.name)
        fired = products[q.name].fired if q.name in products else r.rules_fired
        said = (
            _verdict(v, fired)
            if v is not None
            else "not decided natively: it reads more than one step and has no native monitor; run with "
            "--engine reference"
        )
        lines.append(f"  {q.name:<24} {said}")
    return lines


def _check_scale_options(args: argparse.Namespace) -> None:
    """Refuse the scale options that do not go together, before any work."""
    if args.shape and (args.workers > 1 or args.checkpoint or args.resume or args.max_memory or args.ray):
        raise ExploreArgumentError(
            "explore --shape keeps the whole graph in one process: it takes no --workers, --ray, "
            "--checkpoint, --resume or --max-memory"
        )
    if args.ray:  # before any work: PYTHONHASHSEED and the extra (RayUnavailableError)
        hash_seed()
        import_ray()
    for path in (args.checkpoint, args.resume):
        if path is not None:  # a number, that this process hashes by (explore.checkpoint)
            require_fixed_hash_seed(path)
    if args.max_memory is not None and not memory_available():
        raise ExploreArgumentError(
            "explore --max-memory: this system does not report processes' memory (/proc)"
        )
    if args.checkpoint is not None:
        check_writable(args.checkpoint)


def report(config: Configuration, r: Exploration, seconds: float) -> str:
    """The run's summary: what its verdicts are about, sizes, end types, checks and one line
    per query."""
    check = (
        f"every state invariant at {r.states_checked:,} states, every transition invariant on "
        f"{r.edges_checked:,} edges: {r.violation_count} violation(s)"
        if r.states_checked
        else "not checked (--no-check)"
    )
    refined = f"\nrefinement  the z3 model's clauses on {r.edges_refined:,} edges" if r.edges_refined else ""
    lines = [
        f"village-rules explore {config.name} ({config.data.edition}, {r.players} player(s)): "
        f"every state reachable from {r.roots} set-up deal(s), breadth first",
        scope_line(config.name, config.data, r.players),
        *_sizes(r),
        f"deadlocks   {r.deadlocks}",
        f"checks      {check}{refined}",
        f"seen-set    {r.seen_bytes:,} bytes, {r.bytes_per_state:.1f} bytes per state",
        "queries:",
    ]
    lines += [f"  {v.query:<24} {_verdict(v, r.rules_fired)}" for v in r.verdicts.values()]
    for sid, v in r.violations:
        lines.append(f"VIOLATION at state {sid}: {v}")
    lines.append(f"explored in {seconds:.1f} s")
    return "\n".join(lines)


def shape_report(s: Shape, frequencies: dict[str, float] | None) -> str:
    """The graph's shape: cycles, liveness, the longest game, end probabilities."""
    if s.acyclic:
        cycles = "none: the graph is acyclic"
    else:
        cycles = f"{s.cycle_states:,} states on cycles"
        if s.lasso is not None:
            cycles += f"; shortest cycle {s.lasso[1]} edges, reached after {s.lasso[0]}"
    lines = [
        f"cycles      {cycles}",
        "liveness    every state can still reach an end"
        if s.stuck == 0
        else f"liveness    FAILS: {s.stuck:,} states can no longer reach an end",
        f"longest     {s.longest_game} actions from a set-up to an end"
        if s.longest_game is not None
        else "longest     unbounded (cycles)",
    ]
    if s.end_probabilities is None:
        lines.append(
            f"ends        not computed (a cyclic part of more than {MAX_SYSTEM} states, or stuck states)"
        )
    else:
        also = ", and in random games" if frequencies else ""
        lines.append(f"ends under uniformly random decisions (exact){also}")
        for end, p in s.end_probabilities.items():
            seen = f"   random games {frequencies.get(end, 0.0):.4f}" if frequencies else ""
            lines.append(f"  {end:<24} {float(p):.4f} = {p}{seen}")
    return "\n".join(lines)


def end_frequencies(config: Configuration, players: int, games: int) -> dict[str, float] | None:
    """How `games` seeded random games (the fuzzer's policy, seeds 0..games-1) end."""
    if games == 0:
        return None
    tally: Counter[str] = Counter()
    for seed in range(games):
        state = new_game(config.data, players, seed)
        final, _ = play(state, [random_policy] * state.num_players, random.Random(seed))  # EndlessGameError
        tally[ended_by(final)] += 1
    return {end: n / games for end, n in tally.items()}


def _verdict(v: QueryVerdict, fired: frozenset[str] | None) -> str:
    missing = [] if v.reachable or fired is None else vacuous(by_name(v.query).needs, fired)
    if missing:
        return (
            f"vacuous: it needs {', '.join(missing)}, which no edge of this configuration fires "
            "(its absence says nothing about the rule it asks about)"
        )
    if v.witness is not None:
        return (
            f"reachable: {v.reason}"
            if v.reason
            else f"reachable: shortest witness {len(v.witness[1])} actions"
        )
    if v.decided:
        return f"unreachable by exhaustion: {v.reason}" if v.reason else "unreachable by exhaustion"
    return v.reason or "not decided: reads more than one step and has no monitor"


def _write_witnesses(
    config: Configuration, players: int, verdicts: Mapping[str, QueryVerdict], folder: Path
) -> None:
    """Write each reachable query's shortest witness into `folder` as a replayable log
    (either explorer's verdicts: the root's index and the reference's actions from it)."""
    for v in verdicts.values():
        if v.witness is None:
            continue
        root, actions = v.witness
        variant = by_name(v.query).variant  # a query with a reading of its own is explored under it
        state = roots(config.data, players, variant)[root].state
        data_file = data_file_name(config.path)
        log = witness_log(config.data, data_file, players, state, actions=actions, variant=variant)
        if log is None:
            print(f"  {v.query}: no seed sets up its starting deal; not written", file=sys.stderr)
            continue
        path = folder / witness_name(config.name, players, v.query)
        write_text(path, log.to_json() + "\n")
        print(f"  {v.query}: {path}")
