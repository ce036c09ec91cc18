"""`village_rules.checks.state_checks`: every state the engine reaches passes the cross-field
checks (so `from_json` never refuses a real state), and each check refuses the states the
hardening round found loading and then crashing."""

from __future__ import annotations

import json
import random

import pytest

from village_rules import EDITIONS, builtin_edition, from_json, new_game, to_json
from village_rules.checks.state_checks import phase_problems
from village_rules.drivers.play import play, random_policy
from village_rules.errors import StateFormatError
from village_rules.model.state import GameState
from village_rules.rules.variant import Variant

GAMES = [(e, n) for e in EDITIONS for n in builtin_edition(e).player_counts]


@pytest.mark.parametrize(("edition", "players"), GAMES)
@pytest.mark.parametrize("seed", [1, 2])
def test_every_state_of_a_random_game_passes(edition: str, players: int, seed: int) -> None:
    """the checks describe the engine; no reachable state is refused."""
    variant = Variant(starting_compensation=seed == 1, readings={"AMB-01": "b"} if seed == 2 else {})
    seen: list[GameState] = []

    def record(before: GameState, action: object, after: GameState) -> None:
        seen.append(after)

    start = new_game(edition, players, seed, variant)
    final, _ = play(start, [random_policy] * players, random.Random(seed), on_step=record)
    assert final.is_terminal
    for state in [start, *seen]:
        assert phase_problems(state) == [], (type(state.pending).__name__, state.turn, state.market_day)
    kinds = {type(s.pending).__name__ for s in seen}
    assert {"SeedDraw", "ChooseTurn", "GameOver"} <= kinds


def _setup_raw() -> dict[str, object]:
    raw: dict[str, object] = json.loads(to_json(new_game("big-box-2023", 3, 1)))
    return raw


CASES: list[tuple[str, dict[str, object], str]] = [
    (
        "privilege-without-a-turn",
        {"pending": {"kind": "ChoosePrivilege", "seat": 0, "max_stage": 2}},
        "$.turn",
    ),
    (
        "privilege-for-another-seat",
        {"pending": {"kind": "ChoosePrivilege", "seat": 1, "max_stage": 1}, "turn": {"seat": 0}},
        "$.pending.seat",
    ),
    (
        "payment-for-another-seat",
        {"pending": {"kind": "ChoosePayment", "seat": 1, "action": "mill"}, "turn": {"seat": 0}},
        "$.pending.seat",
    ),
    (
        "seed-draw-beyond-the-card",
        {"pending": {"kind": "SeedDraw", "space": "grain_harvest", "remaining": 9}},
        "$.pending.remaining",
    ),
    (
        "death-owed-by-a-seat-not-acting",
        {
            "pending": {"kind": "ChooseSupplyGood", "seat": 0, "remaining": 1},
            "turn": {"seat": 0},
            "deaths_owed": [0, 1, 0],
        },
        "$.deaths_owed",
    ),
    (
        "compensation-cube-for-a-seat-that-does-not-choose",
        {"pending": {"kind": "ChooseCompensationCube", "seat": 1}},
        "$.pending.seat",
    ),
]


@pytest.mark.parametrize(("name", "changes", "path"), CASES, ids=[c[0] for c in CASES])
def test_states_that_cannot_occur_are_refused(name: str, changes: dict[str, object], path: str) -> None:
    """each of these loaded before and crashed (or broke an invariant) later."""
    raw = _setup_raw()
    raw.update(changes)
    with pytest.raises(StateFormatError) as info:
        from_json(json.dumps(raw))
    assert info.value.path == path, info.value


@pytest.mark.parametrize("colours", [["red", "red", "blue"], ["red", "yellow", "pink"]])
def test_duplicate_or_unknown_colours_are_refused(colours: list[str]) -> None:
    raw = _setup_raw()
    players = raw["players"]
    assert isinstance(players, list)
    for p, colour in zip(players, colours, strict=True):
        p["colour"] = colour
    with pytest.raises(StateFormatError, match=r"colour|plays"):
        from_json(json.dumps(raw))


def test_a_mass_record_during_an_ordinary_turn_is_refused() -> None:
    raw = _setup_raw()
    raw["pending"] = {"kind": "ChooseTurn", "seat": 0}
    raw["mass"] = {"bought": 0, "final": False}
    with pytest.raises(StateFormatError, match="mass"):
        from_json(json.dumps(raw))


def _refill_moment() -> dict[str, object]:
    """A real state waiting for a refill draw after a market day (MKT-07)."""
    for seed in range(1, 40):
        start = new_game("big-box-2023", 4, seed)
        found: list[GameState] = []

        def record(
            before: GameState, action: object, after: GameState, into: list[GameState] = found
        ) -> None:
            if type(after.pending).__name__ == "RefillDraw":
                into.append(after)

        play(start, [random_policy] * 4, random.Random(seed), on_step=record)
        if found:
            raw: dict[str, object] = json.loads(to_json(found[0]))
            return raw
    raise AssertionError("no refill in 40 games")


def test_a_refill_aimed_at_a_space_that_holds_a_tile_is_refused() -> None:
    """MKT-07: a refill goes to the next empty waiting space; aimed at a full one it would
    destroy the customer tile there."""
    raw = _refill_moment()
    assert type(from_json(json.dumps(raw)).pending).__name__ == "RefillDraw"  # the real state loads
    waiting = raw["market_waiting"]
    assert isinstance(waiting, list)
    pending = raw["pending"]
    assert isinstance(pending, dict)
    full = [i for i, t in enumerate(waiting) if t is not None]
    assert full
    pending["position"] = full[0]
    with pytest.raises(StateFormatError) as info:
        from_json(json.dumps(raw))
    assert info.value.path == "$.pending.position"
