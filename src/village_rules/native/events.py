"""The native core's rule events of a step as the reference's own values.

`Game.apply_steps(id)` (cpp/events.hpp, cpp/core.cpp) applies an action id as `apply` does and
reports the step as the reference's `engine.core.apply_steps` does: the given action's
sub-step, then one per decision with a single legal action that the engine took itself, each
with the rule events fired in it and their moment (`engine.events`). The binding answers in
plain tuples; `native_steps` turns them into `RuleEvent`s, `reference_steps` puts the
reference's sub-steps in the same terms (action ids), and `step_difference` names the first
place where the two differ. tests/native/test_native_events.py ties them (docs/native.md).
"""

from __future__ import annotations

from collections.abc import Sequence

from village_rules.engine.core import apply_steps
from village_rules.engine.events import RuleEvent
from village_rules.model.actions import Action, action_id
from village_rules.model.state import GameState
from village_rules.native import _core
from village_rules.rule_ids import RuleId

NativeEvent = tuple[str, int | None, int | None, int | None, bool, int | None, int]
"""An event as the binding gives it: (rule, seat, turn_of, market_player, mass, end_by, round)."""

StepEvents = tuple[int, bool, tuple[RuleEvent, ...]]
"""One sub-step: the action id, whether the engine took it itself (forced), its events."""

EVENT_PLANTS = ("drop MKT-01",)
"""The planted bugs `Game.set_event_plant` takes (tests): the core leaves that rule's events out."""


def rule_events(raw: Sequence[NativeEvent]) -> tuple[RuleEvent, ...]:
    """The binding's events as `RuleEvent`s; an ID that is not a rule (specs/rules.md) is refused."""
    return tuple(
        RuleEvent(RuleId(rule), seat, turn_of, market_player, mass, end_by, round_)
        for rule, seat, turn_of, market_player, mass, end_by, round_ in raw
    )


def native_steps(game: _core.Game, ident: int) -> list[StepEvents]:
    """Apply `ident` to `game` (`Game.apply_steps`: `apply`'s checks and errors) and return
    the step's sub-steps with their events."""
    return [(action, forced, rule_events(events)) for action, forced, events in game.apply_steps(ident)]


def reference_steps(state: GameState, action: Action) -> tuple[list[StepEvents], GameState]:
    """The reference's sub-steps of `action` at `state` (`engine.core.apply_steps`) in the
    terms of `native_steps`, and the state after the step."""
    data = state.rules.data
    subs = apply_steps(state, action)
    return [(action_id(data, sub.action), sub.forced, sub.events) for sub in subs], subs[-1].after


def step_difference(native: Sequence[StepEvents], reference: Sequence[StepEvents]) -> str | None:
    """The first difference between two reports of one step, in words (the sub-step, then the
    event, missing, extra or differing); None when they are the same."""
    for k in range(max(len(native), len(reference))):
        if k >= len(native):
            return f"sub-step {k} ({_describe(reference[k])}) is missing natively"
        if k >= len(reference):
            return f"sub-step {k} ({_describe(native[k])}) is extra natively"
        (n_action, n_forced, n_events), (r_action, r_forced, r_events) = native[k], reference[k]
        if (n_action, n_forced) != (r_action, r_forced):
            return f"sub-step {k}: native {_describe(native[k])}, reference {_describe(reference[k])}"
        for e in range(max(len(n_events), len(r_events))):
            if e < len(n_events) and e < len(r_events) and n_events[e] == r_events[e]:
                continue
            if e < len(r_events) and n_events[e:] == r_events[e + 1 :]:
                return f"sub-step {k} event {e}: {r_events[e]} is missing natively"
            if e < len(n_events) and n_events[e + 1 :] == r_events[e:]:
                return f"sub-step {k} event {e}: {n_events[e]} is extra natively"
            native_event = n_events[e] if e < len(n_events) else "none"
            reference_event = r_events[e] if e < len(r_events) else "none"
            return f"sub-step {k} event {e}: native {native_event}, reference {reference_event}"
    return None


def _describe(step: StepEvents) -> str:
    action, forced, events = step
    return f"action id {action}{', forced' if forced else ''}, {len(events)} events"
