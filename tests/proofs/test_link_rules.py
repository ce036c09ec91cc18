"""The link covers what the rules score (issue 41, item 3): a change to the church majority,
a category of the final scoring, the harvest yield, the travel cost or a council step's
time, made to the engine in-process (undone after the test), fails the link naming the
clause; the coverage of the guarded commands' branches is counted; and the branch-guided
hunt finds a clause broken on a rare branch, with a game that replays the break."""

from __future__ import annotations

from dataclasses import replace

import pytest

from village_rules.data.edition import Cost, EditionData
from village_rules.engine import council_chamber, harvest, mass, scoring, travel, travel_map
from village_rules.engine.setup import new_game
from village_rules.model.state import GameState
from village_rules.proofs.link.coverage import KNOWN_GAPS, Coverage, all_branches, branches_of
from village_rules.proofs.link.hunt import hunt
from village_rules.proofs.link.link import check_log, default_games, link_check
from village_rules.proofs.model import guarded
from village_rules.proofs.model.content import A_HARVEST, K_ACTION, K_CHURCH_STEP, content_vars

ONE_PER_ROW = default_games(1)
"""The gate's 7 games (every edition and player count)."""


def _broken(games: list[tuple[str, int, int, str]] = ONE_PER_ROW) -> tuple[str, ...]:
    result = link_check(games, max_steps=3000)
    assert result.broken is not None, f"the link missed the rule change: {result}"
    return result.broken.clauses


def test_the_church_majority_taken_away_fails_the_link(monkeypatch: pytest.MonkeyPatch) -> None:
    """The rule change the issue found passing the link alone: no prestige for the majority."""
    monkeypatch.setattr(mass, "award_majority", lambda state, ctx: state)
    assert _broken() == ("MASS-05: the church majority gains its prestige when the mass ends",)


def test_the_church_majority_to_every_seat_fails_the_link(monkeypatch: pytest.MonkeyPatch) -> None:
    def everyone(state: GameState, ctx: object) -> GameState:
        gain = state.rules.data.majority_prestige
        for seat, p in enumerate(state.players):
            state = state.with_player(seat, replace(p, prestige=p.prestige + gain))
        return state

    monkeypatch.setattr(mass, "award_majority", everyone)
    assert "MASS-05: the church majority gains its prestige when the mass ends" in _broken()


SCORED = {
    "travel": "SCORE-02: travel scores by the cities visited",
    "council_chamber": "SCORE-03: the council chamber scores per member by its stage",
    "church": "SCORE-04: the church scores per member by its stage",
    "chronicle": "SCORE-05: the chronicle scores by the members in it",
    "customers": "SCORE-06: customers score their printed points",
    "coins": "SCORE-06: each coin scores its points",
}


@pytest.mark.parametrize("category", sorted(SCORED))
def test_a_changed_score_category_fails_the_link(category: str, monkeypatch: pytest.MonkeyPatch) -> None:
    real = scoring.score_breakdown

    def one_more(state: GameState) -> tuple[scoring.ScoreBreakdown, ...]:
        return tuple(replace(b, **{category: getattr(b, category) + 1}) for b in real(state))

    monkeypatch.setattr(scoring, "score_breakdown", one_more)
    assert _broken() == (SCORED[category],)


def test_a_smaller_harvest_fails_the_link(monkeypatch: pytest.MonkeyPatch) -> None:
    real = harvest.harvest_yield
    monkeypatch.setattr(harvest, "harvest_yield", lambda state, seat: real(state, seat) - 1)
    assert _broken() == ("HARV-02: a harvest gives the seat's yield, up to the room and the supply",)


def test_the_plow_and_ox_yielding_like_a_horse_fails_the_link(monkeypatch: pytest.MonkeyPatch) -> None:
    """HARV-02's best combination changed alone: only harvests with an ox and a plow differ."""
    real = harvest.harvest_yield

    def ox_as_horse(state: GameState, seat: int) -> int:
        got = real(state, seat)
        d = state.rules.data
        return d.harvest_horse_plow if got == d.harvest_ox_plow else got

    monkeypatch.setattr(harvest, "harvest_yield", ox_as_horse)
    assert "HARV-02: a harvest gives the seat's yield, up to the room and the supply" in _broken()


def test_a_dearer_path_fails_the_link(monkeypatch: pytest.MonkeyPatch) -> None:
    real = travel_map.path_cost  # as the travel action reads it
    monkeypatch.setattr(travel, "path_cost", lambda d, a, b: real(d, a, b).plus(Cost(time=1)))
    assert _broken() == ("TRV-01, TRV-02: travel costs its path's time",)


def test_a_dearer_council_step_fails_the_link(monkeypatch: pytest.MonkeyPatch) -> None:
    real = council_chamber._advance_costs

    def dearer(d: EditionData, stage: int) -> tuple[Cost, ...]:
        costs = real(d, stage)
        return tuple(c.plus(Cost(time=1)) for c in costs) if stage == 1 else costs

    monkeypatch.setattr(council_chamber, "_advance_costs", dearer)
    expected = "CNC-02: advancing in the council chamber costs the time of the stage left (stage 1)"
    assert expected in _broken()


def test_a_cheaper_council_place_fails_the_link(monkeypatch: pytest.MonkeyPatch) -> None:
    real = council_chamber.costs

    def cheaper(state: GameState, seat: int, action: object) -> list[Cost]:
        costs = real(state, seat, action)  # type: ignore[arg-type]
        if type(action).__name__ != "CouncilPlace":
            return costs
        return [replace(c, time=c.time - 1) for c in costs]

    monkeypatch.setattr(council_chamber, "costs", cheaper)
    assert "CNC-01: placing in the council chamber costs its time" in _broken()


# --- coverage -------------------------------------------------------------------------------


def test_a_step_names_its_branches() -> None:
    state = new_game("big-box-2023", 2, 0)
    s = content_vars(state)
    s.update(pending=1, actor=0, grain_0=4)  # P_ACTION, seat 0 with room for 1 grain
    t = dict(s, grain_0=5, grain_supply=s["grain_supply"] - 1)
    a = {"kind": K_ACTION, "plague": 0, "market": 0, "space": -1, "act": A_HARVEST, "stage": -1}
    names = branches_of(s, a, t, 2)
    assert "harvest: cut by the farmyard's room" in names
    assert "action Harvest, paid by itself" in names
    assert set(names) <= set(all_branches())


def test_coverage_counts_the_gates_games_and_names_each_gap() -> None:
    coverage = Coverage()
    assert link_check(ONE_PER_ROW[:1], coverage=coverage).passed
    assert coverage.steps > 100
    assert coverage.counts["an action of a space at an action"] > 0
    line = coverage.summary()
    assert f"of {len(all_branches())}" in line
    gaps = coverage.gaps()
    assert gaps, "one short game cannot cover every branch"
    for gap in gaps:
        assert gap in line
        assert KNOWN_GAPS.get(gap, "gap: no link step took it") in line


# --- the branch-guided hunt -----------------------------------------------------------------


def test_the_hunt_finds_a_clause_broken_on_a_rare_branch(monkeypatch: pytest.MonkeyPatch) -> None:
    """A wrong clause on a branch the sampled game never takes (moving up in the church at
    a mass: the plague policy's game never does; a skip at the mass's buying step, used here
    before the link checked forced sub-steps, is now taken by that game as a forced skip):
    the hunt reaches it, and its game replays the break."""
    planted = "planted: nobody moves up in the church"
    clauses = dict(guarded.KIND_CLAUSES[K_CHURCH_STEP])
    clauses[planted] = lambda s, a, t, k, o: False
    monkeypatch.setitem(guarded.KIND_CLAUSES, K_CHURCH_STEP, clauses)
    assert link_check(ONE_PER_ROW[:1], max_steps=3000).passed  # the sampled game misses it
    found = None
    for seed in range(4):
        result = hunt("original-2011", 2, 3000, seed=seed)
        if result.broken is not None:
            found = result
            break
    assert found is not None and found.broken is not None and found.log is not None
    assert found.broken.clauses == (planted,)
    steps, broken = check_log(found.log)
    assert broken is not None and broken.clauses == (planted,) and steps == len(found.log.actions)
