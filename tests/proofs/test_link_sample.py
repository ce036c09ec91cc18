"""The link on a deterministic sample of check's games (proofs/link/sample.py): the same
sample from the same logs in any order, every edition and player count in it, games with
other readings checked by their set-up under the defaults, solo games skipped, the budget
in games and steps, and a rule change caught, naming the clause."""

from __future__ import annotations

import pytest

from village_rules.drivers.play import GameLog, play_logged
from village_rules.engine import time_and_death, turn
from village_rules.errors import ParameterError
from village_rules.proofs.link.sample import link_check_logs, log_digest, model_covers, sample
from village_rules.rules.variant import Variant

_GAMES = [
    ("original-2011", 2, 1, Variant()),
    ("original-2011", 2, 4, Variant()),
    ("big-box-2023", 3, 2, Variant(readings={"AMB-23": "b"})),
    ("big-box-2023", 1, 3, Variant()),
]


@pytest.fixture(scope="module")
def logs() -> list[GameLog]:
    return [play_logged(e, n, seed, v)[1] for e, n, seed, v in _GAMES]


def test_the_sample_is_the_same_in_any_order_and_covers_every_group(logs: list[GameLog]) -> None:
    chosen, candidates, skipped = sample(logs, 2)
    again, _, _ = sample(list(reversed(logs)), 2)
    assert [log_digest(x) for x in chosen] == [log_digest(x) for x in again]
    assert (candidates, skipped) == (3, 1)  # the solo game is skipped
    # two games: one of each group (2011 2p, 2023 3p) before a second of any
    assert {(x.edition, x.players) for x in chosen} == {("original-2011", 2), ("big-box-2023", 3)}


def test_the_link_passes_on_the_sample_and_says_what_it_checked(logs: list[GameLog]) -> None:
    result = link_check_logs(logs, games=3)
    assert result.passed, str(result)
    assert (result.logged, result.defaults, result.skipped) == (2, 1, 1)
    assert result.steps >= sum(len(x.actions) for x in logs[:2])
    assert "link check passed on a sample" in str(result)
    assert not model_covers(logs[2]) and model_covers(logs[0])


def test_the_step_budget_stops_after_the_game_in_progress(logs: list[GameLog]) -> None:
    result = link_check_logs(logs, games=3, max_steps=1)
    assert result.games == 1 and result.steps > 1


def test_the_sample_catches_a_plague_cube_costing_3_time(
    logs: list[GameLog], monkeypatch: pytest.MonkeyPatch
) -> None:
    real = time_and_death.spend_time
    monkeypatch.setattr(
        turn, "spend_time", lambda state, seat, amount, ctx: real(state, seat, amount + 1, ctx)
    )
    result = link_check_logs(logs, games=3)
    assert not result.passed and result.broken is not None
    assert "TURN-03: taking a cube costs at most the plague time" in result.broken.clauses
    assert "FAILED on a sample" in str(result)


@pytest.mark.parametrize(("games", "steps"), [(0, 10), (2, 0), (True, 10)])
def test_a_budget_below_one_is_refused(logs: list[GameLog], games: int, steps: int) -> None:
    with pytest.raises(ParameterError, match="at least 1"):
        link_check_logs(logs, games=games, max_steps=steps)
