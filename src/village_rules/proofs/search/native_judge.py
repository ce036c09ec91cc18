"""Stage: search (a witness shrunk on the native core).

The shrinker's candidates judged on the native core (issue 39 item 2, issue 41 item 4): a
candidate log is replayed by the core (`Game.apply_judged`), and the query judged by the
core's restatement of its concrete predicate or its path monitor after every sub-step of
each step (cpp/predicates.cpp, cpp/monitors.cpp; `village_rules.native.predicates`), as the
reference judge (`shrink.PredicateJudge`) judges it on `History`. Why: a shrink replays
thousands of candidates, a few million engine steps for the longest witnesses, and the
core plays a step many times faster than the reference.

The two judges are the same judge by the native predicates' tie (every edge of the shipped
configurations and every stored witness, tests/native/test_native_predicates.py); and since
the shrinker is deterministic, a shrink with either gives the same log, replays and steps
(tests/native/test_native_shrink.py). `shrink_natively` keeps the reference the authority:
the shrunk log is replayed on the reference judge, which must find the query first holding
at its last action (`NativeJudgeTieError` otherwise, naming the log), and the result carries
that reference `History`.

Only the queries the core judges (`native_queries`) can be shrunk here; the others (the
lasso, the score pump, a user's own query) keep the reference judge.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from village_rules.data.edition import EditionData
from village_rules.drivers.play import GameLog
from village_rules.errors import IllegalActionError, VillageError
from village_rules.model.actions import Action, action_from_id, action_id, format_action
from village_rules.proofs.search.history import History
from village_rules.proofs.search.shrink import MAX_STEPS, Judge, NotAWitnessError, Shrunk, first_holds, shrink

if TYPE_CHECKING:  # the optional extension: imported where it runs
    from village_rules.native._core import Game

Value = tuple[int, ...] | None


class NativeJudgeTieError(VillageError):
    """The native judge and the reference judge part on a shrunk witness."""


def native_queries() -> frozenset[str]:
    """The queries whose witnesses the native core can judge (empty without the extension)."""
    try:
        from village_rules.native import predicates  # noqa: PLC0415 (the optional extension)
    except ImportError:
        return frozenset()
    return frozenset(predicates.STEP_QUERIES) | frozenset(predicates.MONITORS)


@dataclass
class NativePath:
    """A candidate replayed on the native core, as the shrinker reads it (`shrink.Replayed`):
    the live game, and before each decision a copy of the game, the monitors' values and
    where the decision stands (round, whether a turn begins)."""

    game: Game
    values: list[Value]
    before: list[tuple[Game, list[Value]]] = field(default_factory=list)
    marks: list[tuple[int, bool]] = field(default_factory=list)
    actions: list[Action] = field(default_factory=list)
    held: bool = False
    options: frozenset[int] | None = None
    """The ids of the options at the path's end, once asked (a bridge asks up to 8 times)."""

    @property
    def decisions(self) -> list[Action]:
        """The game log's actions so far."""
        return list(self.actions)

    @property
    def step_count(self) -> int:
        """How many decisions the path holds."""
        return len(self.actions)

    def openings(self) -> list[tuple[int, bool]]:
        """For each decision: the round, and whether a turn begins there."""
        return list(self.marks)

    def prefix(self, p: int) -> NativePath:
        """A new path of the decisions before `p`, its game a copy of the one kept there."""
        if p >= len(self.actions):
            game, values = self.game.copy(), list(self.values)
        else:
            kept, kept_values = self.before[p]
            game, values = kept.copy(), list(kept_values)
        return NativePath(game, values, self.before[:p], self.marks[:p], self.actions[:p])


class NativeJudge:
    """The shrinker's judge on the native core, for one query the core judges (`shrink.Judge`)."""

    def __init__(self, query: str, data: EditionData, high_scores: Mapping[int, int]) -> None:
        from village_rules.native import predicates  # noqa: PLC0415 (the optional extension)

        if query in predicates.STEP_QUERIES:
            self._bit, self._monitored = 1 << predicates.STEP_QUERIES.index(query), False
        elif query in predicates.MONITORS:
            self._bit, self._monitored = 1 << predicates.MONITORS.index(query), True
        else:
            raise ValueError(f"the native core does not judge {query!r}")
        self.query = query
        self._data = data
        predicates.set_high_scores(data, high_scores)
        self._starts = [predicates.MONITOR_STARTS[m] for m in predicates.MONITORS]
        self._ids: dict[Action, int] = {}  # each action's id, once computed

    def start(self, log: GameLog) -> NativePath:
        """The path of the log's set-up, loaded into the core."""
        from village_rules.native.engine import native_game  # noqa: PLC0415 (the optional extension)

        return NativePath(native_game(log.initial_state()), list(self._starts))

    def take(self, path: NativePath, action: Action) -> bool:
        """Play `action` if it is one of the options at the path's end; whether it was."""
        if path.options is None:
            game = path.game
            if game.is_terminal():
                path.options = frozenset()
            elif game.is_chance():
                path.options = frozenset(i for i, n, _ in game.chance() if n > 0)
            else:
                path.options = frozenset(game.legal())
        ident = self._ids.get(action)
        if ident is None:
            try:
                ident = action_id(self._data, action)
            except VillageError:  # not an action of this edition: not an option, as on the reference
                ident = -1
            self._ids[action] = ident
        if ident not in path.options:
            return False
        self._play(path, action, ident)
        return True

    def first_option(self, path: NativePath) -> Action | None:
        """The first legal action, or the first outcome of non-zero probability; None at the end."""
        game = path.game
        if game.is_terminal():
            return None
        chance = game.is_chance()
        ident = next(i for i, n, _ in game.chance() if n > 0) if chance else game.legal()[0]
        return action_from_id(self._data, ident)

    def advance(self, path: NativePath, action: Action) -> None:
        """Play `action`; `IllegalActionError` when it is not an option (the path unchanged)."""
        if not self.take(path, action):
            problem = "not an option at this state"
            if path.game.is_chance():
                raise IllegalActionError("CHANCE", format_action(action), problem)
            raise IllegalActionError("STEP", format_action(action), problem)

    def _play(self, path: NativePath, action: Action, ident: int) -> None:
        """Apply and judge the step; the path records it only once the core has applied it."""
        game = path.game
        kept = (game.copy(), list(path.values))
        mark = (game.round(), game.turn_begins())
        judged = game.apply_judged(ident, path.values)  # the core's state unchanged on an error
        held = False
        values = path.values
        for _, _, steps, after, monitored in judged:
            held = held or bool((monitored if self._monitored else steps) & self._bit)
            values = list(after)
        path.before.append(kept)
        path.marks.append(mark)
        path.actions.append(action)
        path.values, path.held, path.options = values, held, None

    def holds(self, path: NativePath) -> bool:
        """Whether the query held after a sub-step of the path's last step."""
        return path.held


def shrink_natively(
    log: GameLog,
    query: str,
    reference: Judge[History],
    high_scores: Mapping[int, int],
    *,
    max_steps: int = MAX_STEPS,
) -> Shrunk[History]:
    """`shrink(log, ...)` with the candidates judged on the native core, the result replayed
    on the reference judge (`reference`), which must find the query first holding at its
    last action; the result carries the reference `History`."""
    judge = NativeJudge(query, log.initial_state().rules.data, high_scores)
    try:
        shrunk = shrink(log, judge, max_steps=max_steps)
    except NotAWitnessError:
        if first_holds(log, reference) is None:
            raise  # not a witness on the reference either: the log's fault, as the error says
        raise NativeJudgeTieError(
            f"{query}: the reference judge finds the query first holding at the end of the log, the "
            f"native judge does not: {log.to_json()}"
        ) from None
    history = first_holds(shrunk.log, reference)
    if history is None:
        raise NativeJudgeTieError(
            f"{query}: the native judge shrank a witness to {shrunk.after} actions that the reference "
            f"judge does not find the query first holding at its end: {shrunk.log.to_json()}"
        )
    return Shrunk(shrunk.log, history, shrunk.before, shrunk.replays, shrunk.steps, shrunk.minimal)
