"""`policies.survey`: the per-policy figures the benchmark prints, on random games."""

from __future__ import annotations

from village_rules.drivers.play import random_policy
from village_rules.engine.scoring import score_breakdown
from village_rules.policies.survey import CATEGORIES, match, play_traced, survey


def test_a_survey_counts_ends_lengths_scores_and_rules() -> None:
    s = survey(lambda: random_policy, "original-2011", 2, range(3))
    assert s.games == 3 and sum(s.ends.values()) == 3
    assert s.share_ending("graveyard") + s.share_ending("chronicle") >= 1.0
    one = play_traced("original-2011", 2, 0, [random_policy] * 2)
    assert one.final.is_terminal and one.actions > 100 and one.rules["TIME-01"] > 0
    totals = sum(b.total for b in score_breakdown(one.final))
    assert s.per_seat[0]["total"] + s.per_seat[1]["total"] >= totals
    for seat in s.per_seat.values():
        assert seat["total"] == sum(seat[c] for c in CATEGORIES)
    assert s.mean("travel") == sum(c["travel"] for c in s.per_seat.values()) / 6


def test_a_match_alternates_seats_and_counts_wins() -> None:
    result, made = match(lambda: random_policy, lambda: random_policy, "original-2011", range(4))
    assert result.games == 4 and len(made) == 4
    assert 0 <= result.wins + result.ties <= 4 and result.win_share == result.wins / 4
