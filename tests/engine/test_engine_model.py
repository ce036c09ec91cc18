"""The decision model: legal actions, chance outcomes, a pure `apply`, errors, the action
notation and ids, rule traces, and seeded games that replay exactly.

Rules checked (as a whole): the engine contract of engine/core.py, TURN-01, TURN-03,
TIME-01, HARV-01, HARV-02 (trace), CNC-02 (error), SEED-02 / MASS-03 / MKT-07 (chance).
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import replace
from fractions import Fraction

import pytest
from support import bare_with_spare_cubes as bare

from village_rules import (
    CHANCE,
    TERMINAL,
    ActionSyntaxError,
    IllegalActionError,
    apply,
    chance_outcomes,
    format_action,
    legal_actions,
    parse_action,
    to_json,
)
from village_rules.data.components import BLACK_BAG, ActionSpace, Cube, OnCouncil
from village_rules.data.loader import builtin_edition, load_edition
from village_rules.drivers.play import GameLog, play, play_logged, random_policy, replay
from village_rules.drivers.scenario import (
    acting,
    at,
    clear_board,
    give,
    place,
    put_cubes,
    strip_all,
)
from village_rules.engine.setup import new_game
from village_rules.errors import VillageError
from village_rules.model.actions import (
    Action,
    BuyFromBag,
    CouncilAdvance,
    CouncilPlace,
    DrawMonk,
    FreeAction,
    Harvest,
    Mill,
    Pass,
    Privilege,
    Skip,
    TakeCube,
    Well,
    action_from_id,
    action_id,
    action_universe,
)
from village_rules.model.pending import ChooseAction, ChooseTurn, MassBuy, SeedDraw
from village_rules.model.state import GameState, Mass
from village_rules.rules.variant import Variant

EDITIONS = ("big-box-2023", "original-2011")
EDITION_COUNTS = [("big-box-2023", n) for n in (2, 3, 4, 5)] + [("original-2011", n) for n in (2, 3, 4)]


# --- one random game per edition, every step checked ------------------------------------


class Checked:
    """Plays a seeded random game and checks the model's contract at every step."""

    def __init__(self, edition: str, players: int, seed: int) -> None:
        self.data = builtin_edition(edition)
        self.chance_nodes = 0
        self.decisions = 0
        self.kinds: set[str] = set()
        initial = new_game(edition, players, seed)
        self.final, self.actions = play(
            initial, [random_policy] * players, random.Random(seed), on_step=self.check
        )

    def check(self, before: GameState, action: Action, after: GameState) -> None:
        json_before = to_json(before)
        if before.is_chance:
            self.chance_nodes += 1
            self.kinds.add(type(before.pending).__name__)
            outcomes = chance_outcomes(before)
            probabilities = [p for _, p in outcomes]
            assert all(isinstance(p, Fraction) for p in probabilities)
            assert all(p > 0 for p in probabilities)
            assert sum(probabilities) == Fraction(1)
            assert len({a for a, _ in outcomes}) == len(outcomes)
            assert legal_actions(before) == []
            assert before.current_player() == CHANCE
            for outcome, _ in outcomes:
                action_id(self.data, outcome)  # every outcome has an id
        else:
            self.decisions += 1
            legal = legal_actions(before)
            assert len(legal) >= 2, f"a pending decision offers one option: {before.pending}"
            assert len(set(legal)) == len(legal)
            assert chance_outcomes(before) == []
            assert before.current_player() == before.pending.seat  # type: ignore[union-attr]
            for a in legal:
                action_id(self.data, a)  # every legal action has an id
        # apply never changes its argument: re-applying gives the same state
        assert apply(before, action) == after
        assert to_json(before) == json_before


@pytest.fixture(scope="module")
def game_2023() -> Checked:
    return Checked("big-box-2023", 4, seed=11)


@pytest.fixture(scope="module")
def game_2011() -> Checked:
    return Checked("original-2011", 3, seed=12)


def test_chance_outcomes_sum_to_exactly_one_and_are_distinct(game_2023: Checked, game_2011: Checked) -> None:
    """Chance: every chance node of two whole games has distinct outcomes with positive
    Fraction probabilities summing to exactly 1 (seeding, mass draws, market refills)."""
    for game in (game_2023, game_2011):
        assert game.final.is_terminal
        assert game.chance_nodes > 100
        assert {"SeedDraw", "MassDraw"} <= game.kinds
    assert "RefillDraw" in game_2023.kinds | game_2011.kinds


def test_every_pending_decision_offers_a_choice(game_2023: Checked, game_2011: Checked) -> None:
    """Auto-apply: a decision with one legal action is taken by the engine, so every
    decision reached offers at least 2 distinct options (checked at every step)."""
    assert game_2023.decisions > 100
    assert game_2011.decisions > 100


def test_terminal_state_has_no_actions(game_2023: Checked) -> None:
    final = game_2023.final
    assert final.is_terminal
    assert final.current_player() == TERMINAL
    assert legal_actions(final) == []
    assert chance_outcomes(final) == []
    with pytest.raises(IllegalActionError) as err:
        apply(final, Skip())
    assert err.value.rule == "END-06"


def test_seed_draw_outcomes_exact() -> None:
    """SEED-02: a fresh 2011 3-player bag: 5 of each colour and 6 plague of 26."""
    state = new_game("original-2011", 3, seed=0)
    assert isinstance(state.pending, SeedDraw)
    outcomes = chance_outcomes(state)
    assert [p for _, p in outcomes] == [Fraction(5, 26)] * 4 + [Fraction(6, 26)]
    assert sum(p for _, p in outcomes) == 1


# --- apply is pure ------------------------------------------------------------------------


def test_apply_does_not_mutate_its_argument() -> None:
    """apply returns a new state; the argument's JSON is the same before and after."""
    state = give(bare(), 0, cubes={Cube.GREEN: 2}, coins=1)
    state = at(state, ChooseTurn(0))
    before = to_json(state)
    after = apply(state, TakeCube(ActionSpace.FAMILY, Cube.GREEN))
    assert to_json(state) == before
    assert after.players[0].cubes[Cube.GREEN] == 3
    assert state.players[0].cubes[Cube.GREEN] == 2
    again = apply(state, TakeCube(ActionSpace.FAMILY, Cube.GREEN))
    assert again == after


# --- errors -------------------------------------------------------------------------------


def test_illegal_action_names_rule_cost_and_what_the_player_has() -> None:
    """IllegalActionError (a ValueError): advancing in the council with 1 green (no coin,
    no scroll) names CNC-02, the cost and what the player has; the state is unchanged."""
    state = place(bare(), 0, 2, OnCouncil(1))
    state = give(state, 0, cubes={Cube.GREEN: 1})
    state = acting(state, 0, ActionSpace.COUNCIL_CHAMBER)
    before = to_json(state)
    with pytest.raises(IllegalActionError) as err:
        apply(state, CouncilAdvance(1, 2))
    e = err.value
    assert isinstance(e, ValueError)
    assert isinstance(e, VillageError)
    assert e.rule == "CNC-02"
    assert e.action == "council-advance 1 2"
    assert "2 green" in e.reason
    assert "2 time" in e.reason
    assert "1 scroll" in e.reason
    assert "you have 1 green" in e.reason
    assert "0 coins" in e.reason
    assert "CNC-02" in str(e)
    assert "council-advance 1 2" in str(e)
    assert to_json(state) == before


def test_illegal_action_of_the_wrong_step() -> None:
    """An action that is not the kind the step asks for: rule STEP, naming the step."""
    state = at(bare(), ChooseTurn(0))
    with pytest.raises(IllegalActionError) as err:
        apply(state, Harvest())
    assert err.value.rule == "STEP"
    assert "ChooseTurn" in err.value.reason
    with pytest.raises(IllegalActionError) as err:
        apply(state, DrawMonk())
    assert err.value.rule == "STEP"


def test_action_from_another_space_is_rejected() -> None:
    """TURN-01: after taking a family cube, only the family action (or skip) can follow."""
    state = acting(give(bare(), 0, grain=2), 0, ActionSpace.FAMILY)
    assert state.pending == ChooseAction(0, ActionSpace.FAMILY)
    with pytest.raises(IllegalActionError):
        apply(state, Mill())
    with pytest.raises(IllegalActionError):
        apply(state, CouncilPlace(1))


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "frobnicate",
        "take",
        "take grain_harvest",
        "take grain_harvest brown extra",
        "take nowhere brown",
        "take grain_harvest purple",
        "council-place x",
        "council-place -1",
        "council-advance 1",
        "pay",
        "pay 0 green:1",
        "pay 0 coins=green",
        "pay 0 coins=violet:1",
        "die nowhere",
        "die council:x",
        "call-home council: 1",
        "train smithy 1 sword",
        "harvest now",
        "skip 1",
        "draw-member 0",
    ],
)
def test_malformed_text_raises_action_syntax_error(text: str) -> None:
    """Notation: malformed action text raises ActionSyntaxError, not IllegalActionError."""
    with pytest.raises(ActionSyntaxError) as err:
        parse_action(text)
    assert not isinstance(err.value, IllegalActionError)
    assert isinstance(err.value, ValueError)


def test_syntax_and_legality_errors_are_distinct_classes() -> None:
    assert not issubclass(ActionSyntaxError, IllegalActionError)
    assert not issubclass(IllegalActionError, ActionSyntaxError)
    # well-formed text that is not allowed now is an IllegalActionError, not a syntax error
    state = at(bare(), ChooseTurn(0))
    with pytest.raises(IllegalActionError):
        apply(state, parse_action("take market brown"))


# --- notation and ids ---------------------------------------------------------------------


@pytest.mark.parametrize("edition", EDITIONS)
def test_parse_format_round_trip_for_the_whole_universe(edition: str) -> None:
    """Notation: parse(format(a)) == a for every action and chance outcome; texts unique."""
    universe = action_universe(builtin_edition(edition))
    texts = [format_action(a) for a in universe]
    assert len(set(texts)) == len(universe)
    for action, text in zip(universe, texts, strict=True):
        assert parse_action(text) == action
        assert format_action(parse_action(text)) == text


@pytest.mark.parametrize("edition", EDITIONS)
def test_action_ids_are_inverse_and_stable(edition: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Ids: action_id and action_from_id are inverse; the same data (even loaded again
    from a file) gives the same ids; the first ids are fixed by the universe's order."""
    data = builtin_edition(edition)
    universe = action_universe(data)
    for i in range(len(universe)):
        assert action_id(data, action_from_id(data, i)) == i
    for a in universe:
        assert action_from_id(data, action_id(data, a)) == a
    # the fixed head of the order: 35 cube takes, 28 well uses, 7 free actions, then skip
    assert action_id(data, TakeCube(ActionSpace.GRAIN_HARVEST, Cube.BROWN)) == 0
    assert action_id(data, TakeCube(ActionSpace.CHURCH, Cube.PLAGUE)) == 34
    assert action_id(data, Well(ActionSpace.GRAIN_HARVEST, Cube.BROWN)) == 35
    assert action_id(data, FreeAction(ActionSpace.GRAIN_HARVEST)) == 63
    assert action_id(data, Skip()) == 70
    assert action_from_id(data, 74) == Pass()
    # stable: the same content loaded from a copy of the data file gives the same ids
    path = tmp_path_factory.mktemp("data") / "copy.json"
    path.write_text(data.canonical_json, encoding="utf-8")
    copy = load_edition(path)
    assert action_universe(copy) == universe
    assert [action_id(copy, a) for a in universe[:200]] == list(range(min(200, len(universe))))


def test_action_id_errors() -> None:
    data = builtin_edition("big-box-2023")
    n = len(action_universe(data))
    for bad in (-1, n):
        with pytest.raises(ActionSyntaxError):
            action_from_id(data, bad)
    with pytest.raises(ActionSyntaxError):
        action_id(data, CouncilPlace(7))  # no member is numbered 7


# --- traces -------------------------------------------------------------------------------


def test_trace_plague_cube_then_harvest() -> None:
    """Trace: a plague cube from the grain harvest and the harvest fire TURN-01, TURN-03,
    TIME-01, HARV-01, HARV-02 in that order; without a trace list nothing is recorded."""
    state = put_cubes(bare(), ActionSpace.GRAIN_HARVEST, {Cube.PLAGUE: 1})
    state = at(state, ChooseTurn(0))
    trace: list[str] = []
    state = apply(state, TakeCube(ActionSpace.GRAIN_HARVEST, Cube.PLAGUE), trace)
    state = apply(state, Harvest(), trace)
    assert trace == ["TURN-01", "TURN-03", "TIME-01", "HARV-01", "HARV-02"]
    assert state.players[0].grain == 2
    assert state.players[0].lifetime == 2
    assert state.pending == ChooseTurn(1)


# --- seeded games and replay --------------------------------------------------------------


@pytest.mark.parametrize(("edition", "players"), EDITION_COUNTS)
def test_seeded_random_game_terminates_and_replays(edition: str, players: int) -> None:
    """play_logged runs a seeded random game to the end; replaying its log from the
    initial state (also through the log's JSON) reproduces the same final state."""
    final, log = play_logged(edition, players, seed=2024 + players)
    assert final.is_terminal
    assert final.num_players == players
    assert final.round >= 2
    assert len(log.actions) > 100
    replayed = replay(log.initial_state(), log.actions)
    assert replayed == final
    assert to_json(replayed) == to_json(final)
    reloaded = GameLog.from_json(log.to_json())
    assert reloaded == log
    assert to_json(replay(reloaded.initial_state(), list(reloaded.actions))) == to_json(final)


def test_same_seed_same_game_other_seed_other_game() -> None:
    a_final, a_log = play_logged("big-box-2023", 3, seed=7)
    b_final, b_log = play_logged("big-box-2023", 3, seed=7)
    _, c_log = play_logged("big-box-2023", 3, seed=8)
    assert a_log.actions == b_log.actions
    assert to_json(a_final) == to_json(b_final)
    assert a_log.actions != c_log.actions


def test_replay_rejects_a_corrupted_log() -> None:
    """Replay raises on the first illegal action instead of silently diverging."""
    final, log = play_logged("original-2011", 2, seed=3)
    actions: Sequence[str] = list(log.actions)
    # a seeding draw replaced by a take: not the kind of step that is pending
    corrupted = ["take market brown", *actions[1:]]
    with pytest.raises(IllegalActionError):
        replay(log.initial_state(), corrupted)
    with pytest.raises(ActionSyntaxError):
        replay(log.initial_state(), ["not-an-action", *actions[1:]])
    assert final.is_terminal


def test_coin_price_reasons_name_the_coins_the_player_has(tmp_path_factory: pytest.TempPathFactory) -> None:
    """CNC-08 / MASS-02 reasons with a user data file where privilege 4 and buying out of
    the bag cost 2 coins: a player holding 1 coin must be told "you have 1", not "0".

    Known engine bug (fails on purpose): council_chamber.privilege_precondition and
    mass.buy_precondition print a hard-coded "you have 0"."""
    data = builtin_edition("big-box-2023")
    raw = json.loads(data.canonical_json)
    raw["council_chamber"]["privilege_coin_price"]["value"] = 2
    raw["church"]["mass_coin_price"]["value"] = 2
    path = tmp_path_factory.mktemp("data") / "dear-coins.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    state = new_game(load_edition(path), 3, seed=0, variant=Variant(starting_compensation=False))
    while state.is_chance:
        state = apply(state, chance_outcomes(state)[0][0])
    state = strip_all(clear_board(state))
    state = put_cubes(state, ActionSpace.FAMILY, {Cube.BROWN: 1, Cube.GREEN: 1})
    state = place(state, 0, 2, OnCouncil(4))
    state = place(state, 0, 1, BLACK_BAG)
    state = give(state, 0, coins=1)
    with pytest.raises(IllegalActionError) as council:
        apply(acting(state, 0, ActionSpace.COUNCIL_CHAMBER), Privilege(4))
    with pytest.raises(IllegalActionError) as mass:
        apply(at(replace(state, mass=Mass(0, False)), MassBuy(0)), BuyFromBag(1))
    assert "2 coin" in council.value.reason
    assert "2 coin" in mass.value.reason
    assert "you have 1" in council.value.reason, council.value.reason
    assert "you have 1" in mass.value.reason, mass.value.reason
