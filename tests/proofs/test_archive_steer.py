"""The z3 archive steer (`proofs.search.archive_steer`): a Go-Explore search whose cells z3's macro
target cuts finds, with no hand-written steer, witnesses that unsteered games given the
same number of engine steps miss, because of z3's target (ablated, the same run finds
nothing); a run depends on its seed alone; CEGAR blocks a target for every seat and keeps
it when z3 has no other."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

import pytest

from village_rules.cli.main import main
from village_rules.drivers.play import replay_log
from village_rules.engine.core import apply
from village_rules.engine.setup import new_game
from village_rules.errors import ParameterError
from village_rules.explore.witnesses import holds_after
from village_rules.proofs.catalogue.catalogue import by_name
from village_rules.proofs.model.model import Constants
from village_rules.proofs.search.archive_steer import (
    ArchiveBudget,
    ArchiveStats,
    archive_attempt,
    archive_search,
    relabelled,
)
from village_rules.proofs.search.archive_target import Target, Targeter, counts
from village_rules.proofs.search.history import History
from village_rules.proofs.search.search import Steer, options, search_steps
from village_rules.proofs.table.run import REACHABLE, prove, z3_steers
from village_rules.rules.variant import Variant

EDITION, PLAYERS = "original-2011", 2
MILL = replace(by_name("coins-short-at-mill"), steer=Steer())
"""Query 9b (the coin supply short when the mill pays out), its hand steer stripped."""
BUDGET = ArchiveBudget(steps=8_000)


@pytest.mark.slow  # ~10 s: a run to the witness (a quarter of the bursts by planners), and the baseline
def test_archive_finds_the_mill_short_of_coins_and_replays() -> None:
    """Run 0 of the archive meets query 9b within BUDGET; its log replays to its final state
    and the rebuilt path meets the concrete predicate. Unsteered games given the same number
    of steps do not meet it. (That a run depends on its seed alone, other z3 work between two
    runs, is test_a_run_depends_on_its_seed_alone's; until 2026-12-08 this test ran to the
    witness twice for it too.)"""
    witness, runs, stats = archive_search(EDITION, PLAYERS, MILL.abstract, MILL.concrete, 1, budget=BUDGET)
    assert witness is not None and runs == 1 and stats.targets >= 1 and stats.steps <= BUDGET.steps
    assert replay_log(witness.log).state == witness.final
    rebuilt = History([new_game(EDITION, PLAYERS, 0, Variant())])
    for a in witness.history.decisions:
        rebuilt.play(a)
    assert rebuilt.last == witness.final
    # judged by sub-steps: the query holds at the last action and not before
    assert holds_after(rebuilt.states[0], witness.log.actions, MILL) == [len(witness.log.actions)]
    plain, games, steps = search_steps(EDITION, PLAYERS, Steer(), MILL.concrete, BUDGET.steps)
    assert plain is None and steps == BUDGET.steps and games > 10


@pytest.mark.slow  # ~8 s: a whole run of BUDGET steps
def test_without_z3_targets_the_same_run_finds_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """The ablation: with z3 giving no target (cells are the game's moments alone, no burst
    goes towards a target), the same seed and budget find no witness."""

    def no_target(self: Targeter, now: Mapping[str, int], blocked: Sequence[Target] = ()) -> Target | None:
        return None

    monkeypatch.setattr(Targeter, "ask", no_target)
    witness, _, stats = archive_search(EDITION, PLAYERS, MILL.abstract, MILL.concrete, 1, budget=BUDGET)
    assert witness is None and stats.targets == 0 and stats.asks == 1


def test_a_blocked_target_is_blocked_for_every_seat_and_kept_when_z3_has_no_other(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Query 10's target (every marker of one seat placed) cannot be met in a run of 400
    steps: after `patience` idle bursts it is blocked with its mirror for the other seat, z3
    then has no other target, and the run keeps following it (none counted blocked)."""
    asked: list[list[Target]] = []
    real = Targeter.ask

    def spy(self: Targeter, now: Mapping[str, int], blocked: Sequence[Target] = ()) -> Target | None:
        asked.append(list(blocked))
        return real(self, now, blocked)

    monkeypatch.setattr(Targeter, "ask", spy)
    markers = by_name("markers-out-new-city")
    stats = ArchiveStats()
    budget = ArchiveBudget(steps=400, burst=10, patience=2, planned=0.0, greedy=0.0)
    found = archive_attempt(
        EDITION, PLAYERS, 0, markers.abstract, markers.concrete, budget=budget, stats=stats
    )
    assert found is None
    assert len(asked) >= 2 and asked[0] == []
    first = asked[1]
    assert len(first) == 2 and {tuple(t.moves) for t in first} == {("markers_0",), ("markers_1",)}
    assert all(b == first for b in asked[1:])  # nothing stays blocked
    assert stats.blocked == 0 and stats.targets == 1


@pytest.mark.no_cover  # CPU-bound replays: not traced in the coverage run (tests/README.md, "Coverage")
def test_a_run_depends_on_its_seed_alone() -> None:
    """Two runs of one seed, with other z3 work between them, do the same (query 1a, 600
    steps: no witness yet, but the same bursts, cells, asks and steps); another seed does
    not."""
    q = by_name("end-market-other")
    budget = ArchiveBudget(steps=600)

    def run(seed: int) -> ArchiveStats:
        stats = ArchiveStats()
        found = archive_attempt(EDITION, PLAYERS, seed, q.abstract, q.concrete, budget=budget, stats=stats)
        assert found is None
        return stats

    first = run(0)
    other = new_game(EDITION, PLAYERS, 3, Variant())
    Targeter(PLAYERS, Constants.of(other.rules.data, PLAYERS), MILL.abstract, 1_000_000).ask(counts(other))
    assert run(0) == first and first.steps == budget.steps and first.cells > 10
    assert run(1) != first


def test_a_fork_of_a_history_is_pushed_on_alone() -> None:
    """The archive plays on from a fork of a stored path: pushing on the fork leaves the
    stored path as it was."""
    stored = History([new_game(EDITION, PLAYERS, 0, Variant())])
    forked = stored.fork()
    action = options(stored.last)[0]
    forked.push(action, apply(forked.last, action))
    assert len(stored.states) == 1 and not stored.actions
    assert len(forked.states) == 2 and forked.actions == [action]


def test_relabelled_moves_the_seat_fields_and_the_seat_values() -> None:
    """A target for seat 0 relabelled 0 -> 1 names seat 1's fields and seat values."""
    t = Target({"dead_0": 2, "end_by": 0, "market_trigger": 1, "graveyard": 4}, 10)
    swapped = relabelled(t, {0: 1, 1: 0})
    assert swapped.moves == {"dead_1": 2, "end_by": 1, "market_trigger": 0, "graveyard": 4}
    assert relabelled(t, {0: 0, 1: 1}) == t


def test_prove_uses_the_archive_for_a_query_without_steer() -> None:
    """`prove(..., z3_steer=True)` on a query without a hand-written steer searches by the
    archive and says so in the row's budget, `games` counting its runs."""
    monks = replace(by_name("mass-four-monks"), steer=Steer())
    result = prove(monks, EDITION, PLAYERS, games=1, bound=2, z3_steer=True)
    assert result.verdict == REACHABLE
    assert "steered by z3's archive: 1 runs x 20000 steps" in result.budget and "cells" in result.budget


def test_z3_steers_only_rows_without_a_steer_that_the_models_cover() -> None:
    """`prove(..., z3_steer=True)` steers by the archive only a query without a hand-written
    steer, in a row the models cover: not a query with its steer, a solo row, or other
    readings (moved here from the removed target steer's tests)."""
    state = new_game(EDITION, PLAYERS, 0, Variant())
    assert z3_steers(MILL, state) and not z3_steers(by_name("coins-short-at-mill"), state)
    assert not z3_steers(MILL, new_game("big-box-2023", 1, 0, Variant()))
    other = replace(MILL, variant=Variant(readings={"AMB-23": "b"}))
    assert not z3_steers(other, new_game(EDITION, PLAYERS, 0, other.variant))


@pytest.mark.parametrize(
    ("field", "value"),
    [("steps", 0), ("burst", 0), ("patience", 0), ("asks", 0), ("rlimit", 0), ("steps", 2.5),
     ("greedy", 1.5), ("planned", 0.9), ("closeness", 0.0), ("greedy", True), ("planned", "0.1")],
)
def test_bad_budgets_are_refused_naming_the_field(field: str, value: float) -> None:
    """Every budget field is checked, and the error names it."""
    with pytest.raises(ParameterError, match=f"budget.{field}"):
        ArchiveBudget(**{field: value})  # type: ignore[arg-type]


@pytest.mark.slow  # the gate's link games: about 5 seconds
def test_cli_z3_steer_says_so_and_refuses_out(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """`prove --z3-steer` prints rows steered by z3's archive; with --out it is refused, with
    a message and no traceback, before any work."""
    args = ["prove", "mass-four-monks", "--edition", "original-2011", "--players", "2", "--games", "1"]
    assert main([*args, "--z3-steer", "--out", str(tmp_path / "w")]) == 2
    err = capsys.readouterr().err
    assert "--z3-steer strips the catalogue's steers" in err and "Traceback" not in err
    assert not (tmp_path / "w").exists()
    # --no-hints: a stored witness that still replays is the row's witness as it is (no search)
    assert main([*args, "--z3-steer", "--no-hints", "--quiet"]) == 0
    assert "steered by z3's archive: 1 runs" in capsys.readouterr().out
