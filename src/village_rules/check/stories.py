"""Stories for the step-through viewer (`village_rules.pictures.viewer`) from the files the
toolkit writes: game logs (`play --log`), fuzz failure logs, proof witnesses (`prove
--out`) and divergence witnesses (`diverge --write`).

Every log is replayed on the engine with every invariant checked after every action:
each step becomes a frame (the picture, the action in words, the rule IDs it fired). The
highlighted step is the one the file is about: for a proof witness the first step at which
its query holds; for a divergence witness the last step, after which the two readings part;
for any other log the first step that breaks an invariant or cannot be applied (a fuzz
failure), if there is one. Any other file is refused with `ViewError` saying what it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from village_rules.checks.invariants import state_violations, transition_violations
from village_rules.data.jsonio import MAX_LOG_CHARS, JsonInputError, read_json, read_text_file
from village_rules.drivers.play import GameLog
from village_rules.engine.core import apply
from village_rules.errors import ViewError, VillageError
from village_rules.model.actions import parse_action
from village_rules.model.render import action_words
from village_rules.model.state import GameState
from village_rules.pictures.svg import actor_of, state_svg
from village_rules.pictures.viewer import Frame, Story
from village_rules.proofs.catalogue import CATALOGUE, Query
from village_rules.proofs.history import History
from village_rules.readings.divergence import Witness, replay_both
from village_rules.readings.stored import witness_from_json

_OTHER_FORMATS = {
    "village-rules-fuzz-report": "a fuzz report (a run's figures, not a game): view the failing game's "
    "log it names instead",
    "village-rules-state": "a saved state (one position, not a game): draw it with `show`",
    "village-rules-edition": "an edition data file, not a game",
    "village-rules-golden": "a golden file of the tests, not a game",
}


@dataclass(frozen=True, slots=True)
class _Replay:
    """A log replayed: the states, the actions and the frames, and where it broke."""

    states: list[GameState]
    frames: list[Frame]
    broken_at: int | None
    problem: str


def story_of_file(path: Path) -> Story:
    """The story of a game log, fuzz failure log, proof witness or divergence witness;
    `ViewError` naming the file for anything else."""
    text = _read(path)
    try:
        raw = read_json(text, MAX_LOG_CHARS, "log")
    except JsonInputError as exc:
        raise ViewError(f"{path}: not a game log or witness: {exc.problem}") from None
    kind = raw.get("format") if isinstance(raw, dict) else None
    if kind == "village-rules-witness":
        try:
            witness = witness_from_json(text, source=str(path))
        except VillageError as exc:
            raise ViewError(f"{path}: a broken divergence witness: {exc}") from None
        return divergence_story(witness, path.name)
    if kind == "village-rules-log":
        try:
            log = GameLog.from_json(text, source=str(path))
        except VillageError as exc:
            raise ViewError(f"{path}: a broken game log: {exc}") from None
        query = witness_query(path.name)
        if query is not None:
            return proof_story(log, query, path.name)
        return log_story(log, path.name)
    if isinstance(raw, dict) and kind is None and raw.get("verdict") == "unreachable":
        raise ViewError(
            f"{path}: this is a stored unreachability proof of query {raw.get('query')!r}: no game "
            "reaches the query, so there is no game to view"
        )
    if isinstance(kind, str) and kind in _OTHER_FORMATS:
        raise ViewError(f"{path}: this is {_OTHER_FORMATS[kind]}")
    raise ViewError(
        f"{path}: not a game log or witness (field 'format' is {kind!r}; the viewer reads "
        "'village-rules-log' files: game logs, fuzz failure logs and proof witnesses, and "
        "'village-rules-witness' files: divergence witnesses)"
    )


def _read(path: Path) -> str:
    try:
        return read_text_file(path, MAX_LOG_CHARS, "log")
    except JsonInputError as exc:
        raise ViewError(f"{path}: {exc.problem}") from None
    except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the path
        raise ViewError(f"{path}: cannot be read: {getattr(exc, 'strerror', None) or exc}") from None


def witness_query(name: str) -> Query | None:
    """The catalogue query a proof witness file belongs to (`prove --out` names them
    `<number>-<query>-<edition>-<players>p.json`), or None for any other name."""
    for q in CATALOGUE:
        if name.startswith(f"{q.number}-{q.name}-") and name.endswith("p.json"):
            return q
    return None


def _replay(log: GameLog, actions: tuple[str, ...] | None = None) -> _Replay:
    """Replay the log (or `actions` on its set-up), checking every invariant; stop at the
    first action that does not apply or breaks an invariant (that step is kept when it
    applied, so the viewer shows the broken state)."""
    try:
        state = log.initial_state()
    except VillageError as exc:
        raise ViewError(f"the log's set-up cannot be made: {exc}") from None
    states = [state]
    frames = [Frame(state_svg(state))]
    problem = ""
    broken_at: int | None = None
    found = state_violations(state)
    if found:
        broken_at, problem = 0, "the set-up breaks: " + "; ".join(str(v) for v in found)
    for k, text in enumerate(log.actions if actions is None else actions, start=1):
        if broken_at is not None:
            break
        try:
            action = parse_action(text)
            trace: list[str] = []
            seat = actor_of(state)
            after = apply(state, action, trace)
        except Exception as exc:  # a failure log may end in an engine crash: say so there
            what = str(exc) if isinstance(exc, VillageError) else f"{type(exc).__name__}: {exc}"
            broken_at, problem = k - 1, f"action {k} ({text!r}) cannot be applied: {what}"
            break
        frames.append(Frame(state_svg(after, action, seat), text, action_words(action), seat, tuple(trace)))
        states.append(after)
        found = [*state_violations(after), *transition_violations(state, action, after)]
        if found:
            broken_at, problem = k, "invariants broken: " + "; ".join(str(v) for v in found)
        state = after
    return _Replay(states, frames, broken_at, problem)


def _setting(log: GameLog) -> str:
    readings = ", ".join(f"{amb} {letter}" for amb, letter in log.variant.choices) or "the default readings"
    return f"{log.edition}, {log.players} players, seed {log.seed}, {readings}"


def log_story(log: GameLog, name: str) -> Story:
    """A game log or a fuzz failure log: the first broken step (if any) highlighted."""
    run = _replay(log)
    n = len(run.frames) - 1
    if run.broken_at is not None:
        kind = "failing game log"
        summary = f"{_setting(log)}: {n} of {len(log.actions)} actions replayed; {run.problem}"
    else:
        end = "the game is over" if run.states[-1].is_terminal else "the game goes on"
        kind = "game log"
        summary = f"{_setting(log)}: {n} actions, every invariant holds after each; {end}"
    return Story(f"village-rules view: {name}", kind, summary, tuple(run.frames), run.broken_at, run.problem)


def proof_story(log: GameLog, query: Query, name: str) -> Story:
    """A proof witness: the first step at which its query's concrete predicate holds."""
    run = _replay(log)
    history = History([run.states[0]])
    holds: int | None = None
    actions = [parse_action(t) for t in log.actions[: len(run.states) - 1]]
    for k, action in enumerate(actions, start=1):
        history.push(action, run.states[k])
        if query.concrete(history):
            holds = k
            break
    title = f"query {query.number} ({query.name}): {query.title}"
    if holds is None:
        summary = f"{_setting(log)}: the query does not hold at any step of this log"
        if run.broken_at is not None:
            summary += f"; {run.problem}"
        return Story(f"village-rules view: {name}", "proof witness", f"{title}. {summary}", tuple(run.frames))
    summary = f"{_setting(log)}: the query holds after action {holds} of {len(log.actions)}"
    return Story(
        f"village-rules view: {name}",
        "proof witness",
        f"{title}. {summary}",
        tuple(run.frames),
        holds,
        f"query {query.number} holds here: {query.title}",
    )


def divergence_story(witness: Witness, name: str) -> Story:
    """A divergence witness, replayed under its first reading: the last step, after which
    the two readings part, highlighted."""
    left, _ = witness.variants()
    log = GameLog(witness.edition, witness.players, witness.seed, witness.actions, left)
    run = _replay(log)
    try:
        diff = replay_both(witness)
    except VillageError as exc:
        raise ViewError(f"{name}: the witness no longer replays: {exc}") from None
    pair = f"{witness.amb} {witness.left_letter}/{witness.right_letter}"
    if diff is None:
        summary = (
            f"{_setting(log)}: the readings {pair} no longer part on these {len(witness.actions)} actions"
        )
        return Story(f"village-rules view: {name}", "divergence witness", summary, tuple(run.frames))
    at = len(run.frames) - 1
    summary = (
        f"{_setting(log)}: the readings {pair} part after action {at}: {diff.kind} "
        f"(the board drawn under reading {witness.left_letter})"
    )
    note = f"readings {pair} part here: {diff.kind}: {diff.detail}"
    return Story(f"village-rules view: {name}", "divergence witness", summary, tuple(run.frames), at, note)


__all__ = ["divergence_story", "log_story", "proof_story", "story_of_file", "witness_query"]
