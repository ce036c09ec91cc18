"""The turn's path variables of the rule-content model (proofs/model/content.py `CONTENT_TURN`,
proofs/model/guarded.py `TURN_*`): what query 5's proof under AMB-23 a rests on. They follow the
concrete game (the deaths of the turn are the catalogue's own count), the turn's bound
comes from the rulebook's costs, and a step checked without its path does not claim them."""

from __future__ import annotations

from village_rules.data.components import Cube
from village_rules.engine.core import apply, legal_actions
from village_rules.engine.setup import new_game
from village_rules.model.actions import Action, TakeCube
from village_rules.model.pending import ChooseTurn
from village_rules.model.state import GameState
from village_rules.proofs.link.link import check_game, check_step, path_vars
from village_rules.proofs.model.content import P_ACTION, P_TURN, content_vars
from village_rules.proofs.model.guarded import (
    TURN_CLAUSE_NAMES,
    TURN_TIME_CLAUSE,
    dearest_action_time,
    dearest_turn_time,
)
from village_rules.proofs.search.history import History, dead, turn_start


def test_the_dearest_turn_is_a_plague_cube_and_the_smithy_trained_and_producing() -> None:
    """2023 p. 12: a plague cube (2 time), training below the smithy (3) and a plow (3): 8,
    fewer than the 11 time two quill passes in one turn need on a 10-space track."""
    for edition in ("big-box-2023", "original-2011"):
        data = new_game(edition, 2, 0).rules.data
        smithy = max(c.training_time + c.production_time for c in data.crafts)
        assert dearest_action_time(data) == smithy
        for players in range(2, data.max_players + 1):
            turn = dearest_turn_time(data, players)
            assert turn == data.plague_time + smithy
            assert turn < data.lifetime_track_length + 1


def test_the_turns_deaths_are_the_catalogues_count_at_every_state() -> None:
    """At every state of a seeded game with many plague cubes, the model's deaths of the turn
    are query 5's concrete count (deaths since the last ChooseTurn); some turn has one."""
    seen = [0]

    def compare(h: History) -> None:
        v = path_vars(h)
        start = turn_start(h)
        for seat in range(h.last.num_players):
            count = 0 if start is None else dead(h.last, seat) - dead(h.states[start], seat)
            assert v[f"turn_dead_{seat}"] == count, (len(h.actions), seat)
            seen[0] = max(seen[0], count)

    steps, broken = check_game("original-2011", 3, 1, "plague", max_steps=1500, on_state=compare)
    assert broken is None, str(broken)
    assert steps > 500 and seen[0] == 1


def _plague_turn() -> tuple[GameState, Action]:
    """The first state of a seeded game where the seat to move can take a plague cube."""
    found: list[tuple[GameState, Action]] = []

    def watch(h: History) -> None:
        if found or not isinstance(h.last.pending, ChooseTurn):
            return
        plague = [a for a in legal_actions(h.last) if isinstance(a, TakeCube) and a.cube is Cube.PLAGUE]
        if plague:
            found.append((h.last, plague[0]))

    check_game("big-box-2023", 2, 0, "uniform", max_steps=400, on_state=watch)
    assert found, "no plague cube in 400 steps"
    return found[0]


def test_a_step_checked_without_its_path_does_not_claim_the_turns_clauses() -> None:
    """`check_step` without the path (the explorer's edges) leaves the turn's clauses out;
    with a path where the turn already cost 7 time (forged), a plague cube (2 more) breaks
    the dearest turn's bound, named."""
    state, plague = _plague_turn()
    after = apply(state, plague)
    assert not set(check_step(state, plague, after)) & TURN_CLAUSE_NAMES
    s = content_vars(state)
    seat = s["actor"]
    assert s["pending"] == P_TURN
    life = s[f"life_{seat}"]
    length = new_game("big-box-2023", 2, 0).rules.data.lifetime_track_length
    forged = dict(s, pending=P_ACTION)
    forged.update({f"turn_time_{seat}": 7, f"turn_life0_{seat}": (life - 7) % length})
    forged[f"turn_passes_{seat}"] = (forged[f"turn_life0_{seat}"] + 7 - life) // length
    broken = check_step(state, plague, after, forged)
    assert TURN_TIME_CLAUSE in broken
