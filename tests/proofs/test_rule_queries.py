"""Queries 5b and 14-19 (proofs/catalogue/rule_queries.py): each concrete predicate catches the rule
change it is about (the engine patched, the query's own steered search finds a witness) and
holds on no game of the unpatched engine with the same seeds; the stored witnesses show
what the rulebooks allow."""

from __future__ import annotations

from dataclasses import replace
from itertools import pairwise
from pathlib import Path

import pytest
import z3

from village_rules.drivers.play import GameLog
from village_rules.engine import carla, market_day, mass
from village_rules.engine.core import apply, apply_steps
from village_rules.engine.time_and_death import death_candidates, kill
from village_rules.errors import VillageError
from village_rules.explore.witnesses import holds_after
from village_rules.model.actions import parse_action
from village_rules.model.carla_board import CARLA
from village_rules.model.state import MarketDay
from village_rules.proofs.catalogue.catalogue import by_name
from village_rules.proofs.model.abstraction import abstract
from village_rules.proofs.model.model import Constants, equals, symbols
from village_rules.proofs.search.history import History, market_day_start, play_steps
from village_rules.proofs.search.search import attempt, search
from village_rules.proofs.table.stored import WITNESSES, query_of_witness
from village_rules.rules.variant import Variant

BB = "big-box-2023"


def _found(name: str, edition: str, players: int, games: int) -> bool:
    query = by_name(name)
    witness, _ = search(edition, players, query.steer, query.concrete, games, variant=query.variant)
    return witness is not None


def test_free_sale_not_first_catches_every_sale_free(monkeypatch: pytest.MonkeyPatch) -> None:
    """MKT-02 broken (every sale free, not only the market-day player's first): query 16."""
    assert not _found("free-sale-not-first", BB, 2, 3)
    monkeypatch.setattr(market_day, "is_free_sale", lambda state, seat: True)
    assert _found("free-sale-not-first", BB, 2, 3)


def test_act_after_pass_catches_a_pass_that_does_not_last(monkeypatch: pytest.MonkeyPatch) -> None:
    """MKT-04 broken (a player who passed is asked again in the same market day): query 19."""
    assert not _found("act-after-pass", BB, 3, 3)
    monkeypatch.setattr(market_day, "_next_seat", lambda state, day: (day.current + 1) % state.num_players)
    assert _found("act-after-pass", BB, 3, 3)


def test_carla_two_customers_catches_carla_serving_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """SOLO-18 broken (Carla serves the two frontmost customers at her chance): query 18."""
    assert not _found("carla-two-customers", BB, 1, 3)
    served = carla.market_turn

    def serving_on(state, ctx):  # type: ignore[no-untyped-def]
        after = served(state, ctx)
        front = next((t for t in after.market_available if t is not None), None)
        if front is None or len(after.players[CARLA].customers) == len(state.players[CARLA].customers):
            return after
        p = after.players[CARLA]
        after = after.with_player(CARLA, replace(p, customers=(*p.customers, front)))
        left = tuple(None if t == front else t for t in after.market_available)
        return replace(after, market_available=left)

    monkeypatch.setattr(carla, "market_turn", serving_on)
    assert _found("carla-two-customers", BB, 1, 3)


def test_death_during_mass_catches_a_deadly_majority(monkeypatch: pytest.MonkeyPatch) -> None:
    """A mass that kills (seat 0 loses a member when the majority is awarded): query 14."""
    assert not _found("death-during-mass", BB, 2, 3)
    award = mass.award_majority

    def deadly(state, ctx):  # type: ignore[no-untyped-def]
        after = award(state, ctx)
        places = death_candidates(after, 0)
        return kill(after, 0, places[0], ctx) if places else after

    monkeypatch.setattr(mass, "award_majority", deadly)
    assert _found("death-during-mass", BB, 2, 3)


def test_market_day_during_mass_reads_both_at_once() -> None:
    """Query 15 on a real mass state, with and without a market day planted into it."""
    query = by_name("market-day-during-mass")
    steer = by_name("mass-four-monks").steer
    history = attempt(BB, 2, 0, steer, lambda h: h.last.mass is not None)
    assert history is not None and not query.concrete(history)
    planted = replace(history.last, market_day=MarketDay(trigger=0, current=0, passed=(), trigger_sold=False))
    history.push(history.actions[-1], planted)
    assert query.concrete(history)


def test_a_market_day_that_follows_another_in_one_step_is_a_new_one() -> None:
    """`market_day_start`: passes only accumulate within a day; a reset starts a new one."""
    steer = by_name("free-sale-not-first").steer
    history = attempt(BB, 3, 0, steer, lambda h: h.last.market_day is not None)
    assert history is not None
    start = len(history.states) - 1
    day = history.last.market_day
    assert day is not None and market_day_start(history) == start
    state = history.last
    more = tuple(sorted({*day.passed, (day.trigger + 1) % 3}))
    history.push(history.actions[-1], replace(state, market_day=replace(day, passed=more)))
    assert market_day_start(history) == start
    other = replace(day, trigger=(day.trigger + 1) % 3, passed=(), trigger_sold=False, closed=False)
    history.push(history.actions[-1], replace(state, market_day=other))
    assert market_day_start(history) == start + 2


@pytest.mark.parametrize("path", sorted(WITNESSES.glob("17-*p.json")), ids=lambda p: p.stem)
def test_a_final_action_for_the_trigger_player_only_in_someone_elses_market_day(path: Path) -> None:
    """2023 p. 13 / AMB-09: the player who triggers the end gets a final action only when
    the end came during a market day of another player."""
    log = GameLog.from_json(path.read_text(encoding="utf-8"))
    states = [log.initial_state()]
    for text in log.actions:
        states.append(apply(states[-1], parse_action(text)))
    at_end = next(
        b for a, b in pairwise(states) if a.end_triggered_by is None and b.end_triggered_by is not None
    )
    assert at_end.market_day is not None and at_end.market_day.trigger != at_end.end_triggered_by
    assert states[-1].current_player() == states[-1].end_triggered_by


@pytest.mark.parametrize("path", sorted(WITNESSES.glob("5b-*p.json")), ids=lambda p: p.stem)
def test_two_deaths_in_a_turn_need_amb_23_b(path: Path) -> None:
    """Query 5b's witnesses are played under AMB-23 b; the same actions under the default
    reading a never show two deaths in one turn (the owed deaths lapse, or the game parts)."""
    log = GameLog.from_json(path.read_text(encoding="utf-8"))
    assert log.variant.reading("AMB-23", log.edition) == "b"
    query = by_name("two-deaths-one-turn")
    assert len(log.actions) in holds_after(log.initial_state(), log.actions, query)
    plain = History([replace(log, variant=Variant()).initial_state()])
    for text in log.actions:
        action = parse_action(text)
        try:
            steps = apply_steps(plain.last, action)
        except VillageError:
            break  # the reading a game takes another path here
        assert not play_steps(plain, steps, query.concrete)


RULE_WITNESSES = sorted(p for n in ("5b", "16b", "17") for p in WITNESSES.glob(f"{n}-*p.json"))


@pytest.mark.parametrize("path", RULE_WITNESSES, ids=lambda p: p.stem)
def test_the_abstract_predicate_holds_where_the_concrete_one_does(path: Path) -> None:
    """concrete(s) => abstract(alpha(s)) at each stored witness's last state: the abstract
    predicates of proofs/catalogue/rule_queries.py are weaker than what they stand for, never wrong."""
    query = query_of_witness(path)
    log = GameLog.from_json(path.read_text(encoding="utf-8"))
    state = log.initial_state()
    for text in log.actions:
        state = apply(state, parse_action(text))
    k = Constants.of(state.rules.data, state.num_players)
    v = symbols(state.num_players, 0)
    solver = z3.Solver()
    solver.add(equals(v, abstract(state)), query.abstract(v, k))
    assert solver.check() == z3.sat
