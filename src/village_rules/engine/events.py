"""The rule events of a step, each with its moment, and the sub-steps a step is made of.

One `apply` step can settle several rule events and take decisions that offer a single
legal action itself (`core._settle`), so the state after a step does not show what happened
inside it: a seat's death and the end trigger, then the next seat's forced take and a
market day, all in one step. `core.apply_steps` reports a step as an ordered tuple of
`SubStep`s: the given action's, then one per decision the engine took itself. A sub-step's
`before` is the genuine state with that decision pending (the state `apply` would have
returned had the decision offered a choice), its `after` the state at the next decision
point, chance event or end, and its `events` the rule events fired in it, in order.

**How the moment is captured.** Every rule site calls `Ctx.fire(rule, state, seat)` with
the state it holds at that point of the rule (the state the rule is applied to). When
events are asked for, `Ctx.fire` reads the moment off that state: whose turn is in progress
(`turn_of`), the open market day's player (`market_player`; None when no day is open or its
selling is over), whether a mass is held, who has triggered the end (`end_by`, counting
the event itself for END-01 and END-10, whose site fires before the state records it), and
the round. Events can therefore be out of step with the sub-step's `after` (END-01 during a
market day that closes later in the same sub-step): a predicate judges by the event's
moment. When events are not asked for, `fire` returns at once (no event object is built).

**What a turn is** (2011 p. 4, 2023 p. 5: the players take turns, one cube each, and carry
out the action; its consequences, a market day, deaths, belong to it): a turn begins with a
`ChooseTurn` decision (a take, a well, a free final action), taken by the seat or by the
engine when it is the only legal action. That decision is always the action of its own
sub-step (`SubStep.begins_turn`), so "the same turn" is decidable on the sub-steps: from one
turn-beginning sub-step to the next. `turn_of` in an event says whose turn was in progress
(None between turns: the mass, the seeding of a round).
"""

from __future__ import annotations

from dataclasses import dataclass

from village_rules.model.actions import Action
from village_rules.model.pending import ChooseTurn
from village_rules.model.state import GameState
from village_rules.rule_ids import RuleId


@dataclass(frozen=True, slots=True)
class RuleEvent:
    """One rule applied, with its moment (see the module docstring)."""

    rule: str
    seat: int | None
    """The seat the rule concerns (the dying seat, the one triggering the end, the taker),
    where the site names one; else the seat whose turn is in progress, else None."""
    turn_of: int | None
    """The seat whose turn is in progress at this moment (None between turns)."""
    market_player: int | None
    """The market-day player of the market day open at this moment (None if none is open
    or its selling is over)."""
    mass: bool
    """Whether a mass is being held at this moment."""
    end_by: int | None
    """Who has triggered the end at this moment (for END-01 / END-10: the seat doing so)."""
    round: int


@dataclass(frozen=True, slots=True)
class SubStep:
    """One decision and everything the engine settled after it without a choice."""

    before: GameState
    action: Action
    after: GameState
    events: tuple[RuleEvent, ...]
    forced: bool = False
    """Whether the engine took this decision itself (it offered a single legal action);
    the first sub-step of a step is the given action's, never forced."""

    @property
    def begins_turn(self) -> bool:
        """Whether this sub-step's decision begins a turn (a take, a well, a free action)."""
        return isinstance(self.before.pending, ChooseTurn)


_END_SETTERS = frozenset({RuleId.END_01, RuleId.END_10})


def moment(rule: str, state: GameState, seat: int | None) -> RuleEvent:
    """The event of `rule` fired at `state` (see the module docstring)."""
    turn = state.turn
    turn_of = turn.seat if turn is not None else None
    day = state.market_day
    market_player = day.trigger if day is not None and not day.closed else None
    end_by = seat if rule in _END_SETTERS and seat is not None else state.end_triggered_by
    return RuleEvent(
        rule=rule,
        seat=seat if seat is not None else turn_of,
        turn_of=turn_of,
        market_player=market_player,
        mass=state.mass is not None,
        end_by=end_by,
        round=state.round,
    )
