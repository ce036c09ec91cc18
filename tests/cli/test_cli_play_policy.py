"""Issue 42: `village-rules play` takes the policies `fuzz` takes (`--policy`, per seat), so
a user can watch a greedy or search player; bad names are refused when the options are read."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from village_rules.cli.main import main
from village_rules.drivers.play import GameLog, play_logged, replay
from village_rules.drivers.serialization import to_json
from village_rules.fuzz.games import FuzzGame, play_game
from village_rules.policies import POLICIES
from village_rules.rules.variant import Variant


def played(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, *argv: str
) -> tuple[int, str, str, GameLog | None]:
    log = tmp_path / "game.json"
    code = main(["play", *argv, "--log", str(log)])
    out, err = capsys.readouterr()
    return code, out, err, GameLog.from_json(log.read_text()) if log.exists() else None


@pytest.mark.no_cover  # CPU-bound replays: not traced in the coverage run (tests/README.md, "Coverage")
def test_one_policy_plays_every_seat_the_game_fuzz_plays(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """`play --policy greedy --seed S` is the game a fuzz run by greedy plays with game seed S
    (the fuzzer's digest: the log and the final state)."""
    argv = ("--edition", "original-2011", "--players", "2", "--seed", "3", "--policy", "greedy")
    code, out, _, log = played(capsys, tmp_path, *argv)
    assert code == 0 and log is not None and "policies: seat 0 greedy, seat 1 greedy" in out
    fuzzed = play_game(FuzzGame(0, 3, "original-2011", 2, Variant(), "greedy"))
    final = replay(log.initial_state(), log.actions)
    assert hashlib.sha256((log.to_json() + "\n" + to_json(final)).encode()).hexdigest() == fuzzed.digest
    assert log.actions != play_logged("original-2011", 2, 3)[1].actions  # not the random game


@pytest.mark.no_cover  # CPU-bound replays: not traced in the coverage run (tests/README.md, "Coverage")
def test_one_policy_per_seat(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    argv = ("--edition", "original-2011", "--players", "2", "--seed", "3", "--policy", "random,greedy")
    code, out, _, log = played(capsys, tmp_path, *argv)
    assert code == 0 and log is not None and "policies: seat 0 random, seat 1 greedy" in out
    assert log.actions != play_logged("original-2011", 2, 3)[1].actions  # seat 1 chose otherwise


def test_the_default_is_the_random_game_unchanged(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _, log = played(capsys, tmp_path, "--players", "2", "--seed", "5")
    assert code == 0 and log == play_logged("big-box-2023", 2, 5)[1] and "policies:" not in out
    assert played(capsys, tmp_path, "--players", "2", "--seed", "5", "--policy", "random")[3] == log


@pytest.mark.parametrize(
    ("policy", "says"),
    [
        ("bogus", "no policy named 'bogus'; the policies are " + ", ".join(POLICIES)),
        ("greedy,", "no policy named an empty name"),
        ("mix", "'mix' is a mix of policies over the games of a fuzz run, not a policy of one game"),
    ],
)
def test_a_bad_name_is_refused_when_the_options_are_read(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, policy: str, says: str
) -> None:
    code, out, err, log = played(capsys, tmp_path, "--players", "2", "--policy", policy)
    assert code == 2 and out == "" and log is None
    assert "argument --policy: " + says in err and "Traceback" not in err


def test_a_list_that_is_not_one_per_seat_is_refused_before_the_game(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err, log = played(capsys, tmp_path, "--players", "3", "--policy", "greedy,random")
    assert code == 2 and out == "" and log is None
    assert err == (
        "village-rules: parameter '--policy': 2 policies (greedy,random) for 3 players: "
        "give one for every seat, or one per seat\n"
    )
