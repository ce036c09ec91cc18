"""Stage: search (a witness a person can read).

Shrinking a witness to a game a person can read: delta debugging over its actions.

A witness found by the steered search is a whole steered game up to the step where its
query first holds, mostly moves that have nothing to do with the query. `shrink` removes
what it can, keeping two things true: the log replays legally from its recorded set-up
(seed, edition, players, readings, data file; a chance outcome must keep a non-zero
probability) and the query holds at its end.

The method is the complement part of Zeller and Hildebrandt's ddmin: remove a chunk,
keep the removal when the test still passes, halve the chunk size when no chunk of a size
can go. (Its "reduce to a subset" tests are left out: a subset of a game's actions that
does not start at the set-up almost never replays.) It runs over three granularities in
turn, coarse first: whole rounds, whole turns (from one turn choice to the next) and single
actions; and repeats them until a sweep removes nothing, so the result is **1-minimal under
the shrinker**: no single round, turn or action can be removed (`is_minimal`). A removal
that makes the query hold earlier keeps only the game up to there (the tail is truncated).

Plain deletion rarely replays: without a turn, another seat is to act, a cube stays on the
board, a payment no longer fits, and a later recorded action is refused. So a candidate is
replayed with **repair** (`repair=True`, the default): a recorded action that does not
apply is bridged by the next of the following `LOOKAHEAD` recorded actions that does, or
else by the state's first option, and the candidate counts only when it is shorter than
the kept log. (Without repair the stored witnesses lose under 1 % of their actions.)

It is fast enough for games of thousands of actions because states are immutable: the
states of the kept log are cached, a candidate is replayed only from the first position
it changes, and chunks are tried from the end backwards, so a removal leaves the positions
before it (and the chunk boundaries there) as they were. Its budget is a number of engine
steps (`apply` calls over all replays), never a time: the same log, judge and budget give
the same result on any machine.

How a candidate is judged is one object, the `Judge`; `judge_for(query)` is the one place
that builds it for a catalogue query: the query's concrete predicate judged after every
sub-step of each action's step, with its rule events (`proofs.search.history`, `engine.events`), as
`replay` and `check` judge a stored witness.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Generic, Protocol, TypeVar

from village_rules.drivers.play import GameLog
from village_rules.engine.core import chance_outcomes
from village_rules.errors import IllegalActionError, VillageError
from village_rules.model.actions import Action, format_action, parse_action
from village_rules.proofs.search.history import History
from village_rules.proofs.search.search import options

MAX_STEPS = 2_000_000
"""The default budget of one shrink: engine steps over all its replays."""


class Replayed(Protocol):
    """A replayed game as the shrinker reads it: its decisions (the game log's actions; the
    decisions the engine took itself are not among them), where rounds and turns begin, and
    a copy of its beginning to replay a candidate from. `History` is one (the reference's
    states); `native_judge.NativePath` is another (the native core's)."""

    @property
    def decisions(self) -> list[Action]:
        """The game log's actions so far."""
        ...

    @property
    def step_count(self) -> int:
        """How many decisions the path holds."""
        ...

    def openings(self) -> list[tuple[int, bool]]:
        """For each decision, at the state it is taken at: the round, and whether a turn
        begins there (a turn choice is pending)."""
        ...

    def prefix(self: P, p: int) -> P:
        """A new path holding the decisions before decision `p` (0-based), to play on."""
        ...


P = TypeVar("P", bound=Replayed)


class Judge(Protocol[P]):
    """How the shrinker replays a candidate log and decides whether it still shows the query."""

    def start(self, log: GameLog) -> P:
        """The path of the log's set-up, before any action."""
        ...

    def take(self, path: P, action: Action) -> bool:
        """Play a recorded action if it is one of the options at the path's end (a legal
        action, or a chance outcome of non-zero probability, as the witness search takes
        them); whether it was (the path unchanged if not)."""
        ...

    def first_option(self, path: P) -> Action | None:
        """The first option at the path's end (its first legal action, or its first outcome
        of non-zero probability); None when the game is over."""
        ...

    def advance(self, path: P, action: Action) -> None:
        """Play `action` on the path's last state and record it; `VillageError` when the
        action may not be taken there (the path is then unchanged)."""
        ...

    def holds(self, path: P) -> bool:
        """Whether the query holds at the end of the path (which has at least one action)."""
        ...


@dataclass(frozen=True)
class PredicateJudge:
    """The judge: each action played on the real engine by its sub-steps (a chance outcome
    only with a non-zero probability, as the witness search takes them), the predicate
    judged after every sub-step with its rule events; the history stops at the first
    sub-step where it holds (`History.play`), so `holds` then sees it."""

    predicate: Callable[[History], bool]

    def start(self, log: GameLog) -> History:
        """The history of the log's set-up."""
        return History([log.initial_state()])

    def options(self, history: History) -> list[Action]:
        """The legal actions, or the chance outcomes of non-zero probability (`search.options`)."""
        state = history.last
        return [] if state.is_terminal else options(state)

    def take(self, history: History, action: Action) -> bool:
        """Play a recorded action if it is one of the options now, passing the engine's own
        object so `apply` need not check it again; whether it was."""
        for option in self.options(history):
            if option == action:
                self.advance(history, option)
                return True
        return False

    def first_option(self, history: History) -> Action | None:
        """The first of `options`; None when the game is over."""
        choices = self.options(history)
        return choices[0] if choices else None

    def advance(self, history: History, action: Action) -> None:
        """Play the action by its sub-steps, refusing a chance outcome of probability 0."""
        state = history.last
        if state.is_chance and not any(a == action and p > 0 for a, p in chance_outcomes(state)):
            problem = "not an outcome of non-zero probability"
            raise IllegalActionError("CHANCE", format_action(action), problem)
        history.play(action, self.predicate)

    def holds(self, history: History) -> bool:
        """Whether the predicate held after the history's last sub-step, as `advance` found
        it (`History.goal_held_at`; not asked again: a predicate may keep a memo on the path)."""
        return history.goal_held_at == len(history.actions)


class Judged(Protocol):
    """What `judge_for` reads of a query: its concrete predicate. A catalogue `Query` is one;
    the shrinker (search stage) names only this, so it does not import the catalogue, which
    is written over the search's `History` and `Steer` (no cycle between the two stages)."""

    @property
    def concrete(self) -> Callable[[History], bool]:
        """The query's concrete predicate over the real game path."""
        ...


def judge_for(query: Judged) -> Judge[History]:
    """The judge of `query`'s witnesses: the one place that says how a witness is judged
    (the query's concrete predicate, after every sub-step of the last action's step)."""
    return PredicateJudge(query.concrete)


@dataclass(frozen=True)
class Shrunk(Generic[P]):
    """The result of one shrink."""

    log: GameLog
    history: P
    """The replayed path of the shrunk log (the query holds at its end)."""
    before: int
    """Actions in the input log."""
    replays: int
    """Candidate logs tried."""
    steps: int
    """Engine steps spent over all replays (the budget's unit)."""
    minimal: bool
    """True when the last sweep removed nothing (1-minimal); False when the budget ran out first."""

    @property
    def after(self) -> int:
        """Actions in the shrunk log."""
        return len(self.log.actions)


class NotAWitnessError(VillageError):
    """The log given to `shrink` does not replay to its query."""


class _OutOfBudgetError(Exception):
    pass


LOOKAHEAD = 8
"""How many recorded actions a repaired replay looks ahead for one that applies."""


LEVELS = ("rounds", "turns", "actions")
"""The shrinker's granularities, coarse first."""


def _bounds(path: Replayed, level: str) -> list[int]:
    """The chunk boundaries of a level, in the log's actions (decisions): positions (0..n)
    where a unit begins, and n."""
    n = path.step_count
    if level == "actions":
        return list(range(n + 1))
    at = path.openings()
    if level == "turns":
        inner = [d for d in range(1, n) if at[d][1]]
    else:
        inner = [d for d in range(1, n) if at[d][0] != at[d - 1][0]]
    return [0, *inner, n]


class _Shrinker(Generic[P]):
    """The kept log, its replayed history, and the budget spent."""

    def __init__(self, log: GameLog, judge: Judge[P], max_steps: int, repair: bool) -> None:
        self.log, self.judge, self.max_steps, self.repair = log, judge, max_steps, repair
        self.replays = self.steps = 0
        try:
            actions = [parse_action(text) for text in log.actions]
            history = judge.start(log)
        except VillageError as exc:
            raise NotAWitnessError(f"the log does not replay: {exc}") from None
        for k, action in enumerate(actions, start=1):
            if not self._step(history, action):
                raise NotAWitnessError(
                    f"action {k} ({format_action(action)}) is not one of the options at its state"
                )
            self.steps += 1
            if judge.holds(history):  # the query may hold before the end: keep up to there
                break
        else:
            raise NotAWitnessError("the query does not hold at the end of the log")
        self.history = history

    def _step(self, path: P, action: Action) -> bool:
        return self.judge.take(path, action)

    def try_removing(self, p: int, q: int) -> bool:
        """Replay the kept log without actions [p, q) from the cached state at p; keep the
        candidate (up to where the query first holds) when it holds and is shorter. With
        `repair`, a recorded action that no longer applies is bridged (`_bridge`)."""
        rest = self.history.decisions[q:]
        if not rest or p >= q:
            return False  # the prefix before p does not show the query (it first holds at the end)
        self.replays += 1
        limit = self.history.step_count
        candidate = self.history.prefix(p)
        i = 0
        while i < len(rest) and candidate.step_count < limit:
            if self.steps >= self.max_steps:
                raise _OutOfBudgetError
            self.steps += 1
            if self._step(candidate, rest[i]):
                i += 1
            elif not self.repair:
                return False
            else:
                i = self._bridge(candidate, rest, i)
                if i < 0:  # nothing applies (the game is over): no candidate
                    return False
            if candidate.step_count >= limit:
                return False  # no shorter than the kept log
            if self.judge.holds(candidate):
                self.history = candidate
                return True
        return False

    def _bridge(self, candidate: P, rest: Sequence[Action], i: int) -> int:
        """`rest[i]` does not apply at the candidate's last state: take the first of the next
        `LOOKAHEAD` recorded actions that does (skipping those before it), else the state's
        first option (its first legal action, or its first outcome of non-zero probability)
        with `rest[i]` kept for later. The index of the next recorded action to try; -1
        when the state has no option (the game is over)."""
        for j in range(i + 1, min(len(rest), i + 1 + LOOKAHEAD)):
            if self._step(candidate, rest[j]):
                return j + 1
        first = self.judge.first_option(candidate)
        if first is None:
            return -1
        self.judge.advance(candidate, first)
        return i

    def level(self, name: str) -> bool:
        """ddmin's complement tests at one granularity, chunk sizes halving down to one unit
        (single actions only at the finest); whether anything was removed."""
        bounds = _bounds(self.history, name)
        # single actions only: the coarser chunks of actions are the turns and rounds
        size = 1 if name == "actions" else max(1, (len(bounds) - 1) // 2)
        removed_any = False
        while True:
            removed = False
            i = len(bounds) - 1
            while i > 0:
                j = max(0, i - size)
                if self.try_removing(bounds[j], bounds[i]):
                    removed = True
                    bounds = bounds[: j + 1]  # positions up to bounds[j] are as they were
                i = j
            removed_any |= removed
            if removed:
                bounds = _bounds(self.history, name)
                size = min(size, max(1, (len(bounds) - 1) // 2))
            elif size == 1:
                return removed_any
            else:
                size //= 2

    def removable(self) -> tuple[str, int, int] | None:
        """A single round, turn or action whose removal keeps the query (level, start, end),
        without keeping the removal; None when there is none."""
        kept = self.history
        for name in LEVELS:
            bounds = _bounds(kept, name)
            for j in range(len(bounds) - 2, -1, -1):
                if self.try_removing(bounds[j], bounds[j + 1]):
                    self.history = kept
                    return (name, bounds[j], bounds[j + 1])
        return None


def first_holds(log: GameLog, judge: Judge[P]) -> P | None:
    """The replayed history of `log` when the query holds first at its last action (as a
    stored witness must); None when it holds earlier or not at the end, or an action is not
    one of the options at its state. `VillageError` when the log's set-up cannot be made."""
    history = judge.start(log)
    for k, text in enumerate(log.actions, start=1):
        try:
            action = parse_action(text)
        except VillageError:
            return None
        if not judge.take(history, action):
            return None
        if judge.holds(history):
            return history if k == len(log.actions) else None
    return None


def _log_of(log: GameLog, actions: Sequence[Action]) -> GameLog:
    return replace(log, actions=tuple(format_action(a) for a in actions))


def shrink(log: GameLog, judge: Judge[P], *, max_steps: int = MAX_STEPS, repair: bool = True) -> Shrunk[P]:
    """The log with every round, turn and action removed that can go while it replays and
    `judge` still finds the query at its end; 1-minimal unless the budget of `max_steps`
    engine steps ran out (`Shrunk.minimal`). Deterministic. `NotAWitnessError` when the log
    does not replay to the query in the first place."""
    work = _Shrinker(log, judge, max_steps, repair)
    minimal = False
    try:
        while True:
            changed = False
            for name in LEVELS:
                changed |= work.level(name)
            if not changed:
                minimal = True
                break
    except _OutOfBudgetError:
        pass
    history = work.history
    shrunk = _log_of(log, history.decisions)
    return Shrunk(shrunk, history, len(log.actions), work.replays, work.steps, minimal)


def removable_part(
    log: GameLog, judge: Judge[P], *, max_steps: int = MAX_STEPS, repair: bool = True
) -> tuple[str, int, int] | None:
    """What could still be removed from a witness: (granularity, first, end) of a single
    round, turn or action (actions [first, end), counted from 0) whose removal keeps the
    query, or ("tail", k, n) when the query already holds after action k; None when the
    witness is 1-minimal under the shrinker. `NotAWitnessError` when it does not replay to
    its query; `RuntimeError` when the step budget runs out before the answer."""
    work = _Shrinker(log, judge, max_steps, repair)
    if work.history.step_count < len(log.actions):
        return ("tail", work.history.step_count, len(log.actions))
    try:
        return work.removable()
    except _OutOfBudgetError:
        raise RuntimeError(f"removable_part: more than {max_steps} engine steps") from None


def is_minimal(log: GameLog, judge: Judge[P], *, max_steps: int = MAX_STEPS, repair: bool = True) -> bool:
    """Whether a witness is 1-minimal under the shrinker: it replays to its query, the
    query holds after no earlier action, and no single round, turn or action can be
    removed with the query still holding at the end."""
    return removable_part(log, judge, max_steps=max_steps, repair=repair) is None
