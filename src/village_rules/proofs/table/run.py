"""Stage: table (one row).

Deciding one query for one edition and player count, and writing its artefacts.

The verdict is **reachable** only with a witness the engine produced (a replayable
`village-rules-log` whose final path meets the concrete predicate), **unreachable** only with
a k-induction proof (over the counts model, or over the rule-content model for the queries
of `induction.RULE_PREDICATES`) *and* a gate passed in the same run (`gate.py`: the link
check on the current engine and data, and the query's concrete => abstract implication),
and otherwise **unknown up to K**.

Every budget is a count, never a time: the witness search plays a number of seeded games
(each at most its steer's `max_actions`), z3 runs under a resource limit (`solver.RLIMIT`).
The same catalogue, data and budgets give the same verdict table on any machine and load;
the time a row took is printed for information only and is in no stored table.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, replace
from pathlib import Path

from village_rules.data.files import write_text
from village_rules.data.jsonio import MAX_LOG_CHARS, JsonInputError, read_text_file
from village_rules.drivers import notes
from village_rules.drivers.engine_choice import NATIVE, REFERENCE
from village_rules.drivers.play import GameLog
from village_rules.engine.setup import new_game
from village_rules.errors import LogFormatError, VillageError
from village_rules.model.state import GameState
from village_rules.proofs.catalogue.catalogue import CATALOGUE, HIGH_SCORE, Query
from village_rules.proofs.catalogue.query import CATALOGUE_SOURCE
from village_rules.proofs.errors import ProveArgumentError
from village_rules.proofs.gate.gate import Gate, open_gate
from village_rules.proofs.link.link import check_log
from village_rules.proofs.model.abstraction import abstract
from village_rules.proofs.model.induction import RULE_PREDICATES, k_induction_content
from village_rules.proofs.model.model import Constants
from village_rules.proofs.model.solver import MAX_RLIMIT, RLIMIT, BmcResult, bmc, k_induction
from village_rules.proofs.search.archive_steer import ArchiveBudget, ArchiveStats, archive_search
from village_rules.proofs.search.history import History
from village_rules.proofs.search.native_judge import native_queries, shrink_natively
from village_rules.proofs.search.search import SHORTEN_GAMES, Steer, Witness, search
from village_rules.proofs.search.shrink import MAX_STEPS, Shrunk, first_holds, judge_for, shrink
from village_rules.rules.variant import Variant

REACHABLE = "reachable"
UNREACHABLE = "unreachable"
UNKNOWN = "unknown"

MAX_BOUND = 20
"""The deepest BMC and k-induction bound `prove` takes (`--bound`): the stored proofs need 6,
and z3's work grows quickly with the depth."""
MAX_GAMES = 100_000
"""The most seeded games the witness search plays per row (`--games`)."""

PROVED_ROW_GAMES = 2
"""The witness search's budget on a row z3 proved unreachable (seeded games of the query's
steer, after the stored witness's seed and log when there is one): a witness there is a
refutation of the proof (`Gate.refute`), so the search runs on every row."""

Z3_STEER_RUNS = 3
"""`prove --z3-steer`'s default budget per row: seeded runs of the archive search, each
`ArchiveBudget.steps` engine steps (`--games` sets the number of runs)."""


@dataclass(frozen=True)
class Result:
    """The verdict of one query at one edition and player count."""

    query: str
    edition: str
    players: int
    verdict: str
    depth: str
    """Witness length in actions, the induction depth, or the bound that was searched."""
    seconds: float
    """How long the row took: for information only (it is in no stored table)."""
    witness: Path | None = None
    invariant: tuple[str, ...] = ()
    note: str = ""
    budget: str = ""
    """The budgets this row was decided with, e.g. "40 games x 4000 actions, rlimit 20000000"."""

    def row(self) -> str:
        """The result as a row of the `prove` table."""
        shown = "unknown up to " + self.depth if self.verdict == UNKNOWN else f"{self.verdict} ({self.depth})"
        where = str(self.witness) if self.witness else "-"
        head = f"{self.query:<24} {self.edition:<14} {self.players:>2}"
        return f"{head}  {shown:<32} {self.seconds:6.2f}s  {where}  [{self.budget}]"


def witness_stem(query: Query, edition: str, players: int) -> str:
    """The file stem of a query's stored witness, e.g. 3-two-deaths-big-box-2023-2p."""
    return f"{query.number}-{query.name}-{edition}-{players}p"


def stored_witness(store: Path | None, query: Query, edition: str, players: int) -> GameLog | None:
    """The stored witness of a row in `store` (a `prove --out` folder), else None;
    `LogFormatError` naming the file when it cannot be read."""
    if store is None:
        return None
    path = store / f"{witness_stem(query, edition, players)}.json"
    if not path.is_file():
        return None
    try:
        text = read_text_file(path, MAX_LOG_CHARS, "game log")
    except JsonInputError as exc:
        raise LogFormatError(f"{path}: {exc.problem}") from None
    except OSError as exc:
        raise LogFormatError(f"{path}: cannot be read: {exc.strerror or exc}") from None
    return GameLog.from_json(text, source=str(path))


def stored_seed(store: Path | None, query: Query, edition: str, players: int) -> int | None:
    """The seed of a stored witness (a starting hint for the search), else None."""
    log = stored_witness(store, query, edition, players)
    return None if log is None else log.seed


def _steered(  # noqa: PLR0917 (the row's query, edition and players, then the search's budgets)
    query: Query, edition: str, players: int, games: int, hint: int | None, shorten: int
) -> tuple[Witness | None, int]:
    """The query's steered search for one row (`search.search`): `games` seeded games after
    the hint, then `shorten` more for a shorter witness, under the query's own readings."""
    steer, goal = query.steer, query.concrete
    return search(edition, players, steer, goal, games, hint=hint, variant=query.variant, shorten=shorten)


def _still_a_witness(log: GameLog, query: Query, edition: str, players: int) -> Witness | None:
    """A stored witness taken as it is (not searched for, not shrunk again) when it is one
    of this row: same edition, players and readings, and it replays to the query, which
    holds first at its last action; else None (the search then runs)."""
    if (log.edition, log.players, log.variant, log.data_file) != (edition, players, query.variant, None):
        return None
    try:
        history = first_holds(log, judge_for(query))
    except VillageError:
        return None
    if history is None:
        return None
    return Witness(replace(log, query=recorded_query(query)), 1, history)


def recorded_query(query: Query) -> tuple[str, str] | None:
    """What a witness log records of its query (`GameLog.query`): its name and where it is
    defined, for a catalogue query or one loaded by `--queries`; None for a query made in
    Python and handed to `prove` directly (nothing could find it again by that name)."""
    if query.source != CATALOGUE_SOURCE:
        return (query.name, query.source)
    if any(q.name == query.name for q in CATALOGUE):
        return (query.name, CATALOGUE_SOURCE)
    return None


def budget_text(
    bound: int,
    rlimit: int,
    games: int | None = None,
    steer: Steer | None = None,
    hint: int | None = None,
    *,
    shorten: int = 0,
) -> str:
    """The budgets of one row as `prove` prints and stores them: z3's, and the search's
    when it ran (`games` seeded games of at most the steer's actions, after the hint; then,
    for a row with a witness, `shorten` games looking for a shorter one)."""
    z3_part = f"bound {bound}, z3 rlimit {rlimit}"
    if games is None or steer is None:
        return z3_part
    seeds = f"seed {hint} (stored witness) + " if hint is not None else ""
    shorter = f", then {shorten} games for a shorter witness" if shorten else ""
    return f"{z3_part}; {seeds}{games} games x {steer.max_actions} actions{shorter}"


def prove(
    query: Query,
    edition: str,
    players: int,
    *,
    bound: int = 6,
    out: Path | None = None,
    hint: int | None = None,
    games: int | None = None,
    rlimit: int = RLIMIT,
    gate: Gate | None = None,
    z3_steer: bool = False,
    stored: GameLog | None = None,
    shrink_steps: int | None = MAX_STEPS,
    shorten: int = SHORTEN_GAMES,
    engine: str = REFERENCE,
) -> Result:
    """Decide `query`: k-induction over the rule-content model where the query has a rule
    predicate, else z3 BMC on the counts model then k-induction (unreachable), or the
    guided engine search (reachable: the stored witness's seed `hint` first, then `games`
    seeded games, the query's own `search_games` by default); writes witness / proof files
    to `out` when given. An "unreachable" needs `gate` (opened here for this query when
    not given) to let it through; otherwise the row is unknown, saying why.
    `ProveArgumentError` for a bound outside 1..MAX_BOUND, games outside 1..MAX_GAMES or a
    resource limit outside 1..MAX_RLIMIT. `z3_steer` (off by default): a query without a
    hand-written steer is searched by the z3 archive steer (`archive_steer.py`), `games`
    counting its seeded runs (`Z3_STEER_RUNS` by default).

    Once the search has a witness it plays `shorten` more seeded games for a shorter one
    (`search.search`), and the witness is shrunk (`shrink.py`, at most `shrink_steps` engine
    steps; None: not shrunk; its candidates judged on the `engine`: `shrink_for`) before it is
    returned or written. Without `out`, a `stored` witness of
    the row that still replays to the query is taken as it is, without a search and without
    shrinking it again; its seed is the hint when it no longer does (with `out` the row is
    searched again from that seed). A proved row is searched too (`PROVED_ROW_GAMES` games,
    and `stored` replayed): a witness there makes the row reachable and is recorded in the
    gate as a refuted proof, naming the proof's core and what the link says of the witness's
    game."""
    if type(bound) is not int or not 1 <= bound <= MAX_BOUND:
        raise ProveArgumentError(f"prove: the bound must be from 1 to {MAX_BOUND}, not {bound!r}")
    if games is not None and (type(games) is not int or not 1 <= games <= MAX_GAMES):
        raise ProveArgumentError(
            f"prove: the search budget must be from 1 to {MAX_GAMES} games, not {games!r}"
        )
    if type(rlimit) is not int or not 1 <= rlimit <= MAX_RLIMIT:
        raise ProveArgumentError(
            f"prove: the z3 resource limit must be from 1 to {MAX_RLIMIT}, not {rlimit!r}"
        )
    start = time.perf_counter()
    budget = query.search_games if games is None else games
    initial_state = new_game(edition, players, 0, query.variant)
    refused = ""
    proof_found = _content_proof(query, initial_state, bound, rlimit)
    # The z3 model has no solo mode (Carla's board and fate tiles): a solo row is decided by
    # the witness search alone, and never "unreachable".
    path = None if initial_state.is_solo else _model_path(initial_state, query, bound, rlimit)
    if proof_found is None and path is not None and path.depth is None and path.complete:
        k = Constants.of(initial_state.rules.data, players)
        proof = k_induction(abstract(initial_state), k, query.abstract, bound, rlimit)
        if proof.proved:
            proof_found = (f"k={proof.k}", proof.invariant)
    if proof_found is not None:
        gate = gate if gate is not None else open_gate([query])
        why = gate.refusal(query)
        if why is None:
            return _proved_row(
                query,
                edition,
                players,
                proof=proof_found,
                gate=gate,
                hints=(hint, stored),
                limits=(bound, rlimit),
                out=out,
                start=start,
                shorten=shorten,
            )
        refused = f"a proof was found but is not printed: {why}; "
    # A model path (or none up to K but no proof either: the path may be longer than K):
    # only the engine can say whether the situation really arises.
    reused = None if stored is None or out is not None else _still_a_witness(stored, query, edition, players)
    if stored is not None and hint is None:
        hint = stored.seed
    shrunk: Shrunk[History] | None = None
    if reused is not None:
        witness: Witness | None = reused
        tried = 1
        spent = budget_text(bound, rlimit, budget, query.steer, hint, shorten=shorten)
    elif z3_steer and z3_steers(query, initial_state):
        # no hand-written steer: a Go-Explore search whose cells z3's macro target cuts
        # (docs/proofs.md, "The z3 steer"); `games` counts its seeded runs
        runs = Z3_STEER_RUNS if games is None else games
        witness, tried, stats = archive_search(
            edition, players, query.abstract, query.concrete, runs, variant=query.variant
        )
        spent = f"{budget_text(bound, rlimit)}; {archive_budget_text(runs, ArchiveBudget(), stats)}"
    else:
        witness, tried = _steered(query, edition, players, budget, hint, shorten)
        spent = budget_text(bound, rlimit, budget, query.steer, hint, shorten=shorten if witness else 0)
    if reused is None and witness is not None:
        witness = replace(witness, log=replace(witness.log, query=recorded_query(query)))
        if shrink_steps is not None:
            shrunk = shrink_for(query, witness.log, shrink_steps, engine)
            witness = Witness(shrunk.log, witness.attempts, shrunk.history)
    elapsed = time.perf_counter() - start
    if witness is None:
        if path is None:
            abstract_note = "the z3 model has no solo mode, so no proof was tried"
        elif path.depth is not None:
            abstract_note = f"z3 found an abstract path of {path.depth} steps"
        elif not path.complete:
            abstract_note = f"z3 ran out of its resource limit ({rlimit}) below {bound} steps"
        else:
            abstract_note = f"no abstract path up to {bound} steps and no induction proof"
        why = f"; {query.unknown_because}" if query.unknown_because else ""
        return Result(
            query.name,
            edition,
            players,
            UNKNOWN,
            f"{tried} steered games",
            elapsed,
            note=f"{refused}{abstract_note}; no engine game met the predicate{why}",
            budget=spent,
        )
    if gate is not None:
        gate.observe(query, witness.history)
    file = None
    if out is not None:
        file = write_witness(out, query, witness, provenance(witness, shrunk, reused is not None))
    return Result(
        query.name,
        edition,
        players,
        REACHABLE,
        f"{len(witness.log.actions)} actions",
        elapsed,
        file,
        budget=spent,
    )


def _proved_row(
    query: Query,
    edition: str,
    players: int,
    *,
    proof: tuple[str, tuple[str, ...]],
    gate: Gate,
    hints: tuple[int | None, GameLog | None],
    limits: tuple[int, int],
    out: Path | None,
    start: float,
    shorten: int,
) -> Result:
    """A row z3 proved unreachable and the gate let through: the witness search still runs
    (the stored witness replayed, then `PROVED_ROW_GAMES` steered games); a witness refutes
    the proof, and the row is reachable with the failure named in its note and the gate.
    `hints`: the stored witness's seed and log; `limits`: the bound and z3's resource limit."""
    (hint, stored), (bound, rlimit) = hints, limits
    witness = None if stored is None else _still_a_witness(stored, query, edition, players)
    replayed, tried = witness is not None, 0
    if witness is None:
        witness, tried = _steered(query, edition, players, PROVED_ROW_GAMES, hint, shorten)
    searched = budget_text(bound, rlimit, PROVED_ROW_GAMES, query.steer, hint)
    if witness is None:
        result = Result(
            query.name,
            edition,
            players,
            UNREACHABLE,
            proof[0],
            time.perf_counter() - start,
            invariant=proof[1],
            budget=budget_text(bound, rlimit),
        )
        if out is not None:
            _write_proof(out, query, result)
        return result
    gate.observe(query, witness.history)
    steps, broken = check_log(witness.log)
    link = (
        f"the link breaks on it at step {steps}: clause {', '.join(map(repr, broken.clauses))}"
        if broken is not None
        else "the link passes on it, so the proof rests on an implication or a clause the link never tests"
    )
    core = ", ".join(repr(c) for c in proof[1]) or "no clause named"
    why = (
        f"z3 proved it unreachable ({proof[0]}; resting on {core}) but the engine reached it: "
        f"seed {witness.log.seed}, {len(witness.log.actions)} actions; {link}"
    )
    gate.refute(f"{query.name}, {edition}, {players} players", why)
    found = provenance(witness, None, stored=replayed)
    file = None if out is None else write_witness(out, query, witness, found)
    return Result(
        query.name,
        edition,
        players,
        REACHABLE,
        f"{len(witness.log.actions)} actions",
        time.perf_counter() - start,
        file,
        note=f"PROOF REFUTED: {why}",
        budget=f"{searched} ({tried} played)" if tried else searched,
    )


def z3_steers(query: Query, initial_state: GameState) -> bool:
    """Whether `prove(..., z3_steer=True)` searches this row by the z3 archive steer
    (`archive_steer.py`): the query has no hand-written steer and the models cover the row
    (no solo, default readings)."""
    return query.steer == Steer() and not initial_state.is_solo and query.variant == Variant()


def archive_budget_text(runs: int, budget: ArchiveBudget, stats: ArchiveStats) -> str:
    """The z3 archive steer's budgets and what it did, as a row prints them."""
    return (
        f"steered by z3's archive: {runs} runs x {budget.steps} steps, bursts of {budget.burst} "
        f"({budget.greedy} towards the target, {budget.planned} by a policy), "
        f"z3 rlimit {budget.rlimit} per ask, <= {budget.asks} asks per run, "
        f"a target blocked after {budget.patience} bursts without progress "
        f"({stats.asks} asks, {stats.targets} targets, {stats.blocked} blocked, {stats.cells} cells, "
        f"{stats.steps} steps)"
    )


def _content_proof(
    query: Query, initial_state: GameState, bound: int, rlimit: int
) -> tuple[str, tuple[str, ...]] | None:
    """k-induction over the rule-content model, for a query with a rule predicate in a row
    the model covers (no solo, the default readings): (depth, z3's core) when proved."""
    pred = RULE_PREDICATES.get(query.name)
    if pred is None or initial_state.is_solo or query.variant != Variant():
        return None
    proof = k_induction_content(
        initial_state.rules.data.edition, initial_state.num_players, pred, max_k=bound, rlimit=rlimit
    )
    if not proof.proved:
        return None
    return f"k={proof.k} (rule-content model)", proof.invariant


def _model_path(initial_state: GameState, query: Query, bound: int, rlimit: int) -> BmcResult:
    """z3's shortest abstract path to the query from the abstract initial state."""
    k = Constants.of(initial_state.rules.data, initial_state.num_players)
    return bmc(abstract(initial_state), k, query.abstract, bound, rlimit)


def shrink_for(query: Query, log: GameLog, max_steps: int, engine: str = REFERENCE) -> Shrunk[History]:
    """The witness `log` of `query` shrunk (`shrink.shrink`, at most `max_steps` engine steps):
    its candidates judged on the native core where `engine` is native and the core judges the
    catalogue query (`native_judge.shrink_natively`, the result replayed on the reference),
    else on the reference. The same shrunk log either way (tests/native/test_native_shrink.py)."""
    reference = judge_for(query)
    if engine == NATIVE and query.source == CATALOGUE_SOURCE and query.name in native_queries():
        return shrink_natively(log, query.name, reference, HIGH_SCORE, max_steps=max_steps)
    return shrink(log, reference, max_steps=max_steps)


def provenance(witness: Witness, shrunk: Shrunk[History] | None, stored: bool) -> str:
    """How a witness was found, as its note says it."""
    if stored:
        return "the stored witness of this row, which still replays to the query (taken as it is)"
    found = f"found by the steered search (attempt {witness.attempts})"
    if shrunk is None:
        return found
    return f"{found}, then {shrink_words(shrunk)}"


MINIMAL_WORDS = "1-minimal: no single round, turn or action can be removed"
"""How a witness note says its witness is 1-minimal under the shrinker."""
NOT_MINIMAL_WORDS = "not 1-minimal: its budget ran out first"
"""How a witness note says its shrink ran out of budget."""


def shrink_words(shrunk: Shrunk[History]) -> str:
    """What a shrink did, for a witness note."""
    done = MINIMAL_WORDS if shrunk.minimal else NOT_MINIMAL_WORDS
    return (
        f"shrunk by delta debugging from {shrunk.before} to {shrunk.after} actions "
        f"({shrunk.replays} replays, {shrunk.steps} engine steps; {done})"
    )


def write_witness(out: Path, query: Query, witness: Witness, found: str) -> Path:
    """A witness log and its `.md` note in `out`; `found` says how the witness was found."""
    out.mkdir(parents=True, exist_ok=True)
    log = witness.log
    stem = witness_stem(query, log.edition, log.players)
    path = out / f"{stem}.json"
    write_text(path, log.to_json() + "\n")
    note = [
        f"# Query {query.number} ({query.name}), {log.edition}, {log.players} players: reachable",
        "",
        f"{query.title}.",
        "",
        f"Witness: `{stem}.json`, a `village-rules-log` of {len(log.actions)} actions from "
        f"`new_game({log.edition!r}, {log.players}, seed={log.seed})`, {found}. Replay it with "
        f"`village-rules replay {stem}.json{_queries_option(query)}`; its last step meets the "
        "concrete predicate of the query.",
        "",
        *([query.explain(witness.history), ""] if query.explain is not None else []),
        *notes.tail(log.actions, witness.final),  # in the rulebook's words (drivers/notes.py)
    ]
    write_text(out / f"{stem}.md", "\n".join(note))
    return path


def _queries_option(query: Query) -> str:
    return "" if query.source == CATALOGUE_SOURCE else f" --queries {query.source}"


def _write_proof(out: Path, query: Query, result: Result) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    stem = witness_stem(query, result.edition, result.players)
    path = out / f"{stem}.proof.json"
    write_text(
        path,
        json.dumps(
            {
                "query": query.name,
                "edition": result.edition,
                "players": result.players,
                "verdict": result.verdict,
                "method": f"k-induction, {result.depth}",
                "invariant": list(result.invariant),
            },
            indent=1,
        )
        + "\n",
    )
    lines = [
        f"# Query {query.number} ({query.name}), {result.edition}, {result.players} players: unreachable",
        "",
        f"{query.title}: impossible at every depth (k-induction, {result.depth}, over the",
        "refinement-checked model). The inductive argument z3 needed (its unsat core):",
        "",
        *[f"- {name}" for name in result.invariant],
        "",
    ]
    write_text(out / f"{stem}.proof.md", "\n".join(lines))
    return path
