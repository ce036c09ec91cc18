"""The z3 steer (`proofs.plan`): z3's plans over the rule-content model steer the witness
search of a query that has no hand-written steer; where the engine has no action of the
plan's kind, that kind is blocked and z3 asked again (CEGAR)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

import pytest

from village_rules.drivers.play import replay_log
from village_rules.engine.core import apply, chance_outcomes, legal_actions
from village_rules.engine.setup import new_game
from village_rules.errors import ParameterError
from village_rules.explore.witnesses import holds_after
from village_rules.model.actions import Action
from village_rules.model.state import GameState
from village_rules.proofs.catalogue import by_name
from village_rules.proofs.content import (
    K_DRAW_CUBE,
    K_LAST,
    K_TAKE,
    KIND_NAMES,
    P_MARKET,
    P_MASS_BUY,
    P_TURN,
    action_vars,
    content_vars,
)
from village_rules.proofs.errors import ProveArgumentError
from village_rules.proofs.history import History
from village_rules.proofs.plan import (
    Plan,
    PlanBudget,
    Planner,
    PlanStats,
    PlanStep,
    macro_steps,
    plan_attempt,
    plan_search,
)
from village_rules.proofs.search import Steer
from village_rules.rules.variant import Variant

FREE = by_name("free-final-action")
MONKS = by_name("mass-four-monks")
SEED = 1
"""A seed whose z3-steered game reaches query 6a's situation (2011, 2 players, depth 4);
the tests check the game is a witness, not that it is this seed's."""
SMALL = PlanBudget(depth=4)


def _rebuilt(log_actions: Sequence[Action], edition: str, players: int, seed: int) -> History:
    history = History([new_game(edition, players, seed, Variant())])
    for a in log_actions:
        history.play(a)  # by sub-steps, as the search judged it
    return history


def test_z3_steer_finds_a_witness_that_replays_and_is_deterministic() -> None:
    """Query 6a (four monks drawn at a mass) with its hand-written steer stripped: the
    z3-steered game on SEED is a witness (its log replays to the witness's final state, the
    rebuilt path meets the concrete predicate, z3's plans were followed), and a second run
    in the same process, after other z3 work, gives the same log."""
    stripped = replace(MONKS, steer=Steer())
    logs = []
    for _ in range(2):
        witness, games, stats = plan_search(
            "original-2011", 2, stripped.abstract, stripped.concrete, 1, first_seed=SEED, budget=SMALL
        )
        assert witness is not None and games == 1
        assert replay_log(witness.log).state == witness.final
        rebuilt = _rebuilt(witness.history.decisions, "original-2011", 2, SEED)
        assert rebuilt.last == witness.final
        assert holds_after(rebuilt.states[0], witness.log.actions, stripped)[-1] == len(witness.log.actions)
        assert stats.plans > 0 and stats.followed > 0 and stats.refinements > 0
        logs.append(witness.log.actions)
        Planner(new_game("original-2011", 2, 0, Variant()), FREE.abstract, SMALL).ask(
            content_vars(new_game("original-2011", 2, 0, Variant()))
        )
    assert logs[0] == logs[1]


def _after_seeding() -> History:
    """Seed 0's game (2011, 2 players) up to its first decision, each state's `content` kept."""
    state = new_game("original-2011", 2, 0, Variant())
    history = History([state], content=[content_vars(state)])
    while history.last.is_chance:
        outcome = chance_outcomes(history.last)[0][0]
        history.push(outcome, apply(history.last, outcome))
        history.content.append(content_vars(history.last, history.content[-1]))
    return history


def test_blocked_kind_is_not_planned_again() -> None:
    """A blocked kind never starts z3's next plan from that state (the first turn's state,
    after the seeding draws: more than one kind can start a plan there); blocking every
    kind leaves z3 no plan."""
    path = _after_seeding()
    state, now = path.last, path.content[-1]
    planner = Planner(state, FREE.abstract, PlanBudget(depth=4))
    first = planner.ask(now)
    assert first is not None
    blocked = first.steps[0].signature[0]
    second = planner.ask(now, [blocked])
    assert second is not None and second.steps[0].signature[0] != blocked
    assert planner.ask(now, list(range(K_LAST + 1))) is None


class _WrongFirst(Planner):
    """A planner whose first answer starts with a kind the engine has no action of there
    (z3 asked with the engine's legal kinds blocked): the plan the engine cannot follow."""

    wrong: int | None = None
    start_state: GameState

    def ask(self, start: Mapping[str, int], blocked: Sequence[int] = ()) -> Plan | None:
        if self.wrong is None:
            s = self.start_state
            options = [a for a, p in chance_outcomes(s) if p > 0] if s.is_chance else legal_actions(s)
            legal = {action_vars(a)["kind"] for a in options}
            plan = super().ask(start, [*blocked, *legal])
            assert plan is not None
            self.wrong = plan.steps[0].signature[0]
            return plan
        return super().ask(start, blocked)


def test_cegar_blocks_an_unfollowable_plan_and_follows_the_next() -> None:
    """The first plan starts with a kind the engine cannot take at the first decision: it is
    blocked (one refinement), z3 is asked again from the same state, and the new plan's
    first step is one the engine follows."""
    budget = PlanBudget(depth=4, asks=3, refinements=1, max_actions=40)
    path = _after_seeding()
    planner = _WrongFirst(path.last, FREE.abstract, budget)
    planner.start_state = path.last
    stats = PlanStats()
    plan_attempt("original-2011", 2, 0, planner, lambda h: False, stats=stats, start=path)
    assert planner.wrong is not None
    assert stats.refinements == 1
    blocked, followed_next = stats.blocked_examples[0]
    assert KIND_NAMES[planner.wrong] in blocked
    assert followed_next != "" and followed_next != blocked
    assert stats.followed >= 1


def test_plan_search_refuses_other_readings_and_bad_budgets() -> None:
    """The rule-content model covers the default readings only: the z3 steer says so; a
    budget below its range is refused naming the budget."""
    with pytest.raises(ParameterError, match="AMB-23=b"):
        plan_search(
            "original-2011", 2, FREE.abstract, FREE.concrete, 1, variant=Variant(readings={"AMB-23": "b"})
        )
    with pytest.raises(ProveArgumentError, match="depth"):
        PlanBudget(depth=0)
    with pytest.raises(ProveArgumentError, match="stride"):
        PlanBudget(stride=-1)


def test_macro_steps_group_turns_market_days_and_masses() -> None:
    """A plan reads as macro steps: a turn at each ChooseTurn, a market day, a mass."""
    calm = {"md": 0, "mass": 0}

    def step(pending: int, after: dict[str, int], kind: int = K_TAKE) -> PlanStep:
        return PlanStep((kind, 0, 0, -1), 0, pending, after)

    plan = Plan(
        (
            PlanStep((K_DRAW_CUBE, 0, 0, 0), -1, 8, calm),
            step(P_TURN, calm),
            step(1, calm),
            step(P_TURN, {"md": 1, "mass": 0}),
            step(P_MARKET, {"md": 1, "mass": 0}),
            step(P_TURN, calm),
            step(P_MASS_BUY, {"md": 0, "mass": 1}),
        )
    )
    labels = [(label, len(steps)) for label, steps in macro_steps(plan)]
    assert labels == [("draws", 1), ("turn", 2), ("market day", 2), ("turn", 1), ("mass", 1)]
