"""Golden games recorded with the engine before the speed work (benchmarks/record_golden.py):
every seeded game must replay to the identical final state, and a fresh seeded game must
produce the identical log. Regenerate with `python benchmarks/record_golden.py` only when
rules or data are meant to change seeded games."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from support import TESTS

from village_rules.drivers.play import GameLog, play_logged, replay
from village_rules.drivers.serialization import to_json

GOLDEN = TESTS / "golden" / "engine-golden"
HASHES: dict[str, str] = json.loads((GOLDEN / "final-states.json").read_text())
LOGS = sorted(GOLDEN.glob("*-seed*.json"))


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def test_golden_set_is_complete() -> None:
    assert len(LOGS) >= 20
    assert sorted(p.name for p in LOGS) == sorted(HASHES)
    editions = {GameLog.from_json(p.read_text()).edition for p in LOGS}
    assert editions == {"big-box-2023", "original-2011"}


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.stem)
def test_golden_log_replays_to_the_same_final_state(path: Path) -> None:
    log = GameLog.from_json(path.read_text())
    final = replay(log.initial_state(), log.actions)
    assert final.is_terminal
    assert _digest(to_json(final)) == HASHES[path.name]


@pytest.mark.parametrize("path", LOGS[::4], ids=lambda p: p.stem)
def test_seeded_game_reproduces_the_golden_log(path: Path) -> None:
    log = GameLog.from_json(path.read_text())
    final, fresh = play_logged(log.edition, log.players, log.seed, log.variant)
    assert fresh.actions == log.actions
    assert _digest(to_json(final)) == HASHES[path.name]


def test_a_changed_final_state_is_caught() -> None:
    """The comparison can fail: one action short of the end gives another hash."""
    path = LOGS[0]
    log = GameLog.from_json(path.read_text())
    almost = replay(log.initial_state(), log.actions[:-1])
    assert _digest(to_json(almost)) != HASHES[path.name]
