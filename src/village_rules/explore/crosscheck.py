"""Ground truth for the z3 model: on a reduced configuration, every query the explorer
reaches must not be proved unreachable by the model.

The model over-approximates the engine, so "unreachable" in the model must mean
unreachable in the engine. The explorer's witnesses are real games: if z3's k-induction
proves a query unreachable from a set-up whose explored graph holds a witness of it, the
model (or the query's abstract predicate) is wrong, and `disagreements` names the query.
Only the reachable queries can disagree, so only they are given to z3.

z3 is given a resource limit per call (`rlimit`, a count of its own steps, the same on every
machine): a call that runs out proves nothing, so it can only make this check weaker, never
make it fail, and the answer does not depend on the machine's load.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from village_rules.data.edition import EditionData
from village_rules.engine.core import apply_steps
from village_rules.explore.search import Exploration, ExplorationLimitError, fingerprint, moves, roots
from village_rules.model.actions import format_action
from village_rules.model.state import GameState
from village_rules.proofs.catalogue.catalogue import STEP, Query, by_name
from village_rules.proofs.link.link import check_step_of_heads
from village_rules.proofs.model.abstraction import abstract
from village_rules.proofs.model.content import content_head
from village_rules.proofs.model.guarded import ContentConstants
from village_rules.proofs.model.induction import RULE_PREDICATES, k_induction_content
from village_rules.proofs.model.model import Constants
from village_rules.proofs.model.solver import RLIMIT, bmc, k_induction

BOUND = 6
"""The depth of bounded model checking and of k-induction (`village-rules prove`'s default)."""


@dataclass(frozen=True, slots=True)
class Disagreement:
    """A query the explorer reached from a set-up where z3 proved it unreachable."""

    query: str
    root: int
    invariant: tuple[str, ...]

    def __str__(self) -> str:
        clauses = ", ".join(self.invariant) or "no clause"
        return (
            f"{self.query}: the explorer reaches it from set-up deal {self.root}, but the z3 model "
            f"proves it unreachable from there (k-induction using {clauses}): "
            "the model or the query's abstract predicate is wrong"
        )


def proved_unreachable(
    data: EditionData, players: int, query: Query, root_index: int, *, rlimit: int = RLIMIT
) -> tuple[str, ...] | None:
    """The clauses of a k-induction proof that `query` is unreachable from set-up
    `root_index`, or None when z3 finds an abstract path or does not close the induction."""
    state = roots(data, players)[root_index].state
    k = Constants.of(data, players)
    initial = abstract(state)
    path = bmc(initial, k, query.abstract, BOUND, rlimit)
    if path.depth is not None or not path.complete:
        return None
    proof = k_induction(initial, k, query.abstract, BOUND, rlimit)
    return proof.invariant if proof.proved else None


def disagreements(
    data: EditionData,
    players: int,
    result: Exploration,
    queries: Sequence[Query] | None = None,
    *,
    rlimit: int = RLIMIT,
) -> list[Disagreement]:
    """Every query the exploration reached whose witness's set-up z3 proves it unreachable from."""
    out: list[Disagreement] = []
    for name, verdict in result.verdicts.items():
        if verdict.witness is None:
            continue
        query = next((q for q in queries if q.name == name), None) if queries else by_name(name)
        if query is None:
            continue
        root = verdict.witness[0]
        proof = proved_unreachable(data, players, query, root, rlimit=rlimit)
        if proof is not None:
            out.append(Disagreement(name, root, proof))
    return out


def model_proves(
    data: EditionData, players: int, result: Exploration, *, rlimit: int = RLIMIT
) -> dict[str, bool]:
    """For each query the exploration found unreachable by exhaustion: whether the z3
    model proves it too, from every set-up (how much of the ground truth the model knows)."""
    out: dict[str, bool] = {}
    count = len(roots(data, players))
    for name, verdict in result.verdicts.items():
        if verdict.witness is not None or verdict.horizon != STEP:
            continue
        query = by_name(name)
        out[name] = all(
            proved_unreachable(data, players, query, r, rlimit=rlimit) is not None for r in range(count)
        )
    return out


@dataclass(frozen=True, slots=True)
class ContentCrossCheck:
    """The rule-content model's k-induction against exhaustion, for the queries it has a
    predicate for (`proofs.model.induction.RULE_PREDICATES`)."""

    disagreements: tuple[Disagreement, ...]
    """Queries the explorer reached from a set-up the model proves them unreachable from."""
    proves: dict[str, bool]
    """For each query unreachable by exhaustion: whether the model proves it from every set-up."""


def content_crosscheck(
    data: EditionData, players: int, result: Exploration, *, rlimit: int = RLIMIT
) -> ContentCrossCheck:
    """Judge the rule-content model by exhaustion: a query the explorer reached must not be
    proved unreachable from its witness's set-up (else the model, or the query's content
    predicate, is wrong), and of those it shows unreachable, which the model proves too.
    Only decided verdicts count (a `PATH` query explored without its monitor is not one)."""
    starts = roots(data, players)
    wrong: list[Disagreement] = []
    proves: dict[str, bool] = {}
    for name, verdict in result.verdicts.items():
        pred = RULE_PREDICATES.get(name)
        if pred is None or not verdict.decided:
            continue
        if verdict.witness is not None:
            root = verdict.witness[0]
            proof = k_induction_content(data, players, pred, rlimit=rlimit, start=starts[root].state)
            if proof.proved:
                wrong.append(Disagreement(name, root, proof.invariant))
            continue
        proves[name] = all(
            k_induction_content(data, players, pred, rlimit=rlimit, start=r.state).proved for r in starts
        )
    return ContentCrossCheck(tuple(wrong), proves)


@dataclass(frozen=True, slots=True)
class ContentEdges:
    """The rule-content link on every edge of an explored configuration."""

    states: int
    edges: int
    broken: tuple[str, ...] = ()
    """The clauses the first edge outside the model breaks (empty: every edge in it)."""
    where: str = ""
    """That edge: its action and the state's pending step."""


def content_link_on_edges(data: EditionData, players: int, *, max_states: int = 200_000) -> ContentEdges:
    """Breadth first over every state reachable from every set-up deal (at most
    `max_states`, a budget in states), checking on each edge that the step lies in the
    rule-content model (`proofs.link.link.check_step_of_heads`: the guarded command of its kind, the
    counts clauses and the state clauses). Stops at the first edge outside the model."""
    seen: set[int] = set()
    frontier: list[GameState] = []
    for root in roots(data, players):
        fp = fingerprint(root.state)
        if fp not in seen:
            seen.add(fp)
            frontier.append(root.state)
    edges = depth = 0
    while frontier:
        depth += 1
        following: list[GameState] = []
        for state in frontier:
            k = ContentConstants.of(state.rules, state.num_players)
            state_head = content_head(state)
            for action, _ in moves(state):
                edges += 1
                after, after_head = state, state_head
                for sub in apply_steps(state, action):  # every sub-step, forced decisions included
                    # each state abstracted once: a sub-step's after is the next one's before
                    before_head = after_head if sub.before is after else content_head(sub.before)
                    after_head = content_head(sub.after)
                    broken = check_step_of_heads(k, before_head, sub.action, after_head)
                    if broken:
                        forced = f", then the forced {format_action(sub.action)}" if sub.forced else ""
                        where = f"{format_action(action)}{forced} at {type(state.pending).__name__}"
                        return ContentEdges(len(seen), edges, tuple(broken), where)
                    after = sub.after
                fp = fingerprint(after)
                if fp not in seen:
                    if len(seen) >= max_states:
                        raise ExplorationLimitError(max_states, depth, len(frontier))
                    seen.add(fp)
                    following.append(after)
        frontier = following
    return ContentEdges(len(seen), edges)
