"""The archive steer's macro target (`proofs.search.archive_target`): z3's nearest abstract state
where a query holds, the progress measure towards it (under the nearest seat relabelling),
and blocking a target (CEGAR)."""

from __future__ import annotations

from village_rules.engine.setup import new_game
from village_rules.proofs.catalogue.catalogue import by_name
from village_rules.proofs.model.model import PY, STATE_CLAUSES, STEP_CLAUSES, Constants
from village_rules.proofs.search.archive_target import (
    MACRO_CLAUSES,
    Target,
    Targeter,
    counts,
    nearest_relabelling,
    relabellings,
)
from village_rules.rules.variant import Variant

EDITION, PLAYERS = "original-2011", 2


def _start() -> tuple[dict[str, int], Constants]:
    state = new_game(EDITION, PLAYERS, 0, Variant())
    return counts(state), Constants.of(state.rules.data, PLAYERS)


def test_macro_clauses_are_step_clauses() -> None:
    """Every clause the macro step keeps is one of the counts model's step clauses."""
    assert set(MACRO_CLAUSES) <= set(STEP_CLAUSES)


def test_target_meets_the_goal_and_the_model_and_moves_little() -> None:
    """Query 9b (coins short at the mill): the target has fewer than 2 coins in the supply,
    keeps coins conserved (what left the supply is a seat's) and every other state clause,
    and moves nothing the goal does not need."""
    now, k = _start()
    target = Targeter(PLAYERS, k, by_name("coins-short-at-mill").abstract, 2_000_000).ask(now)
    assert target is not None
    after = {**now, **target.moves}
    assert after["coins_supply"] < 2
    assert all(c(after, k, PY) for c in STATE_CLAUSES.values())
    assert set(target.moves) <= {"coins_supply", *(f"coins_{s}" for s in range(PLAYERS))}
    assert target.distance(now) > 0 and target.distance(after) == 0


def test_a_blocked_target_is_not_asked_for_again() -> None:
    """Query 10 (every marker placed): the target names one seat; blocked, the next names
    the other; both blocked, there is none (each seat's markers can only reach 6)."""
    now, k = _start()
    targeter = Targeter(PLAYERS, k, by_name("markers-out-new-city").abstract, 2_000_000)
    first = targeter.ask(now)
    assert first is not None
    second = targeter.ask(now, [first])
    assert second is not None and set(second.moves) != set(first.moves)
    assert targeter.ask(now, [first, second]) is None


def test_spending_time_is_progress_towards_a_death() -> None:
    """A death still needed weighs a whole track, less the time the token has gone: a later
    life-time position is nearer, the death itself nearer still."""
    now, k = _start()
    target = Target({"dead_0": 1}, k.lifetime)
    later = {**now, "life_0": 5}
    died = {**now, "life_0": 0, "dead_0": 1}
    assert target.distance(now) > target.distance(later) > target.distance(died) == 0


def test_distance_is_the_nearest_seat_relabelling() -> None:
    """A target for seat 0 is as near when seat 1 has what it needs, and the relabelled
    counts say which seat that is (moved here from the removed target steer's tests)."""
    now, _ = _start()
    target = Target({"coins_0": now["coins_0"] + 4}, 10)
    seats = relabellings(PLAYERS)
    assert seats[0] == {0: 0, 1: 1} and len(seats) == 2
    assert nearest_relabelling(target, now, seats)[0] == 4
    richer = {**now, "coins_1": now["coins_1"] + 3}
    d, moved = nearest_relabelling(target, richer, seats)
    assert d == 1 and moved["coins_0"] == richer["coins_1"]
    assert target.distance(richer) == 4
    assert nearest_relabelling(target, richer, seats[:1]) == (4, richer)
