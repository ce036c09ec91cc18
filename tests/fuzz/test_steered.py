"""The stored steered games still reach the rules they are kept for, and check fails,
naming the game, when one no longer does."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from village_rules.check.steps import CheckContext, FuzzStep
from village_rules.fuzz.games import play_game
from village_rules.fuzz.steered import STEERED


@pytest.mark.parametrize("steered", STEERED, ids=lambda s: s.rule)
def test_a_steered_game_fires_its_rule_with_every_invariant_checked(steered: object) -> None:
    from village_rules.fuzz.steered import Steered  # noqa: PLC0415

    assert isinstance(steered, Steered)
    result = play_game(steered.plan())
    assert not result.failed
    assert steered.rule in dict(result.rule_counts)  # names SOLO-23 and DEATH-08


def test_a_steered_game_that_misses_its_rule_fails_the_step(tmp_path: Path) -> None:
    wrong = replace(STEERED[0], index=STEERED[0].index + 1)  # the next game: no SOLO-23
    result = FuzzStep(games=1, steered=(wrong,)).run(CheckContext(tmp_path))
    assert not result.passed
    assert any("FAILED steered game SOLO-23" in d and "no longer fires" in d for d in result.details)
    assert any(f.verdict == "FAIL" and f.log for f in result.findings)
