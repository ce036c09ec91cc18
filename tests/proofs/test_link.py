"""The refinement link of the rule-content model (proofs/link/link.py, proofs/model/guarded.py): every
engine step lies in its kind's guarded command, on seeded games with uniform and non-uniform
policies, on every stored witness and on Hypothesis games; and the link (not a stored-log
replay) catches four rule changes made to the engine, naming the clause."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import z3
from hypothesis import HealthCheck, settings
from support import ROOT, six_grain_farmyard

from village_rules.data.components import ActionSpace
from village_rules.drivers.play import GameLog
from village_rules.engine import end_of_game, harvest, time_and_death, turn
from village_rules.engine.setup import new_game
from village_rules.errors import ParameterError
from village_rules.model.actions import Well
from village_rules.model.state import GameState
from village_rules.proofs.catalogue.catalogue import CATALOGUE, by_name
from village_rules.proofs.link.link import (
    POLICIES,
    abstract_holds,
    check_game,
    check_log,
    default_games,
    implication_check,
    link_check,
)
from village_rules.proofs.link.refinement import ContentRefinementMachine
from village_rules.proofs.model.content import (
    K_PASS,
    K_TAKE,
    P_MARKET,
    action_vars,
    content_abstract,
    content_vars,
)
from village_rules.proofs.model.guarded import KIND_CLAUSES, ContentConstants, broken_step
from village_rules.proofs.model.model import PY, Z3
from village_rules.proofs.search.history import History
from village_rules.rules.variant import Rules, Variant

WITNESSES = ROOT / "proofs" / "witnesses"


@pytest.mark.no_cover  # CPU-bound replays: not traced in the coverage run (tests/README.md, "Coverage")
def test_the_link_passes_on_the_current_engine() -> None:
    result = link_check(default_games(1), max_steps=2000)
    assert result.passed, str(result)
    assert result.games == 7 and result.steps > 2000


@pytest.mark.no_cover  # CPU-bound replays: not traced in the coverage run (tests/README.md, "Coverage")
@pytest.mark.parametrize("policy", sorted(POLICIES))
def test_every_policy_plays_games_inside_the_model(policy: str) -> None:
    for edition, players in (("original-2011", 3), ("big-box-2023", 5)):
        steps, broken = check_game(edition, players, 7, policy)
        assert broken is None, str(broken)
        assert steps > 100


@pytest.mark.by_hand  # CI leaves it out (tests/README.md, "By hand")
@pytest.mark.slow  # ~20 s; CI's `prove --expect` runs the gate's 12 games, its hunt and every explored edge
def test_the_link_passes_on_many_games() -> None:
    result = link_check(default_games(4))
    assert result.passed, str(result)


def _witnesses(defaults: bool) -> list[Path]:
    """The stored witnesses played by each edition's default readings (or by others)."""
    return [
        p
        for p in sorted(WITNESSES.glob("*p.json"))
        if (GameLog.from_json(p.read_text(encoding="utf-8")).variant == Variant()) == defaults
    ]


@pytest.mark.parametrize("path", _witnesses(defaults=False), ids=lambda p: p.stem)
def test_a_witness_played_by_other_readings_is_refused_by_the_model(path: Path) -> None:
    """The rule-content model covers the default readings only, and says so: a witness of
    5b (AMB-23 b) or 16b (AMB-06 b) is no evidence for or against it."""
    log = GameLog.from_json(path.read_text(encoding="utf-8"))
    with pytest.raises(ParameterError, match="default readings only"):
        ContentConstants.of(log.initial_state().rules, log.players)


@pytest.mark.no_cover  # CPU-bound replays: not traced in the coverage run (tests/README.md, "Coverage")
@pytest.mark.parametrize("path", _witnesses(defaults=True), ids=lambda p: p.stem)
def test_every_stored_witness_steps_inside_the_model(path: Path) -> None:
    """Every step in the model, and at every state where the witness's query holds
    concretely (at least its last), the query's abstract predicate holds too."""
    log = GameLog.from_json(path.read_text(encoding="utf-8"))
    query = by_name(path.name.split("-", 1)[0])
    k = ContentConstants.of(log.initial_state().rules, log.players).base
    held: list[bool] = []

    def implies(h: History) -> None:
        if query.concrete(h):
            held.append(abstract_holds(query.abstract, content_vars(h.last), k))

    steps, broken = check_log(log, on_state=implies)
    assert broken is None, str(broken)
    assert steps == len(log.actions)
    assert held and all(held), f"{query.name}: concrete holds where the abstract predicate does not"


class ContentTest(ContentRefinementMachine):
    pass


TestContentMachine = ContentTest.TestCase
TestContentMachine.settings = settings(
    max_examples=8, stateful_step_count=40, deadline=None, suppress_health_check=list(HealthCheck)
)


def test_one_definition_evaluates_on_ints_and_in_z3() -> None:
    """A clause of a kind, evaluated by Python on a real step and decided by z3 on the same
    integers, agrees; and a forged step (the plague cube costing no time) is refused by both."""
    state = new_game("big-box-2023", 3, 1)
    k = ContentConstants.of(state.rules, 3)
    s = content_abstract(state)
    clause = KIND_CLAUSES[K_TAKE]["TURN-03: a plague cube costs the plague time"]
    a = {"kind": K_TAKE, "plague": 1, "market": 0, "space": 0}
    t = dict(s)
    seat = s["actor"] if s["actor"] >= 0 else 0
    t["actor"] = seat
    s2 = dict(s, actor=seat)
    assert not clause(s2, a, t, k, PY)  # no time spent: refused
    assert z3.is_false(z3.simplify(clause(s2, a, t, k, Z3)))
    t[f"life_{seat}"] = s2[f"life_{seat}"] + k.plague_time
    assert clause(s2, a, t, k, PY)
    assert z3.is_true(z3.simplify(clause(s2, a, t, k, Z3)))


def test_the_model_refuses_solo_and_other_readings() -> None:
    with pytest.raises(ParameterError, match="Carla"):
        content_abstract(new_game("big-box-2023", 1, 0))
    data = new_game("big-box-2023", 2, 0).rules.data
    with pytest.raises(ParameterError, match="AMB-33=a"):
        ContentConstants.of(Rules(data, Variant(readings={"AMB-33": "a"})), 2)


# --- the four rule changes -------------------------------------------------------------------


def _first_failure() -> tuple[str, ...]:
    result = link_check(default_games(3), max_steps=3000)
    assert not result.passed, "the link missed the rule change"
    assert result.broken is not None
    return result.broken.clauses


@pytest.fixture
def patched(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    yield monkeypatch


def test_the_link_catches_a_plague_cube_costing_1_time(patched: pytest.MonkeyPatch) -> None:
    real = time_and_death.spend_time
    patched.setattr(turn, "spend_time", lambda state, seat, amount, ctx: real(state, seat, amount - 1, ctx))
    assert "TURN-03: a plague cube costs the plague time" in _first_failure()


def test_the_link_catches_a_plague_cube_costing_3_time(patched: pytest.MonkeyPatch) -> None:
    """A time cost raised (query 5's proof rests on the turn's time): the guarded command's
    upper bound on a cube's time names the clause."""
    real = time_and_death.spend_time
    patched.setattr(turn, "spend_time", lambda state, seat, amount, ctx: real(state, seat, amount + 1, ctx))
    assert "TURN-03: taking a cube costs at most the plague time" in _first_failure()


def test_the_link_catches_the_trigger_player_getting_a_final_action(patched: pytest.MonkeyPatch) -> None:
    real = end_of_game.final_order

    def also_the_trigger(state: GameState, turn_seat: int, ctx: object = None) -> tuple[int, ...]:
        order = real(state, turn_seat)
        trigger = state.end_triggered_by
        return order if trigger is None or trigger in order else (*order, trigger)

    patched.setattr(end_of_game, "final_order", also_the_trigger)
    assert "END-02: the trigger player of their own turn takes no final action" in _first_failure()


def test_the_link_catches_the_well_at_the_market_holding_no_market_day(patched: pytest.MonkeyPatch) -> None:
    real = turn.effect

    def no_market_at_the_well(state: GameState, seat: int, action: object, ctx: object) -> object:
        if isinstance(action, Well) and action.space is ActionSpace.MARKET:
            return state, None
        return real(state, seat, action, ctx)  # type: ignore[arg-type]

    patched.setattr(turn, "effect", no_market_at_the_well)
    assert "MKT-01: the market holds a market day" in _first_failure()


def test_the_link_catches_a_farmyard_holding_6_grain(patched: pytest.MonkeyPatch) -> None:
    patched.setattr(harvest, "take_grain", six_grain_farmyard)
    assert "a farmyard holds at most its grain capacity" in _first_failure()


def test_a_broken_step_names_its_clause() -> None:
    """broken_step on a forged pair: a pass that leaves the player still in the day."""
    state = new_game("original-2011", 2, 0)
    k = ContentConstants.of(state.rules, 2)
    s = dict(content_abstract(state))
    s.update(pending=P_MARKET, md=1, market_trigger=0, turn_seat=0, actor=1, phase=1)
    t = dict(s)
    a = {"kind": K_PASS, "plague": 0, "market": 0, "space": -1, "act": -1, "stage": -1}
    assert "MKT-04: a pass is final for the day" in broken_step(s, a, t, k)
    t["passed_1"] = 1
    t["actor"] = 0
    assert "MKT-04: a pass is final for the day" not in broken_step(s, a, t, k)
    assert (
        action_vars(
            Well(ActionSpace.MARKET, next(iter(__import__("village_rules").data.components.INFLUENCE)))
        )["market"]
        == 1
    )


# --- concrete(s) => abstract(alpha(s)) for every catalogue query ----------------------------

_IMPLICATION_GAMES = [("original-2011", 3, 1, "plague"), ("big-box-2023", 4, 2, "market")]


@pytest.mark.no_cover  # CPU-bound replays: not traced in the coverage run (tests/README.md, "Coverage")
def test_concrete_implies_abstract_for_every_catalogue_query() -> None:
    queries = [(q.name, q.concrete, q.abstract) for q in CATALOGUE]
    held, failure = implication_check(queries, _IMPLICATION_GAMES, max_steps=1200)
    assert failure is None, str(failure)
    assert sum(1 for n in held.values() if n) >= 2  # some concrete predicates did hold


def test_the_implication_check_catches_a_wrong_abstract_predicate() -> None:
    """A concrete predicate that holds (a mass is in progress) with an abstract one that
    says otherwise (no mass) is caught at the first state."""
    held, failure = implication_check(
        [("forged", lambda h: h.last.mass is not None, lambda v, k: v["mass"] == 0)], _IMPLICATION_GAMES[:1]
    )
    assert failure is not None and failure.query == "forged" and held["forged"] >= 1
