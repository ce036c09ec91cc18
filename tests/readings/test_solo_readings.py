"""The solo mode's switchable readings (issue 9 + 10): AMB-36 (when Carla takes her cube),
AMB-37 (a face-up fate tile passed again), AMB-38 (Carla's death before or after her
reaction) and AMB-39 (Carla's market day). Each reading is played from the same
position; the state checks accept exactly what each reading reaches, and a witness stops
diverging when a switch is ignored."""

from __future__ import annotations

from dataclasses import replace

import pytest
from test_solo_review import (
    before_the_players_death_in_carlas_market_day,
    finish_turn,
    one_time_from_the_last_grave,
)

from village_rules import apply, chance_outcomes, legal_actions
from village_rules.checks.state_checks import phase_problems
from village_rules.cli.main import main
from village_rules.data.components import (
    BLACK_BAG,
    CHURCH_RESERVE,
    FARMYARD,
    ActionSpace,
    Category,
    Cube,
    Good,
    InChronicle,
    Location,
    OnChurch,
)
from village_rules.data.loader import builtin_edition
from village_rules.data.solo_data import FateTile
from village_rules.data.tally import Tally
from village_rules.drivers.scenario import arrange_market, clear_board, give, put_cubes, ready, strip_all
from village_rules.drivers.serialization import from_json, to_json
from village_rules.engine import carla, market_day
from village_rules.engine.context import Ctx
from village_rules.engine.setup import new_game
from village_rules.errors import StateFormatError
from village_rules.model.actions import Pass, RevealFate, Serve, Skip, TakeCube, Well, parse_action
from village_rules.model.carla_board import CARLA, PLAYER
from village_rules.model.pending import ChooseAction, ChooseCarlaCube, ChooseTurn, FateReveal, MarketChoice
from village_rules.model.state import GameState
from village_rules.readings.divergence import replay_both, search
from village_rules.readings.stored import WITNESSES, witness_from_json
from village_rules.rules.register import NEVER_PART, ORIGINAL, SOLO_READINGS
from village_rules.rules.variant import Rules, Variant

BB = "big-box-2023"
S = ActionSpace
Q, B = FateTile.QUILL, FateTile.BLANK


def solo(readings: dict[str, str]) -> GameState:
    """A solo game at the player's first turn under `readings`, with an empty board but for
    a plague and an orange cube on the grain harvest (so the round does not end)."""
    state = strip_all(clear_board(ready(BB, 1, 0, Variant(readings=readings))))
    return put_cubes(state, S.GRAIN_HARVEST, {Cube.PLAGUE: 1, Cube.ORANGE: 1})


def board_at(state: GameState, space: int, fate: tuple[FateTile | None, ...], cube: Cube) -> GameState:
    """Carla's board with her last cube (`cube`, from the supply) on `space` and `fate` up."""
    p = state.players[CARLA]
    state = replace(state, supply=replace(state.supply, cubes=state.supply.cubes.remove(cube)))
    state = state.with_player(CARLA, replace(p, cubes=p.cubes.add(cube)))
    assert state.carla is not None
    return replace(state, carla=replace(state.carla, space=space, last_cube=cube, fate=fate))


def move(state: GameState, number: int, frm: Location, to: Location) -> GameState:
    """Carla's member `number` from `frm` to `to`."""
    p = state.players[CARLA]
    members = list(p.members)
    i = next(i for i, loc in enumerate(members) if loc == frm and state.number_of(i) == number)
    members[i] = to
    return state.with_player(CARLA, replace(p, members=tuple(members)))


def take(state: GameState, space: ActionSpace, cube: Cube, trace: list[str]) -> GameState:
    """The player takes `cube` from `space` and skips the action."""
    state = apply(state, TakeCube(space, cube), trace=trace)
    while isinstance(state.pending, ChooseAction):
        state = apply(state, Skip(), trace=trace)
    return state


def fate(state: GameState) -> tuple[FateTile | None, ...]:
    assert state.carla is not None
    return state.carla.fate


# --- AMB-36: when Carla takes her cube ---------------------------------------------------


def test_solo10_solo20_amb36_a_her_take_after_the_action() -> None:
    """AMB-36 a: at the player's church action Carla has not taken her cube yet."""
    state = put_cubes(solo({"AMB-36": "a"}), S.CHURCH, {Cube.PINK: 2})
    state = apply(state, TakeCube(S.CHURCH, Cube.PINK))
    assert isinstance(state.pending, ChooseAction) and state.carla is not None
    assert state.carla.look_for is Cube.PINK and state.players[CARLA].cubes.total() == 0
    assert BLACK_BAG not in state.players[CARLA].members


def test_solo10_solo20_amb36_b_her_take_and_reaction_before_the_action() -> None:
    """AMB-36 b: Carla's pink and her church reaction (a "3" into the bag) come before the
    player's church action, which then begins."""
    state = put_cubes(solo({"AMB-36": "b"}), S.CHURCH, {Cube.PINK: 2})
    trace: list[str] = []
    state = apply(state, TakeCube(S.CHURCH, Cube.PINK), trace=trace)
    assert state.pending == ChooseAction(PLAYER, S.CHURCH) and state.carla is not None
    assert state.carla.idle and "SOLO-10" in trace and "SOLO-20" in trace
    assert state.players[CARLA].cubes.total() == 1 and state.players[CARLA].members.count(BLACK_BAG) == 1
    assert phase_problems(state) == []


def test_solo16_amb36_b_her_market_day_before_the_players_action() -> None:
    """AMB-36 b: the player's crafts action waits while Carla's market day runs (the
    player may sell in it first), then begins."""
    state, _ = market_cube_for_carla("a", {"AMB-36": "b"}, skip=False)
    assert isinstance(state.pending, MarketChoice) and state.carla is not None
    assert state.carla.action_waits is S.CRAFTS and phase_problems(state) == []
    again = from_json(to_json(state))
    assert again == state  # the held action survives JSON
    state = apply(state, Pass())
    while state.is_chance:
        state = apply(state, chance_outcomes(state)[0][0])
    assert state.pending == ChooseAction(PLAYER, S.CRAFTS) and state.carla is not None
    assert state.carla.action_waits is None


def test_solo11_amb36_b_witness_her_pink_comes_from_the_council_chamber_without_a_reaction() -> None:
    """AMB-36's stored witness, as the register describes it (issue 29): under b the last
    action (`take church pink`) makes Carla take her pink at once, from the council chamber
    (SOLO-11: none left on the church), so she does not react (SOLO-15, no SOLO-20); under
    a her take is still owed."""
    w = witness_from_json((WITNESSES / "AMB-36-big-box-2023-a-b.json").read_text("utf-8"))
    assert w.actions[-1] == "take church pink"
    traces: dict[str, list[str]] = {}
    for letter, variant in zip((w.left_letter, w.right_letter), w.variants(), strict=True):
        state = new_game(builtin_edition(w.edition), w.players, w.seed, variant)
        for text in w.actions[:-1]:
            state = apply(state, parse_action(text))
        before = state.space(S.COUNCIL_CHAMBER)[Cube.PINK]
        trace: list[str] = []
        state = apply(state, parse_action(w.actions[-1]), trace=trace)
        traces[letter] = [str(r) for r in trace]
        taken = before - state.space(S.COUNCIL_CHAMBER)[Cube.PINK]
        assert taken == (1 if letter == "b" else 0)
    assert "SOLO-11" in traces["b"] and "SOLO-15" in traces["b"] and "SOLO-20" not in traces["b"]
    assert "SOLO-08" not in traces["a"]


def test_amb36_state_checks_follow_the_reading() -> None:
    """A held action exists under b only, and never while the player's action is asked."""
    b, _ = market_cube_for_carla("a", {"AMB-36": "b"}, skip=False)
    a = replace(b, rules=replace(b.rules, variant=Variant(readings={})))
    assert ("$.carla.action_waits", "only AMB-36 b holds the player's action for Carla's steps") in (
        phase_problems(a)
    )
    with pytest.raises(StateFormatError, match=r"\$\.carla\.action_waits: only AMB-36 b"):
        from_json(to_json(a))  # a state JSON says which field and reading it breaks
    asked = b.with_pending(ChooseAction(PLAYER, S.CRAFTS))
    assert ("$.pending", "AMB-36 b: the held action begins only after Carla's steps") in phase_problems(asked)


# --- AMB-37: a face-up fate tile passed again ---------------------------------------------


@pytest.mark.parametrize(("letter", "dies"), [("a", True), ("b", False), ("c", True)])
def test_solo14_amb37_a_face_up_quill_passed_again(letter: str, dies: bool) -> None:
    """SOLO-14 / AMB-37: a face-up quill passed again kills again under a (and c, whose set
    is not all up); under b it counts only when turned up."""
    state = put_cubes(solo({"AMB-37": letter}), S.TRAVEL, {Cube.PINK: 2})
    state = board_at(state, 0, (Q, *(None,) * 5), Cube.PINK)
    trace: list[str] = []
    state = take(state, S.TRAVEL, Cube.PINK, trace)
    assert isinstance(state.pending, ChooseTurn)
    assert state.players[CARLA].members.count(InChronicle(Category.TRAVEL)) == (1 if dies else 0)
    assert ("SOLO-14" in trace) is dies
    assert fate(state) == (Q, *(None,) * 5)


@pytest.mark.parametrize("letter", ["a", "b", "c"])
def test_solo14_amb37_c_a_set_all_up_is_shuffled_face_down(letter: str) -> None:
    """AMB-37 c: turning up the last tile of the top set puts the whole set face down
    again (the tile turned up still counts); under a and b the tiles stay up."""
    state = put_cubes(solo({"AMB-37": letter}), S.TRAVEL, {Cube.PINK: 2})
    state = board_at(state, 4, (B, Q, None, None, None, None), Cube.PINK)
    state = take(state, S.TRAVEL, Cube.PINK, [])
    assert state.pending == FateReveal(2)  # the last face-down tile of the top set
    state = apply(state, RevealFate(B))
    assert isinstance(state.pending, ChooseTurn)
    top = (None, None, None) if letter == "c" else (B, Q, B)
    assert fate(state) == (*top, None, None, None)
    assert phase_problems(state) == []


def test_amb37_state_checks_follow_the_reading() -> None:
    """The state checks refuse a top set all face up under c only, and a death owed for a
    tile that shows no quill under every reading."""
    for letter, refused in (("a", False), ("b", False), ("c", True)):
        state = board_at(solo({"AMB-37": letter}), 5, (B, Q, B, None, None, None), Cube.PINK)
        problems = phase_problems(state)
        problem = ("$.carla.fate", "AMB-37 c: the top set is reshuffled once all are up")
        assert (problem in problems) is refused
    state = board_at(solo({}), 1, (B, *(None,) * 5), Cube.PINK)
    assert state.carla is not None
    owed = replace(state, carla=replace(state.carla, took_from=S.TRAVEL, reacted=True, quill=True))
    assert any(path == "$.carla.quill" for path, _ in phase_problems(owed))


# --- AMB-38: Carla's death before or after her reaction -----------------------------------


def church_quill(letter: str) -> tuple[GameState, list[str]]:
    """The review's case (review-solo.md item 5): no "1" or "2" beside her board, one "4"
    left on the church, one member on the church track, and a church cube past a quill."""
    state = solo({"AMB-38": letter})
    for number in (1, 1, 1, 1, 2, 2, 2):
        state = move(state, number, FARMYARD, BLACK_BAG)
    state = move(state, 3, CHURCH_RESERVE, BLACK_BAG)
    state = move(state, 3, CHURCH_RESERVE, OnChurch(2))
    state = move(state, 4, CHURCH_RESERVE, BLACK_BAG)
    state = put_cubes(state, S.CHURCH, {Cube.BROWN: 2})
    state = board_at(state, 0, (Q, *(None,) * 5), Cube.PINK)
    trace: list[str] = []
    return take(state, S.CHURCH, Cube.BROWN, trace), trace


def test_solo20_solo24_amb38_a_reaction_first_then_the_death() -> None:
    """AMB-38 a: the last "4" on the church goes into the bag (SOLO-20), then her member on
    the church track dies (SOLO-24) into the church category."""
    state, trace = church_quill("a")
    members = state.players[CARLA].members
    assert "SOLO-20" in trace and "SOLO-24" in trace and "SOLO-21" not in trace
    assert CHURCH_RESERVE not in members and OnChurch(2) not in members
    assert members.count(BLACK_BAG) == 10 and members.count(InChronicle(Category.CHURCH)) == 1


def test_solo21_solo23_amb38_b_the_death_first_then_no_reaction() -> None:
    """AMB-38 b: the "4" on the church dies first (SOLO-23), so the reaction is forgone
    (SOLO-21) and the member on the church track stays."""
    state, trace = church_quill("b")
    members = state.players[CARLA].members
    assert "SOLO-23" in trace and "SOLO-21" in trace and "SOLO-20" not in trace
    assert CHURCH_RESERVE not in members and OnChurch(2) in members
    assert members.count(BLACK_BAG) == 9 and members.count(InChronicle(Category.CHURCH)) == 1


def test_amb38_state_checks_follow_the_reading() -> None:
    """A death still owed after her reaction is reached under a only."""
    for letter, refused in (("a", False), ("b", True)):
        state = board_at(solo({"AMB-38": letter}), 1, (Q, *(None,) * 5), Cube.PINK)
        assert state.carla is not None
        owed = replace(state, carla=replace(state.carla, took_from=S.TRAVEL, reacted=True, quill=True))
        problem = ("$.carla.quill", "AMB-38 b: Carla's death comes before her reaction")
        assert (problem in phase_problems(owed)) is refused


# --- AMB-39: Carla's market day -----------------------------------------------------------


def market_cube_for_carla(
    letter: str, more: dict[str, str] | None = None, skip: bool = True
) -> tuple[GameState, list[str]]:
    """The player takes the only green of the crafts; Carla finds green on the market."""
    state = put_cubes(solo({"AMB-39": letter, **(more or {})}), S.CRAFTS, {Cube.GREEN: 1})
    state = put_cubes(state, S.MARKET, {Cube.GREEN: 1})
    state = put_cubes(state, S.TRAVEL, {Cube.PINK: 1})
    state = arrange_market(state, [5, 2, 8], [1, 3, 4, 6, 7])
    state = give(state, PLAYER, grain=3, cubes={Cube.BROWN: 1})
    trace: list[str] = []
    if not skip:
        return apply(state, TakeCube(S.CRAFTS, Cube.GREEN), trace=trace), trace
    return take(state, S.CRAFTS, Cube.GREEN, trace), trace


def test_solo16_amb39_a_carla_holds_a_market_day() -> None:
    """AMB-39 a: she serves the frontmost, then the player may sell (later-sale cost)."""
    state, trace = market_cube_for_carla("a")
    assert "SOLO-16" in trace and "MKT-01" in trace and state.players[CARLA].customers == (5,)
    assert isinstance(state.pending, MarketChoice) and state.market_day is not None
    assert state.market_day.trigger == CARLA


def test_solo16_solo18_amb39_b_carla_only_takes_the_frontmost() -> None:
    """AMB-39 b: she takes the frontmost customer and no market day is held: the player
    sells nothing and the space stays empty (no market day closes, MKT-06)."""
    state, trace = market_cube_for_carla("b")
    assert "SOLO-16" in trace and "SOLO-18" in trace and "MKT-01" not in trace
    assert state.players[CARLA].customers == (5,) and state.players[PLAYER].customers == ()
    assert state.market_day is None and isinstance(state.pending, ChooseTurn)
    assert state.market_available == (None, 2, 8)
    assert phase_problems(state) == []


def test_amb39_state_checks_refuse_carlas_market_day_under_b() -> None:
    """Carla's market day is a state reached under a only."""
    a, _ = market_cube_for_carla("a")
    assert phase_problems(a) == []
    b = replace(a, rules=replace(a.rules, variant=Variant(readings={"AMB-39": "b"})))
    assert ("$.market_day.trigger", "AMB-39 b: Carla only takes the frontmost customer") in phase_problems(b)
    assert Pass() in legal_actions(a)


# --- register, witnesses, self-composition ------------------------------------------------


def test_the_solo_readings_are_inert_in_2011_and_argued_so() -> None:
    """The 2011 edition has no solo mode: each other letter has the argument, not a witness."""
    assert sorted(SOLO_READINGS) == ["AMB-36", "AMB-37", "AMB-38", "AMB-39", "AMB-41", "AMB-42", "AMB-43"]
    for amb, letters in (
        ("AMB-36", "b"),
        ("AMB-37", "bc"),
        ("AMB-38", "b"),
        ("AMB-39", "b"),
        ("AMB-41", "b"),
        ("AMB-42", "b"),
        ("AMB-43", "b"),
    ):
        for letter in letters:
            assert "no solo mode" in NEVER_PART[amb, ORIGINAL, letter]
            assert (WITNESSES / f"{amb}-{BB}-a-{letter}.json").exists()


@pytest.mark.parametrize(
    "stem",
    [f"{amb}-{BB}-a-{x}" for amb, x in (("AMB-36", "b"), ("AMB-37", "b"), ("AMB-37", "c"), ("AMB-38", "b"))]
    + [f"{amb}-{BB}-a-b" for amb in ("AMB-39", "AMB-41", "AMB-42")],
)
def test_solo_witness_stops_diverging_when_the_switch_is_ignored(
    stem: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Self-composition is not vacuous: if the engine reads the witness's entry as a under
    both variants (the switch ignored), the stored witness no longer diverges."""
    w = witness_from_json((WITNESSES / f"{stem}.json").read_text("utf-8"))
    assert w.players == 1 and replay_both(w) is not None
    real = Rules.reading

    def ignoring(self: Rules, amb: str) -> str:
        return "a" if amb == w.amb else real(self, amb)

    monkeypatch.setattr(Rules, "reading", ignoring)
    assert replay_both(w) is None


def test_diverge_searches_a_solo_reading_with_one_player(capsys: pytest.CaptureFixture[str]) -> None:
    """`diverge AMB-39` defaults to a solo game; 2011 refuses one player with a clear error."""
    w = search("AMB-39", BB, 1, examples=10, shrink_budget=20)
    assert w.players == 1 and replay_both(w) is not None
    assert main(["diverge", "AMB-39", "--examples", "10"]) == 0
    assert "1 players" in capsys.readouterr().out
    assert main(["diverge", "AMB-39", "--edition", "original-2011", "--players", "1"]) == 2
    assert "SET-01" in capsys.readouterr().err


def test_the_state_checks_catch_an_engine_that_ignores_amb39_b(monkeypatch: pytest.MonkeyPatch) -> None:
    """The AMB-39 b state check is not vacuous: an engine that still holds Carla's market
    day under b (injected) is caught at the very state it reaches."""
    monkeypatch.setattr(carla, "take_frontmost", lambda state, ctx: market_day.start(state, CARLA, ctx))
    state, _ = market_cube_for_carla("b")
    assert state.market_day is not None and state.market_day.trigger == CARLA
    problem = ("$.market_day.trigger", "AMB-39 b: Carla only takes the frontmost customer")
    assert problem in phase_problems(state)


def test_the_state_checks_catch_an_engine_that_ignores_amb36_b(monkeypatch: pytest.MonkeyPatch) -> None:
    """The AMB-36 b state check is not vacuous: a core that never looks at the held action
    (injected) lets the turn end without the player's action, and the held action left
    behind is caught."""
    monkeypatch.setattr(carla, "held_action", lambda state: None)
    state = put_cubes(solo({"AMB-36": "b"}), S.CHURCH, {Cube.PINK: 2})
    state = apply(state, TakeCube(S.CHURCH, Cube.PINK))
    assert isinstance(state.pending, ChooseTurn) and state.carla is not None
    assert state.carla.action_waits is S.CHURCH
    problem = ("$.carla.action_waits", "a held action belongs to the player's turn")
    assert problem in phase_problems(state)


# --- AMB-41: Carla's owed take when the player's action ends the game ----------------------


def player_ends_the_game(letter: str) -> tuple[GameState, list[str]]:
    """The player takes the travel's plague cube and, as the time spent passes a quill,
    a "1" of theirs dies into the last grave (END-01, by the player); Carla is owed a
    plague cube, which is on the church (SOLO-11). Played to the next choice or the mass."""
    state = put_cubes(solo({"AMB-41": letter}), S.TRAVEL, {Cube.PLAGUE: 1})
    state = put_cubes(state, S.CHURCH, {Cube.PLAGUE: 1})
    state = one_time_from_the_last_grave(state)
    trace: list[str] = []
    state = take(state, S.TRAVEL, Cube.PLAGUE, trace)
    return finish_turn(state, trace), trace


def bagged(state: GameState) -> list[int]:
    return [state.number_of(i) for i, loc in enumerate(state.players[CARLA].members) if loc == BLACK_BAG]


def test_solo10_solo20_amb41_a_her_owed_take_before_the_final_mass() -> None:
    """AMB-41 a: she still takes the owed cube and reacts at the church, then the end."""
    state, trace = player_ends_the_game("a")
    assert state.end_triggered_by == PLAYER and state.mass is not None and state.mass.final
    assert trace.index("END-01") < trace.index("SOLO-11") < trace.index("SOLO-20") < trace.index("END-02")
    assert bagged(state) == [3] and state.players[CARLA].cubes[Cube.PLAGUE] == 1


def test_solo28_amb41_b_the_final_mass_at_once_her_take_dropped() -> None:
    """AMB-41 b: the final mass follows at once; she takes no cube and does not react."""
    state, trace = player_ends_the_game("b")
    assert state.end_triggered_by == PLAYER and state.mass is not None and state.mass.final
    assert "SOLO-11" not in trace and "SOLO-20" not in trace
    assert trace.index("END-01") < trace.index("SOLO-28") < trace.index("END-02")
    assert bagged(state) == [] and state.players[CARLA].cubes.total() == 0
    assert state.space(S.CHURCH)[Cube.PLAGUE] == 1 and phase_problems(state) == []


def owed_choice_after_the_end(letter: str = "a") -> GameState:
    """The player ended the game and is asked to choose Carla's owed cube (no plague is
    left on the board; the travel space offers brown and orange, SOLO-12): reached under a."""
    state = put_cubes(solo({"AMB-41": letter}), S.TRAVEL, {Cube.PLAGUE: 1, Cube.BROWN: 1, Cube.ORANGE: 1})
    state = state.with_space(S.GRAIN_HARVEST, state.space(S.GRAIN_HARVEST).remove(Cube.PLAGUE))
    state = one_time_from_the_last_grave(state)
    state = take(state, S.TRAVEL, Cube.PLAGUE, [])
    while not isinstance(state.pending, ChooseCarlaCube):
        options = legal_actions(state)
        state = apply(state, chance_outcomes(state)[0][0] if state.is_chance else options[0])
    return state


def test_amb41_state_checks_refuse_her_take_after_the_players_end_under_b() -> None:
    """Her take asked for after the player ended the game is a state reached under a only."""
    a = owed_choice_after_the_end()
    assert a.end_triggered_by == PLAYER and phase_problems(a) == []
    b = replace(a, rules=replace(a.rules, variant=Variant(readings={"AMB-41": "b"})))
    problem = ("$.pending", "AMB-41 b: the player ended the game: Carla's owed take is dropped")
    assert problem in phase_problems(b)


def test_the_state_checks_catch_an_engine_that_ignores_amb41_b(monkeypatch: pytest.MonkeyPatch) -> None:
    """The AMB-41 b state check is not vacuous: an engine that reads AMB-41 as a under b
    (injected) asks for her cube after the end, and the check catches that state."""
    real = Rules.reading

    def ignoring(self: Rules, amb: str) -> str:
        return "a" if amb == "AMB-41" else real(self, amb)

    monkeypatch.setattr(Rules, "reading", ignoring)
    state = owed_choice_after_the_end("b")
    monkeypatch.undo()
    assert state.end_triggered_by == PLAYER and state.rules.reading("AMB-41") == "b"
    problem = ("$.pending", "AMB-41 b: the player ended the game: Carla's owed take is dropped")
    assert problem in phase_problems(state)


# --- AMB-42: Carla's frontmost customer after the market is refilled ---------------------------


def refilled(
    letter: str, players: int = 1, waiting: tuple[int | None, ...] = (4, 5, 6, 7, 8)
) -> tuple[GameState, list[str]]:
    """The p. 17 example's market day: the player serves customer 1, Carla customer 2,
    the player passes, and the market is refilled from the waiting line (`waiting`)."""
    state = ready(BB, players, 7, Variant(readings={"AMB-42": letter}))
    state = put_cubes(strip_all(clear_board(state)), S.GRAIN_HARVEST, {Cube.PLAGUE: 1, Cube.ORANGE: 1})
    state = put_cubes(state, S.MARKET, {Cube.GREEN: 1})
    state = arrange_market(state, [1, 2, 3], list(waiting))
    state = give(state, PLAYER, goods={Good.HORSE: 1, Good.PLOW: 1, Good.SCROLL: 1}, grain=1)
    trace: list[str] = []
    state = apply(state, TakeCube(S.MARKET, Cube.GREEN), trace=trace)
    state = apply(state, Serve(1), trace=trace)
    while state.market_day is not None and not state.market_day.closed:
        state = apply(state, Pass(), trace=trace)
    return state, trace


def test_mkt06_solo18_amb42_a_the_blue_spaces_are_fixed() -> None:
    """AMB-42 a: customer 3 stays on the third space; Carla's next frontmost is 4."""
    state, trace = refilled("a")
    assert "MKT-06" in trace and state.players[CARLA].customers == (2,)
    assert state.market_available == (4, 5, 3) and phase_problems(state) == []
    short, _ = refilled("a", waiting=(4, None, None, None, None))
    assert short.market_available == (4, None, 3) and phase_problems(short) == []


def test_mkt06_solo18_amb42_b_the_customers_left_move_up_first() -> None:
    """AMB-42 b: customer 3 moves up to the first space, 4 and 5 fill in behind: her next
    frontmost is 3, the one waiting longest."""
    state, trace = refilled("b")
    assert "MKT-06" in trace and state.players[CARLA].customers == (2,)
    assert state.market_available == (3, 4, 5) and phase_problems(state) == []


def test_amb42_b_changes_no_multi_player_game() -> None:
    """AMB-42 b is a solo reading: with two players the market is refilled as under a."""
    a, _ = refilled("a", players=2)
    b, _ = refilled("b", players=2)
    assert a.market_available == b.market_available
    assert to_json(replace(a, rules=b.rules)) == to_json(b)


def test_amb42_state_checks_refuse_a_gap_in_front_under_b() -> None:
    """Customers behind an empty blue space after a refill are reached under a only."""
    a, _ = refilled("a")
    gap = replace(a, market_available=(None, 5, 3))
    assert phase_problems(gap) == []
    b = replace(gap, rules=replace(a.rules, variant=Variant(readings={"AMB-42": "b"})))
    problem = ("$.market_available", "AMB-42 b: the customers left move up before the refill")
    assert problem in phase_problems(b)
    both = replace(gap, rules=replace(a.rules, variant=Variant(readings={"AMB-42": "b", "AMB-39": "b"})))
    assert problem not in phase_problems(both)  # AMB-39 b: her take leaves a gap until a market day


def test_the_state_checks_catch_an_engine_that_ignores_amb42_b(monkeypatch: pytest.MonkeyPatch) -> None:
    """The AMB-42 b state check is not vacuous: a market that never moves the customers up
    (injected: `is_solo` false inside `close`) leaves a gap the check catches."""
    real_close = market_day.close

    def fixed_close(state: GameState, ctx: Ctx) -> GameState:
        rules = replace(state.rules, variant=Variant(readings={"AMB-42": "a"}))
        return replace(real_close(replace(state, rules=rules), ctx), rules=state.rules)

    one = (4, None, None, None, None)  # one customer waiting: the refill leaves a space empty
    assert refilled("b", waiting=one)[0].market_available == (3, 4, None)
    monkeypatch.setattr(market_day, "close", fixed_close)
    state, _ = refilled("b", waiting=one)
    assert state.market_available == (4, None, 3)
    problem = ("$.market_available", "AMB-42 b: the customers left move up before the refill")
    assert problem in phase_problems(state)


@pytest.mark.parametrize("letter", ["a", "b"])
def test_end04_amb41_her_take_after_the_players_final_action_under_both(letter: str) -> None:
    """AMB-41 b drops only the take owed when the player's action ends the game: after the
    final action END-04 gives him (his death in Carla's market day), she takes her cube
    under either reading (SOLO-10 … SOLO-13)."""
    state = before_the_players_death_in_carlas_market_day(solo({"AMB-41": letter}))
    trace: list[str] = []
    state = take(state, S.CRAFTS, Cube.GREEN, trace)
    state = apply(state, Serve(2), trace=trace)  # the later-sale cost: his death, END-01
    state = finish_turn(state, trace)
    assert "END-04" in trace and state.pending == ChooseTurn(PLAYER) and state.final_turns == ()
    final: list[str] = []
    state = take(state, S.TRAVEL, Cube.PINK, final)
    while not isinstance(state.pending, ChooseCarlaCube) and state.mass is None:
        state = apply(state, chance_outcomes(state)[0][0] if state.is_chance else legal_actions(state)[0])
    assert isinstance(state.pending, ChooseCarlaCube)  # no pink left: the player chooses (SOLO-13)
    assert phase_problems(state) == []


# --- AMB-43: a market day held through the well ----------------------------------------------


def well_market_day(letter: str, trace: list[str]) -> GameState:
    """The player holds a market day through the well (3 brown cubes) and serves customer
    2 (not the frontmost, 5); Carla's chance follows."""
    state = put_cubes(solo({"AMB-43": letter}), S.TRAVEL, {Cube.PINK: 2})
    state = arrange_market(state, [5, 2, 8], [1, 3, 4, 6, 7])
    state = give(state, PLAYER, grain=5, cubes={Cube.BROWN: 3})
    state = apply(state, Well(S.MARKET, Cube.BROWN), trace=trace)
    while not isinstance(state.pending, MarketChoice):
        state = apply(state, chance_outcomes(state)[0][0] if state.is_chance else Pass(), trace=trace)
    return apply(state, Serve(2), trace=trace)


@pytest.mark.parametrize(("letter", "carla_gets"), [("a", ()), ("b", (5,))])
def test_solo25_solo31_amb43_carla_in_a_market_day_held_through_the_well(
    letter: str, carla_gets: tuple[int, ...]
) -> None:
    """AMB-43 (issue 29): in a market day the player holds through the well, under a (the
    default, p. 18 "does not … 'react' right after you performed a 'well' action") Carla
    serves nobody (SOLO-25); under b (p. 17 example: her customer in the player's market
    day is no reaction to a cube of hers) she serves the frontmost left, 5 (SOLO-31). In
    both she takes no cube that turn."""
    trace: list[str] = []
    state = well_market_day(letter, trace)
    assert state.players[CARLA].customers == carla_gets
    assert ("SOLO-31" in trace) == (letter == "b") and ("SOLO-25" in trace)
    assert ("SOLO-18" in trace) == (letter == "b")
    state = finish_turn(state, trace)
    assert state.players[CARLA].cubes.total() == 0 and state.space(S.TRAVEL) == Tally.of({Cube.PINK: 2})
    assert state.carla is not None and state.carla.idle and not state.carla.well_turn
    assert phase_problems(state) == []


def test_amb43_witness_parts_at_carlas_chance_in_the_wells_market_day() -> None:
    """The stored AMB-43 witness ends with the player's `well market …`; under b Carla has a
    customer more."""
    w = witness_from_json((WITNESSES / "AMB-43-big-box-2023-a-b.json").read_text("utf-8"))
    assert w.actions[-1].startswith("well market")
    assert replay_both(w) is not None and "seat 1 customers" in w.detail
