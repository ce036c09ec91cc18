"""The gate `prove` passes before it prints "unreachable" (proofs/gate/gate.py, issue 23): on the
current engine it lets the proofs through; with a rule of the engine changed (in-process,
undone after the test) the same `prove` call refuses them, naming the broken clause; and a
query whose concrete predicate does not imply its abstract one is refused."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest
import z3
from support import TINY_EDGES, TINY_STATES, six_grain_farmyard

from village_rules.cli import prove as cli_prove
from village_rules.cli.main import main
from village_rules.data.edition import EditionData
from village_rules.engine import harvest, time_and_death, turn
from village_rules.explore.configs import configuration
from village_rules.explore.crosscheck import ContentEdges
from village_rules.proofs.catalogue.catalogue import by_name
from village_rules.proofs.gate import gate as gate_module
from village_rules.proofs.gate.gate import Gate, open_gate
from village_rules.proofs.table import run
from village_rules.proofs.table.run import REACHABLE, UNKNOWN, UNREACHABLE, prove

pytestmark = pytest.mark.full_gate  # the gate at its whole budget (tests/conftest.py)

GRAIN = "grain-short-at-harvest"  # proved over the counts model
MASS_DEATH = "death-during-mass"  # proved over the rule-content model
TWO_DEATHS = "two-deaths-one-turn"  # query 5: proved from the turn's path variables


@pytest.fixture(scope="module")
def gate() -> Gate:
    """One gate for the three proofs below (it plays the link's 7 seeded games)."""
    return open_gate([by_name(n) for n in (GRAIN, MASS_DEATH, TWO_DEATHS)])


@pytest.mark.parametrize("name", [GRAIN, MASS_DEATH, TWO_DEATHS])
def test_the_gate_lets_a_proof_through_on_the_current_engine(name: str, gate: Gate) -> None:
    assert gate.link.passed and gate.refusal(by_name(name)) is None
    result = prove(by_name(name), "big-box-2023", 2, games=1, gate=gate)
    assert result.verdict == UNREACHABLE, result.note


@pytest.mark.no_cover  # CPU-bound replays: not traced in the coverage run (tests/README.md, "Coverage")
@pytest.mark.parametrize("name", [GRAIN, MASS_DEATH])
def test_prove_refuses_unreachable_when_a_farmyard_holds_6_grain(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """HARV-01's capacity broken: the audit's case, where `prove` still printed query 9
    "unreachable" because it never ran the link."""
    monkeypatch.setattr(harvest, "take_grain", six_grain_farmyard)
    result = prove(by_name(name), "big-box-2023", 2, games=1)
    assert result.verdict == UNKNOWN
    assert "a proof was found but is not printed: link check FAILED" in result.note
    assert "a farmyard holds at most its grain capacity" in result.note


def test_prove_refuses_unreachable_when_a_plague_cube_costs_1_time(monkeypatch: pytest.MonkeyPatch) -> None:
    real = time_and_death.spend_time
    monkeypatch.setattr(
        turn, "spend_time", lambda state, seat, amount, ctx: real(state, seat, amount - 1, ctx)
    )
    result = prove(by_name(MASS_DEATH), "original-2011", 3, games=1)
    assert result.verdict == UNKNOWN
    assert "TURN-03: a plague cube costs the plague time" in result.note


def test_prove_refuses_query_5_when_a_plague_cube_costs_3_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """Query 5 (two deaths in one turn) is proved from the turn's time; with a time cost of
    the engine raised, the link fails on the cost's clause and the proof is not printed."""
    real = time_and_death.spend_time
    monkeypatch.setattr(
        turn, "spend_time", lambda state, seat, amount, ctx: real(state, seat, amount + 1, ctx)
    )
    result = prove(by_name(TWO_DEATHS), "big-box-2023", 3, games=1)
    assert result.verdict == UNKNOWN
    assert "a proof was found but is not printed: link check FAILED" in result.note
    assert "TURN-03: taking a cube costs at most the plague time" in result.note


@pytest.mark.no_cover  # CPU-bound replays: not traced in the coverage run (tests/README.md, "Coverage")
def test_a_query_whose_concrete_predicate_does_not_imply_its_abstract_one_is_refused() -> None:
    """no-living-member-acts holds at states of the link's games; an abstract predicate that
    is never true is trivially "proved", and the gate must stop that proof."""
    wrong = dataclasses.replace(by_name("no-living-member-acts"), abstract=lambda v, k: z3.BoolVal(False))
    gate = open_gate([wrong])
    assert gate.link.passed
    assert gate.held[wrong.name] > 0
    reason = gate.refusal(wrong)
    assert reason is not None and "concrete holds but the counts predicate does not" in reason
    # the proof (trivial for a predicate never true) is stopped, so the search decides the
    # row: and the engine reaches the situation
    assert prove(wrong, "big-box-2023", 2, games=1, gate=gate).verdict == REACHABLE


@pytest.mark.no_cover  # CPU-bound replays: not traced in the coverage run (tests/README.md, "Coverage")
def test_a_query_with_other_readings_is_never_let_through() -> None:
    """The link's games play the default readings: a proof for a query played by other
    readings (16b: AMB-06 b) has no link behind it."""
    query = by_name("free-sale-amb-06-b")
    reason = open_gate([query]).refusal(query)
    assert reason is not None and "default readings" in reason


# --- issue 41: prove's exit, every row searched, the implication's matches -----------------


@pytest.fixture
def quick_gate(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """The command line's gate without its explored edges and with a short hunt (both are
    measured in docs/proofs.md; here they would only cost time)."""
    monkeypatch.setattr(cli_prove, "EDGE_CONFIGS", ())
    monkeypatch.setattr(cli_prove, "GATE_HUNT_STEPS", 20)
    return monkeypatch


@pytest.mark.no_cover  # CPU-bound replays: not traced in the coverage run (tests/README.md, "Coverage")
def test_prove_exits_non_zero_when_the_gate_fails(
    quick_gate: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before issue 41 the refusal showed only in the gate line and `prove` exited 0."""
    quick_gate.setattr(harvest, "take_grain", six_grain_farmyard)
    args = ["prove", GRAIN, "--edition", "big-box-2023", "--players", "2", "--games", "1", "--quiet"]
    assert main(args) == 1
    out, err = capsys.readouterr()
    assert "gate: link check FAILED" in out
    assert "prove: the gate failed" in err and "a farmyard holds at most its grain capacity" in err


@pytest.mark.gate_edges
def test_the_command_line_gate_checks_every_edge_of_its_configurations(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The edge check the rest of the suite leaves out (tests/conftest.py), here on tiny
    alone: the gate asks the edge check for the configuration, its line names the
    configuration and its edges, and a broken edge fails the gate, named, and `prove` exits
    1. The edge check's answers are planted: computing tiny's (11,369 edges through the
    model, 15-28 s) is CI's `prove --expect`, whose gate checks every edge of tiny, births and
    small, and the by-hand test_content_edges.py's (since 2026-12-08; until then this test
    computed it again in CI's slow step). So are the gate's link games (a step each here: the
    link is test_link.py's, and the same CI run's)."""
    monkeypatch.setattr(cli_prove, "EDGE_CONFIGS", (("tiny", 2),))
    monkeypatch.setattr(gate_module, "check_game", lambda *a, **k: (1, None))
    monkeypatch.setattr(cli_prove, "GATE_HUNT_STEPS", 20)
    asked: list[tuple[str, int]] = []
    tiny = configuration("tiny").data

    def answer(broken: tuple[str, ...]) -> Callable[[EditionData, int], ContentEdges]:
        def edges(data: EditionData, players: int) -> ContentEdges:
            asked.append(("tiny" if data == tiny else "another", players))
            return ContentEdges(states=TINY_STATES, edges=TINY_EDGES, broken=broken, where="planted")

        return edges

    monkeypatch.setattr(cli_prove, "content_link_on_edges", answer(()))
    args = ["prove", GRAIN, "--edition", "big-box-2023", "--players", "2", "--games", "1", "--quiet"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert asked == [("tiny", 2)]
    assert f"every edge of tiny ({TINY_EDGES} edges) checked" in out and "gate passed" in out
    monkeypatch.setattr(cli_prove, "content_link_on_edges", answer(("planted: an edge outside the model",)))
    assert main(args) == 1
    out = capsys.readouterr().out
    assert "the link on explored edges FAILED: tiny FAILED at" in out
    assert "'planted: an edge outside the model' broken" in out and "gate FAILED" in out


@pytest.mark.no_cover  # CPU-bound replays: not traced in the coverage run (tests/README.md, "Coverage")
def test_a_witness_for_a_proved_row_is_a_failure_named_as_such(
    quick_gate: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A proof forced on a reachable row (z3 "proves" end-market-other unreachable): the
    witness search still runs, meets the stored witness, and the run names the row, the
    witness and the proof's core, and exits non-zero."""
    planted = ("k=1 (planted)", ("planted: no market day",))
    quick_gate.setattr(run, "_content_proof", lambda q, s, b, r: planted)
    args = ["prove", "end-market-other", "--edition", "big-box-2023", "--players", "2", "--games", "1"]
    assert main([*args, "--quiet"]) == 1
    out, err = capsys.readouterr()
    assert "reachable (" in out and "unreachable" not in out.split("gate:")[1].split("\n", 1)[1]
    assert "PROOF REFUTED by an engine witness: end-market-other, big-box-2023, 2 players" in err
    assert "z3 proved it unreachable (k=1 (planted); resting on 'planted: no market day')" in err
    assert "the link passes on it" in err


def test_the_gate_says_which_implications_matched_no_state(gate: Gate) -> None:
    """The unreachable queries' concrete predicates hold nowhere: the check tested nothing
    there, and the closing line says so instead of passing silently."""
    line = gate.closing()
    assert "matched no state (nothing tested) for" in line
    for name in (GRAIN, MASS_DEATH, TWO_DEATHS):
        assert gate.held[name] == 0 and name in line.split("matched no state")[1]


@pytest.mark.no_cover  # CPU-bound replays: not traced in the coverage run (tests/README.md, "Coverage")
def test_a_search_state_feeds_the_implication_check() -> None:
    """The rows' searches are steered toward each query: a state where the concrete
    predicate holds is counted and checked (here: a wrong abstract predicate is caught on
    the witness the search found, not on the gate's sampled games)."""
    query = by_name("end-market-other")
    wrong = dataclasses.replace(query, abstract=lambda v, k: z3.BoolVal(False))
    gate = open_gate([wrong])
    sampled = gate.held[wrong.name]
    result = prove(wrong, "big-box-2023", 2, games=1, gate=gate, hint=94)
    assert result.verdict == REACHABLE
    assert gate.held[wrong.name] == sampled + 1
    assert "steered search game" in gate.failed[wrong.name]
    assert not gate.passed
