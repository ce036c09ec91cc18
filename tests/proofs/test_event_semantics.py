"""Queries judged over sub-steps and rule events (issue 41), on the games that showed the
old judging wrong.

- `tiny-2p-end-market-other.json`: the 12-action "shortest witness" of query 1a (the end
  triggered during ANOTHER seat's market day) that `explore tiny` printed before: seat 0
  harvests, dies and triggers the end (END-01), and only then does seat 1's forced take
  open a market day, inside the same `apply` step. The explorer, `prove`'s witness check
  and `replay` refuse it now; the old judging (the state after the step) accepted it.
- `proofs/regressions/two-deaths-one-turn-*.json` (shipped): the two engine games in which
  the old `turn_start` merged two turns
  of a seat (the next turn's take was forced), so query 5's predicate held and the link
  broke (TURN-03, CRAFT-01, MKT-03). With a turn well defined they pass the link and do not
  meet query 5: the two deaths fall in two turns of the seat, another seat's turn between.
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from support import TESTS

from village_rules.cli.main import main
from village_rules.drivers.play import GameLog
from village_rules.engine.core import apply, apply_steps
from village_rules.explore import search
from village_rules.explore.search import EdgeChecks, Exploration, expand
from village_rules.explore.witnesses import holds_after
from village_rules.model.actions import parse_action
from village_rules.model.pending import ChooseTurn
from village_rules.proofs.catalogue.catalogue import Query, by_name, end_in_market_day_after_state
from village_rules.proofs.link import link
from village_rules.proofs.link.regressions import REGRESSIONS
from village_rules.proofs.search.history import History, dead
from village_rules.proofs.table import stored
from village_rules.rule_ids import RuleId

TINY_1A = TESTS / "fixtures" / "event-semantics" / "tiny-2p-end-market-other.json"
MERGED = sorted(REGRESSIONS.glob("two-deaths-one-turn-*.json"))


def _log(path: Path) -> GameLog:
    return GameLog.from_json(path.read_text())


def _old_history(log: GameLog) -> History:
    """The path as the old judging saw it: one state per `apply` step, no events."""
    h = History([log.initial_state()])
    for text in log.actions:
        action = parse_action(text)
        h.push(action, apply(h.last, action))
    return h


def test_the_tiny_game_triggers_the_end_before_the_market_day_opens() -> None:
    """What the game shows, by its events: END-01 by seat 0 with no market day open, then
    MKT-01 by seat 1, in the last step."""
    log = _log(TINY_1A)
    state = log.initial_state()
    for text in log.actions[:-1]:
        state = apply(state, parse_action(text))
    events = [e for sub in apply_steps(state, parse_action(log.actions[-1])) for e in sub.events]
    rules = [e.rule for e in events]
    end, market = rules.index(RuleId.END_01), rules.index(RuleId.MKT_01)
    assert end < market
    assert events[end].market_player is None and events[end].end_by == 0
    assert events[market].seat == 1


def test_the_old_judging_accepted_the_tiny_game_as_a_1a_witness() -> None:
    """The after-state predicate on `apply` steps holds at the end of the game (so the tests
    below can fail: they refuse what this accepts)."""
    h = _old_history(_log(TINY_1A))
    assert end_in_market_day_after_state(by_trigger=False)(h)


def _explorer_hits(log: GameLog, judged: Query) -> dict[str, tuple[int, int]]:
    """`expand` (the explorer's edge loop) on every state of the game's path, judging one
    query on every edge out of it."""
    hits: dict[str, tuple[int, int]] = {}
    state = log.initial_state()
    for sid, text in enumerate(log.actions):
        checks = EdgeChecks(False, None, None, {judged.name: judged})
        expand(sid, state, None, tally=Exploration(2, 1), checks=checks, hits=hits)
        state = apply(state, parse_action(text))
    return hits


def test_the_explorer_refuses_the_tiny_game_as_a_1a_witness(monkeypatch: pytest.MonkeyPatch) -> None:
    """No edge out of any state of the game meets 1a; judged as before (a step as one
    sub-step ending at `apply`'s result, the after-state predicate) the last edge did."""
    q = by_name("1a")
    log = _log(TINY_1A)
    assert _explorer_hits(log, q) == {}
    monkeypatch.setattr(search, "apply_steps", lambda s, a, trace=None: apply_steps(s, a, trace)[-1:])
    old = _explorer_hits(log, replace(q, concrete=end_in_market_day_after_state(False)))
    assert old == {q.name: (len(log.actions) - 1, old[q.name][1])}


def test_judged_by_sub_steps_1a_holds_at_no_action_of_the_tiny_game() -> None:
    """What `replay` and the witness searches ask: after no sub-step of any action."""
    log = _log(TINY_1A)
    assert holds_after(log.initial_state(), log.actions, by_name("1a")) == []


def test_prove_refuses_the_tiny_game_as_a_1a_witness(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    copy = tmp_path / "1a-end-market-other-original-2011-2p.json"
    shutil.copy(TINY_1A, copy)
    checked = stored.check_witness(copy)
    assert not checked.passed and "does not end in the situation" in checked.detail
    # the old judging, on apply steps with the after-state predicate, accepted it
    q = by_name("1a")
    old = replace(q, concrete=end_in_market_day_after_state(False))
    monkeypatch.setattr(stored, "query_of_witness", lambda _: old)
    monkeypatch.setattr(stored, "apply_steps", lambda s, a: apply_steps(s, a)[-1:])
    assert stored.check_witness(copy).passed


def test_replay_refuses_the_tiny_game_as_a_1a_witness(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["replay", str(TINY_1A)])
    _, err = capsys.readouterr()
    assert code == 2
    assert "query 1a (end-market-other)" in err and "does not hold after its last action (12)" in err


@pytest.mark.parametrize("path", MERGED, ids=lambda p: p.stem)
def test_the_merged_turn_games_pass_the_link(path: Path) -> None:
    n, broken = link.check_log(_log(path))
    assert broken is None and n == len(_log(path).actions)


@pytest.mark.parametrize("path", MERGED, ids=lambda p: p.stem)
def test_the_merged_turn_games_meet_query_5_only_with_merged_turns(path: Path) -> None:
    """The old judging (one state per step: a forced turn choice invisible) met query 5 at
    the end; judged by sub-steps the two deaths of the seat fall in two of its turns with
    another seat's turn between, and query 5 is never met."""
    log = _log(path)
    q = by_name("5")
    assert q.concrete(_old_history(log))
    assert holds_after(log.initial_state(), log.actions, q) == []
    h = History([log.initial_state()])
    for text in log.actions:
        h.play(parse_action(text))
    deaths = [i for i in range(1, len(h.states)) if dead(h.states[i], 0) > dead(h.states[i - 1], 0)]
    assert len(deaths) == 2
    turns = [i for i in range(deaths[0], deaths[1]) if isinstance(h.states[i].pending, ChooseTurn)]
    seats = [h.states[i].pending.seat for i in turns]  # type: ignore[union-attr]
    assert 1 in seats and 0 in seats  # another seat's turn, then a new turn of seat 0


def test_the_link_seed_that_broke_the_turn_clause_passes() -> None:
    """`check_game("big-box-2023", 2, 0, "well")` reported the broken clause "TURN-03,
    CRAFT-01, MKT-03: a seat spends at most the dearest turn's time in one turn"."""
    n, broken = link.check_game("big-box-2023", 2, 0, "well")
    assert broken is None and n > 0
