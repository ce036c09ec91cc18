"""Bad input is refused with a specific error and changes nothing: states that do not fit
together, data the engine cannot play, wrong argument types, a shared travel map."""

from __future__ import annotations

import json
from pathlib import Path

import networkx as nx
import pytest
from support import ROOT

from village_rules import StateFormatError, apply, from_json, new_game, to_json
from village_rules.data.components import ActionSpace, Cube, Good, OnCouncil
from village_rules.data.loader import builtin_edition, load_edition
from village_rules.drivers.scenario import acting, at, clear_board, give, place, put_cubes, ready
from village_rules.engine.travel_map import adjacent, travel_graph
from village_rules.errors import DataError
from village_rules.fuzz.games import plan_game
from village_rules.model.actions import PickGood, Privilege, TakeCube, parse_action
from village_rules.model.pending import ChooseSupplyGood, ChooseTurn, MarketChoice

SHIPPED = ROOT / "src" / "village_rules" / "data" / "big-box-2023.json"


def raw_data() -> dict[str, object]:
    loaded: dict[str, object] = json.loads(SHIPPED.read_text("utf-8"))
    return loaded


def write(tmp_path: Path, raw: object) -> Path:
    path = tmp_path / "edition.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    return path


# --- states that do not fit together ------------------------------------------------------


def saved(**changes: object) -> str:
    raw = json.loads(to_json(ready("big-box-2023", 3, 1)))
    raw.update(changes)
    return json.dumps(raw)


@pytest.mark.parametrize(
    ("changes", "path", "fragment"),
    [
        ({"pending": {"kind": "MarketChoice", "seat": 0}}, "$.pending", "MarketChoice"),
        ({"pending": {"kind": "RefillDraw", "position": 99}}, "$.pending.position", "waiting line"),
        (
            {"pending": {"kind": "ChoosePayment", "seat": 0, "action": "skip"}},
            "$.pending.action",
            "nothing to pay",
        ),
    ],
)
def test_from_json_refuses_a_pending_step_that_does_not_fit(
    changes: dict[str, object], path: str, fragment: str
) -> None:
    with pytest.raises(StateFormatError) as info:
        from_json(saved(**changes))
    assert info.value.path == path
    assert fragment in info.value.problem


def test_from_json_refuses_a_seat_that_passed_twice_in_a_market_day() -> None:
    state = ready("big-box-2023", 3, 1)
    raw = json.loads(to_json(state))
    raw["market_day"] = {
        "trigger": 0,
        "current": 0,
        "passed": [0, 0, 0, 0, 0],
        "trigger_sold": False,
        "held_deaths": 0,
        "closed": False,
    }
    raw["pending"] = {"kind": "MarketChoice", "seat": 0}
    raw["turn"] = {"seat": 0}
    with pytest.raises(StateFormatError) as info:
        from_json(json.dumps(raw))
    assert info.value.path == "$.market_day.passed"


def test_from_json_refuses_a_state_that_breaks_conservation() -> None:
    """A coin that appears from nowhere: the invariant checkers run on every loaded state."""
    raw = json.loads(to_json(ready("big-box-2023", 3, 1)))
    raw["players"][0]["coins"] = 999
    with pytest.raises(StateFormatError) as info:
        from_json(json.dumps(raw))
    assert "conservation.coins" in info.value.problem


# --- data the engine cannot play ----------------------------------------------------------


def test_council_with_other_than_four_stages_is_refused(tmp_path: Path) -> None:
    """CNC-04: the privileges are those of 4 stages."""
    raw = raw_data()
    council = raw["council_chamber"]
    assert isinstance(council, dict)
    council["stages"]["value"] = 5
    with pytest.raises(DataError) as info:
        load_edition(write(tmp_path, raw))
    assert info.value.key == "council_chamber.stages"
    assert "4 stages" in info.value.problem


def test_a_city_id_with_a_space_is_refused(tmp_path: Path) -> None:
    """TRV-05: ids appear in the action notation, so they cannot hold spaces."""
    raw = json.loads(SHIPPED.read_text("utf-8").replace('"c3"', '"c 3"'))
    with pytest.raises(DataError) as info:
        load_edition(write(tmp_path, raw))
    assert "'c 3' is not an id" in info.value.problem


def test_two_seats_choosing_a_cube_is_refused(tmp_path: Path) -> None:
    """SET-10: one seat selects its compensation cube."""
    raw = raw_data()
    comp = raw["starting_compensation"]
    assert isinstance(comp, dict)
    comp["value"] = ["start_player", "chosen_cube", "random_cube", "chosen_cube", "coin"]
    with pytest.raises(DataError) as info:
        load_edition(write(tmp_path, raw))
    assert info.value.key == "starting_compensation"


def test_a_file_that_is_not_utf8_or_too_deep_is_a_data_error(tmp_path: Path) -> None:
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe{}")
    with pytest.raises(DataError, match="not UTF-8"):
        load_edition(binary)
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000, encoding="utf-8")
    with pytest.raises(DataError, match="nested too deeply"):
        load_edition(deep)


def test_privilege_goods_gives_that_many_goods(tmp_path: Path) -> None:
    """CNC-07: the data's privilege_goods is honoured (2 here: two choices in a row)."""
    raw = raw_data()
    council = raw["council_chamber"]
    assert isinstance(council, dict)
    council["privilege_goods"]["value"] = 2
    data = load_edition(write(tmp_path, raw))
    state = ready(data, 2, 0)
    state = place(state, 0, 1, OnCouncil(3))
    state = acting(state, 0, ActionSpace.COUNCIL_CHAMBER)
    state = apply(state, Privilege(3))
    assert state.pending == ChooseSupplyGood(0, 2)
    state = apply(state, parse_action("good ox"))
    assert state.pending == ChooseSupplyGood(0, 1)
    horse = parse_action("good horse")
    assert isinstance(horse, PickGood)
    state = apply(state, PickGood(horse.good))
    assert state.players[0].goods.as_dict() == {"ox": 1, "horse": 1}


# --- wrong argument types, shared state ---------------------------------------------------


def test_apply_with_a_text_is_a_type_error() -> None:
    state = ready("big-box-2023", 2, 0)
    with pytest.raises(TypeError, match="parse_action"):
        apply(state, "take market green")  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", [None, "2", 1.0, True])
def test_new_game_needs_an_integer_seed(seed: object) -> None:
    """SET-01: a game is reproduced from its seed, so the seed must be a real int."""
    with pytest.raises(TypeError, match="seed must be an int"):
        new_game("big-box-2023", 3, seed)  # type: ignore[arg-type]


def test_the_travel_map_cannot_be_changed_by_a_caller() -> None:
    """TRV-05: the cached graph is frozen, so no caller can alter the map of later games."""
    data = builtin_edition("big-box-2023")
    graph = travel_graph(data)
    with pytest.raises(nx.NetworkXError):
        graph.add_edge("village", "c8")
    assert adjacent(data, "village") == ["c1", "c2"]


def test_fuzz_with_only_a_player_count_picks_an_edition_that_has_it() -> None:
    games = [plan_game(1, i, players=5) for i in range(30)]
    assert {g.edition for g in games} == {"big-box-2023"}
    assert {g.edition for g in (plan_game(1, i, players=3) for i in range(30))} == {
        "big-box-2023",
        "original-2011",
    }


def test_a_state_with_a_market_day_still_loads() -> None:
    """MKT-01: the consistency checks accept real states: a market day in progress loads."""
    state = clear_board(ready("big-box-2023", 3, 1))
    state = put_cubes(state, ActionSpace.MARKET, {Cube.GREEN: 1})
    state = put_cubes(state, ActionSpace.FAMILY, {Cube.BROWN: 1})
    goods = {g: 2 for g in Good}
    state = give(state, 0, goods=goods, grain=3)
    state = apply(at(state, ChooseTurn(0)), TakeCube(ActionSpace.MARKET, Cube.GREEN))
    assert state.pending == MarketChoice(0)
    assert state.market_day is not None
    assert from_json(to_json(state)) == state
