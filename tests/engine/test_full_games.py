"""Seeded random games of both editions at every player count, played to the end.

Each game must reach a terminal state with a winner (END-06), and its final scoring
(SCORE-01..07) must equal a recomputation written here from the terminal state alone: the
tables of 2023 p. 14 typed in below and the customers' points read straight from the JSON
data file (not through `score_breakdown`, `ranking_key` or the loader). The rule trace of
the whole game is checked for the end phase (END-01..06) and the pieces for conservation.

All 200 games run in the default suite (about 35 s on one core).
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import village_rules
from village_rules.data.components import (
    INFLUENCE,
    AtCraft,
    Category,
    Cube,
    Farmyard,
    Good,
    InBlackBag,
    InChronicle,
    InGraveyard,
    OnChurch,
    OnCouncil,
    Removed,
    Travelling,
)
from village_rules.drivers.play import play_logged, random_policy, replay
from village_rules.engine.core import apply, chance_outcomes, legal_actions
from village_rules.engine.scoring import score_breakdown, winners
from village_rules.engine.setup import new_game
from village_rules.model.chance import sample
from village_rules.model.state import TERMINAL, GameState

ED23 = "big-box-2023"
ED11 = "original-2011"
CONFIGS = [(ED23, 2), (ED23, 3), (ED23, 4), (ED23, 5), (ED11, 2), (ED11, 3), (ED11, 4)]
GAMES = [(*CONFIGS[i % len(CONFIGS)], i) for i in range(200)]

# 2023 p. 14 (the same values hold for 2011, whose board prints them).
TRAVEL_POINTS = {0: 0, 1: 1, 2: 3, 3: 6, 4: 10, 5: 14, 6: 18}
CHURCH_POINTS = {1: 2, 2: 3, 3: 4, 4: 6}
COUNCIL_POINTS = {1: 0, 2: 2, 3: 4, 4: 6}


def chronicle_points(members: int) -> int:
    return {0: 0, 1: 0, 2: 0, 3: 4, 4: 7}.get(members, 12)


def raw_data(edition: str) -> dict[str, Any]:
    path = Path(village_rules.__file__).parent / "data" / f"{edition}.json"
    data: dict[str, Any] = json.loads(path.read_text())
    return data


RAW = {ed: raw_data(ed) for ed in (ED23, ED11)}


def customer_points(edition: str) -> dict[int, int]:
    return {c["value"]["id"]: c["value"]["points"] for c in RAW[edition]["customers"]}


def play_traced(edition: str, players: int, seed: int) -> tuple[GameState, list[str]]:
    """A random game as `play_logged` plays it, with the trace of every rule applied."""
    state = new_game(edition, players, seed)
    rng = random.Random(seed)
    trace: list[str] = []
    steps = 0
    while not state.is_terminal:
        if state.is_chance:
            action = sample(chance_outcomes(state), rng)
        else:
            action = random_policy(state, legal_actions(state), rng)
        state = apply(state, action, trace)
        steps += 1
        assert steps < 20_000, f"{edition} {players}p seed {seed}: no end after {steps} steps"
    return state, trace


def recompute(state: GameState, edition: str) -> list[dict[str, int]]:
    """The final scoring of every seat, from the state and the tables above."""
    points = customer_points(edition)
    out = []
    for p in state.players:
        out.append(
            {
                "during_play": p.prestige,
                "travel": TRAVEL_POINTS[min(len(p.markers), 6)],
                "council_chamber": sum(
                    COUNCIL_POINTS[loc.stage] for loc in p.members if isinstance(loc, OnCouncil)
                ),
                "church": sum(CHURCH_POINTS[loc.stage] for loc in p.members if isinstance(loc, OnChurch)),
                "chronicle": chronicle_points(sum(isinstance(loc, InChronicle) for loc in p.members)),
                "customers": sum(points[t] for t in p.customers),
                "coins": p.coins,
            }
        )
    return out


def expected_winners(state: GameState, edition: str, totals: list[int]) -> tuple[int, ...]:
    """Most points; then 2023 most grain / 2011 most customers; then most living members."""
    alive = (Farmyard, AtCraft, OnCouncil, OnChurch, Travelling, InBlackBag)
    keys = []
    for seat, p in enumerate(state.players):
        tie = p.grain if edition == ED23 else len(p.customers)
        living = sum(isinstance(loc, alive) for loc in p.members)
        keys.append((totals[seat], tie, living))
    best = max(keys)
    return tuple(seat for seat, k in enumerate(keys) if k == best)


def check_conservation(state: GameState, edition: str) -> None:
    supply = RAW[edition]["supply"]
    n = state.num_players
    assert state.supply.coins + sum(p.coins for p in state.players) == supply["coins"]["value"]
    assert state.supply.grain + sum(p.grain for p in state.players) == supply["grain"]["value"]
    for good in Good:
        held = sum(p.goods[good] for p in state.players)
        assert state.supply.goods[good] + held == supply["goods_each"]["value"], good
    cubes: Counter[Cube] = Counter()
    for tally in (state.supply.cubes, state.green_bag, *state.spaces, *(p.cubes for p in state.players)):
        for colour, count in tally.items:
            cubes[colour] += count
    for colour in INFLUENCE:
        assert cubes[colour] == supply["influence_cubes_each"]["value"], colour
    assert cubes[Cube.PLAGUE] == supply["plague_cubes"]["value"]
    assert state.bag_monks + state.monks_aside == supply["monks"]["value"]
    tiles = [t for t in (*state.market_available, *state.market_waiting) if t is not None]
    tiles += [*state.customer_pile, *(t for p in state.players for t in p.customers)]
    assert sorted(tiles) == sorted(customer_points(edition))
    assert all(len(p.members) == len(RAW[edition]["family_numbers"]["value"]) for p in state.players)
    assert len(state.players) == n


def check_end_phase(state: GameState, trace: list[str]) -> None:
    """END-01..06 in the trace: one trigger; n-1 final actions after END-02, n after
    END-04; no new round; no round mass but under AMB-33 c (END-09, the 2023 default: the
    end triggered on the turn that took the last cube) or AMB-45 b (END-11, the 2023
    default: a final action took it); one final mass, then the scoring."""
    n = state.num_players
    assert trace.count("END-01") == 1
    assert trace.count("END-02") + trace.count("END-04") == 1
    after = trace[trace.index("END-01") :]
    turns = sum(after.count(r) for r in ("TURN-01", "WELL-01", "END-03"))
    assert turns == (n - 1 if "END-02" in after else n)
    for rule in ("SEED-02", "ROUND-02"):
        assert rule not in after, rule
    round_mass = after.count("END-09") + after.count("END-11")  # AMB-33 c, AMB-45 b (2023)
    assert round_mass <= 1 and after.count("ROUND-01") == round_mass
    assert after.count("MASS-01") == 1 + round_mass and after.count("END-06") == 1
    assert after.index("END-06") < len(after) - 1 - after[::-1].index("MASS-01")
    assert trace[-2:] == ["MASS-05", "SCORE-01"]  # the final mass is complete, then scoring
    assert trace.count("SCORE-01") == 1
    if "END-03" in after:  # free actions: the board was emptied and never reseeded
        assert state.cubes_on_board() == 0
        assert "TURN-01" not in after[after.index("END-03") :]
    removed = sum(isinstance(loc, Removed) for p in state.players for loc in p.members)
    assert removed == trace.count("END-05")


def check_terminal(state: GameState, edition: str) -> None:
    assert state.is_terminal and state.current_player() == TERMINAL
    assert legal_actions(state) == [] and chance_outcomes(state) == []
    assert state.end_triggered_by is not None
    assert state.final_turns == ()
    assert state.market_day is None and state.mass is None and state.turn is None
    assert all(owed == 0 for owed in state.deaths_owed)
    # END-01: the chronicle or the graveyard is full (open spaces from the raw data).
    raw = RAW[edition]
    n = state.num_players
    chronicle_open = sum(
        sum(1 for label in spaces["value"] if label <= n) for spaces in raw["chronicle"]["spaces"].values()
    )
    graves_open = sum(1 for label in raw["graveyard"]["value"] if label <= n)
    chronicled = sum(isinstance(loc, InChronicle) for p in state.players for loc in p.members)
    buried = sum(isinstance(loc, InGraveyard) for p in state.players for loc in p.members)
    assert chronicled <= chronicle_open and buried <= graves_open
    assert chronicled == chronicle_open or buried == graves_open
    for category in Category:
        cap = sum(1 for label in raw["chronicle"]["spaces"][category.value]["value"] if label <= n)
        assert state.chronicle_count(category) <= cap


def check_game(edition: str, players: int, seed: int) -> None:
    state, trace = play_traced(edition, players, seed)
    check_terminal(state, edition)
    check_end_phase(state, trace)
    check_conservation(state, edition)
    mine = recompute(state, edition)
    theirs = score_breakdown(state)
    assert [b.seat for b in theirs] == list(range(players))
    for seat, b in enumerate(theirs):
        assert {
            "during_play": b.during_play,
            "travel": b.travel,
            "council_chamber": b.council_chamber,
            "church": b.church,
            "chronicle": b.chronicle,
            "customers": b.customers,
            "coins": b.coins,
        } == mine[seat], f"seat {seat}"
        assert b.total == sum(mine[seat].values())
    totals = [sum(m.values()) for m in mine]
    win = winners(state)
    assert len(win) >= 1
    assert win == expected_winners(state, edition, totals)


@pytest.mark.parametrize(("edition", "players", "seed"), GAMES, ids=[f"{e}-{n}p-{s}" for e, n, s in GAMES])
def test_200_random_games_scores_and_ends(edition: str, players: int, seed: int) -> None:
    """END-01..06, SCORE-01..07 over 200 seeded random games (2023: 2-5, 2011: 2-4 players,
    28-29 games each): each ends with a winner and its scoring equals the independent
    recomputation."""
    check_game(edition, players, seed)


def test_game_configurations_cover_every_edition_and_player_count() -> None:
    """The 200 games cover both editions at every player count, 28 or 29 each."""
    counts = Counter((e, n) for e, n, _ in GAMES)
    assert sorted(counts) == sorted(CONFIGS)
    assert set(counts.values()) == {28, 29}
    assert len({s for _, _, s in GAMES}) == 200


@pytest.mark.parametrize(("edition", "players"), CONFIGS)
def test_logged_game_replays_to_the_same_end(edition: str, players: int) -> None:
    """END-06: a logged random game replays (text actions) to the same terminal state and
    the same winners; it is the game `play_traced` plays with the same seed."""
    final, log = play_logged(edition, players, seed=7)
    again = replay(log.initial_state(), log.actions)
    assert again == final and again.is_terminal
    traced, _ = play_traced(edition, players, 7)
    assert traced == final
    assert winners(again) == winners(final)
