"""The path of a game so far, as the concrete predicates of the catalogue see it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from village_rules.data.components import InChronicle, InGraveyard, Removed
from village_rules.model.actions import Action
from village_rules.model.pending import ChooseTurn
from village_rules.model.state import GameState


@dataclass
class History:
    """`states[i + 1]` is `apply(states[i], actions[i])`; the last state is the current one."""

    states: list[GameState]
    actions: list[Action] = field(default_factory=list)
    round_starts: dict[str, list[tuple[int, str]]] = field(default_factory=dict)
    """Memo of the predicates that compare round starts: (state index, fingerprint) per kind."""
    content: list[dict[str, int]] = field(default_factory=list)
    """alpha_c of each state along the path (`proofs.content.content_vars`), where the link's
    games record it (the turn's path variables need the path); empty otherwise."""

    @property
    def last(self) -> GameState:
        """The latest state."""
        return self.states[-1]

    def fork(self) -> History:
        """A copy that can be pushed on without changing this one (the states themselves
        are immutable and shared)."""
        return History(
            list(self.states),
            list(self.actions),
            {kind: list(seen) for kind, seen in self.round_starts.items()},
            list(self.content),
        )

    def push(self, action: Action, after: GameState) -> None:
        """Record an action and the state after it."""
        self.actions.append(action)
        self.states.append(after)


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
    """Index of the state where the current turn was chosen (the last `ChooseTurn` before now)."""
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
