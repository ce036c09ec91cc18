"""Re-checking what `village-rules prove --out` stored, without searching again.

Every stored witness must replay on the real engine (from its own `new_game` setup) to a
state where its query's concrete predicate holds, and not one action earlier; every stored
unreachability proof must re-prove (no path to the query up to the bound, and k-induction
giving the same invariant). `village-rules check` and the tests use this, so a rule change
that breaks a verdict fails both.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from village_rules.data.shipped import shipped_folder
from village_rules.drivers.play import GameLog
from village_rules.engine.core import apply
from village_rules.engine.setup import new_game
from village_rules.errors import VillageError
from village_rules.model.actions import parse_action
from village_rules.proofs.abstraction import abstract
from village_rules.proofs.catalogue import CATALOGUE, Query, by_name
from village_rules.proofs.history import History
from village_rules.proofs.model import Constants
from village_rules.proofs.solver import bmc, k_induction

WITNESSES = shipped_folder("village_rules.proofs", "witnesses")
"""The stored proof witnesses and proofs, shipped as package data (`village_rules/proofs/witnesses/`)."""

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


def check_witness(path: Path) -> StoredCheck:
    """Replay a stored witness and test its query's concrete predicate at the end only."""
    query = query_of_witness(path)
    log = GameLog.from_json(path.read_text(encoding="utf-8"))
    history = History([log.initial_state()])
    for text in log.actions:
        action = parse_action(text)
        history.push(action, apply(history.last, action))
    shorter = History(history.states[:-1], history.actions[:-1])
    if not query.concrete(history):
        problem = "the replayed game does not end in the situation"
    elif len(shorter.states) >= 2 and query.concrete(shorter):
        problem = "the situation is reached before the last action"
    else:
        return StoredCheck(path, "witness", query.name, True, f"replays in {len(log.actions)} actions")
    return StoredCheck(path, "witness", query.name, False, problem)


def check_proof(path: Path) -> StoredCheck:
    """Re-prove a stored unreachability proof and compare its printed invariant."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    query = by_name(raw["query"])
    state = new_game(raw["edition"], raw["players"], 0)
    k = Constants.of(state.rules.data, raw["players"])
    if bmc(abstract(state), k, query.abstract, PROOF_DEPTH).depth is not None:
        return StoredCheck(path, "proof", query.name, False, "the model now reaches the query")
    proof = k_induction(abstract(state), k, query.abstract, PROOF_DEPTH)
    if not proof.proved:
        return StoredCheck(path, "proof", query.name, False, "k-induction no longer proves it")
    if list(proof.invariant) != raw["invariant"]:
        return StoredCheck(path, "proof", query.name, False, "it proves with another invariant")
    return StoredCheck(path, "proof", query.name, True, f"re-proved: {'; '.join(proof.invariant)}")


def check_stored(directory: Path) -> list[StoredCheck]:
    """Every stored witness replayed and every stored proof re-proved."""
    return [check_witness(p) for p in witness_files(directory)] + [
        check_proof(p) for p in proof_files(directory)
    ]

