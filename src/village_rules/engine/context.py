"""The per-transition context: an opt-in trace of the rule IDs a transition applied.

With `trace=None` (the default) `fire` does nothing, so tracing costs nothing when off.
"""

from __future__ import annotations

from dataclasses import dataclass

from village_rules.rule_ids import RuleId


@dataclass(slots=True)
class Ctx:
    """What one transition carries besides the state: the optional rule trace."""
    trace: list[str] | None = None

    def fire(self, rule: RuleId) -> None:
        """Record that a rule applied (nothing when tracing is off)."""
        if self.trace is not None:
            self.trace.append(rule)
