"""`explore` says what its verdicts are about and exits by what it found (issue 40, item 6):
the configuration's scope against its edition, vacuous queries, exit 1 when no end is
reachable or liveness fails, and `--expect` against the shipped pinned figures."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from support import LARGE_PINNED, NATIVE_PINNED, PINNED, ROOT, SLOW_PINNED

from village_rules.cli.main import main
from village_rules.data.loader import builtin_edition
from village_rules.drivers.play import GameLog
from village_rules.engine import payment, turn
from village_rules.engine.context import Ctx
from village_rules.engine.core import apply
from village_rules.engine.setup import new_game
from village_rules.explore.configs import configuration
from village_rules.explore.pinned import PINS, NoPinnedFiguresError, differences, pinned
from village_rules.explore.scope import left_out, scope_line, vacuous
from village_rules.explore.search import Exploration
from village_rules.model.actions import parse_action
from village_rules.model.evolve import replace
from village_rules.model.state import GameState
from village_rules.proofs.catalogue.catalogue import CATALOGUE, by_name

WITNESSES = ROOT / "proofs" / "witnesses"
GAMES = [p for p in sorted(WITNESSES.glob("*.json")) if p.name != "results.json" and ".proof." not in p.name]


def test_the_scope_names_what_a_configuration_has_of_its_edition() -> None:
    tiny = configuration("tiny").data
    gaps = left_out(tiny, 2)
    assert "action spaces seeded 2 of 7 (grain harvest, market)" in gaps
    assert "life-time track spaces 2 of 10" in gaps and "graves 1 of 4" in gaps
    assert left_out(builtin_edition("big-box-2023"), 3) == []
    whole = scope_line("x", builtin_edition("big-box-2023"), 3)
    assert whole.endswith("the whole big-box-2023 game at 3 player(s)")
    solo = configuration("solo").data  # one player, two seats (the player's, Carla's)
    assert "verdicts about solo only, not the whole big-box-2023 game" in scope_line("solo", solo, 1)


def test_vacuous_names_the_rules_no_edge_fired() -> None:
    assert vacuous(("END-01", "MKT-01"), frozenset({"END-01"})) == ["MKT-01"]
    assert vacuous((), frozenset()) == []


def _fired(path_text: str) -> set[str]:
    log = GameLog.from_json(path_text)
    state = new_game(log.edition, log.players, log.seed, log.variant)
    trace: list[str] = []
    for text in log.actions:
        state = apply(state, parse_action(text), trace=trace)
    return set(trace)


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.stem)
def test_every_stored_witness_fires_the_rules_its_query_needs(path: Path) -> None:
    """The needs are necessary conditions: each of the catalogue's witness games fires them
    all (a need a witness does without would call a reachable situation vacuous)."""
    text = path.read_text(encoding="utf-8")
    query = by_name(json.loads(text)["query"]["name"])
    assert set(query.needs) <= _fired(text)


def test_every_query_but_the_cycles_names_the_rules_it_needs() -> None:
    """The lasso and the score pump are about cycles, which no one rule makes."""
    assert {q.name for q in CATALOGUE if not q.needs} == {"lasso", "score-pump"}


def _no_death(state: GameState, seat: int, amount: int, ctx: Ctx) -> GameState:
    """TIME-01 without DEATH-01: the token moves round the track and nobody ever dies."""
    p = state.players[seat]
    length = state.rules.data.lifetime_track_length
    return state.with_player(seat, replace(p, lifetime=(p.lifetime + amount) % length))


@pytest.mark.slow  # ~30 s: a planted tiny of ~3 x 10^4 states with its whole graph kept
def test_a_configuration_where_nobody_dies_exits_1(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before issue 40 this explored with exit 0 while printing "liveness FAILS"."""
    monkeypatch.setattr(turn, "spend_time", _no_death)
    monkeypatch.setattr(payment, "spend_time", _no_death)
    run = ["explore", "tiny", "--no-check", "--no-monitors", "--query", "shared-win", "--quiet"]
    assert main([*run, "--shape"]) == 1
    out, err = capsys.readouterr()
    assert "terminal    0: none" in out
    assert "liveness    FAILS" in out
    assert "no end of the game is reachable in this configuration" in err
    assert "liveness fails:" in err
    # nothing ends, so no edge scores the game: the shared win is vacuous, not "unreachable"
    assert "shared-win               vacuous: it needs END-06" in out


def test_the_shipped_pins_are_the_tests_pins() -> None:
    """`explore --expect` and the library's tests pin the same figures."""
    tests_pins = {**PINNED, **SLOW_PINNED, ("large", 2): LARGE_PINNED, **NATIVE_PINNED}
    for (name, players), pin in tests_pins.items():
        shipped = pinned(name, players)
        figures = {k: v for k, v in pin.items() if k in {"roots", "states", "edges", "depth", "terminal"}}
        assert figures == {
            "roots": shipped.roots,
            "states": shipped.states,
            "edges": shipped.edges,
            "depth": shipped.depth,
            "terminal": shipped.terminal,
        }, name
        if "reachable" in pin:
            assert shipped.reachable is not None
            assert set(pin["reachable"]) <= shipped.reachable  # type: ignore[call-overload]
    table = json.loads(PINS.read_text(encoding="utf-8"))
    assert sorted(k for k in table if k != "about") == sorted(f"{n}/{p}" for n, p in tests_pins)


def test_expect_names_each_figure_that_differs() -> None:
    pin = pinned("tiny", 2)
    result = Exploration(players=2, roots=2, states=pin.states + 1, edges=pin.edges, depth=pin.depth)
    result.terminal.update(pin.terminal)
    assert differences(pin, result) == [f"states: pinned {pin.states}, now {pin.states + 1}"]


def test_expect_without_pinned_figures_is_refused_before_the_work(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(NoPinnedFiguresError, match="no pinned figures for tiny at 3"):
        pinned("tiny", 3)
    data_file = str(configuration("tiny").path)
    assert main(["explore", data_file, "--expect", "--quiet"]) == 2
    assert "no pinned figures for" in capsys.readouterr().err


def test_the_native_engine_without_the_extension_is_refused_naming_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # where the optional extension is not built, `import village_rules.explore.native` fails
    monkeypatch.setitem(sys.modules, "village_rules.explore.native", None)
    assert main(["explore", "tiny", "--engine", "native", "--quiet"]) == 2
    captured = capsys.readouterr()
    assert "explore --engine native: the native core is not built" in captured.err
    assert captured.out == ""
