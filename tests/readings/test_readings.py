"""Switchable readings (issue 9): the `Variant` options of `village_rules.rules.register`, both
readings of every option, the literal defaults per edition, and their JSON and CLI forms."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from support import ROOT

from village_rules.checks.invariants import check, legal_set_violations, state_violations
from village_rules.cli.main import main
from village_rules.data.components import (
    BLACK_BAG,
    FARMYARD,
    INFLUENCE,
    REMOVED,
    UNBORN,
    ActionSpace,
    AtCraft,
    Building,
    Category,
    Cube,
    Good,
    InChronicle,
    OnChurch,
    OnCouncil,
    Travelling,
)
from village_rules.data.tally import Tally
from village_rules.drivers.play import GameLog
from village_rules.drivers.scenario import acting, at, emptied, give, place, put_cubes, ready, set_lifetime
from village_rules.drivers.serialization import from_json, to_json
from village_rules.engine import core
from village_rules.engine.context import Ctx
from village_rules.engine.core import apply, chance_outcomes, legal_actions, legal_actions_oracle
from village_rules.engine.setup import new_game
from village_rules.engine.time_and_death import spend_time
from village_rules.engine.travel_map import adjacent
from village_rules.errors import IllegalActionError, LogFormatError, ReadingError, StateFormatError
from village_rules.fuzz.games import plan_game
from village_rules.model.actions import (
    Action,
    Birth,
    Buy,
    BuyFromBag,
    CallHome,
    DrawMonk,
    Harvest,
    Mill,
    Pay,
    Privilege,
    Produce,
    Skip,
    TakeCube,
    Train,
    Travel,
    Well,
    format_action,
    parse_action,
)
from village_rules.model.pending import ChooseDying, ChoosePayment, ChooseTurn, MassBuy, MassDraw, SeedDraw
from village_rules.model.state import GameState, Mass
from village_rules.readings import divergence
from village_rules.rules.register import (
    BIG_BOX,
    FIXED,
    ORIGINAL,
    READINGS,
    parse_choice,
    random_choices,
)
from village_rules.rules.variant import Variant
from village_rules.testing.strategies import variants

# --- the register and the Variant -----------------------------------------------------------


def test_every_reading_has_letters_and_a_default_per_edition() -> None:
    ids = [r.amb for r in READINGS] + [f.amb for f in FIXED]
    assert len(ids) == len(set(ids))  # every AMB entry is in exactly one list
    # AMB-36..43: the solo mode; 44 (issue 29); 45, 46 (issue 43)
    assert sorted(ids) == [f"AMB-{k:02}" for k in range(1, 47)]
    for entry in READINGS:
        assert len(entry.letters) >= 2
        for edition in (BIG_BOX, ORIGINAL):
            assert entry.default(edition) in entry.letter_names


def test_literal_defaults_per_edition() -> None:
    """AMB-26 b and AMB-01 c everywhere; AMB-19 a and AMB-23 a in both editions (issue 29:
    the literal reading of each edition's own text); AMB-33 per edition."""
    v = Variant()
    assert v.reading("AMB-26", BIG_BOX) == v.reading("AMB-26", ORIGINAL) == "b"
    assert v.reading("AMB-01", BIG_BOX) == v.reading("AMB-01", ORIGINAL) == "c"
    assert (v.reading("AMB-19", BIG_BOX), v.reading("AMB-19", ORIGINAL)) == ("a", "a")
    assert (v.reading("AMB-23", BIG_BOX), v.reading("AMB-23", ORIGINAL)) == ("a", "a")
    # issue 43: 2023 p. 5 holds the round mass when a final action takes the last cube, only
    # the 2011 Note skips it; DEATH-02 "the one with the lowest number" in both texts
    assert (v.reading("AMB-45", BIG_BOX), v.reading("AMB-45", ORIGINAL)) == ("b", "a")
    assert (v.reading("AMB-46", BIG_BOX), v.reading("AMB-46", ORIGINAL)) == ("a", "a")


def test_variant_choices_are_checked_and_sorted() -> None:
    v = Variant(readings={"AMB-26": "a", "AMB-01": "b"})
    assert v.choices == (("AMB-01", "b"), ("AMB-26", "a"))
    assert v == Variant(readings=(("AMB-26", "a"), ("AMB-01", "b")))
    assert v.reading("AMB-26", BIG_BOX) == "a"
    assert v.with_reading("AMB-26", "b").reading("AMB-26", BIG_BOX) == "b"
    with pytest.raises(ReadingError, match="AMB-99"):
        Variant(readings={"AMB-99": "a"})
    with pytest.raises(ReadingError, match="AMB-26 has no reading 'z'"):
        Variant(readings={"AMB-26": "z"})
    with pytest.raises(ReadingError, match="more than once"):
        Variant(readings=(("AMB-26", "a"), ("AMB-26", "b")))
    with pytest.raises(ReadingError, match="AMB-14"):  # in the register, not switchable
        Variant(readings={"AMB-14": "b"})


def test_parse_choice() -> None:
    assert parse_choice("amb-26=A") == ("AMB-26", "a")
    for bad in ("AMB-26", "AMB-26=", "=a", "AMB-26=q"):
        with pytest.raises(ReadingError):
            parse_choice(bad)


def test_random_choices_are_deterministic_and_valid() -> None:
    a = [random_choices(random.Random(k)) for k in range(30)]
    b = [random_choices(random.Random(k)) for k in range(30)]
    assert a == b
    assert any(a)
    for choices in a:
        Variant(readings=choices)  # raises if invalid


# --- JSON: states and logs --------------------------------------------------------------------


def test_state_json_keeps_the_readings() -> None:
    v = Variant(False, {"AMB-26": "a", "AMB-19": "a"})
    state = ready(BIG_BOX, 2, variant=v)
    raw = json.loads(to_json(state))
    assert raw["rules"]["variant"] == {
        "starting_compensation": False,
        "readings": {"AMB-19": "a", "AMB-26": "a"},
    }
    assert from_json(to_json(state)).rules.variant == v


def test_state_json_rejects_a_bad_reading_and_reads_the_old_well_flag() -> None:
    raw = json.loads(to_json(ready(BIG_BOX, 2)))
    raw["rules"]["variant"]["readings"] = {"AMB-26": "x"}
    with pytest.raises(StateFormatError, match=r"\$\.rules\.variant\.readings\.AMB-26"):
        from_json(json.dumps(raw))
    raw["rules"]["variant"] = {"starting_compensation": True, "coin_substitution_at_well": False}
    assert from_json(json.dumps(raw)).rules.variant == Variant(readings={"AMB-01": "b"})


def test_game_log_keeps_the_readings_and_reads_the_old_well_flag() -> None:
    log = GameLog(BIG_BOX, 2, 3, ("draw-cube green",), Variant(True, {"AMB-24": "b"}))
    raw = json.loads(log.to_json())
    assert raw["variant"] == {"starting_compensation": True, "readings": {"AMB-24": "b"}}
    assert GameLog.from_json(log.to_json()) == log
    raw["variant"] = {"starting_compensation": True, "coin_substitution_at_well": True}
    assert GameLog.from_json(json.dumps(raw)).variant == Variant(readings={"AMB-01": "a"})
    raw["variant"] = {"starting_compensation": True, "readings": {"AMB-77": "a"}}
    with pytest.raises(LogFormatError, match=r"variant\.readings\.AMB-77"):
        GameLog.from_json(json.dumps(raw))


# --- the CLI ----------------------------------------------------------------------------------


def test_cli_reading_flag(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["setup", "--players", "2", "--json", "--reading", "AMB-26=a", "--reading", "AMB-19=a"]) == 0
    raw = json.loads(capsys.readouterr().out)
    assert raw["rules"]["variant"]["readings"] == {"AMB-19": "a", "AMB-26": "a"}
    assert main(["setup", "--players", "2", "--json", "--no-coins-at-well"]) == 0
    assert json.loads(capsys.readouterr().out)["rules"]["variant"]["readings"] == {"AMB-01": "b"}


@pytest.mark.parametrize(
    "argv",
    [
        ["setup", "--reading", "AMB-26=q"],
        ["setup", "--reading", "AMB-14=b"],
        ["setup", "--reading", "AMB-26=a", "--reading", "AMB-26=b"],
        ["setup", "--reading", "AMB-01=c", "--no-coins-at-well"],
        ["play", "--reading", "nonsense"],
    ],
)
def test_cli_bad_reading_is_a_clear_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("village-rules: ") and "Traceback" not in err
    assert "AMB" in err or "--reading" in err


def test_cli_ambiguities_lists_the_register(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ambiguities"]) == 0
    out = capsys.readouterr().out
    for k in range(1, 36):
        assert f"AMB-{k:02}  " in out
    assert "default: big-box-2023 c, original-2011 a" in out  # AMB-33 (issue 29)
    assert "village_rules/readings/witnesses/AMB-26-big-box-2023-b-a.json" in out
    assert "readings do not change play" in out
    # Issue 9 done: no entry is left whose other reading is recorded but not selectable.
    assert {f.amb for f in FIXED if f.option_pending} == set()
    assert "not an option yet" not in out
    for amb in ("AMB-41", "AMB-42"):  # the last two solo entries (issue 10), now options
        assert f"village_rules/readings/witnesses/{amb}-big-box-2023-a-b.json" in out
    assert "big-box-2023 a, original-2011 a (solo only: inert in original-2011" in out  # AMB-36..39
    assert "divergence big-box-2023 a/c: village_rules/readings/witnesses/AMB-37-big-box-2023-a-c.json" in out
    assert "divergence original-2011 a/b: no witness: the 2011 edition has no solo mode" in out
    assert "changes play, selected outside --reading" in out  # AMB-11, AMB-35
    stored = "village_rules/readings/witnesses/AMB-15-original-2011-a-b.json"
    assert f"divergence original-2011 a/b: {stored}" in out
    assert "divergence big-box-2023 a/b: no witness: with the shipped 2023 data" in out  # AMB-08
    # AMB-44 (issue 29): planned witnesses; the 2011 one is wanted again since issue 43
    assert "divergence big-box-2023 a/b: village_rules/readings/witnesses/AMB-44-big-box-2023-a-b.json" in out
    assert "divergence original-2011 a/b: no witness yet: the planned 2011 witness stopped parting" in out
    assert out.count("no witness yet") == 1


def test_no_switchable_entry_is_left_open() -> None:
    """Issue 9: every register entry whose readings change play is a reading option, or
    (AMB-11, AMB-35) is selected by its own flag or data value."""
    for fixed in FIXED:
        if fixed.plays_differently and not fixed.option_pending:
            assert fixed.amb in {"AMB-11", "AMB-35"}, fixed
            assert "not implemented" not in fixed.why
        assert not fixed.option_pending, fixed  # none is left "not an option yet" (issue 9)


def test_the_register_text_agrees_with_the_fixed_entries() -> None:
    """specs/ambiguities.md leaves no entry "not an option yet" (issue 9: every
    play-changing entry is an option), and says "cannot change play" only for entries
    that do not play differently."""
    text = (ROOT / "specs" / "ambiguities.md").read_text(encoding="utf-8")
    assert "not an option yet" not in text
    for fixed in FIXED:
        entry = text.split(f"### {fixed.amb}:", 1)[1].split("\n### ", 1)[0]
        if fixed.plays_differently:
            assert "cannot change play" not in entry, fixed.amb


# --- engine switches, both readings each ----------------------------------------------------


def settle(state: GameState) -> GameState:
    """Pay the first way offered while a payment is asked for."""
    while isinstance(state.pending, ChoosePayment):
        state = apply(state, legal_actions(state)[0])
    return state


def crafts_turn(variant: Variant | None = None, edition: str = BIG_BOX) -> GameState:
    return acting(emptied(edition, 2, variant=variant), 0, ActionSpace.CRAFTS)


def test_craft05_train_without_producing_by_default_amb26_b() -> None:
    """CRAFT-05 / AMB-26 b: training alone costs the training time and makes no good."""
    state = crafts_turn()
    action = Train(Building.SMITHY, 1, None)
    assert action in legal_actions(state)
    trace: list[str] = []
    after = settle(apply(state, action, trace))
    assert "CRAFT-05" in trace and "CRAFT-01" in trace
    p = after.players[0]
    assert AtCraft(Building.SMITHY) in p.members
    assert p.goods.total() == 0
    assert p.lifetime == state.players[0].lifetime + state.rules.data.craft(Building.SMITHY).training_time
    assert format_action(action) == "train smithy 1" and parse_action("train smithy 1") == action


def test_amb26_a_training_must_produce() -> None:
    state = crafts_turn(Variant(readings={"AMB-26": "a"}))
    assert not any(isinstance(a, Train) and a.good is None for a in legal_actions(state))
    with pytest.raises(IllegalActionError, match="AMB-26 a"):
        apply(state, Train(Building.SMITHY, 1, None))
    assert Train(Building.SMITHY, 1, Good.PLOW) in legal_actions(state)


@pytest.mark.parametrize(("letter", "legal"), [("a", True), ("b", False)])
def test_amb02_harvest_over_capacity(letter: str, legal: bool) -> None:
    state = give(emptied(BIG_BOX, 2, variant=Variant(readings={"AMB-02": letter})), 0, grain=4)
    state = acting(state, 0, ActionSpace.GRAIN_HARVEST)
    assert (Harvest() in legal_actions(state)) is legal
    if legal:
        assert apply(state, Harvest()).players[0].grain == 5
    else:
        with pytest.raises(IllegalActionError, match="AMB-02 b"):
            apply(state, Harvest())


@pytest.mark.parametrize(("letter", "church_ok"), [("a", True), ("b", False)])
def test_amb24_call_home_from(letter: str, church_ok: bool) -> None:
    state = emptied(BIG_BOX, 2, variant=Variant(readings={"AMB-24": letter}))
    state = place(place(state, 0, 1, OnChurch(1)), 0, 1, AtCraft(Building.OFFICE))
    state = acting(state, 0, ActionSpace.FAMILY)
    legal = legal_actions(state)
    assert CallHome(AtCraft(Building.OFFICE), 1) in legal
    assert (CallHome(OnChurch(1), 1) in legal) is church_ok
    if not church_ok:
        with pytest.raises(IllegalActionError, match="AMB-24 b"):
            apply(state, CallHome(OnChurch(1), 1))


def travel_turn(variant: Variant, edition: str, markers: tuple[str, ...]) -> GameState:
    state = emptied(edition, 2, variant=variant)
    village = state.rules.data.village
    state = give(state, 0, cubes={Cube.BROWN: 2, Cube.PINK: 2}, goods={Good.WAGON: 1})
    p = state.players[0]
    state = state.with_player(0, replace(p, markers=tuple(sorted(markers))))
    assert village
    return acting(state, 0, ActionSpace.TRAVEL)


@pytest.mark.parametrize(
    ("edition", "letter", "rule", "rewarded"),
    [
        (BIG_BOX, None, "TRV-03", False),
        (ORIGINAL, None, "TRV-03", False),
        (BIG_BOX, "b", "TRV-06", True),
        (ORIGINAL, "b", "TRV-06", True),
    ],
)
def test_trv06_amb19_reward_on_every_arrival(
    edition: str, letter: str | None, rule: str, rewarded: bool
) -> None:
    """TRV-06 / AMB-19 b: a city already marked pays its reward again; under the default a
    (both editions since issue 29: 2023 p. 10 "place it … This gets you the reward") it pays
    nothing (TRV-03)."""
    variant = Variant() if letter is None else Variant(readings={"AMB-19": letter})
    state = travel_turn(variant, edition, ("c1",))
    trip = Travel(state.rules.data.village, "c1", 1)
    trace: list[str] = []
    after = settle(apply(state, trip, trace))
    assert rule in trace
    assert after.players[0].markers == ("c1",)
    assert after.players[0].prestige == state.players[0].prestige + (3 if rewarded else 0)


@pytest.mark.parametrize(("letter", "legal"), [("a", True), ("b", False)])
def test_amb18_trip_without_marker(letter: str, legal: bool) -> None:
    state = travel_turn(Variant(readings={"AMB-18": letter}), BIG_BOX, ("c3", "c4", "c5", "c6", "c7", "c8"))
    trip = Travel(state.rules.data.village, "c1", 1)
    assert (trip in legal_actions(state)) is legal
    if not legal:
        with pytest.raises(IllegalActionError, match="AMB-18 b"):
            apply(state, trip)
    else:
        after = settle(apply(state, trip))
        assert Travelling("c1") in after.players[0].members
        assert len(after.players[0].markers) == 6


def invisible_mill(variant: Variant, edition: str) -> GameState:
    """Seat 0 has no visible member, 2 grain, and 1 space to the quill: the mill passes it."""
    state = emptied(edition, 2, variant=variant)
    for _ in range(4):
        state = place(state, 0, 1, BLACK_BAG)
    state = set_lifetime(give(state, 0, grain=2), 0, state.rules.data.lifetime_track_length - 1)
    return acting(state, 0, ActionSpace.CRAFTS)


def test_death07_amb23_b_the_death_stays_owed() -> None:
    """DEATH-07 / AMB-23 b (the 2011 default until issue 29): no visible member, so the
    death stays owed and takes the first member that is visible at the end of a later turn
    (with AMB-46 b, DEATH-09: the four "1"s stay in the bag, so the newborn "2" is the
    lowest visible; under AMB-46 a, the default, nobody of number "2" can die before the
    "1"s, and the death stays owed: `test_death02_amb46_a_keeps_the_amb23_b_death_owed`)."""
    state = invisible_mill(Variant(readings={"AMB-23": "b", "AMB-46": "b"}), ORIGINAL)
    trace: list[str] = []
    after = settle(apply(state, Mill(), trace))
    assert "DEATH-07" in trace and "DEATH-05" not in trace
    assert after.deaths_owed[0] == 1
    check(after)
    # a birth at a later family action: the newborn "2" is the only visible member and dies
    later = acting(at(after, ChooseTurn(0)), 0, ActionSpace.FAMILY)
    born = apply(later, Birth())
    if isinstance(born.pending, ChooseDying):
        born = apply(born, legal_actions(born)[0])
    assert born.deaths_owed[0] == 0
    assert InChronicle(Category.FARMYARD) in born.players[0].members


def test_death02_amb46_a_keeps_the_amb23_b_death_owed() -> None:
    """DEATH-02 (AMB-46 a) with AMB-23 b: the four "1"s are in the bag, so the newborn "2"
    is not the one that has to die; the death stays owed (DEATH-07) and the "2" lives."""
    state = invisible_mill(Variant(readings={"AMB-23": "b"}), ORIGINAL)
    after = settle(apply(state, Mill()))
    later = acting(at(after, ChooseTurn(0)), 0, ActionSpace.FAMILY)
    trace: list[str] = []
    born = apply(later, Birth(), trace)
    assert born.deaths_owed[0] == 1 and "DEATH-07" in trace
    assert born.players[0].members.count(FARMYARD) == 1
    check(born)


@pytest.mark.parametrize("edition", [BIG_BOX, ORIGINAL])
def test_death05_amb23_a_the_death_lapses_by_default(edition: str) -> None:
    """DEATH-05 / AMB-23 a, the default in both editions (issue 29: 2011 times the death at
    the end of the turn and needs a visible member then; nothing carries it over)."""
    state = invisible_mill(Variant(), edition)
    trace: list[str] = []
    after = settle(apply(state, Mill(), trace))
    assert "DEATH-05" in trace and "DEATH-07" not in trace
    assert after.deaths_owed[0] == 0
    check(after)


def dying_farmer(variant: Variant, chronicle_farmers: int) -> GameState:
    """2 players: `chronicle_farmers` of seat 1's members already in the farmyard chronicle;
    seat 0's farmer dies at the mill."""
    state = emptied(BIG_BOX, 2, variant=variant)
    for _ in range(chronicle_farmers):
        state = place(state, 1, 1, InChronicle(Category.FARMYARD))
    state = set_lifetime(give(state, 0, grain=2), 0, state.rules.data.lifetime_track_length - 1)
    return acting(state, 0, ActionSpace.CRAFTS)


@pytest.mark.parametrize(("letter", "ends"), [("a", False), ("b", True)])
def test_amb12_one_full_category(letter: str, ends: bool) -> None:
    """AMB-12 b: the farmyard category full (2 open spaces at 2 players) ends the game."""
    state = dying_farmer(Variant(readings={"AMB-12": letter}), 1)
    after = settle(apply(state, Mill()))
    if isinstance(after.pending, ChooseDying):
        after = apply(after, legal_actions(after)[0])
    assert InChronicle(Category.FARMYARD) in after.players[0].members
    assert (after.end_triggered_by == 0) is ends
    check(after)


@pytest.mark.parametrize(("letter", "where"), [("a", InChronicle(Category.FARMYARD)), ("b", REMOVED)])
def test_amb10_deaths_after_the_end_trigger(letter: str, where: object) -> None:
    state = dying_farmer(Variant(readings={"AMB-10": letter}), 0)
    state = replace(state, end_triggered_by=1)
    after = settle(apply(state, Mill()))
    if isinstance(after.pending, ChooseDying):
        after = apply(after, legal_actions(after)[0])
    assert where in after.players[0].members


@pytest.mark.parametrize(("letter", "pays"), [("a", False), ("b", False), ("c", True)])
def test_amb01_three_coins_at_the_well(letter: str, pays: bool) -> None:
    state = emptied(BIG_BOX, 2, variant=Variant(readings={"AMB-01": letter}))
    state = give(state, 0, coins=3)
    state = at(put_cubes(state, ActionSpace.CHURCH, {Cube.BROWN: 1}), ChooseTurn(0))
    assert (Well(ActionSpace.FAMILY, Cube.PINK) in legal_actions(state)) is pays


@pytest.mark.parametrize(("letter", "coin_ok"), [("a", True), ("b", False), ("c", True)])
def test_amb01_two_cubes_and_a_coin_at_the_well(letter: str, coin_ok: bool) -> None:
    state = emptied(BIG_BOX, 2, variant=Variant(readings={"AMB-01": letter}))
    state = give(state, 0, cubes={Cube.PINK: 2}, coins=1)
    state = at(put_cubes(state, ActionSpace.CHURCH, {Cube.BROWN: 1}), ChooseTurn(0))
    well = Well(ActionSpace.FAMILY, Cube.PINK)
    assert (well in legal_actions(state)) is coin_ok
    if coin_ok:
        after = apply(state, well)
        if isinstance(after.pending, ChoosePayment):
            assert Pay(0, Tally.of({Cube.PINK: 1})) in legal_actions(after)
    assert UNBORN in state.players[0].members and FARMYARD in state.players[0].members


@pytest.mark.parametrize("letter", ["a", "b"])
def test_trv07_amb17_setting_out_from_a_marked_city(letter: str) -> None:
    """TRV-07 / AMB-17 b: no member on the map but a marker on c1: a farmyard member may
    set out from c1 to its neighbour c3 (paying that path); under a only the village."""
    state = emptied(BIG_BOX, 2, variant=Variant(readings={"AMB-17": letter}))
    state = give(state, 0, cubes={Cube.ORANGE: 1}, goods={Good.WAGON: 1})
    state = state.with_player(0, replace(state.players[0], markers=("c1",)))
    state = acting(state, 0, ActionSpace.TRAVEL)
    trip = Travel("c1", "c3", 1)
    if letter == "a":
        assert trip not in legal_actions(state)
        with pytest.raises(IllegalActionError):
            apply(state, trip)
        return
    assert trip in legal_actions(state)
    trace: list[str] = []
    after = settle(apply(state, trip, trace))
    assert "TRV-07" in trace and "TRV-01" in trace
    p = after.players[0]
    assert Travelling("c3") in p.members and p.markers == ("c1", "c3")
    assert p.cubes.total() == 0 and p.goods.total() == 0
    # with a member on the map, the marker no longer counts
    again = acting(
        at(give(after, 0, goods={Good.WAGON: 1}, cubes={Cube.ORANGE: 1}), ChooseTurn(0)),
        0,
        ActionSpace.TRAVEL,
    )
    assert Travel("c1", "c3", 1) not in legal_actions(again)


def test_the_fuzzer_and_the_machine_draw_the_readings() -> None:
    games = [plan_game(3, i) for i in range(40)]
    drawn = {amb for g in games for amb, _ in g.variant.choices}
    assert drawn == {r.amb for r in READINGS}  # every option is in the fuzzer's mix
    assert plan_game(3, 0, readings=(("AMB-26", "a"),)).variant.choices == (("AMB-26", "a"),)
    seen: set[tuple[str, str]] = set()

    @settings(max_examples=300, derandomize=True, database=None)
    @given(variants())
    def collect(v: Variant) -> None:
        seen.update(v.choices)

    collect()
    assert seen == {(e.amb, x) for e in READINGS for x in e.letter_names}  # the machine's draws


@pytest.mark.parametrize(("letter", "out"), [("a", ()), ("b", (2,))])
def test_mkt08_amb34_market_day_in_the_final_actions(letter: str, out: tuple[int, ...]) -> None:
    """MKT-08 / AMB-34 b: seat 2 triggered the end and has no final action; seat 1's is to
    come. Seat 0's market day is open to seats 0 and 1 only under b."""
    state = emptied(BIG_BOX, 3, variant=Variant(readings={"AMB-34": letter}))
    state = put_cubes(state, ActionSpace.MARKET, {Cube.BROWN: 1})
    state = replace(at(state, ChooseTurn(0)), end_triggered_by=2, final_turns=(1,))
    trace: list[str] = []
    apply(state, TakeCube(ActionSpace.MARKET, Cube.BROWN), trace)  # nobody can sell: all pass
    assert ("MKT-08" in trace) is bool(out)
    assert trace.count("MKT-04") == 3 - len(out)  # the seats asked, each passing


# --- AMB-16: church majority tie on the furthest member -------------------------------------


def church_mass(variant: Variant, layout: dict[int, list[int]], trace: list[str]) -> GameState:
    """A 3-player round-end mass with members on the church track as `layout` says, in which
    nobody buys or moves up and only monks are drawn."""
    state = emptied(BIG_BOX, 3, variant=variant)
    for seat, stages in layout.items():
        for n, stage in zip((1, 1, 1, 1), stages, strict=False):
            state = place(state, seat, n, OnChurch(stage))
    state = at(replace(state, mass=Mass(bought=0, final=False)), MassBuy(state.start_player))
    while not isinstance(state.pending, SeedDraw):
        state = apply(state, DrawMonk() if isinstance(state.pending, MassDraw) else Skip(), trace)
    return state


@pytest.mark.parametrize(
    ("letter", "layout", "prestige", "fires"),
    [
        ("a", {0: [4, 2], 1: [4, 1]}, [2, 2, 0], False),  # only the furthest member counts
        ("b", {0: [4, 2], 1: [4, 1]}, [2, 0, 0], True),  # the next members decide: 2 > 1
        ("b", {0: [4, 2], 1: [4, 2]}, [2, 2, 0], True),  # tied all the way: each gets 2
        ("b", {0: [3, 1], 1: [2, 2]}, [2, 0, 0], False),  # the furthest members decide
    ],
)
def test_mass06_amb16_next_members_break_the_tie(
    letter: str, layout: dict[int, list[int]], prestige: list[int], fires: bool
) -> None:
    """MASS-05 / MASS-06 (AMB-16): default a in both editions (2023 p. 11 "Only the one
    furthest to the right is decisive"); b lets the next members break a tie on the furthest."""
    trace: list[str] = []
    after = church_mass(Variant(readings={"AMB-16": letter}), layout, trace)
    assert "MASS-05" in trace
    assert ("MASS-06" in trace) == fires
    assert [p.prestige for p in after.players] == prestige
    check(after)


# --- AMB-08: several quill passes before the deaths are resolved ----------------------------


@pytest.mark.parametrize(("letter", "owed"), [("a", 2), ("b", 1)])
def test_death08_amb08_one_death_for_several_passes(letter: str, owed: int) -> None:
    """DEATH-01 / DEATH-08 (AMB-08): 21 time passes the quill of a 10-space track twice:
    a (default) owes two deaths, b only one."""
    state = emptied(BIG_BOX, 3, variant=Variant(readings={"AMB-08": letter}))
    trace: list[str] = []
    after = spend_time(state, 1, 21, Ctx(trace))
    assert after.players[1].lifetime == 1
    assert after.deaths_owed == (0, owed, 0)
    assert ("DEATH-08" in trace) == (letter == "b")


@pytest.mark.parametrize(("letter", "owed"), [("a", 2), ("b", 1)])
def test_death08_amb08_with_deaths_kept_owed_amb23_b(letter: str, owed: int) -> None:
    """DEATH-07 / DEATH-08: under AMB-23 b a death with no visible member stays owed; a
    second mill that passes the quill again owes a second death under AMB-08 a, not under b."""
    state = invisible_mill(Variant(readings={"AMB-08": letter, "AMB-23": "b"}), ORIGINAL)
    after = settle(apply(state, Mill()))
    assert after.deaths_owed[0] == 1
    again = set_lifetime(give(after, 0, grain=2), 0, after.rules.data.lifetime_track_length - 1)
    trace: list[str] = []
    twice = settle(apply(acting(at(again, ChooseTurn(0)), 0, ActionSpace.CRAFTS), Mill(), trace))
    assert twice.deaths_owed[0] == owed
    assert ("DEATH-08" in trace) == (letter == "b")
    check(twice)


def test_death08_from_json_refuses_two_deaths_owed_under_amb08_b() -> None:
    """DEATH-08: a state file under AMB-08 b that owes two deaths is refused (it cannot be
    reached), while the same position under a loads."""
    for letter, ok in (("a", True), ("b", False)):
        state = emptied(BIG_BOX, 3, variant=Variant(readings={"AMB-08": letter}))
        owing = at(replace(state, deaths_owed=(2, 0, 0)), ChooseDying(0), turn_seat=0)
        text = to_json(owing)
        if ok:
            assert from_json(text).deaths_owed == (2, 0, 0)
        else:
            with pytest.raises(StateFormatError, match="AMB-08 b"):
                from_json(text)


# --- AMB-15: the buying round at mass -------------------------------------------------------


def buying_mass(letter: str) -> GameState:
    """A 3-player round-end mass: seats 0 and 2 have two members in the bag and two coins,
    seat 1 one member and one coin; the start player (seat 0) is to buy."""
    state = emptied(BIG_BOX, 3, variant=Variant(readings={"AMB-15": letter}))
    for seat, count in ((0, 2), (1, 1), (2, 2)):
        for _ in range(count):
            state = place(state, seat, 1, BLACK_BAG)
        state = give(state, seat, coins=count)
    return at(replace(state, mass=Mass(bought=0, final=False)), MassBuy(state.start_player))


def test_mass07_amb15_a_one_chance_each_in_seat_order() -> None:
    """MASS-02 (AMB-15 a, the default in both editions, 2023 p. 11 step 1): a seat buys as
    many as it likes in its one chance; after it declines, the next seat has its chance."""
    trace: list[str] = []
    state = apply(buying_mass("a"), BuyFromBag(1), trace)
    assert state.pending == MassBuy(0)  # seat 0 may buy another at once
    state = apply(state, Skip(), trace)
    assert state.pending == MassBuy(1)
    state = apply(state, Skip(), trace)
    assert state.pending == MassBuy(2)
    state = apply(state, Skip(), trace)
    assert isinstance(state.pending, MassDraw)  # seat 0 cannot come back
    assert state.mass is not None and state.mass.stopped == ()
    assert "MASS-07" not in trace
    check(state)


def test_mass07_amb15_b_one_member_at_a_time_round_the_table() -> None:
    """MASS-07 (AMB-15 b): each purchase is one member, then the next seat that has not
    stopped buys; a seat that declines has stopped for this mass; seat 0 answers seat 2's
    purchase, which reading a never allows."""
    trace: list[str] = []
    state = apply(buying_mass("b"), BuyFromBag(1), trace)
    assert "MASS-07" in trace
    assert state.pending == MassBuy(1)  # not seat 0 again
    check(state)
    state = apply(state, Skip(), trace)
    assert state.mass is not None and state.mass.stopped == (1,)
    assert state.pending == MassBuy(2)
    state = apply(state, BuyFromBag(1), trace)
    assert state.pending == MassBuy(0)  # round again, seat 1 is left out
    check(state)
    again = from_json(to_json(state))  # the field survives the JSON round trip
    assert again == state and json.loads(to_json(state))["mass"]["stopped"] == [1]
    state = apply(state, BuyFromBag(1), trace)
    assert state.pending == MassBuy(2)
    state = apply(state, BuyFromBag(1), trace)  # the 4th member bought: no more buying
    assert not isinstance(state.pending, MassBuy | MassDraw)  # no draw: the mass went on
    on_church = [sum(loc == OnChurch(1) for loc in p.members) for p in state.players]
    assert on_church == [2, 0, 2]
    check(state)


def test_mass07_amb15_b_everyone_stops_then_the_draw() -> None:
    """MASS-07 (AMB-15 b): when every seat has stopped, the rest of the 4 pieces are drawn."""
    state = apply(buying_mass("b"), BuyFromBag(1))
    for _ in range(3):
        state = apply(state, Skip())
    assert state.pending == MassDraw(3)
    assert state.mass is not None and state.mass.stopped == (0, 1, 2)
    check(state)


def test_mass07_amb15_stopped_field_json_and_checks() -> None:
    """MASS-07: a state written before the field existed (no "stopped") loads; a bad list
    is refused naming $.mass.stopped; the structure checks refuse a stopped seat asked to
    buy, and a stopped list under reading a."""
    state = buying_mass("a")
    text = to_json(state)
    assert '"stopped"' not in text  # the default reading keeps the old form
    assert from_json(text) == state
    raw = json.loads(text)
    raw["mass"]["stopped"] = [1, 1]
    with pytest.raises(StateFormatError, match=r"\$\.mass\.stopped"):
        from_json(json.dumps(raw))
    raw["mass"]["stopped"] = [1]
    with pytest.raises(StateFormatError, match="AMB-15"):
        from_json(json.dumps(raw))  # reading a records no stopped seats
    b = buying_mass("b")
    bad = replace(b, mass=Mass(bought=0, final=False, stopped=(0,)))
    with pytest.raises(StateFormatError, match="stopped buying"):
        from_json(to_json(bad))
    assert any("stopped buying" in str(v) for v in state_violations(bad))


def test_mass07_amb15_divergence_compares_who_can_still_buy(monkeypatch: pytest.MonkeyPatch) -> None:
    """MASS-07: the readings keep who has stopped buying in different forms (a: the seat
    order, b: `Mass.stopped`), so the divergence search compares them through
    `stopped_buying`: a mass where each seat declines in turn is no difference, a purchase
    with a rival still buying is. Without the comparison the first would count (the bug
    the comparison is for)."""
    a, b = apply(buying_mass("a"), Skip()), apply(buying_mass("b"), Skip())  # seat 0 declines
    assert b.mass is not None and b.mass.stopped == (0,) and a.pending == b.pending == MassBuy(1)
    assert divergence.difference(a, b) is None
    a, b = apply(a, BuyFromBag(1)), apply(b, BuyFromBag(1))  # seat 1 buys its only member
    assert a.pending == b.pending == MassBuy(2)
    assert divergence.difference(a, b) is None
    a, b = apply(buying_mass("a"), BuyFromBag(1)), apply(buying_mass("b"), BuyFromBag(1))
    found = divergence.difference(a, b)  # seat 0 buys one: a asks seat 0 again, b seat 1
    assert found is not None and "pending: MassBuy(seat=0) / MassBuy(seat=1)" in found.detail
    monkeypatch.setattr(divergence, "_comparable", lambda state: state)
    a, b = apply(buying_mass("a"), Skip()), apply(buying_mass("b"), Skip())
    assert divergence.difference(a, b) is not None


# --- AMB-03: the supply runs out (TURN-04) --------------------------------------------------


def _short_supply(
    state: GameState,
    *,
    grain: int | None = None,
    coins: int | None = None,
    goods: Tally[Good] | None = None,
    cubes: Tally[Cube] | None = None,
) -> GameState:
    """The general supply with some kinds of piece used up (set directly: only legality is
    looked at, so the piece totals need not add up)."""
    s = state.supply
    s = replace(
        s,
        grain=s.grain if grain is None else grain,
        coins=s.coins if coins is None else coins,
        goods=s.goods if goods is None else goods,
        cubes=s.cubes if cubes is None else cubes,
    )
    return replace(state, supply=s)


def _no_goods(state: GameState, *goods: Good) -> Tally[Good]:
    return state.supply.goods.minus(Tally.of({g: state.supply.goods[g] for g in goods}))


def _payout_cases() -> list[tuple[str, GameState, Action]]:
    """(name, state, action): each action pays out of the supply, which cannot pay it in full."""
    cases: list[tuple[str, GameState, Action]] = []
    for edition in (BIG_BOX, ORIGINAL):
        base = emptied(edition, 2)
        harvest = _short_supply(acting(base, 0, ActionSpace.GRAIN_HARVEST), grain=1)
        cases.append((f"{edition} harvest", harvest, Harvest()))
        crafts = give(acting(base, 0, ActionSpace.CRAFTS), 0, cubes={Cube.ORANGE: 2, Cube.PINK: 2}, grain=2)
        crafts = place(crafts, 0, 1, AtCraft(Building.WAINWRIGHT))
        crafts = _short_supply(crafts, goods=_no_goods(crafts, Good.WAGON), coins=1)
        cases += [
            (f"{edition} train", crafts, Train(Building.WAINWRIGHT, 1, Good.WAGON)),
            (f"{edition} produce", crafts, Produce(Building.WAINWRIGHT, Good.WAGON)),
            (f"{edition} buy", crafts, Buy(Building.WAINWRIGHT, Good.WAGON)),
            (f"{edition} mill", crafts, Mill()),
        ]
        data = base.rules.data
        for reward in ("c4", "c3"):
            origin = next(c for c in (x.id for x in data.cities) if reward in adjacent(data, c))
            trip = give(base, 0, cubes=dict.fromkeys(INFLUENCE, 3), goods={Good.WAGON: 1})
            trip = acting(place(trip, 0, 1, Travelling(origin)), 0, ActionSpace.TRAVEL)
            if reward == "c4":  # 1 coin
                trip = _short_supply(trip, coins=0)
            else:  # 2 influence cubes of choice
                trip = _short_supply(trip, cubes=Tally.of({Cube.PLAGUE: 6, Cube.BROWN: 1}))
            cases.append((f"{edition} travel {reward}", trip, Travel(origin, reward, 1)))
        council = acting(place(base, 0, 1, OnCouncil(3)), 0, ActionSpace.COUNCIL_CHAMBER)
        council = _short_supply(council, cubes=Tally.of({Cube.PLAGUE: 6, Cube.GREEN: 1}))
        cases.append((f"{edition} privilege 2", council, Privilege(2)))
        council = _short_supply(council, goods=Tally.of({}))
        cases.append((f"{edition} privilege 3", council, Privilege(3)))
    return cases


PAYOUTS = _payout_cases()


@pytest.mark.parametrize(("name", "state", "action"), PAYOUTS, ids=[c[0] for c in PAYOUTS])
def test_turn04_amb03_b_an_action_the_supply_cannot_pay_out_is_illegal(
    name: str, state: GameState, action: Action
) -> None:
    """TURN-04 (AMB-03 b): refused by the generator, by the oracle and by `apply`, naming
    TURN-04 and AMB-03 b; under a (the default) the same action is legal and pays what is
    left. Taking the cube without doing the action (skip) stays legal."""
    assert action in legal_actions(state) and action in legal_actions_oracle(state)
    b = replace(state, rules=replace(state.rules, variant=Variant(readings={"AMB-03": "b"})))
    assert action not in legal_actions(b) and action not in legal_actions_oracle(b)
    assert Skip() in legal_actions(b)
    with pytest.raises(IllegalActionError, match="AMB-03 b") as err:
        apply(b, action)
    assert err.value.rule == "TURN-04"
    before = state.supply
    after = apply(state, action)
    assert after.supply.coins <= before.coins + 2 and after.supply.grain <= before.grain + 2


def test_turn04_amb03_b_a_full_supply_pays_out_as_before() -> None:
    """AMB-03 b changes nothing while the supply can pay: the same legal actions and the
    same state after every action of a seeded game."""
    a = new_game(ORIGINAL, 3, 5)
    b = new_game(ORIGINAL, 3, 5, Variant(readings={"AMB-03": "b"}))
    rng = random.Random(5)
    for _ in range(300):
        options = legal_actions(a) if not a.is_chance else [x for x, _ in chance_outcomes(a)]
        assert (legal_actions(b) if not b.is_chance else [x for x, _ in chance_outcomes(b)]) == options
        pick = rng.choice(options)
        a, b = apply(a, pick), apply(b, pick)
        assert replace(b, rules=a.rules) == a


def test_turn04_the_oracle_comparison_catches_a_generator_that_ignores_amb03(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The fast generator and the oracle both call the payout check; the invariant that
    compares them (`legal_set_violations`) catches a generator that ignores the reading."""
    _, state, action = PAYOUTS[0]
    variant_b = Variant(readings={"AMB-03": "b"})
    b = replace(state, rules=replace(state.rules, variant=variant_b))
    assert legal_set_violations(b, legal_actions(b)) == []
    real = core._generate

    def ignores_amb03(st: GameState) -> list[Action]:
        return real(replace(st, rules=state.rules))  # generated under reading a

    monkeypatch.setattr(core, "_generate", ignores_amb03)
    fresh = replace(state, rules=replace(state.rules, variant=variant_b))
    assert action in legal_actions(fresh)
    assert legal_set_violations(fresh, legal_actions(fresh)) != []
