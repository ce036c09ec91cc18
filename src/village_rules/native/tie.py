"""The tie: the native core compared with the reference at every step of a game.

At each state of a reference game the native core answers the same questions (the seat to
act, the legal action ids in order, the chance outcomes with exact probabilities, the
canonical JSON of the state, the scores and the winners at the end); where it implements the step, it also
applies the reference's action itself and must reach the same next state. The native game
runs on by itself as long as it can; after a step it does not implement it is loaded again
from the reference's state. The first difference raises `TieDifferenceError`, naming the step
and what differs (for a state, the first differing field's JSON path).

Until the conformance runner (`village-rules conform`) is merged, this is the comparison
the tests run; it asks only the engine protocol's methods, so it applies to that runner's
engines as they are.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from village_rules.drivers.play import GameLog, random_policy, step
from village_rules.drivers.serialization import to_json
from village_rules.engine.core import apply, chance_outcomes, legal_actions
from village_rules.engine.scoring import score_breakdown, winners
from village_rules.engine.setup import new_game
from village_rules.model.actions import Action, action_from_id, action_id, format_action, parse_action
from village_rules.model.pending import ChooseAction
from village_rules.model.state import GameState
from village_rules.native.engine import NativeEngine, NotSupportedError
from village_rules.rules.variant import Variant

Json = None | bool | int | float | str | list["Json"] | dict[str, "Json"]


class TieDifferenceError(AssertionError):
    """The native core and the reference differ: `step` (0-based action index of the game,
    the state before that action), `what` (legal, chance, state, player, scores, winners, apply) and
    `detail` (the first differing field or the two answers)."""

    def __init__(self, step: int, what: str, detail: str) -> None:
        super().__init__(f"step {step}: {what} differs: {detail}")
        self.step = step
        self.what = what
        self.detail = detail


@dataclass
class TieCounts:
    """What one or more compared games covered."""

    games: int = 0
    states: int = 0
    """States compared (JSON, seat to act), natively reached or loaded."""
    legal: int = 0
    """Decision states whose legal ids were compared."""
    chance: int = 0
    """Chance states whose outcomes and probabilities were compared."""
    applied: int = 0
    """Steps the native core applied itself, its next state then compared."""
    compared: dict[str, int] = field(default_factory=dict)
    """Questions answered natively and compared, by what was asked: "legal at ChooseTurn",
    "legal at ChooseAction(crafts)", "apply at ChooseTurn (well)" (the step, then the action's
    first word), ..."""
    unsupported: dict[str, int] = field(default_factory=dict)
    """Questions refused with NotSupportedError, by what was asked (as `compared`)."""
    refused_games: int = 0
    """Games refused at load (a configuration the core does not support)."""
    refused_why: dict[str, int] = field(default_factory=dict)
    """Steps the core refused to apply, by its NotSupportedError message (which step of the
    rules it does not implement): the measure of what to port next."""

    def add(self, other: TieCounts) -> None:
        """Add another count into this one."""
        self.games += other.games
        self.states += other.states
        self.legal += other.legal
        self.chance += other.chance
        self.applied += other.applied
        self.refused_games += other.refused_games
        for k, n in other.unsupported.items():
            self.unsupported[k] = self.unsupported.get(k, 0) + n
        for k, n in other.compared.items():
            self.compared[k] = self.compared.get(k, 0) + n
        for k, n in other.refused_why.items():
            self.refused_why[k] = self.refused_why.get(k, 0) + n

    def answered(self, what: str) -> None:
        """Count one question answered natively and compared."""
        self.compared[what] = self.compared.get(what, 0) + 1

    def refuse(self, what: str) -> None:
        """Count one NotSupportedError answer."""
        self.unsupported[what] = self.unsupported.get(what, 0) + 1

    def describe(self) -> str:
        """One line for a report."""
        refused = sum(self.unsupported.values())
        return (
            f"{self.games} games, {self.states} states compared (JSON and seat), {self.legal} legal sets, "
            f"{self.chance} chance events, {self.applied} steps applied natively, "
            f"{refused} questions not yet supported, {self.refused_games} games refused at load"
        )


def seeded_game(
    edition: str, players: int, seed: int, readings: Sequence[tuple[str, str]] = ()
) -> tuple[GameState, list[Action]]:
    """A random game of the reference from a fixed seed, to compare with `compare_game`: its
    initial state and every action to its end (uniform among the legal actions, chance
    outcomes with their probabilities, both drawn from `random.Random(seed)`)."""
    rng = random.Random(seed)
    state = initial = new_game(edition, players, seed, Variant(True, tuple(readings)))
    return initial, random_actions(state, rng)


def random_actions(state: GameState, rng: random.Random) -> list[Action]:
    """The actions of a random game from `state` to its end, as `drivers.play.step` draws
    them with `random_policy` at every seat (a chance outcome with its probability)."""
    everyone = [random_policy] * len(state.players)
    actions: list[Action] = []
    while not state.is_terminal:
        action = step(state, everyone, rng)
        actions.append(action)
        state = apply(state, action)
    return actions


def played_natively(initial: GameState, actions: Sequence[Action]) -> tuple[NativeEngine, GameState]:
    """The game applied natively from `initial`, loaded once and never again, beside the
    reference: the native engine at its end and the reference's last state."""
    engine = NativeEngine()
    engine.load_state(initial)
    state = initial
    for action in actions:
        engine.apply(action_id(state.rules.data, action))
        state = apply(state, action)
    return engine, state


def log_game(path: Path) -> tuple[GameState, list[Action]]:
    """A stored game log's initial state and actions, to compare with `compare_game`."""
    log = GameLog.from_json(path.read_text(encoding="utf-8"))
    return log.initial_state(), [parse_action(a) for a in log.actions]


def first_difference(native: str, reference: str) -> str:
    """The JSON path of the first field where two state texts differ (or where the texts
    differ though they parse equal: a formatting difference)."""
    a: Json = json.loads(native)
    b: Json = json.loads(reference)
    path = _diff(a, b, "$")
    if path is not None:
        return path
    at = next((i for i, (x, y) in enumerate(zip(native, reference, strict=False)) if x != y), None)
    if at is None:
        at = min(len(native), len(reference))
    return f"$ (the same value written differently, from character {at}: {native[at : at + 40]!r})"


def _diff(a: Json, b: Json, path: str) -> str | None:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b:
                return f"{path}.{key} (only in the {'reference' if key in b else 'native'} state)"
            found = _diff(a[key], b[key], f"{path}.{key}")
            if found is not None:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            found = _diff(x, y, f"{path}[{i}]")
            if found is not None:
                return found
        return None if len(a) == len(b) else f"{path} (lengths {len(a)} and {len(b)})"
    if a != b or type(a) is not type(b):
        return f"{path}: native {a!r}, reference {b!r}"
    return None


def compare_game(
    initial: GameState, actions: Sequence[Action], engine: NativeEngine | None = None
) -> TieCounts:
    """Play `actions` from `initial` on the reference and compare the native core at every
    step (module docstring). Raises `TieDifferenceError` at the first difference; a game the
    core refuses at load (NotSupportedError) is counted as refused, not compared."""
    engine = engine or NativeEngine()
    counts = TieCounts(games=1)
    try:
        engine.load_state(initial)
    except NotSupportedError:
        return TieCounts(refused_games=1)
    in_step = True  # the native game holds the reference's current state
    state = initial
    for k, action in enumerate([*actions, None]):
        if not in_step:
            engine.load_state(state)
        _compare_state(k, state, engine, counts)
        if action is None:
            break
        after = apply(state, action)
        try:
            engine.apply(action_id(state.rules.data, action))
        except NotSupportedError as refused:
            counts.refuse(f"apply at {step_name(state)} ({format_action(action).split()[0]})")
            why = str(refused)
            counts.refused_why[why] = counts.refused_why.get(why, 0) + 1
            in_step = False
        else:
            counts.applied += 1
            counts.answered(f"apply at {step_name(state)} ({format_action(action).split()[0]})")
            in_step = True
        state = after
    return counts


def step_name(state: GameState) -> str:
    """The pending step's name as the counts give it: its class, and for an action step its
    space ("ChooseAction(crafts)"), as each space's actions are ported one by one."""
    pending = state.pending
    if isinstance(pending, ChooseAction):
        return f"ChooseAction({pending.space.value})"
    return type(pending).__name__


def _compare_state(k: int, state: GameState, engine: NativeEngine, counts: TieCounts) -> None:
    counts.states += 1
    reference = to_json(state)
    native = engine.state_json()
    if native != reference:
        raise TieDifferenceError(k, "state", first_difference(native, reference))
    if engine.current_player() != state.current_player():
        who = f"native {engine.current_player()}, reference {state.current_player()}"
        raise TieDifferenceError(k, "player", who)
    data = state.rules.data
    step = step_name(state)
    if state.is_chance:
        try:
            got = engine.chance_outcomes()
        except NotSupportedError:
            counts.refuse(f"chance at {step}")
        else:
            want = [(action_id(data, a), p) for a, p in chance_outcomes(state)]
            if got != want:
                raise TieDifferenceError(k, "chance", _lists(got, want))
            counts.chance += 1
            counts.answered(f"chance at {step}")
    elif not state.is_terminal:
        try:
            got_ids = engine.legal_actions()
        except NotSupportedError:
            counts.refuse(f"legal at {step}")
        else:
            want_ids = [action_id(data, a) for a in legal_actions(state)]
            if got_ids != want_ids:
                raise TieDifferenceError(k, "legal", _lists(got_ids, want_ids, data_actions=state))
            counts.legal += 1
            counts.answered(f"legal at {step}")
    else:
        try:
            scores, won = engine.scores(), engine.winners()
        except NotSupportedError:
            counts.refuse("scores")
        else:
            want_scores = [b.total for b in score_breakdown(state)]
            if scores != want_scores:
                raise TieDifferenceError(k, "scores", f"native {scores}, reference {want_scores}")
            want_won = list(winners(state))
            if won != want_won:  # the tie-breaks (SCORE-07, AMB-29)
                raise TieDifferenceError(k, "winners", f"native {won}, reference {want_won}")
            counts.answered("scores")


def _lists(got: Sequence[object], want: Sequence[object], data_actions: GameState | None = None) -> str:
    """Where two answers first part: the position and both items (as action texts)."""
    pairs = enumerate(zip(got, want, strict=False))
    at = next((i for i, (x, y) in pairs if x != y), min(len(got), len(want)))

    def show(items: Sequence[object]) -> str:
        item = items[at] if at < len(items) else "(none)"
        if data_actions is not None and isinstance(item, int):
            return f"{item} ({format_action(action_from_id(data_actions.rules.data, item))})"
        return repr(item)

    return (
        f"at position {at}: native {show(got)}, reference {show(want)} "
        f"({len(got)} native, {len(want)} reference)"
    )
