"""The stateful machine, properties of the public API over states reached by legal play,
and the fuzzer's determinism across worker counts."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import loses_a_coin_at_the_market

import village_rules
from village_rules.checks import invariants as inv
from village_rules.checks.invariants import InvariantError, replay_checked
from village_rules.drivers.play import GameLog, play_logged, replay
from village_rules.drivers.serialization import from_json, to_json
from village_rules.engine.core import apply, chance_outcomes, legal_actions
from village_rules.engine.scoring import score_breakdown, winners
from village_rules.errors import IllegalActionError
from village_rules.fuzz.games import plan_game, play_game
from village_rules.fuzz.runner import run_fuzz
from village_rules.model.actions import Action, action_universe, format_action
from village_rules.model.state import GameState
from village_rules.rule_ids import TRACED_RULE_IDS
from village_rules.testing import (
    GameRun,
    VillageMachine,
    finished_games,
    game_runs,
    game_setups,
    illegal_actions_of,
    profile_settings,
    reachable_states,
)

# --- the stateful machine -----------------------------------------------------------------

TestVillage = VillageMachine.TestCase
TestVillage.settings = profile_settings()  # "ci" unless VILLAGE_HYPOTHESIS_PROFILE says otherwise

# --- properties ---------------------------------------------------------------------------

PROPERTY = settings(
    max_examples=10,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

RUNS = game_runs(max_steps=60, random_prefix=600)
"""Games played up to 600 random actions (any phase, the end included) then up to 60
actions chosen by Hypothesis."""


@PROPERTY
@given(RUNS)
def test_chance_outcomes_are_distinct_positive_and_sum_to_one(run: GameRun) -> None:
    chance_states = [s for s in run.states if s.is_chance]
    assert chance_states
    for state in chance_states:
        outcomes = chance_outcomes(state)
        assert outcomes
        actions = [a for a, _ in outcomes]
        assert len(set(actions)) == len(actions)
        assert all(isinstance(p, Fraction) and 0 < p <= 1 for _, p in outcomes)
        assert sum(p for _, p in outcomes) == 1
        assert legal_actions(state) == []


@PROPERTY
@given(RUNS)
def test_a_state_that_is_not_over_always_has_a_way_on(run: GameRun) -> None:
    for state in run.states:
        if state.is_terminal:
            assert legal_actions(state) == [] and chance_outcomes(state) == []
        elif state.is_chance:
            assert chance_outcomes(state)
        else:
            legal = legal_actions(state)
            assert legal, state.pending
            assert state.current_player() in range(state.num_players)


@PROPERTY
@given(RUNS)
def test_every_visited_state_survives_the_json_round_trip(run: GameRun) -> None:
    for state in run.states:
        text = to_json(state)
        again = from_json(text)
        assert again == state
        assert to_json(again) == text


@PROPERTY
@given(RUNS)
def test_apply_never_changes_its_argument(run: GameRun) -> None:
    for before, action in zip(run.states, run.actions, strict=False):
        snapshot = to_json(before)
        fingerprint = hash(before)
        after = apply(before, action, trace=[])
        assert to_json(before) == snapshot
        assert hash(before) == fingerprint
        assert after is not before


@PROPERTY
@given(reachable_states(max_steps=40, random_prefix=600), st.data())
def test_every_illegal_action_is_rejected_and_changes_nothing(state: GameState, data: st.DataObject) -> None:
    snapshot = to_json(state)
    allowed = set(legal_actions(state)) | {a for a, _ in chance_outcomes(state)}
    for _ in range(25):
        action = data.draw(illegal_actions_of(state), label="illegal action")
        assert action not in allowed
        with pytest.raises(IllegalActionError) as info:
            apply(state, action)
        assert info.value.rule and info.value.reason
        assert info.value.action == format_action(action)
        assert to_json(state) == snapshot


def test_the_whole_universe_outside_the_legal_list_is_rejected() -> None:
    """Exhaustively, on a few states of one game (both kinds of node)."""
    final, log = play_logged("original-2011", 3, 21, max_steps=250)
    state = log.initial_state()
    for k, text in enumerate(log.actions):
        if k % 50 == 7:
            allowed = set(legal_actions(state)) | {a for a, _ in chance_outcomes(state)}
            snapshot = to_json(state)
            for action in action_universe(state.rules.data):
                if action in allowed:
                    continue
                with pytest.raises(IllegalActionError):
                    apply(state, action)
            assert to_json(state) == snapshot
        state = apply(state, village_rules.parse_action(text))
    assert state == final


FINISHED = finished_games(game_setups())


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(FINISHED)
def test_acting_on_a_finished_game_raises(run: GameRun) -> None:
    final = run.final
    assert final.is_terminal
    assert legal_actions(final) == [] and chance_outcomes(final) == []
    for action in action_universe(final.rules.data):
        with pytest.raises(IllegalActionError) as info:
            apply(final, action)
        assert info.value.rule == "END-06"


# The values the p. 14 table (2023; the 2011 data has the same) allows per category: a
# finished game's breakdown may only use them. The table itself is checked figure by figure
# on constructed end states in tests/engine/test_scoring.py (test_score01_hand_scored_end_state).
TRAVEL_POINTS = {0, 1, 3, 6, 10, 14, 18}
CHRONICLE_POINTS = {0, 4, 7, 12}


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(FINISHED)
def test_the_score_breakdown_of_a_random_game_adds_up(run: GameRun) -> None:
    """SCORE-01: the total adds the categories to the prestige of play; SCORE-06: a coin is
    1 point; SCORE-07: every winner has the best total."""
    for state in (run.final, run.states[len(run.states) // 2]):
        breakdown = score_breakdown(state)
        assert [b.seat for b in breakdown] == list(range(state.num_players))
        for b, p in zip(breakdown, state.players, strict=True):
            assert b.during_play == p.prestige and b.coins == p.coins
            assert b.travel in TRAVEL_POINTS and b.chronicle in CHRONICLE_POINTS
            parts = (b.during_play, b.travel, b.council_chamber, b.church, b.chronicle, b.customers, b.coins)
            assert b.total == sum(parts)
            assert b.council_chamber % 2 == 0 and b.church <= 6 * len(p.members)
    final = run.final
    best = max(b.total for b in score_breakdown(final))
    won = winners(final)
    assert won
    assert all(score_breakdown(final)[seat].total == best for seat in won)


_FRESH_PROCESS = """
import hashlib, json, sys
from village_rules.drivers.play import play_logged
from village_rules.drivers.serialization import to_json
edition, players, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
final, log = play_logged(edition, players, seed)
print(json.dumps({"log": log.to_json(), "final": hashlib.sha256(to_json(final).encode()).hexdigest()}))
"""


@pytest.mark.parametrize(
    ("edition", "players", "seed", "hash_seed"),
    [("big-box-2023", 4, 12345, "1"), ("original-2011", 3, 99, "2024")],
)
def test_same_seed_same_game_in_a_fresh_process(
    edition: str, players: int, seed: int, hash_seed: str
) -> None:
    final, log = play_logged(edition, players, seed)
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}  # a different set/dict order too
    result = subprocess.run(
        [sys.executable, "-c", _FRESH_PROCESS, edition, str(players), str(seed)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=120,
    )
    there = json.loads(result.stdout)
    assert there["log"] == log.to_json()
    assert there["final"] == hashlib.sha256(to_json(final).encode()).hexdigest()


# --- the fuzzer ---------------------------------------------------------------------------


def test_fuzz_gives_the_same_games_with_one_or_two_workers(tmp_path: Path) -> None:
    one = run_fuzz(6, 2024, 1, None, None, tmp_path / "one")
    two = run_fuzz(6, 2024, 2, None, None, tmp_path / "two")
    for summary in (one, two):
        assert summary.games == 6 and summary.failure is None and summary.violations == 0
        assert summary.decisions > 0 and summary.chance_events > 0
    assert one.decisions == two.decisions
    assert one.chance_events == two.chance_events
    assert one.rule_counts == two.rule_counts
    assert one.game_digests == two.game_digests
    assert len(set(one.game_digests)) == 6
    # each game is `play_logged` of its planned set-up, log and final state alike
    for i, digest in enumerate(one.game_digests):
        game = plan_game(2024, i)
        final, log = play_logged(game.edition, game.players, game.seed, game.variant)
        assert hashlib.sha256((log.to_json() + "\n" + to_json(final)).encode()).hexdigest() == digest
    assert not list(tmp_path.rglob("*.json"))


def test_fuzz_plans_mix_editions_and_player_counts_unless_fixed() -> None:
    plans = [plan_game(5, i) for i in range(40)]
    assert {g.edition for g in plans} == set(village_rules.EDITIONS)
    assert len({g.players for g in plans}) >= 3
    assert len({g.seed for g in plans}) == 40
    assert plan_game(5, 3) == plan_game(5, 3)
    fixed = [plan_game(5, i, "original-2011", 2) for i in range(10)]
    assert {(g.edition, g.players) for g in fixed} == {("original-2011", 2)}


def test_fuzz_summary_format(tmp_path: Path) -> None:
    seen: list[tuple[int, int]] = []
    summary = run_fuzz(2, 1, 1, "original-2011", 2, tmp_path, lambda done, total: seen.append((done, total)))
    assert seen[-1] == (2, 2)
    text = summary.format()
    for line in (
        "games:",
        "decisions:",
        "decisions/s:",
        "violations:   0",
        "rule IDs exercised",
        "never fired",
    ):
        assert line in text
    fired = set(summary.rules_fired)
    assert fired <= set(TRACED_RULE_IDS)
    assert set(summary.rules_never_fired) == set(TRACED_RULE_IDS) - fired
    assert summary.seconds > 0 and summary.decisions > 0
    assert summary.games_per_second == pytest.approx(2 / summary.seconds)
    assert summary.decisions_per_second == pytest.approx(summary.decisions / summary.seconds)
    assert f"games/s:      {2 / summary.seconds:.2f}" in text
    assert replace(summary, seconds=0.0).games_per_second == 0.0


def test_fuzz_stops_at_the_first_violation_and_writes_a_replayable_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("village_rules.fuzz.games.apply", loses_a_coin_at_the_market)
    summary = run_fuzz(5, 3, 1, None, None, tmp_path, engine="reference")  # the plant is the reference's
    failure = summary.failure
    assert failure is not None
    assert summary.violations == len(failure.violations) >= 1
    assert {v.invariant for v in failure.violations} == {inv.COINS}
    assert summary.games == failure.game.index + 1  # nothing after the failing game
    assert "FAILED game" in summary.format() and str(failure.log_path) in summary.format()
    log = GameLog.from_json(failure.log_path.read_text(encoding="utf-8"))
    assert (log.edition, log.players, log.seed) == (
        failure.game.edition,
        failure.game.players,
        failure.game.seed,
    )
    assert log.actions[-1].startswith("serve ")
    assert len(log.actions) == failure.actions
    replay_checked(log)  # the real engine is fine with the game
    with pytest.raises(InvariantError):
        replay_checked(log, loses_a_coin_at_the_market)


def test_fuzz_reports_an_engine_exception(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def crashes_on_the_third_round(
        state: GameState, action: Action, trace: list[str] | None = None
    ) -> GameState:
        after = apply(state, action, trace=trace)
        if after.round == 3:
            raise RuntimeError("boom")
        return after

    monkeypatch.setattr("village_rules.fuzz.games.apply", crashes_on_the_third_round)
    summary = run_fuzz(
        3, 8, 1, "big-box-2023", 2, tmp_path, engine="reference"
    )  # the plant is the reference's
    assert summary.failure is not None and summary.games == 1
    (v,) = summary.failure.violations
    assert v.invariant == "engine.exception" and "boom" in v.actual
    log = GameLog.from_json(summary.failure.log_path.read_text(encoding="utf-8"))
    assert replay(log.initial_state(), log.actions).round == 3


def test_a_single_game_result_is_reproducible() -> None:
    game = plan_game(77, 0, "original-2011", 2)
    a, b = play_game(game), play_game(game)
    assert a == b and not a.failed and a.log_json is None


@pytest.mark.slow
def test_fuzz_many_games_find_no_violation(tmp_path: Path) -> None:
    summary = run_fuzz(300, 11, 2, None, None, tmp_path)
    assert summary.failure is None, summary.format()
    assert summary.games == 300
    # Rare in random play: privilege 4, another player ending the game on a market day, a
    # death with no visible member; DEATH-08 only under AMB-08 b (a reading the fuzzer draws
    # for some games) with a second death owed at once; with solo games in the mix (issue 10)
    # SOLO-23 (all of Carla's "1"s and "2"s dead before one more of hers dies); END-10 only
    # under AMB-44 b, when the chronicle and the graveyard both fill in one market day.
    rare = {"CNC-08", "END-04", "END-10", "DEATH-05", "DEATH-08", "SOLO-23"}
    assert set(summary.rules_never_fired) <= rare, summary.format()
