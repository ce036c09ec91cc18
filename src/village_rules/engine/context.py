"""The per-transition context: an opt-in trace of the rule IDs a transition applied, and
opt-in rule events with their moment (`engine.events`).

With `trace=None` and `events=None` (the default) `fire` does nothing, so tracing costs
nothing when off.
"""

from __future__ import annotations

from dataclasses import dataclass

from village_rules.engine.events import RuleEvent, moment
from village_rules.model.state import GameState
from village_rules.rule_ids import RuleId


@dataclass(slots=True)
class Ctx:
    """What one transition carries besides the state: the optional rule trace and events."""
    trace: list[str] | None = None
    events: list[RuleEvent] | None = None

    def fire(self, rule: RuleId, state: GameState, seat: int | None = None) -> None:
        """Record that a rule applied to `state` (for the seat `seat`, where the site names
        one); nothing when tracing and events are off."""
        if self.trace is not None:
            self.trace.append(rule)
        if self.events is not None:
            self.events.append(moment(rule, state, seat))
