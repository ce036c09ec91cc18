"""The length of a game of Village has no finite bound: a witness (docs/rl.md, "Bounds").

With 4 players (both editions' data), the players below take only influence cubes,
return every cube they take at the well (WELL-01) and skip every action (TURN-02), pass
at every market day and skip at every mass; the chance draws below put only influence
cubes on the board (SEED-02: the plague cubes stay in the green bag). Time never passes,
so no member dies, and a later round starts in exactly the state of an earlier one, the
round number aside. The engine never reads the round number (only ROUND-02 increments
it), so the same choices repeat that stretch forever: the game tree has an infinite
path, and any `max_game_length` is a truncation (bounds.DEFAULT_MAX_MOVES).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from village_rules import apply, chance_outcomes, deal_outcomes, game_from_deal, legal_actions, to_json
from village_rules.data.components import INFLUENCE, ActionSpace, Cube
from village_rules.model.actions import Action, DrawCube, DrawMonk, Pass, Pay, Skip, TakeCube, Well
from village_rules.model.pending import ChoosePayment, ChooseTurn, MassDraw, SeedDraw
from village_rules.model.state import GameState


def _chance(state: GameState) -> Action | None:
    """The witness's draw; None if only plague cubes are left to draw."""
    outcomes = [a for a, _ in chance_outcomes(state)]
    if isinstance(state.pending, SeedDraw):
        bag = state.green_bag
        colours = [c for c in INFLUENCE if bag[c] > 0]
        if not colours:
            return None
        choice: Action = DrawCube(max(colours, key=lambda c: (bag[c], -list(Cube).index(c))))
    elif isinstance(state.pending, MassDraw) and DrawMonk() in outcomes:
        choice = DrawMonk()
    else:
        choice = outcomes[0]
    assert choice in outcomes  # every step of the witness has a positive probability
    return choice


def _decide(state: GameState) -> Action:
    legal = legal_actions(state)
    seat = state.current_player()
    cubes = state.players[seat].cubes
    if isinstance(state.pending, ChooseTurn):
        wells = [a for a in legal if isinstance(a, Well) and a.space is ActionSpace.GRAIN_HARVEST]
        wells = [a for a in wells if cubes[a.colour] >= 3]
        if wells:
            return wells[0]
        takes = [a for a in legal if isinstance(a, TakeCube) and a.cube is not Cube.PLAGUE]
        order = list(ActionSpace)
        takes.sort(key=lambda a: (-cubes[a.cube], a.space is ActionSpace.MARKET, order.index(a.space)))
        return takes[0]
    if isinstance(state.pending, ChoosePayment):
        return next(a for a in legal if isinstance(a, Pay) and a.coins.total() == 0)
    # skip or pass wherever offered; elsewhere (the 2023 compensation cube) the first option
    return next((a for a in legal if a in (Skip(), Pass())), legal[0])


def _round_start(state: GameState) -> bool:
    return isinstance(state.pending, SeedDraw) and state.cubes_on_board() == 0 and state.green_bag.total() > 0


def repeated_round(edition: str, players: int, rounds: int = 12) -> tuple[int, int] | None:
    """(earlier round, later round) starting in the same state, round number aside."""
    dealt: list[Action] = []
    while outcomes := deal_outcomes(edition, players, dealt):
        dealt.append(outcomes[0][0])
    state = game_from_deal(edition, players, dealt)
    seen: dict[str, int] = {}
    last = 0
    while not state.is_terminal and state.round <= rounds:
        if state.round != last and _round_start(state):
            last = state.round
            key = to_json(replace(state, round=0))
            if key in seen:
                return seen[key], state.round
            seen[key] = state.round
        action = _chance(state) if state.is_chance else _decide(state)
        if action is None:
            return None  # a plague cube must come onto the board: this witness fails here
        state = apply(state, action)
        assert all(p.lifetime == 0 for p in state.players)  # time never passes
    return None


@pytest.mark.parametrize("edition", ["original-2011", "big-box-2023"])
def test_a_four_player_game_can_return_to_an_earlier_round_forever(edition: str) -> None:
    """WELL-01, TURN-02, SEED-02, ROUND-02: a reachable cycle, so no finite length bound."""
    found = repeated_round(edition, 4)
    assert found is not None
    earlier, later = found
    assert earlier < later


def test_the_witness_finds_no_cycle_where_time_passes() -> None:
    """The check is not vacuous: with 2 players the setup card adds fewer cubes to the bag
    than it draws (16 < 18), so plague cubes must come onto the board and the witness
    finds no repeated round."""
    assert repeated_round("original-2011", 2) is None
