"""Stage: table (re-checking what was stored).

Re-checking what `village-rules prove --out` stored, without searching again.

Every stored witness must replay on the real engine (from its own `new_game` setup) to a
state where its query's concrete predicate holds, and not one action earlier; every stored
unreachability proof must re-prove (no path to the query up to the bound, and k-induction
giving the same invariant). `village-rules check` and the tests use this, so a rule change
that breaks a verdict fails both.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from village_rules.data.jsonio import MAX_LOG_CHARS, JsonInputError, read_json, read_text_file
from village_rules.data.loader import EDITIONS
from village_rules.data.shipped import shipped_folder
from village_rules.drivers.play import GameLog
from village_rules.engine.core import apply_steps
from village_rules.engine.setup import new_game
from village_rules.errors import VillageError
from village_rules.model.actions import parse_action
from village_rules.proofs.catalogue.catalogue import CATALOGUE, Query, by_name
from village_rules.proofs.errors import WitnessError
from village_rules.proofs.model.abstraction import abstract
from village_rules.proofs.model.guarded import state_clauses
from village_rules.proofs.model.induction import RULE_PREDICATES, STEP_LABEL, k_induction_content
from village_rules.proofs.model.model import Constants
from village_rules.proofs.model.solver import bmc, k_induction
from village_rules.proofs.search.history import History, play_steps

WITNESSES = shipped_folder("village_rules.proofs", "witnesses")
"""The stored proof witnesses and proofs: the clone's `proofs/witnesses/`, shipped with the
package as `village_rules/proofs/witnesses/`."""

PROOF_DEPTH = 6
"""The bound and induction depth the stored proofs were made with (`run.prove`)."""


@dataclass(frozen=True, slots=True)
class StoredCheck:
    """The outcome of re-checking one stored artefact."""

    path: Path
    kind: str
    """"witness" or "proof"."""
    query: str
    passed: bool
    detail: str


def witness_files(directory: Path) -> list[Path]:
    """The stored witness logs of a `prove --out` directory, sorted."""
    return sorted(directory.glob("*p.json"))


def proof_files(directory: Path) -> list[Path]:
    """The stored unreachability proofs of a `prove --out` directory, sorted."""
    return sorted(directory.glob("*.proof.json"))


def query_of_witness(path: Path) -> Query:
    """The query a witness file belongs to: its name starts with the query's number."""
    number = path.name.split("-", 1)[0]
    matches = [q for q in CATALOGUE if q.number == number]
    if len(matches) != 1:
        raise VillageError(f"{path}: no catalogue query numbered {number!r}")
    return matches[0]


def witness_query(path: Path) -> Query | None:
    """The catalogue query a file is a witness of, judged by its name alone
    (`{number}-{name}-{edition}-{players}p.json`, as `prove --out` writes it); None for any
    other name. `check_witness` then says whether the query really holds at its end."""
    for query in CATALOGUE:
        for edition in EDITIONS:
            head = f"{query.number}-{query.name}-{edition}-"
            rest = path.name.removeprefix(head)
            if rest != path.name and rest.endswith("p.json") and rest[: -len("p.json")].isdigit():
                return query
    return None


def _read(path: Path) -> str:
    try:
        return read_text_file(path, MAX_LOG_CHARS, "stored proof artefact")
    except JsonInputError as exc:
        raise WitnessError(f"{path}: {exc.problem}") from None
    except OSError as exc:
        raise WitnessError(f"{path}: cannot be read: {exc.strerror or exc}") from None


def check_witness(path: Path, query: Query | None = None) -> StoredCheck:
    """Replay a stored witness and test its query's concrete predicate at its last action:
    after some sub-step of the last action's step, judged by the rule events of each
    (`proofs.search.history`), and not after the sub-steps of the action before it (`query`: the
    one its file name names in the catalogue, by default)."""
    query = query_of_witness(path) if query is None else query
    log = GameLog.from_json(_read(path), source=str(path))
    history = History([log.initial_state()])
    held: list[bool] = []
    for k, text in enumerate(log.actions, start=1):
        try:
            action = parse_action(text)
            steps = apply_steps(history.last, action)
        except VillageError as exc:
            return StoredCheck(path, "witness", query.name, False, f"action {k} no longer applies: {exc}")
        if k >= len(log.actions) - 1:  # the last two actions: is the situation met?
            held.append(play_steps(history, steps, query.concrete))
        else:
            for sub in steps:
                history.push_sub(sub)
    if not held or not held[-1]:
        problem = "the replayed game does not end in the situation"
    elif len(held) >= 2 and held[-2]:
        problem = "the situation is reached before the last action"
    else:
        return StoredCheck(path, "witness", query.name, True, f"replays in {len(log.actions)} actions")
    return StoredCheck(path, "witness", query.name, False, problem)


def _proof_fields(path: Path) -> tuple[Query, str, int, list[str]]:
    """The query, edition, player count and invariant a stored proof file records;
    `WitnessError` naming the file and the field otherwise."""
    try:
        raw = read_json(_read(path), MAX_LOG_CHARS, "stored proof")
    except JsonInputError as exc:
        raise WitnessError(f"{path}: {exc.problem}") from None
    if not isinstance(raw, dict):
        raise WitnessError(f"{path}: must be a JSON object")
    for key, kind in (("query", str), ("edition", str), ("players", int), ("invariant", list)):
        if type(raw.get(key)) is not kind:
            raise WitnessError(f"{path}: {key}: missing, or not a {kind.__name__}")
    if raw["edition"] not in EDITIONS:
        raise WitnessError(f"{path}: edition: must be one of {', '.join(EDITIONS)}")
    if not all(isinstance(x, str) for x in raw["invariant"]):
        raise WitnessError(f"{path}: invariant: must be a list of strings")
    return by_name(raw["query"]), raw["edition"], raw["players"], raw["invariant"]


def check_proof(path: Path) -> StoredCheck:
    """Re-prove a stored unreachability proof and compare its printed invariant."""
    query, edition, players, invariant = _proof_fields(path)
    rule = RULE_PREDICATES.get(query.name)
    if rule is not None:  # proved over the rule-content model (`run.prove`, step 1)
        content = k_induction_content(edition, players, rule, max_k=PROOF_DEPTH)
        if not content.proved:
            return StoredCheck(path, "proof", query.name, False, "the rule-content model no longer proves it")
        # z3's unsat core over the content model is not unique (it can differ with what the
        # process asked z3 before), so the stored core is checked to name clauses the model
        # still has, not to be the same list
        known = {name for name, _ in state_clauses()} | {STEP_LABEL}
        gone = [name for name in invariant if name not in known]
        if gone:
            lost = f"its invariant names clauses the model lost: {gone}"
            return StoredCheck(path, "proof", query.name, False, lost)
        return StoredCheck(path, "proof", query.name, True, f"re-proved: {'; '.join(content.invariant)}")
    state = new_game(edition, players, 0, query.variant)
    k = Constants.of(state.rules.data, players)
    path_to = bmc(abstract(state), k, query.abstract, PROOF_DEPTH)
    if path_to.depth is not None:
        return StoredCheck(path, "proof", query.name, False, "the model now reaches the query")
    if not path_to.complete:
        return StoredCheck(path, "proof", query.name, False, "z3 ran out of its resource limit (BMC)")
    proof = k_induction(abstract(state), k, query.abstract, PROOF_DEPTH)
    if not proof.proved:
        return StoredCheck(path, "proof", query.name, False, "k-induction no longer proves it")
    if list(proof.invariant) != invariant:
        return StoredCheck(path, "proof", query.name, False, "it proves with another invariant")
    return StoredCheck(path, "proof", query.name, True, f"re-proved: {'; '.join(proof.invariant)}")


def _checked(check: Callable[[Path], StoredCheck], path: Path, kind: str) -> StoredCheck:
    """`check(path)`, or a failed check naming the file when it cannot be read or replayed."""
    try:
        return check(path)
    except VillageError as exc:
        text = str(exc)
        detail = text if str(path) in text else f"{path}: {text}"
        return StoredCheck(path, kind, "", False, f"broken stored {kind}: {detail}")


def check_stored(directory: Path, progress: Callable[[int, int], None] | None = None) -> list[StoredCheck]:
    """Every stored witness replayed and every stored proof re-proved; a file that cannot be
    read or replayed is a failed check naming it. `progress(done, total)` is called after
    each file."""
    jobs = [(check_witness, p, "witness") for p in witness_files(directory)] + [
        (check_proof, p, "proof") for p in proof_files(directory)
    ]
    checks = []
    for check, path, kind in jobs:
        checks.append(_checked(check, path, kind))
        if progress is not None:
            progress(len(checks), len(jobs))
    return checks
