"""Stage: search (the path concrete predicates read).

The path of a game so far, as the concrete predicates of the catalogue see it.

The path is recorded by sub-steps (`engine.events`): every decision, those the engine took
itself (a lone legal take, a dying choice, a payment) included, with the genuine state it
was taken at and the rule events it fired. So a state with a forced `ChooseTurn` pending is
on the path and a turn is well defined (from one turn-beginning sub-step to the next), and
a predicate is judged after every sub-step, with the events of the last one at hand
(`History.events`), not only after every `apply` step. The game log of a path is its
`decisions` (the sub-steps not forced): replaying them with `apply` gives the same game."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from village_rules.data.components import InChronicle, InGraveyard, Removed
from village_rules.engine.core import apply_steps
from village_rules.engine.events import RuleEvent, SubStep
from village_rules.model.actions import Action
from village_rules.model.pending import ChooseTurn
from village_rules.model.state import GameState


@dataclass
class History:
    """`states[i + 1]` is the state after the sub-step `actions[i]` taken at `states[i]`
    (`forced[i]`: taken by the engine itself, `events[i]`: the rule events it fired); the
    last state is the current one. A history built from states and actions alone (no
    `forced`, no `events`) counts every action as a decision with no events."""

    states: list[GameState]
    actions: list[Action] = field(default_factory=list)
    round_starts: dict[str, list[tuple[int, str]]] = field(default_factory=dict)
    """Memo of the predicates that compare round starts: (state index, fingerprint) per kind."""
    content: list[dict[str, int]] = field(default_factory=list)
    """alpha_c of each state along the path (`proofs.model.content.content_vars`), where the link's
    games record it (the turn's path variables need the path); empty otherwise."""
    forced: list[bool] = field(default_factory=list)
    events: list[tuple[RuleEvent, ...]] = field(default_factory=list)
    step_count: int = field(default=0, init=False)
    """How many `apply` steps (decisions, the sub-steps not forced) the path holds."""
    goal_held_at: int = field(default=-1, init=False)
    """How many sub-steps the path held when `play`'s goal last held (-1: never): a judge
    reads it instead of asking a predicate again, which a predicate with a memo on the
    history (the round starts of `earlier_round_start`) would answer wrongly."""

    def __post_init__(self) -> None:
        missing = len(self.actions) - len(self.forced)
        self.forced.extend([False] * missing)
        self.events.extend([()] * (len(self.actions) - len(self.events)))
        self.step_count = self.forced.count(False)

    @property
    def last(self) -> GameState:
        """The latest state."""
        return self.states[-1]

    @property
    def decisions(self) -> list[Action]:
        """The actions the game log holds (every sub-step's action but the forced ones)."""
        return [a for a, f in zip(self.actions, self.forced, strict=True) if not f]

    def openings(self) -> list[tuple[int, bool]]:
        """For each decision (the sub-steps not forced), at the state it is taken at: the
        round, and whether a turn begins there (a turn choice is pending): where the
        shrinker's rounds and turns begin (`shrink.Replayed`)."""
        return [
            (self.states[i].round, isinstance(self.states[i].pending, ChooseTurn))
            for i, forced in enumerate(self.forced)
            if not forced
        ]

    def prefix(self, p: int) -> History:
        """A new history of the sub-steps before decision `p` (0-based; `step_count` for the
        whole), to play on (`shrink.Replayed`); the states are shared, being immutable."""
        starts = [i for i, forced in enumerate(self.forced) if not forced]
        i = starts[p] if p < len(starts) else len(self.actions)
        return History(self.states[: i + 1], self.actions[:i], forced=self.forced[:i], events=self.events[:i])

    def action_number(self, index: int) -> int:
        """How many actions of the game log lead to `states[index]` (the decisions among the
        sub-steps before it): the number a reader replaying the log counts."""
        return self.forced[: index % len(self.states)].count(False)

    def fork(self) -> History:
        """A copy that can be pushed on without changing this one (the states themselves
        are immutable and shared)."""
        return History(
            list(self.states),
            list(self.actions),
            {kind: list(seen) for kind, seen in self.round_starts.items()},
            list(self.content),
            list(self.forced),
            list(self.events),
        )

    def push(
        self, action: Action, after: GameState, events: tuple[RuleEvent, ...] = (), forced: bool = False
    ) -> None:
        """Record a sub-step: its action, the state after it, its events."""
        self.actions.append(action)
        self.states.append(after)
        self.forced.append(forced)
        self.events.append(events)
        if not forced:
            self.step_count += 1

    def push_sub(self, sub: SubStep) -> None:
        """Record one sub-step of `engine.core.apply_steps`."""
        self.push(sub.action, sub.after, sub.events, sub.forced)

    def play(self, action: Action, goal: Callable[[History], bool] | None = None) -> bool:
        """Take `action` at the current state (`apply_steps`) and record its sub-steps; with
        a `goal`, judge it after each and stop at the first sub-step where it holds (the
        step is still the whole decision: the game log replays it). Whether it held."""
        steps = apply_steps(self.last, action)
        if goal is None:
            for sub in steps:
                self.push_sub(sub)
            return False
        held = play_steps(self, steps, goal, stop=True)
        if held:
            self.goal_held_at = len(self.actions)
        return held


def play_steps(
    history: History, steps: tuple[SubStep, ...], goal: Callable[[History], bool], *, stop: bool = False
) -> bool:
    """Record `steps` (one `apply` step's sub-steps) and judge `goal` after each (with
    `stop`, the history ends at the first sub-step where it holds). Whether it held after
    some sub-step."""
    held = False
    for sub in steps:
        history.push_sub(sub)
        if goal(history):
            held = True
            if stop:
                break
    return held


def last_events(history: History) -> tuple[RuleEvent, ...]:
    """The rule events of the last sub-step (none at the start)."""
    return history.events[-1] if history.events else ()


def earlier_round_start(history: History, kind: str, fingerprint: Callable[[GameState], str]) -> int | None:
    """If the last step began a round: the index of an earlier round start with the same
    fingerprint (else None). Fingerprints are memoised per `kind` along the history."""
    n = len(history.states)
    if n < 2 or history.states[-1].round != history.states[-2].round + 1:
        return None
    seen = history.round_starts.setdefault(kind, [])
    if not seen or seen[-1][0] < n - 1:
        # catch up with round starts not yet fingerprinted (a history built without the memo)
        done = seen[-1][0] if seen else 0
        for i in range(max(done + 1, 1), n - 1):
            if history.states[i].round == history.states[i - 1].round + 1:
                seen.append((i, fingerprint(history.states[i])))
    now = fingerprint(history.states[-1])
    match = next((i for i, f in reversed(seen) if f == now), None)
    seen.append((n - 1, now))
    return match


def dead(state: GameState, seat: int) -> int:
    """How many of a seat's members have died (chronicle, graveyard or removed)."""
    return sum(
        1 for loc in state.players[seat].members if isinstance(loc, InChronicle | InGraveyard | Removed)
    )


def turn_start(history: History) -> int | None:
    """Index of the state where the current turn was chosen (the last `ChooseTurn` before now).
    A turn chosen by the engine (its only legal take) is on the path as a sub-step, so two
    turns of a seat are never merged."""
    for i in range(len(history.states) - 2, -1, -1):
        if isinstance(history.states[i].pending, ChooseTurn):
            return i
    return None


def same_market_day(a: GameState, b: GameState) -> bool:
    """Whether consecutive states `a` and `b` hold the same market day: within one day its
    market-day player stays, passes only accumulate, and neither the first sale nor the
    closing is undone (one step can end a day and begin the next: that is a new day)."""
    x, y = a.market_day, b.market_day
    if x is None or y is None or x.trigger != y.trigger:
        return False
    return set(x.passed) <= set(y.passed) and y.trigger_sold >= x.trigger_sold and y.closed >= x.closed


def market_day_start(history: History, index: int = -1) -> int | None:
    """The index of the first state of the market day held at `states[index]` (None if no
    market day is held there)."""
    i = index % len(history.states)
    if history.states[i].market_day is None:
        return None
    while i > 0 and same_market_day(history.states[i - 1], history.states[i]):
        i -= 1
    return i
