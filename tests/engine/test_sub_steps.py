"""`apply_steps` (engine.events): a step as its sub-steps, tied to `apply` on every step of
the golden games and of seeded games of both editions, solo included.

Each sub-step is a legal engine step from its genuine `before` state (the engine accepts its
action there, and the first sub-step of doing so again ends at its `after`); the sub-steps
chain; the last `after` is `apply`'s result; the events, concatenated, are `apply`'s trace."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest
from support import TESTS

from village_rules import new_game
from village_rules.drivers.play import GameLog, random_policy
from village_rules.drivers.serialization import to_json
from village_rules.engine.core import apply, apply_steps, chance_outcomes, legal_actions
from village_rules.engine.events import SubStep
from village_rules.model.actions import Action, parse_action
from village_rules.model.pending import ChooseTurn
from village_rules.model.state import GameState
from village_rules.proofs.link.regressions import REGRESSIONS
from village_rules.rule_ids import RuleId

GOLDEN = sorted((TESTS / "golden" / "engine-golden").glob("*-seed*.json"))
EVIDENCE = sorted(REGRESSIONS.glob("two-deaths-one-turn-*.json"))


def _check_step(state: GameState, action: Action) -> tuple[SubStep, ...]:
    trace: list[str] = []
    result = apply(state, action, trace=trace)
    steps = apply_steps(state, action)
    assert steps, "a step has at least the given action's sub-step"
    assert steps[0].before is state and steps[0].action == action and not steps[0].forced
    assert to_json(steps[-1].after) == to_json(result)
    assert [e.rule for s in steps for e in s.events] == trace
    for a, b in itertools.pairwise(steps):
        assert a.after is b.before  # they chain
        assert b.forced and legal_actions(b.before) == [b.action]  # taken by the engine, forced
    for sub in steps:
        again = apply_steps(sub.before, sub.action)  # a legal engine step from `before`
        assert to_json(again[0].after) == to_json(sub.after)
        assert to_json(again[-1].after) == to_json(result)
    return steps


def _play_checked(state: GameState, actions: list[Action]) -> int:
    forced = 0
    for action in actions:
        steps = _check_step(state, action)
        forced += len(steps) - 1
        state = steps[-1].after
    return forced


@pytest.mark.parametrize("path", GOLDEN[::3], ids=lambda p: p.stem)
def test_golden_games_sub_steps_match_apply(path: Path) -> None:
    log = GameLog.from_json(path.read_text())
    _play_checked(log.initial_state(), [parse_action(a) for a in log.actions])


@pytest.mark.parametrize(
    ("edition", "players", "seed"),
    [("big-box-2023", 1, 3), ("big-box-2023", 2, 5), ("original-2011", 2, 7), ("big-box-2023", 3, 11)],
)
def test_seeded_games_sub_steps_match_apply(edition: str, players: int, seed: int) -> None:
    state = new_game(edition, players, seed)
    rng = random.Random(seed)
    forced = 0
    while not state.is_terminal:
        if state.is_chance:
            outcomes = chance_outcomes(state)
            action = rng.choices([a for a, _ in outcomes], [float(p) for _, p in outcomes])[0]
        else:
            action = random_policy(state, legal_actions(state), rng)
        steps = _check_step(state, action)
        forced += len(steps) - 1
        state = steps[-1].after
    assert forced > 0  # the check saw decisions the engine took itself


def test_a_forced_turn_choice_is_a_sub_step_of_its_own() -> None:
    """The merged-turn evidence: a seat's next turn taken by the engine (a lone legal take)
    is visible as a sub-step whose `before` waits for that seat's `ChooseTurn`."""
    log = GameLog.from_json(EVIDENCE[0].read_text())
    state = log.initial_state()
    seen = 0
    for text in log.actions:
        steps = apply_steps(state, parse_action(text))
        seen += sum(1 for s in steps[1:] if isinstance(s.before.pending, ChooseTurn))
        state = steps[-1].after
    assert seen > 0


def test_events_carry_their_moment() -> None:
    """The END-01 event names the seat that triggers the end (the state records it only
    after the site fires), and every event of a step is dated by its own state: a round of
    a seeded game's events never shows a market day before MKT-01 opened one."""
    state = new_game("big-box-2023", 2, 5)
    rng = random.Random(5)
    ended = None
    while not state.is_terminal:
        if state.is_chance:
            outcomes = chance_outcomes(state)
            action = rng.choices([a for a, _ in outcomes], [float(p) for _, p in outcomes])[0]
        else:
            action = random_policy(state, legal_actions(state), rng)
        for sub in apply_steps(state, action):
            for e in sub.events:
                if e.rule == RuleId.END_01:
                    ended = e
                if e.rule == RuleId.MKT_01:
                    assert e.market_player is None and e.seat is not None
            state = sub.after
    assert ended is not None and ended.end_by == ended.seat == state.end_triggered_by
