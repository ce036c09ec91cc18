"""Golden playthroughs (village_rules.adapters.golden): replay every recorded game and diff it
against tests/golden/. A failure means the rules now play differently; if that is
intended, regenerate with `.venv/bin/python scripts/regenerate_golden.py` and review."""

from __future__ import annotations

import json

import pytest
from support import TESTS

from village_rules.adapters.golden import (
    GOLDEN_GAMES,
    GoldenGame,
    first_difference,
    playthrough,
    transcript_path,
)
from village_rules.engine import turn
from village_rules.engine.context import Ctx
from village_rules.engine.time_and_death import spend_time
from village_rules.model.state import GameState

GOLDEN = TESTS / "golden"
REGENERATE = ".venv/bin/python scripts/regenerate_golden.py"


def _stored(game: GoldenGame) -> list[str]:
    return transcript_path(GOLDEN, game).read_text(encoding="utf-8").splitlines()


@pytest.mark.parametrize("game", GOLDEN_GAMES, ids=lambda g: g.name)
def test_golden_playthrough_replays_identically(game: GoldenGame) -> None:
    difference = first_difference(_stored(game), list(playthrough(game)))
    assert difference is None, f"{game.name}: {difference}\n(intended? regenerate: {REGENERATE})"


def test_golden_games_cover_editions_player_counts_and_readings() -> None:
    configs = {(g.edition, g.players) for g in GOLDEN_GAMES}
    assert configs == {("original-2011", n) for n in (2, 3, 4)} | {("big-box-2023", n) for n in (2, 3, 4, 5)}
    assert any(not g.variant.starting_compensation for g in GOLDEN_GAMES)
    assert any(g.variant.choices for g in GOLDEN_GAMES)
    assert {p.name for p in GOLDEN.glob("*.jsonl")} == {f"{g.name}.jsonl" for g in GOLDEN_GAMES}
    for game in GOLDEN_GAMES:
        last = json.loads(_stored(game)[-1])
        assert last["final_state"]["pending"] == {"kind": "GameOver"}


def test_the_diff_catches_a_rule_change(monkeypatch: pytest.MonkeyPatch) -> None:
    """TURN-03 changed (a plague cube costs one time less): the replay differs."""
    real = spend_time

    def cheaper_plague(state: GameState, seat: int, amount: int, ctx: Ctx) -> GameState:
        return real(state, seat, max(amount - 1, 0), ctx)

    monkeypatch.setattr(turn, "spend_time", cheaper_plague)
    game = GOLDEN_GAMES[0]
    difference = first_difference(_stored(game), list(playthrough(game)))
    assert difference is not None and "differs" in difference
