"""The native transition invariants (issue 40, item 2; cpp/checks.cpp transition_violations)
tied to the Python checker (`checks.invariants.transition_violations(before, action, after)`):
the same violations, in the same order and words, on every edge of the `tiny` and `solo`
configurations and along whole seeded games, and on a broken transition of every invariant;
a check left out natively (a planted bug) is caught and named by the tie.

On the edges and the games the native states are the native core's own: the parent loaded
once, each child a copy of it stepped by the action's id (the core is tied to the reference
step by step by tests/native/test_native_conform.py and the others), so that a configuration
costs its Python search and not one load per state; every edge of `tiny` with both states
loaded from the reference is checked under slow. The broken transitions are
tests/checks/test_invariants.py's (the same seeded states, broken the same way), with a few
more, both states loaded from the reference.

Skipped with a reason when the extension is not built, failed instead under
VILLAGE_REQUIRE_NATIVE=1 (tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import partial

import pytest
from native_walk import copy_and_apply, walk
from test_invariants import (  # its broken states' builders: the same states, broken the same way
    _final_actions_laid_down,
    _plague_take,
    _play,
    big_box,
    original,
    seat_with,
    set_member,
    with_player,
)

from village_rules.checks import invariants as inv
from village_rules.checks.invariants import Violation, transition_violations
from village_rules.data.components import (
    FARMYARD,
    GRAVEYARD,
    UNBORN,
    Category,
    InChronicle,
    InGraveyard,
    Location,
    OnChurch,
)
from village_rules.drivers.play import play_logged
from village_rules.engine.core import apply
from village_rules.explore.configs import configuration
from village_rules.explore.search import fingerprint, moves, roots
from village_rules.model.actions import Action, Skip, action_id, parse_action
from village_rules.model.pending import ChooseTurn
from village_rules.model.state import GameState
from village_rules.native import _core
from village_rules.native.checks import (
    TRANSITION_PLANTS,
    native_transition_violations,
    transition_differences,
)
from village_rules.native.engine import native_game

Step = tuple[GameState, Action, GameState]


def _as_violations(found: list[tuple[str, str, str, str]]) -> list[Violation]:
    return [Violation(*v) for v in found]


# --- every edge of a configuration ---------------------------------------------------------


def assert_every_edge_tied(name: str) -> int:
    """Native and Python transition violations are the same list on every edge (state,
    action or chance outcome) of the configuration's reachable graph at its first player
    count, breadth first from every set-up deal, each state expanded once per fingerprint (as
    the explorer merges them); and both are empty (the reachable steps are sound). Returns
    the number of edges."""
    edges = 0
    differing: list[str] = []
    broken = 0

    def step(state: GameState, action: Action, game: _core.Game) -> tuple[GameState, _core.Game]:
        nonlocal edges, broken
        after, child = copy_and_apply(state, action, game)
        python = transition_violations(state, action, after)
        native = _as_violations(game.transition_violations(action_id(state.rules.data, action), child))
        if native != python and len(differing) < 5:
            differing.append(f"{name} edge {edges}: native {native}, Python {python}")
        broken += bool(python)
        edges += 1
        return after, child

    for _ in walk(name, step):
        pass
    assert differing == [], differing
    assert broken == 0, f"{name}: {broken} reachable steps break a transition invariant"
    return edges


def test_every_edge_of_tiny_has_the_same_transition_violations_natively() -> None:
    assert assert_every_edge_tied("tiny") == 11_369


def test_every_edge_of_solo_has_the_same_transition_violations_natively() -> None:
    # one player against Carla: her turns (no plague time of hers), her board, the solo end
    assert assert_every_edge_tied("solo") == 26_876


@pytest.mark.slow  # one reference load per state (~0.5 ms each)
def test_every_edge_of_tiny_ties_with_both_states_loaded_from_the_reference() -> None:
    config = configuration("tiny")
    seen: set[int] = set()
    frontier = [root.state for root in roots(config.data, config.player_counts[0])]
    edges = 0
    while frontier:
        level: list[GameState] = []
        for state in frontier:
            key = fingerprint(state)
            if key in seen:
                continue
            seen.add(key)
            for action, _ in moves(state):
                after = apply(state, action)
                assert transition_differences(state, action, after) == [], (state, action)
                edges += 1
                level.append(after)
        frontier = level
    assert edges == 11_369


@pytest.mark.parametrize(
    ("edition", "players", "seed"),
    [("original-2011", 2, 11), ("big-box-2023", 4, 5), ("big-box-2023", 1, 3), ("original-2011", 4, 3)],
)
def test_every_step_of_a_seeded_game_ties(edition: str, players: int, seed: int) -> None:
    """Whole games (test_invariants.test_real_transitions_pass's and more): deaths, markers,
    served customers, plague takes, the end's trigger and the final actions, all sound."""
    final, log = play_logged(edition, players, seed)
    assert final.is_terminal
    state = log.initial_state()
    game = native_game(state)
    for text in log.actions:
        action = parse_action(text)
        after = apply(state, action)
        ident = action_id(state.rules.data, action)
        child = game.copy()
        child.apply(ident)
        native = _as_violations(game.transition_violations(ident, child))
        assert native == transition_violations(state, action, after) == [], text
        state, game = after, child


# --- broken transitions: tests/checks/test_invariants.py's ----------------------------------


SKIP: Action = Skip()


def _skip_to(make: Callable[[GameState], GameState], game: Callable[[], GameState] = big_box) -> Step:
    before = game()
    return before, SKIP, make(before)


def _dead_back(game: Callable[[], GameState], back: Location) -> Step:
    """test_invariants.test_the_dead_coming_back_is_caught: a dead member moved to `back`."""
    before = game()
    seat, i = next(
        (seat, i)
        for seat, p in enumerate(before.players)
        for i, loc in enumerate(p.members)
        if isinstance(loc, InChronicle | InGraveyard) and loc != back
    )
    return before, SKIP, set_member(before, seat, i, back)


def _born_unborn() -> Step:
    before = big_box()
    return before, SKIP, set_member(before, 0, before.players[0].members.index(FARMYARD), UNBORN)


def _prestige_drops(before: GameState) -> GameState:
    seat = seat_with(before, lambda p: p.prestige > 0)
    return with_player(before, seat, prestige=before.players[seat].prestige - 1)


def _customer_lost(before: GameState) -> GameState:
    seat = seat_with(before, lambda p: p.customers)
    return with_player(before, seat, customers=before.players[seat].customers[1:])


def _customer_replaced(before: GameState) -> GameState:
    """A served customer swapped for a tile of the pile, one more served after it."""
    seat = seat_with(before, lambda p: p.customers)
    customers = before.players[seat].customers
    pile = before.customer_pile
    return with_player(before, seat, customers=(pile[0], *customers[1:], pile[1]))


def _marker_lost(before: GameState) -> GameState:
    seat = seat_with(before, lambda p: p.markers)
    return with_player(before, seat, markers=before.players[seat].markers[1:])


def _marker_moved(before: GameState) -> GameState:
    """A marker moved to a city the seat had none on: as many markers, not a superset."""
    seat = seat_with(before, lambda p: p.markers)
    markers = before.players[seat].markers
    other = next(c.id for c in before.rules.data.cities if c.id not in markers)
    return with_player(before, seat, markers=tuple(sorted((*markers[1:], other))))


def _everything_at_once(before: GameState) -> GameState:
    """The round back, prestige, customers, markers, a dead member and a born one at once:
    the order of the violations across the checks and the seats."""
    after = replace(_marker_lost(_customer_lost(_prestige_drops(before))), round=before.round - 1)
    after = set_member(after, 0, after.players[0].members.index(FARMYARD), UNBORN)
    seat, i = next(
        (seat, i)
        for seat, p in enumerate(after.players)
        for i, loc in enumerate(p.members)
        if isinstance(loc, InGraveyard | InChronicle)
    )
    return set_member(after, seat, i, FARMYARD)


def _plague_spent(edition: str, players: int, spent: int) -> Step:
    """test_invariants.test_a_plague_cube_must_cost_the_editions_plague_time: the token moved
    `spent` spaces for a plague cube (one take: exactly the plague time is due)."""
    before, take = _plague_take(edition, players, 7)
    after = apply(before, take)
    seat = before.current_player()
    length = before.rules.data.lifetime_track_length
    lifetime = (before.players[seat].lifetime + spent) % length
    return before, take, after.with_player(seat, replace(after.players[seat], lifetime=lifetime))


def _plague_two_turns_later() -> Step:
    """A plague take followed in the same step by a round's end (not one take): a token moved
    by no whole number of plague times is caught with the second wording."""
    before, take = _plague_take("big-box-2023", 3, 7)
    after = apply(before, take)
    seat = before.current_player()
    length = before.rules.data.lifetime_track_length
    plague = before.rules.data.plague_time
    after = replace(after, round=after.round + 1)
    lifetime = (before.players[seat].lifetime + 2 * plague + 1) % length
    return before, take, after.with_player(seat, replace(after.players[seat], lifetime=lifetime))


def _trigger_given_final(edition: str, players: int, seed: int) -> Step:
    before, action, after = _final_actions_laid_down(edition, players, seed)
    seat = after.end_triggered_by
    assert seat is not None
    return before, action, replace(after, final_turns=(*(after.final_turns or ()), seat))


def _trigger_to_act_next(edition: str, players: int, seed: int) -> Step:
    """The trigger asked to take the first final action (the `next N, then [...]` wording)."""
    before, action, after = _final_actions_laid_down(edition, players, seed)
    seat = after.end_triggered_by
    assert seat is not None and isinstance(after.pending, ChooseTurn)
    return before, action, replace(after, pending=ChooseTurn(seat))


def _other_rules(before: GameState) -> GameState:
    """The same players under another variant (the starting compensations toggled)."""
    variant = before.rules.variant
    rules = replace(
        before.rules, variant=replace(variant, starting_compensation=not variant.starting_compensation)
    )
    return replace(before, rules=rules)


BROKEN: dict[str, Callable[[], Step]] = {
    "round goes back": partial(_skip_to, lambda s: replace(s, round=s.round - 1)),
    "prestige drops": partial(_skip_to, _prestige_drops),
    "prestige drops, original": partial(_skip_to, _prestige_drops, original),
    "customer lost": partial(_skip_to, _customer_lost),
    "customer replaced": partial(_skip_to, _customer_replaced),
    "marker lost": partial(_skip_to, _marker_lost),
    "marker moved": partial(_skip_to, _marker_moved),
    **{
        f"dead back to {back}, {game.__name__}": partial(_dead_back, game, back)
        for game in (big_box, original)
        for back in (FARMYARD, OnChurch(1), UNBORN, GRAVEYARD, InChronicle(Category.CHURCH))
    },
    "born member unborn": _born_unborn,
    "everything at once": partial(_skip_to, _everything_at_once),
    **{
        f"plague cube costing {spent}, {edition} {players}p": partial(_plague_spent, edition, players, spent)
        for edition, players in (("big-box-2023", 3), ("original-2011", 2), ("big-box-2023", 1))
        for spent in (1, 0)
    },
    "plague cube and more, costing no whole number": _plague_two_turns_later,
    **{
        f"trigger given a final action, {edition} {players}p": partial(
            _trigger_given_final, edition, players, seed
        )
        for edition, players, seed in (("big-box-2023", 3, 1), ("original-2011", 4, 3))
    },
    "trigger asked to act next": partial(_trigger_to_act_next, "big-box-2023", 3, 1),
    "another edition and player count": lambda: (big_box(), SKIP, original()),
    "another player count": lambda: (big_box(), SKIP, _play("big-box-2023", 3, 5, 200)),
    "another variant": partial(_skip_to, _other_rules),
}
"""Broken transitions, by name: each breaks one transition invariant or more."""


@pytest.mark.parametrize("name", list(BROKEN))
def test_a_broken_transition_has_the_same_violations_natively(name: str) -> None:
    before, action, after = BROKEN[name]()
    python = transition_violations(before, action, after)
    assert python, f"{name}: not broken"
    assert transition_differences(before, action, after) == []
    assert native_transition_violations(before, action, after) == python


def test_the_broken_transitions_break_every_transition_invariant() -> None:
    broken = {v.invariant for make in BROKEN.values() for v in transition_violations(*make())}
    every = set(inv.TRANSITION_INVARIANTS)
    assert broken == every, f"not broken: {sorted(every - broken)}"


# --- the planted miss ---------------------------------------------------------------------


def test_a_transition_check_left_out_natively_is_named_by_the_tie() -> None:
    before, action, after = BROKEN["prestige drops"]()
    (plant,) = TRANSITION_PLANTS
    assert transition_differences(before, action, after) == []
    found = transition_differences(before, action, after, plant=plant)
    want = [v for v in transition_violations(before, action, after) if v.invariant == inv.PRESTIGE]
    assert len(want) == 1
    assert found == [f"Python only: {want[0]}"]
    # a sound step cannot show it: the tie needs the broken transitions as well as the real ones
    assert transition_differences(before, action, before, plant=plant) == []
    with pytest.raises(ValueError, match="unknown planted bug"):
        native_transition_violations(before, action, after, plant="skip everything")


def test_an_action_id_out_of_range_is_refused() -> None:
    game = native_game(big_box())
    with pytest.raises(ValueError, match="out of range"):
        game.transition_violations(-1, game)
    with pytest.raises(ValueError, match="out of range"):
        game.transition_violations(10**6, game)
