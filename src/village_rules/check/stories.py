"""Stories for the step-through viewer (`village_rules.pictures.viewer`) from the files the
toolkit writes: game logs (`play --log`), fuzz failure logs, proof witnesses (`prove
--out`), explorer witnesses (`explore --witnesses`) and divergence witnesses (`diverge
--write`).

Every log is replayed on the engine with every invariant checked after every action:
each step becomes a frame (the picture, the action in words, the rule IDs it fired). The
highlighted step is the one the file is about: for a proof witness the first step at which
its query holds; for an explorer witness the last step, after which its query holds (the
explorer's shortest path); for a divergence witness the last step, after which the two readings part;
for any other log the first step that breaks an invariant or cannot be applied (a fuzz
failure), if there is one. Any other file is refused with `ViewError` saying what it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from village_rules.checks.invariants import state_violations, transition_violations
from village_rules.data.jsonio import MAX_LOG_CHARS, JsonInputError, read_json, read_text_file
from village_rules.drivers.artefacts import KNOWN_FORMATS
from village_rules.drivers.play import GameLog
from village_rules.engine.core import apply, apply_steps
from village_rules.errors import ViewError, VillageError
from village_rules.explore.witnesses import WitnessName, parse_witness_name
from village_rules.model.actions import Action, parse_action
from village_rules.model.render import action_words
from village_rules.model.state import GameState
from village_rules.pictures.svg import actor_of, state_svg
from village_rules.pictures.viewer import Frame, Story
from village_rules.proofs.catalogue.catalogue import CATALOGUE, Query
from village_rules.proofs.catalogue.user_queries import UserQueries, shown_query
from village_rules.proofs.search.history import History, play_steps
from village_rules.readings.divergence import LEGAL, STATE, WINNER, Difference, Witness, replay_both
from village_rules.readings.stored import witness_from_json

_OTHER_FORMATS = {
    "village-rules-fuzz-report": "a fuzz report (a run's figures, not a game): view the failing game's "
    "log it names instead",
    "village-rules-state": "a saved state (one position, not a game): draw it with `show`",
    "village-rules-edition": "an edition data file, not a game",
    "village-rules-golden": "a golden file of the tests, not a game",
}


_PARTING = {LEGAL: "the legal actions differ", STATE: "the states differ", WINNER: "the winners differ"}
"""What a divergence witness's kind of difference says, in words."""


@dataclass(frozen=True, slots=True)
class _Replay:
    """A log replayed: the states (`states[k]` after k actions), the actions that applied
    with their seats and the rule IDs they fired, and the step where it broke, if it did."""

    states: list[GameState]
    actions: list[Action]
    texts: list[str]
    seats: list[int | None]
    rules: list[tuple[str, ...]]
    broken_at: int | None
    problem: str

    @property
    def last(self) -> int:
        """The last step replayed (the number of actions that applied)."""
        return len(self.states) - 1

    def frames(self, first: int) -> tuple[Frame, ...]:
        """The pictures of steps `first`..`last` (the SVGs are the costly part)."""
        out = []
        for k in range(first, self.last + 1):
            if k == 0:
                out.append(Frame(state_svg(self.states[0])))
                continue
            action = self.actions[k - 1]
            seat = self.seats[k - 1]
            svg = state_svg(self.states[k], action, seat)
            out.append(Frame(svg, self.texts[k - 1], action_words(action), seat, self.rules[k - 1]))
        return tuple(out)


def _first(last: int, focus: int | None, window: int | None) -> int:
    """The first step drawn: 0, or with a `window` the step `window` actions before the
    step in focus (the highlighted one, else the last)."""
    if window is None:
        return 0
    return max(0, (last if focus is None else focus) - window)


def story_of_file(path: Path, window: int | None = None, queries: UserQueries | None = None) -> Story:
    """The story of a game log, fuzz failure log, proof witness or divergence witness;
    `ViewError` naming the file for anything else. With a `window`, only the last `window`
    actions up to the highlighted step (or the end) are drawn (the report's pages). A proof
    witness of a user's query needs that user's `queries` (`view --queries FILE`)."""
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
        return divergence_story(witness, path.name, window)
    if kind == "village-rules-log":
        try:
            log = GameLog.from_json(text, source=str(path))
        except VillageError as exc:
            raise ViewError(f"{path}: a broken game log: {exc}") from None
        query = shown_query(path, log.query, queries)
        if query is not None:
            return proof_story(log, query, path.name, window)
        explored = parse_witness_name(path.name)
        if explored is not None:
            return explorer_story(log, explored, path.name, window)
        return log_story(log, path.name, window)
    if isinstance(raw, dict) and kind is None and raw.get("verdict") == "unreachable":
        raise ViewError(
            f"{path}: this is a stored unreachability proof of query {raw.get('query')!r}: no game "
            "reaches the query, so there is no game to view"
        )
    if isinstance(kind, str) and kind in _OTHER_FORMATS:
        raise ViewError(f"{path}: this is {_OTHER_FORMATS[kind]}")
    if isinstance(kind, str) and kind in KNOWN_FORMATS:
        raise ViewError(f"{path}: not a game log or witness: this is {KNOWN_FORMATS[kind]}")
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


def _replay(log: GameLog, *, check: bool = True) -> _Replay:
    """Replay the log, checking every invariant (unless `check` is False: the report's
    pages of witnesses its steps have just checked); stop at the first action that does not
    apply or breaks an invariant (that step is kept when it applied, so the broken state
    can be shown)."""
    try:
        state = log.initial_state()
    except VillageError as exc:
        raise ViewError(f"the log's set-up cannot be made: {exc}") from None
    run = _Replay([state], [], [], [], [], None, "")
    problem = ""
    broken_at: int | None = None
    found = state_violations(state) if check else []
    if found:
        broken_at, problem = 0, "the set-up breaks: " + "; ".join(str(v) for v in found)
    for k, text in enumerate(log.actions, start=1):
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
        run.states.append(after)
        run.actions.append(action)
        run.texts.append(text)
        run.seats.append(seat)
        run.rules.append(tuple(trace))
        if check:
            found = [*state_violations(after), *transition_violations(state, action, after)]
            if found:
                broken_at, problem = k, "invariants broken: " + "; ".join(str(v) for v in found)
        state = after
    return _Replay(run.states, run.actions, run.texts, run.seats, run.rules, broken_at, problem)


def _setting(log: GameLog) -> str:
    readings = ", ".join(f"{amb} {letter}" for amb, letter in log.variant.choices) or "the default readings"
    who = "1 player against Carla" if log.players == 1 else f"{log.players} players"
    return f"{log.edition}, {who}, seed {log.seed}, {readings}"


def log_story(log: GameLog, name: str, window: int | None = None) -> Story:
    """A game log or a fuzz failure log: the first broken step (if any) highlighted."""
    run = _replay(log)
    n = run.last
    if run.broken_at is not None:
        kind = "failing game log"
        summary = f"{_setting(log)}: {n} of {len(log.actions)} actions replayed; {run.problem}"
    else:
        end = "the game is over" if run.states[-1].is_terminal else "the game goes on"
        kind = "game log"
        summary = f"{_setting(log)}: {n} actions, every invariant holds after each; {end}"
    first = _first(n, run.broken_at, window)
    return Story(
        f"village-rules view: {name}", kind, summary, run.frames(first), run.broken_at, run.problem, first
    )


def proof_story(log: GameLog, query: Query, name: str, window: int | None = None) -> Story:
    """A proof witness: the first step at which its query's concrete predicate holds."""
    run = _replay(log, check=window is None)
    history = History([run.states[0]])
    holds: int | None = None
    for k, action in enumerate(run.actions, start=1):
        steps = apply_steps(history.last, action)  # judged after every sub-step, with its events
        # the report's page (a window) asks only at the end: its step has just checked that
        # the query holds there and not one action earlier
        if window is None or k == run.last:
            if play_steps(history, steps, query.concrete):
                holds = k
                break
        else:
            for sub in steps:
                history.push_sub(sub)
    where = "" if query.source == "catalogue" else f", from {query.source}"
    title = f"query {query.number} ({query.name}{where}): {query.title}"
    first = _first(run.last, holds, window)
    if holds is None:
        summary = f"{_setting(log)}: the query does not hold at any step of this log"
        if run.broken_at is not None:
            summary += f"; {run.problem}"
        return Story(
            f"village-rules view: {name}",
            "proof witness",
            f"{title}. {summary}",
            run.frames(first),
            first=first,
        )
    summary = f"{_setting(log)}: the query holds after action {holds} of {len(log.actions)}"
    return Story(
        f"village-rules view: {name}",
        "proof witness",
        f"{title}. {summary}",
        run.frames(first),
        holds,
        f"query {query.number} holds here: {query.title}",
        first,
    )


def explorer_story(log: GameLog, named: WitnessName, name: str, window: int | None = None) -> Story:
    """An explorer witness (`explore --witnesses`, named `{configuration}-{players}p-{query}.json`):
    the last step, after which its query's concrete predicate holds, highlighted; the
    setting names the configuration, not the edition its data file declares."""
    q = named.query
    run = _replay(log, check=window is None)
    history = History([run.states[0]])
    held = False
    for k, action in enumerate(run.actions, start=1):  # judged after every sub-step, with its events
        steps = apply_steps(history.last, action)
        if k == run.last:
            held = play_steps(history, steps, q.concrete)
        else:
            for sub in steps:
                history.push_sub(sub)
    setting = _setting(log).replace(log.edition, f"configuration {named.configuration}", 1)
    title = f"query {q.number} ({q.name}): {q.title}"
    first = _first(run.last, None, window)
    total = len(log.actions)
    if run.last != total or not held:
        why = f"; {run.problem}" if run.broken_at is not None else ""
        summary = f"{setting}: the query does not hold after the last action ({total}){why}"
        return Story(
            f"village-rules view: {name}",
            f"explorer witness of query {q.number} on configuration {named.configuration}",
            f"{title}. {summary}",
            run.frames(first),
            first=first,
        )
    summary = (
        f"{setting}: the query holds after the last action ({total} of {total}), where the witness stops"
    )
    return Story(
        f"village-rules view: {name}",
        f"explorer witness of query {q.number} on configuration {named.configuration}",
        f"{title}. {summary}",
        run.frames(first),
        run.last,
        f"query {q.number} holds here: {q.title}",
        first,
    )


def divergence_story(witness: Witness, name: str, window: int | None = None) -> Story:
    """A divergence witness, replayed under its first reading: the last step, after which
    the two readings part, highlighted."""
    left, _ = witness.variants()
    log = GameLog(witness.edition, witness.players, witness.seed, witness.actions, left)
    run = _replay(log, check=window is None)
    if window is None:
        try:
            diff = replay_both(witness)
        except VillageError as exc:
            raise ViewError(f"{name}: the witness no longer replays: {exc}") from None
    else:  # the report's page: its step has just compared both readings with the stored ones
        diff = Difference(witness.kind, witness.detail)
    pair = f"{witness.amb} {witness.left_letter}/{witness.right_letter}"
    first = _first(run.last, None, window)
    if diff is None:
        summary = (
            f"{_setting(log)}: the readings {pair} no longer part on these {len(witness.actions)} actions"
        )
        return Story(
            f"village-rules view: {name}", "divergence witness", summary, run.frames(first), first=first
        )
    summary = (
        f"{_setting(log)}: the readings {pair} part after action {run.last}: {diff.kind} "
        f"(the board drawn under reading {witness.left_letter})"
    )
    note = f"readings {pair} part here: {_PARTING.get(diff.kind, diff.kind + ' differ')}"
    return Story(
        f"village-rules view: {name}",
        "divergence witness",
        summary,
        run.frames(first),
        run.last,
        note,
        first,
        diff.detail,
    )


__all__ = ["divergence_story", "explorer_story", "log_story", "proof_story", "story_of_file", "witness_query"]
