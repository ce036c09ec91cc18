"""The score pump (query 13b) decided by exhaustion on the graph without prestige
(village_rules.explore.pump): unreachable on `tiny`, a planted pump found and replayed as a
lasso, a rule that reads prestige caught by the blindness check."""

from __future__ import annotations

from fractions import Fraction

import pytest
from support import TINY_EDGES, TINY_STATES

from village_rules.cli.main import main
from village_rules.engine.common import gain_prestige
from village_rules.engine.core import apply
from village_rules.explore import pump
from village_rules.explore.configs import configuration
from village_rules.explore.pump import PUMP, explore_pump, pump_key, shifted
from village_rules.explore.search import ExplorationLimitError, explore, fingerprint, moves, replay, roots
from village_rules.model.actions import Action, Skip
from village_rules.model.evolve import replace as evolve
from village_rules.model.state import GameState
from village_rules.proofs.catalogue.catalogue import by_name


@pytest.fixture(scope="module")
def tiny() -> pump.PumpResult:
    return explore_pump(configuration("tiny").data, 2)


def test_two_states_differing_only_in_prestige_have_different_fingerprints() -> None:
    # the explorer's fingerprint keeps prestige, so a pump would give unboundedly many
    # distinct states; the projected key drops it, so a pump is a cycle there
    state = roots(configuration("tiny").data, 2)[0].state
    for amount in (1, 2, 7):
        raised = shifted(state, amount)
        assert raised != state
        assert fingerprint(raised) != fingerprint(state)
        assert pump_key(raised) == pump_key(state)
    one_seat = gain_prestige(state, 1, 3)
    assert fingerprint(one_seat) != fingerprint(state) and pump_key(one_seat) == pump_key(state)


def test_the_score_pump_is_unreachable_by_exhaustion_on_tiny(tiny: pump.PumpResult) -> None:
    # on tiny prestige is a function of the rest of the state: the projected graph is the
    # whole graph, with 297 prestige-raising edges and no cycle
    assert (tiny.states, tiny.edges) == (TINY_STATES, TINY_EDGES)
    assert tiny.raising == 297 and tiny.falling == 0
    assert tiny.cycle_states == 0 and tiny.pump_edges == 0 and tiny.lasso is None
    assert tiny.blind_failures == 0 and tiny.blind_checked > 0
    verdict = tiny.verdict()
    assert verdict.query == PUMP and verdict.horizon == by_name(PUMP).horizon
    assert verdict.decided and not verdict.reachable
    assert verdict.reason.startswith(f"no cycle of the {TINY_STATES:,} states without prestige raises it")


def _skip_pumps(state: GameState, action: Action, **kwargs: object) -> GameState:
    """A planted rule: a skip costs nothing, gives its player 1 prestige and leaves the game
    where it was, so it can be played again and again."""
    if isinstance(action, Skip):
        return gain_prestige(state, state.current_player(), 1)
    return apply(state, action)


def test_a_planted_pump_is_reported_as_a_lasso_the_engine_replays(monkeypatch: pytest.MonkeyPatch) -> None:
    data = configuration("tiny").data
    monkeypatch.setattr("village_rules.explore.pump.apply", _skip_pumps)
    monkeypatch.setattr("village_rules.explore.search.apply", _skip_pumps)
    # the ordinary exploration keeps prestige in the fingerprint: it passes tiny's count
    # and goes on (it would never end)
    with pytest.raises(ExplorationLimitError):
        explore(data, 2, queries=[], check=False, max_states=TINY_STATES + 500)
    found = explore_pump(data, 2)
    assert found.blind_failures == 0 and found.pump_edges > 0 and found.cycle_states > 0
    lasso = found.lasso
    assert lasso is not None and found.decided
    assert lasso.cycle == (Skip(),) and lasso.gain == 1
    verdict = found.verdict()
    assert verdict.reachable and verdict.witness == (lasso.root, (*lasso.stem, *lasso.cycle))
    assert verdict.reason.startswith(
        f"a lasso of {len(lasso.stem) + 1} actions: {len(lasso.stem)} to a cycle of 1"
    )
    # the witness is a pump on the planted engine: each lap comes back, one prestige higher
    state = replay(roots(data, 2)[lasso.root].state, lasso.stem)
    for lap in range(1, 4):
        after = state
        for action in lasso.cycle:
            assert action in [a for a, _ in moves(after)]
            after = _skip_pumps(after, action)
        assert pump_key(after) == pump_key(state)
        assert after.players[lasso.seat].prestige == state.players[lasso.seat].prestige + 1, lap
        state = after
    # and no shorter lasso exists: no skip is offered before the stem's end
    early = roots(data, 2)[lasso.root].state
    for step in lasso.stem:
        assert not any(isinstance(a, Skip) for a, _ in moves(early)) or early.is_chance
        early = apply(early, step)


def _skip_swaps_a_coin(state: GameState, action: Action, **kwargs: object) -> GameState:
    """A planted rule: a skip takes a coin from the supply if its player has none and puts
    it back otherwise, giving 1 prestige each time: two skips return to the same position
    with 2 more prestige (a cycle of two projected states, not a self-loop)."""
    if not isinstance(action, Skip):
        return apply(state, action)
    seat = state.current_player()
    p = state.players[seat]
    change = 1 if p.coins == 0 else -1
    state = evolve(state, supply=evolve(state.supply, coins=state.supply.coins - change))
    return gain_prestige(state.with_player(seat, evolve(p, coins=p.coins + change)), seat, 1)


@pytest.mark.slow  # ~8 s: the coin the planted skip moves makes 57,610 projected states
def test_a_planted_pump_of_two_steps_is_found_through_its_component(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("village_rules.explore.pump.apply", _skip_swaps_a_coin)
    found = explore_pump(configuration("tiny").data, 2)
    lasso = found.lasso
    assert found.blind_failures == 0 and lasso is not None
    assert lasso.cycle == (Skip(), Skip()) and lasso.gain == 2
    state = replay(roots(configuration("tiny").data, 2)[lasso.root].state, lasso.stem)
    after = _skip_swaps_a_coin(_skip_swaps_a_coin(state, Skip()), Skip())
    assert pump_key(after) == pump_key(state) and fingerprint(after) != fingerprint(state)


def test_a_rule_that_reads_prestige_leaves_the_pump_undecided(monkeypatch: pytest.MonkeyPatch) -> None:
    def reads_prestige(state: GameState) -> list[tuple[Action, Fraction | None]]:
        out = moves(state)
        rich = not state.is_chance and state.players[0].prestige > 0
        return out[:-1] if rich and len(out) > 1 else out

    monkeypatch.setattr("village_rules.explore.pump.moves", reads_prestige)
    found = explore_pump(configuration("tiny").data, 2)
    assert found.blind_failures > 0 and not found.decided
    assert found.failures[0].startswith("with every seat's prestige 1 higher, other moves")
    verdict = found.verdict()
    assert not verdict.decided and not verdict.reachable
    assert verdict.reason.startswith("not decided: the engine reads prestige")


def test_the_command_line_runs_the_pump_unless_told_not_to(capsys: pytest.CaptureFixture[str]) -> None:
    # the verdict it prints by default is checked in test_explore's command-line test (slow)
    assert main(["explore", "tiny", "--no-check", "--query", PUMP, "--quiet", "--no-monitors"]) == 0
    assert "score-pump               not decided: --no-monitors skips its run" in capsys.readouterr().out


@pytest.mark.slow  # ~15 s: the projected graphs of three configurations of 2-3 x 10^4 states
@pytest.mark.parametrize(
    ("name", "players", "states", "raising"),
    [("solo", 1, 23_644, 800), ("small", 2, 31_598, 4_682), ("births", 2, 32_250, 1_156)],
)
def test_the_score_pump_is_unreachable_by_exhaustion_on_the_other_small_configurations(
    name: str, players: int, states: int, raising: int
) -> None:
    # as on tiny, prestige is a function of the rest of the state: the projected graph has
    # the whole graph's states (test_explore's pins)
    found = explore_pump(configuration(name).data, players)
    assert (found.states, found.raising, found.cycle_states, found.pump_edges) == (states, raising, 0, 0)
    assert found.blind_failures == 0 and found.decided and found.lasso is None
