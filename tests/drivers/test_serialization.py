"""`to_json` / `from_json`: whole game states as versioned JSON.

`from_json(to_json(s)) == s` for set-up states (every edition, player count, seed and
variant), for mid-game states reached by seeded random play, and for states on a user's own
data file (which the JSON embeds). Malformed input raises `StateFormatError` naming the JSON
path, and never yields a half-built state.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import KeyPath, get_at, json_paths

import village_rules
from village_rules import (
    EDITIONS,
    GameState,
    StateFormatError,
    Variant,
    builtin_edition,
    from_json,
    legal_actions,
    load_edition,
    new_game,
    to_json,
)
from village_rules.drivers.play import play, random_policy
from village_rules.drivers.serialization import _PENDING_TYPES
from village_rules.testing.strategies import reading_choices

DATA_DIR = Path(village_rules.__file__).resolve().parent / "data"
BB = "big-box-2023"
OE = "original-2011"
# Every player count, 2023's solo games (1 player) included.
GAMES = [(edition, n) for edition in EDITIONS for n in builtin_edition(edition).playable_counts]

Raw = dict[str, Any]


def roundtrip(state: GameState) -> None:
    text = to_json(state)
    back = from_json(text)
    assert back == state
    assert to_json(back) == text


def played(edition: str, n: int, seed: int, max_steps: int, variant: Variant | None = None) -> GameState:
    state = new_game(edition, n, seed, variant)
    final, _ = play(state, [random_policy] * state.num_players, random.Random(seed), max_steps=max_steps)
    return final


# --- round trips ------------------------------------------------------------------------------

games = st.sampled_from(GAMES)
variants = st.builds(Variant, starting_compensation=st.booleans(), readings=reading_choices())
seeds = st.integers(min_value=0, max_value=2**63)


@settings(max_examples=40, deadline=None)
@given(game=games, seed=seeds, variant=variants)
def test_setup_states_roundtrip(game: tuple[str, int], seed: int, variant: Variant) -> None:
    """Set-up states (SET-01 … SET-10, SEED-01) of every edition and player count."""
    edition, n = game
    state = new_game(edition, n, seed, variant)
    roundtrip(state)
    assert from_json(to_json(state)).rules.variant == variant


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=games, seed=st.integers(0, 10_000), variant=variants, max_steps=st.integers(0, 900))
def test_midgame_states_roundtrip(game: tuple[str, int], seed: int, variant: Variant, max_steps: int) -> None:
    edition, n = game
    state = played(edition, n, seed, max_steps, variant)
    roundtrip(state)


def _signature(s: GameState) -> tuple[object, ...]:
    return (
        type(s.pending).__name__,
        s.turn is None,
        s.market_day is None,
        s.mass is None,
        s.final_turns is None,
        s.end_triggered_by is None,
        s.next_start_holder is None,
        s.monks_aside > 0,
        any(s.deaths_owed),
    )


def test_every_pending_kind_roundtrips() -> None:
    """Random games until every kind of pending step has been saved and loaded, each in
    the situations it occurs in (turn, market day, mass, final turns …)."""
    seen: Counter[tuple[object, ...]] = Counter()

    def check(state: GameState) -> None:
        sig = _signature(state)
        if seen[sig] < 3:
            seen[sig] += 1
            roundtrip(state)

    for seed in range(40):
        for edition, n in GAMES:
            state = new_game(edition, n, seed)
            check(state)
            policies = [random_policy] * state.num_players
            play(state, policies, random.Random(seed), on_step=lambda _b, _a, after: check(after))
        kinds = {sig[0] for sig in seen}
        if kinds == set(_PENDING_TYPES):
            break
    assert {sig[0] for sig in seen} == set(_PENDING_TYPES)
    assert any(not sig[2] for sig in seen)  # a market day in progress
    assert any(not sig[3] for sig in seen)  # a mass in progress
    assert any(not sig[4] for sig in seen)  # final turns


def test_terminal_state_roundtrips() -> None:
    for edition, n in [(BB, 2), (OE, 3)]:
        final = played(edition, n, seed=21, max_steps=100_000)
        assert final.is_terminal
        roundtrip(final)


def test_json_is_compact_and_canonical() -> None:
    state = played(BB, 3, seed=4, max_steps=150)
    text = to_json(state)
    assert text == json.dumps(json.loads(text), sort_keys=True, separators=(",", ":"))
    raw = json.loads(text)
    assert raw["format"] == "village-rules-state"
    assert raw["format_version"] == 1
    assert raw["rules"]["edition"] == BB
    assert raw["rules"]["fingerprint"] == builtin_edition(BB).fingerprint
    # A shipped edition is named, not embedded.
    assert set(raw["rules"]) == {"edition", "fingerprint", "variant"}


def test_shipped_data_loaded_from_a_path_is_not_embedded() -> None:
    data = load_edition(DATA_DIR / f"{OE}.json")
    raw = json.loads(to_json(new_game(data, 2, seed=1)))
    assert set(raw["rules"]) == {"edition", "fingerprint", "variant"}


# --- a user's data file -----------------------------------------------------------------------


def _custom_raw() -> Raw:
    raw: Raw = json.loads((DATA_DIR / f"{BB}.json").read_text("utf-8"))
    raw["edition"] = "my-village"
    for tile in raw["customers"]:
        tile["value"]["points"] *= 2
    raw["travel"]["paths"].append(
        {
            # not from the village: both rulebooks give it two neighbouring cities (issue 43)
            "value": {"from": "c2", "to": "c3", "cost": {"time": 2, "goods": {"wagon": 1}}},
            "provenance": "reconstructed: my board has a short cut",
        }
    )
    return raw


def _custom_file(tmp_path: Path, raw: Raw | None = None) -> Path:
    path = tmp_path / "my-village.json"
    path.write_text(json.dumps(raw or _custom_raw()), "utf-8")
    return path


def test_custom_data_is_embedded_and_roundtrips(tmp_path: Path) -> None:
    path = _custom_file(tmp_path)
    data = load_edition(path)
    state = new_game(data, 4, seed=2)
    text = to_json(state)
    raw = json.loads(text)
    assert raw["rules"]["edition"] == "my-village"
    assert raw["rules"]["source"] == str(path)
    assert raw["rules"]["data"]["customers"][0]["value"]["points"] == 12
    path.unlink()  # the saved game needs no file
    back = from_json(text)
    assert back == state
    assert back.rules.data == data
    assert back.rules.data.source == str(path)
    assert back.rules.data.customer(1).points == 12
    assert to_json(back) == text


def test_custom_data_midgame_roundtrips(tmp_path: Path) -> None:
    data = load_edition(_custom_file(tmp_path))
    for seed, steps in [(1, 50), (2, 300), (3, 100_000)]:
        state = new_game(data, 3, seed)
        final, _ = play(state, [random_policy] * 3, random.Random(seed), max_steps=steps)
        roundtrip(final)


def test_custom_data_with_a_shipped_edition_id_is_embedded(tmp_path: Path) -> None:
    """Changed data that keeps the id "big-box-2023" must not be taken for the shipped file."""
    raw = _custom_raw()
    raw["edition"] = BB
    data = load_edition(_custom_file(tmp_path, raw))
    state = new_game(data, 2, seed=7)
    saved = json.loads(to_json(state))
    assert "data" in saved["rules"]
    back = from_json(to_json(state))
    assert back == state
    assert back.rules.data.customer(1).points == 12
    assert back.rules.data != builtin_edition(BB)


def test_tampered_embedded_data_is_refused(tmp_path: Path) -> None:
    data = load_edition(_custom_file(tmp_path))
    raw = json.loads(to_json(new_game(data, 2, seed=7)))
    changed = copy.deepcopy(raw)
    changed["rules"]["data"]["customers"][0]["value"]["points"] = 99
    with pytest.raises(StateFormatError) as info:
        from_json(json.dumps(changed))
    assert info.value.path == "$.rules.fingerprint"
    assert "differs" in info.value.problem
    broken = copy.deepcopy(raw)
    broken["rules"]["data"]["travel"]["paths"][0]["value"]["to"] = "c99"
    with pytest.raises(StateFormatError) as info:
        from_json(json.dumps(broken))
    assert info.value.path == "$.rules.data"
    assert "travel.paths[0]" in info.value.problem
    assert "path to nowhere" in info.value.problem
    no_source = copy.deepcopy(raw)
    del no_source["rules"]["source"]
    with pytest.raises(StateFormatError) as info:
        from_json(json.dumps(no_source))
    assert (info.value.path, info.value.problem) == ("$.rules.source", "missing key")


# --- malformed input --------------------------------------------------------------------------


def base_raw() -> Raw:
    """A 2-player 2023 game a few steps in, as parsed JSON."""
    raw: Raw = json.loads(to_json(played(BB, 2, seed=1, max_steps=60)))
    return raw


def _set(path: KeyPath, value: Any) -> Callable[[Raw], None]:
    def run(raw: Raw) -> None:
        get_at(raw, path[:-1])[path[-1]] = value

    return run


def _del(path: KeyPath) -> Callable[[Raw], None]:
    def run(raw: Raw) -> None:
        del get_at(raw, path[:-1])[path[-1]]

    return run


def _drop_member(raw: Raw) -> None:
    raw["players"][0]["members"].pop()


def _one_player(raw: Raw) -> None:
    raw["players"] = raw["players"][:1]
    raw["deaths_owed"] = [0]


@dataclass(frozen=True)
class Bad:
    id: str
    mutate: Callable[[Raw], None]
    path: str
    problem: str


FP = "0" * 64
BAD: list[Bad] = [
    Bad("missing-key", _del(("round",)), "$.round", "missing key"),
    Bad("missing-nested-key", _del(("players", 1, "grain")), "$.players[1].grain", "missing key"),
    Bad("missing-rules-key", _del(("rules", "variant")), "$.rules.variant", "missing key"),
    Bad("unknown-key", _set(("weather",), "rain"), "$.weather", "unknown key"),
    Bad("unknown-nested-key", _set(("supply", "monks"), 4), "$.supply.monks", "unknown key"),
    Bad(
        "unknown-variant",
        _set(("rules", "variant", "marriage"), True),
        "$.rules.variant.marriage",
        "unknown key",
    ),
    Bad("wrong-type-round", _set(("round",), "1"), "$.round", "expected an integer"),
    Bad(
        "wrong-type-bool-as-int",
        _set(("players", 0, "coins"), True),
        "$.players[0].coins",
        "expected an integer",
    ),
    Bad("wrong-type-float", _set(("supply", "grain"), 3.0), "$.supply.grain", "expected an integer"),
    Bad("wrong-type-tally", _set(("green_bag",), []), "$.green_bag", "expected an object of counts"),
    Bad("wrong-type-list", _set(("market_available",), "1,2,3"), "$.market_available", "expected a list"),
    Bad("wrong-type-players", _set(("players",), {}), "$.players", "expected a list"),
    Bad(
        "wrong-type-variant-flag",
        _set(("rules", "variant", "starting_compensation"), "yes"),
        "$.rules.variant.starting_compensation",
        "expected true or false",
    ),
    Bad("wrong-type-rules", _set(("rules",), "big-box-2023"), "$.rules", "expected an object"),
    Bad("wrong-type-edition", _set(("rules", "edition"), 2023), "$.rules.edition", "expected a string"),
    Bad("negative-count", _set(("players", 0, "grain"), -1), "$.players[0].grain", "-1 is out of range"),
    Bad("zero-in-tally", _set(("supply", "cubes", "brown"), 0), "$.supply.cubes.brown", "0 is out of range"),
    Bad("unknown-cube", _set(("green_bag", "purple"), 2), "$.green_bag.purple", "unknown Cube 'purple'"),
    Bad(
        "unknown-good",
        _set(("players", 1, "goods", "cow"), 1),
        "$.players[1].goods.cow",
        "unknown Good 'cow'",
    ),
    Bad("unknown-space", _set(("spaces", "well"), {}), "$.spaces.well", "unknown key"),
    Bad("round-zero", _set(("round",), 0), "$.round", "0 is out of range 1.."),
    Bad("seat-out-of-range", _set(("start_player",), 2), "$.start_player", "2 is out of range 0..1"),
    Bad("holder-out-of-range", _set(("next_start_holder",), 5), "$.next_start_holder", "out of range 0..1"),
    Bad("turn-seat-out-of-range", _set(("turn",), {"seat": 3}), "$.turn.seat", "out of range 0..1"),
    Bad(
        "unknown-edition",
        _set(("rules", "edition"), "village-2099"),
        "$.rules.edition",
        "unknown edition 'village-2099'",
    ),
    Bad("wrong-fingerprint", _set(("rules", "fingerprint"), FP), "$.rules.fingerprint", "differs"),
    Bad("fingerprint-of-the-other-edition", _set(("rules", "edition"), OE), "$.rules.fingerprint", "differs"),
    Bad(
        "bad-location",
        _set(("players", 0, "members", 3), "attic"),
        "$.players[0].members[3]",
        "not a location: 'attic'",
    ),
    Bad(
        "bad-location-building",
        _set(("players", 0, "members", 3), "craft:bakery"),
        "$.players[0].members[3]",
        "bakery",
    ),
    Bad(
        "bad-location-stage",
        _set(("players", 0, "members", 3), "council:two"),
        "$.players[0].members[3]",
        "not a stage number",
    ),
    Bad(
        "bad-location-category",
        _set(("players", 0, "members", 3), "chronicle:market"),
        "$.players[0].members[3]",
        "market",
    ),
    Bad(
        "bad-location-type",
        _set(("players", 0, "members", 3), 3),
        "$.players[0].members[3]",
        "expected a string",
    ),
    Bad(
        "bad-pending-kind",
        _set(("pending",), {"kind": "Dance", "seat": 0}),
        "$.pending.kind",
        "unknown pending step 'Dance'",
    ),
    Bad(
        "pending-without-kind",
        _set(("pending",), {"seat": 0}),
        "$.pending",
        "expected an object with a 'kind'",
    ),
    Bad(
        "pending-extra-field",
        _set(("pending",), {"kind": "ChooseTurn", "seat": 0, "space": "market"}),
        "$.pending.space",
        "unknown key",
    ),
    Bad(
        "pending-missing-field",
        _set(("pending",), {"kind": "SeedDraw", "space": "market"}),
        "$.pending.remaining",
        "missing key",
    ),
    Bad(
        "pending-bad-space",
        _set(("pending",), {"kind": "SeedDraw", "space": "well", "remaining": 1}),
        "$.pending.space",
        "unknown ActionSpace 'well'",
    ),
    Bad(
        "pending-bad-action",
        _set(("pending",), {"kind": "ChoosePayment", "seat": 0, "action": "fly away"}),
        "$.pending.action",
        "unknown verb 'fly'",
    ),
    Bad("wrong-number-of-members", _drop_member, "$.players[0].members", "expected 11 members, got 10"),
    Bad(
        "wrong-number-of-players", _one_player, "$.players", "1 players is not a player count of big-box-2023"
    ),
    Bad(
        "deaths-owed-length", _set(("deaths_owed",), [0, 0, 0]), "$.deaths_owed", "expected 2 entries, got 3"
    ),
    Bad(
        "wrong-format",
        _set(("format",), "village-rules-edition"),
        "$.format",
        "expected 'village-rules-state'",
    ),
    Bad("wrong-format-version", _set(("format_version",), 2), "$.format_version", "unsupported version 2"),
    Bad(
        "format-version-string", _set(("format_version",), "1"), "$.format_version", "unsupported version '1'"
    ),
    Bad("market-day-bad", _set(("market_day",), {"trigger": 0}), "$.market_day.closed", "missing key"),
    Bad("mass-bad", _set(("mass",), {"bought": 0, "final": 1}), "$.mass.final", "expected true or false"),
]


@pytest.mark.parametrize("bad", BAD, ids=[b.id for b in BAD])
def test_malformed_state_names_the_json_path(bad: Bad) -> None:
    raw = base_raw()
    bad.mutate(raw)
    with pytest.raises(StateFormatError) as info:
        from_json(json.dumps(raw))
    assert info.value.path == bad.path, info.value
    assert bad.problem in info.value.problem, info.value
    assert str(info.value).startswith(f"state JSON at {bad.path}: ")


def test_bad_case_ids_are_unique_and_the_base_is_valid() -> None:
    assert len({b.id for b in BAD}) == len(BAD)
    raw = base_raw()
    assert to_json(from_json(json.dumps(raw))) == json.dumps(raw, sort_keys=True, separators=(",", ":"))


@pytest.mark.parametrize("text", ["", "{", "[1, 2,]", "{'round': 1}", "not json"])
def test_invalid_json(text: str) -> None:
    with pytest.raises(StateFormatError) as info:
        from_json(text)
    assert info.value.path == "$"
    assert "not valid JSON" in info.value.problem


@pytest.mark.parametrize("text", ["[]", "1", '"state"', "null", "true"])
def test_not_an_object(text: str) -> None:
    with pytest.raises(StateFormatError) as info:
        from_json(text)
    assert (info.value.path, info.value.problem) == ("$", "expected an object")


_JUNK: list[Any] = [None, True, -1, 0, 1, 7, 2.5, "", "x", "farmyard", [], [0], {}, {"kind": "ChooseTurn"}]


@settings(max_examples=50, deadline=None)
@given(data=st.data())
def test_mutated_states_raise_state_format_error_or_load_whole(data: st.DataObject) -> None:
    """Any single change: either StateFormatError (never another exception) or a complete
    state that saves back to the JSON it was read from."""
    raw = base_raw()
    paths = [p for p in json_paths(raw) if p and p[:2] != ("rules", "data")]
    path = data.draw(st.sampled_from(paths))
    parent = get_at(raw, path[:-1])
    if data.draw(st.booleans()):
        del parent[path[-1]]
    else:
        parent[path[-1]] = copy.deepcopy(data.draw(st.sampled_from(_JUNK)))
    text = json.dumps(raw)
    try:
        state = from_json(text)
    except StateFormatError as exc:
        assert exc.path.startswith("$")
        return
    assert isinstance(state, GameState)
    assert json.loads(to_json(state)) == raw


def test_from_json_returns_a_new_state_each_time() -> None:
    text = to_json(played(OE, 3, seed=5, max_steps=80))
    a, b = from_json(text), from_json(text)
    assert a == b
    assert a is not b
    assert dataclasses.replace(a, round=a.round + 1) != b


# --- references the edition cannot have -------------------------------------------------------

REFERENCES: list[Bad] = [
    Bad(
        "pending-seat-beyond-the-players",
        _set(("pending",), {"kind": "ChooseTurn", "seat": 7}),
        "$.pending.seat",
        "out of range",
    ),
    Bad(
        "member-in-an-unknown-city",
        _set(("players", 0, "members", 3), "travel:atlantis"),
        "$.players[0].members[3]",
        "atlantis",
    ),
    Bad(
        "member-beyond-the-last-council-stage",
        _set(("players", 0, "members", 3), "council:9"),
        "$.players[0].members[3]",
        "9",
    ),
    Bad(
        "member-on-church-stage-0",
        _set(("players", 0, "members", 3), "church:0"),
        "$.players[0].members[3]",
        "0",
    ),
    Bad("unknown-customer-tile", _set(("customer_pile", 0), 999), "$.customer_pile[0]", "999"),
    Bad(
        "market-row-longer-than-the-layout",
        _set(("market_available",), [1, 2, 3, 4, 5, 6, 7]),
        "$.market_available",
        "7",
    ),
]


@pytest.mark.parametrize("bad", REFERENCES, ids=[b.id for b in REFERENCES])
def test_from_json_rejects_references_the_edition_cannot_have(bad: Bad) -> None:
    """BUG (src/village_rules/drivers/serialization.py): `from_json` range-checks `start_player`
    and `turn.seat` against the player count, but not a pending step's seat, stages, city
    ids, customer ids or the market row lengths. Such a state is returned and then breaks
    the engine (e.g. `legal_actions` raises IndexError for a pending seat 7 of 2)."""
    raw = base_raw()
    bad.mutate(raw)
    with pytest.raises(StateFormatError) as info:
        state = from_json(json.dumps(raw))
        legal_actions(state)  # what the caller would do next
    assert info.value.path == bad.path
    assert bad.problem in info.value.problem


def test_a_state_on_non_ascii_data_loads_back() -> None:
    """Issue 26: the state limit counted the \\u-escaped text, six times the data's length for
    non-ASCII names, so a state on a legal data file could not be loaded back."""
    from importlib import resources  # noqa: PLC0415

    from village_rules.data.jsonio import MAX_STATE_CHARS  # noqa: PLC0415
    from village_rules.data.loader import parse_edition  # noqa: PLC0415

    raw = json.loads(resources.files("village_rules").joinpath("data/original-2011.json").read_text("utf-8"))
    raw["name"] = "é" * 450_000  # 900 kB of UTF-8: within the data file limit of 1 MB
    data = parse_edition(json.dumps(raw, ensure_ascii=False), "board.json")
    state = village_rules.new_game(data, 3, 0)
    text = village_rules.to_json(state)
    assert len(json.dumps(raw)) > MAX_STATE_CHARS  # escaped, it would not fit
    assert len(text) < MAX_STATE_CHARS and village_rules.from_json(text) == state
