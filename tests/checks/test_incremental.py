"""The incremental checker gives exactly the full checks' violations: at every step of
seeded games (both editions, 1-5 players, drawn readings), for broken states fed as the
state after a step, and with the fuzzer catching injected engine bugs through it. One
test shows the differential comparison catches a wrong sound-test."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace

import pytest
from support import loses_a_coin_at_the_market

from village_rules.checks import incremental
from village_rules.checks import invariants as inv
from village_rules.checks.incremental import IncrementalChecker
from village_rules.checks.invariants import Violation, state_violations, transition_violations
from village_rules.data.components import REMOVED, ActionSpace, Cube, Farmyard, OnCouncil, Travelling
from village_rules.data.loader import builtin_edition
from village_rules.data.tally import Tally
from village_rules.drivers.play import play_logged, random_policy
from village_rules.engine.core import apply, chance_outcomes, legal_actions
from village_rules.engine.setup import new_game
from village_rules.fuzz.games import plan_game, play_game
from village_rules.model.actions import Action, Skip, TakeCube, parse_action
from village_rules.model.chance import sample
from village_rules.model.pending import ChooseDying, MassDraw
from village_rules.model.state import GameState

GAMES = [
    ("big-box-2023", 1, 0),
    ("big-box-2023", 2, 1),
    ("big-box-2023", 3, 2),
    ("big-box-2023", 4, 3),
    ("big-box-2023", 5, 4),
    ("original-2011", 2, 5),
    ("original-2011", 3, 6),
    ("original-2011", 4, 7),
]


def _full(before: GameState, action: Action, after: GameState, legal: list[Action] | None) -> list[Violation]:
    return state_violations(after, legal) + transition_violations(before, action, after)


def _legal(state: GameState) -> list[Action] | None:
    return None if state.is_chance or state.is_terminal else legal_actions(state)


@pytest.mark.parametrize(("edition", "players", "index"), GAMES)
def test_every_step_of_seeded_games_gives_the_full_checks_violations(
    edition: str, players: int, index: int
) -> None:
    game = plan_game(41, index, edition=edition, players=players)  # readings drawn
    state = new_game(builtin_edition(edition), players, game.seed, game.variant)
    rng = random.Random(game.seed)
    checker = IncrementalChecker()
    quick = IncrementalChecker(oracle=False)
    legal = _legal(state)
    assert checker.state(state, legal) == state_violations(state, legal) == []
    steps = 0
    while not state.is_terminal:
        assert legal is not None or state.is_chance
        if state.is_chance:
            action = sample(chance_outcomes(state), rng)
        else:
            action = random_policy(state, legal or [], rng)
        after = apply(state, action)
        legal = _legal(after)
        want = _full(state, action, after, legal)
        assert checker.step(state, action, after, legal) == want
        assert quick.step(state, action, after, legal) == [v for v in want if v.invariant != inv.LEGAL_SET]
        state = after
        steps += 1
    assert steps > 100


# --- broken states fed as the state after a step ------------------------------------------


def _mid(edition: str, players: int, seed: int, steps: int) -> tuple[GameState, Action, GameState]:
    """(before, action, after) of a step deep in a seeded game."""
    state, log = play_logged(edition, players, seed, max_steps=steps)
    before, _ = play_logged(edition, players, seed, max_steps=steps - 1)
    action = parse_action(log.actions[-1])
    assert apply(before, action) == state
    return before, action, state


def _with_player(state: GameState, seat: int, **changes: object) -> GameState:
    return state.with_player(seat, replace(state.players[seat], **changes))  # type: ignore[arg-type]


def _lose_a_cube(s: GameState) -> GameState:
    space = next(sp for sp in ActionSpace if s.space(sp).total())
    colour = next(iter(s.space(space)))
    return s.with_space(space, s.space(space).remove(colour))


def _duplicate_a_customer(s: GameState) -> GameState:
    return _with_player(s, 0, customers=(*s.players[0].customers, s.customer_pile[0]))


def _negative_cubes(s: GameState) -> GameState:
    return _with_player(s, 1, cubes=Tally(((Cube.GREEN, -1),)))


def _negative_coins(s: GameState) -> GameState:
    return replace(s, supply=replace(s.supply, coins=-1))


def _extra_cube_in_the_bag(s: GameState) -> GameState:
    return replace(s, green_bag=s.green_bag.add(Cube.PINK))


def _wrong_pending_step(s: GameState) -> GameState:
    return replace(s, pending=MassDraw(2))


def _dying_without_a_death_owed(s: GameState) -> GameState:
    return replace(s, pending=ChooseDying(0))


def _member_twice(s: GameState) -> GameState:
    p = s.players[2]
    return _with_player(s, 2, members=(*p.members, p.members[0]))


def _member_off_the_board(s: GameState) -> GameState:
    p = s.players[1]
    return _with_player(s, 1, members=(OnCouncil(99), *p.members[1:]))


def _removed_before_the_end(s: GameState) -> GameState:
    p = s.players[0]
    i = next(i for i, loc in enumerate(p.members) if isinstance(loc, Farmyard))
    return _with_player(s, 0, members=(*p.members[:i], REMOVED, *p.members[i + 1 :]))


def _born_member_to_an_unknown_city(s: GameState) -> GameState:
    p = s.players[3]
    i = next(i for i, loc in enumerate(p.members) if isinstance(loc, Farmyard))
    return _with_player(s, 3, members=(*p.members[:i], Travelling("atlantis"), *p.members[i + 1 :]))


def _seat_out_of_range(s: GameState) -> GameState:
    return replace(s, start_player=7)


def _short_market_row(s: GameState) -> GameState:
    return replace(s, market_available=s.market_available[1:])


def _unsorted_pile(s: GameState) -> GameState:
    return replace(s, customer_pile=tuple(reversed(s.customer_pile)))


def _round_back(s: GameState) -> GameState:
    return replace(s, round=s.round - 1)


def _prestige_down(s: GameState) -> GameState:
    seat = next(i for i, p in enumerate(s.players) if p.prestige)
    return _with_player(s, seat, prestige=s.players[seat].prestige - 1)


def _customer_unserved(s: GameState) -> GameState:
    seat = next(i for i, p in enumerate(s.players) if p.customers)
    return _with_player(s, seat, customers=s.players[seat].customers[1:])


def _grain_over_capacity(s: GameState) -> GameState:
    return _with_player(s, 0, grain=99)


def _lifetime_off_track(s: GameState) -> GameState:
    return _with_player(s, 3, lifetime=-2)


def _monks_aside_outside_a_mass(s: GameState) -> GameState:
    return replace(s, monks_aside=1, bag_monks=s.bag_monks - 1)


BREAKS: list[Callable[[GameState], GameState]] = [
    _lose_a_cube,
    _duplicate_a_customer,
    _negative_cubes,
    _negative_coins,
    _extra_cube_in_the_bag,
    _wrong_pending_step,
    _dying_without_a_death_owed,
    _member_twice,
    _member_off_the_board,
    _removed_before_the_end,
    _born_member_to_an_unknown_city,
    _seat_out_of_range,
    _short_market_row,
    _unsorted_pile,
    _round_back,
    _prestige_down,
    _customer_unserved,
    _grain_over_capacity,
    _lifetime_off_track,
    _monks_aside_outside_a_mass,
]


@pytest.fixture(scope="module")
def mid_game() -> tuple[GameState, Action, GameState]:
    return _mid("big-box-2023", 4, 5, 276)


@pytest.mark.parametrize("breaks", BREAKS, ids=lambda f: f.__name__.strip("_"))
def test_a_broken_state_after_a_sound_one_gives_the_full_checks_violations(
    mid_game: tuple[GameState, Action, GameState], breaks: Callable[[GameState], GameState]
) -> None:
    before, action, after = mid_game
    legal = _legal(after)
    checker = IncrementalChecker()
    assert checker.step(before, action, after, legal) == []  # every check remembered as sound
    bad = breaks(after)
    want = _full(after, Skip(), bad, legal)
    assert want, "the broken state breaks an invariant"
    assert checker.step(after, Skip(), bad, legal) == want
    # and back to the sound state: nothing left over from the broken one
    assert checker.step(bad, Skip(), after, legal) == _full(bad, Skip(), after, legal)
    assert checker.step(before, action, after, legal) == []


def test_two_broken_states_in_a_row_give_the_full_checks_violations(
    mid_game: tuple[GameState, Action, GameState],
) -> None:
    before, action, after = mid_game
    legal = _legal(after)
    checker = IncrementalChecker()
    checker.step(before, action, after, legal)
    state = after
    for breaks in BREAKS[:6]:  # the breaks pile up: each step starts from a broken state
        bad = breaks(state)
        assert checker.step(state, Skip(), bad, legal) == _full(state, Skip(), bad, legal)
        state = bad


def test_the_differential_comparison_catches_a_wrong_sound_test(
    mid_game: tuple[GameState, Action, GameState], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The comparison above is what ties the checker to the reference: a conservation
    sound-test that passes everything makes it fail."""
    monkeypatch.setattr(IncrementalChecker, "_cubes_fast", lambda self, state, changed: [])
    before, action, after = mid_game
    legal = _legal(after)
    checker = IncrementalChecker()
    checker.step(before, action, after, legal)
    bad = _lose_a_cube(after)
    assert inv.CUBES in {v.invariant for v in _full(after, Skip(), bad, legal)}
    assert checker.step(after, Skip(), bad, legal) != _full(after, Skip(), bad, legal)


def test_a_state_of_another_game_runs_the_full_checks(mid_game: tuple[GameState, Action, GameState]) -> None:
    before, action, after = mid_game
    checker = IncrementalChecker()
    checker.step(before, action, after, _legal(after))
    other, _ = play_logged("original-2011", 3, 4, max_steps=182)
    bad = replace(other, bag_monks=other.bag_monks + 1)
    assert checker.state(bad, _legal(bad)) == state_violations(bad, _legal(bad))
    assert checker.transition(after, Skip(), bad) == transition_violations(after, Skip(), bad)
    assert {v.invariant for v in checker.transition(after, Skip(), bad)} == {inv.SAME_GAME}


# --- the fuzzer checks through it and still catches injected bugs -------------------------


def _loses_a_cube_at_take(state: GameState, action: Action, trace: list[str] | None = None) -> GameState:
    """An engine whose cube taking loses a cube from the green bag (conservation of cubes
    must catch it, through the running count)."""
    after = apply(state, action, trace=trace)
    if isinstance(action, TakeCube) and after.green_bag.total():
        return replace(after, green_bag=after.green_bag.remove(next(iter(after.green_bag))))
    return after


@pytest.mark.parametrize(
    ("bug", "invariant"), [(loses_a_coin_at_the_market, inv.COINS), (_loses_a_cube_at_take, inv.CUBES)]
)
def test_the_fuzzer_catches_an_injected_bug_through_the_incremental_checker(
    monkeypatch: pytest.MonkeyPatch, bug: Callable[..., GameState], invariant: str
) -> None:
    steps: list[int] = []

    class Counting(IncrementalChecker):
        def step(self, before: GameState, action: Action, after: GameState, legal: object) -> list[Violation]:
            steps.append(1)
            return super().step(before, action, after, legal)  # type: ignore[arg-type]

    monkeypatch.setattr("village_rules.fuzz.games.IncrementalChecker", Counting)
    monkeypatch.setattr("village_rules.fuzz.games.apply", bug)
    games = (plan_game(3, i, edition="big-box-2023", players=3) for i in range(10))
    result = next(r for r in map(play_game, games) if r.failed)
    assert invariant in {v.invariant for v in result.violations}
    assert steps, "the fuzzer checked its steps through the incremental checker"


def test_the_module_checks_are_the_full_checks_in_order(
    monkeypatch: pytest.MonkeyPatch, mid_game: tuple[GameState, Action, GameState]
) -> None:
    """The checks the incremental checker reruns are `state_violations`' own functions, in
    the order it calls them, each under the invariant name it reports."""
    checks = incremental._CHECKS
    for _, check, _ in checks:
        assert getattr(inv, check.__name__) is check  # the module's own function
    called: list[str] = []

    def recorder(name: str) -> Callable[[GameState], list[Violation]]:
        def record(state: GameState) -> list[Violation]:
            called.append(name)
            return []

        return record

    for _, check, _ in checks:
        monkeypatch.setattr(inv, check.__name__, recorder(check.__name__))
    inv.state_violations(new_game("big-box-2023", 3, seed=1))
    assert called == [check.__name__ for _, check, _ in checks]  # state_violations' order
    monkeypatch.undo()
    broken = _lose_a_cube(mid_game[2])
    for name, check, _ in checks:
        found = {v.invariant for v in check(broken)}
        assert found <= {name}, (name, check.__name__, found)  # each reports its own name
    assert {v.invariant for v in inv.cube_violations(broken)} == {inv.CUBES}


# --- shared sound-tests and kept verdicts: a wrong answer is caught by the comparison ---


@pytest.mark.parametrize("breaks", [_lose_a_cube, _negative_cubes], ids=lambda f: f.__name__.strip("_"))
def test_a_wrong_shared_cube_scan_is_caught(
    mid_game: tuple[GameState, Action, GameState],
    monkeypatch: pytest.MonkeyPatch,
    breaks: Callable[[GameState], GameState],
) -> None:
    """Conservation and the negative-count test share one pass over the changed cube
    tallies (`_cube_scan`): a scan answering 'conserved, nothing negative' for a step that
    lost a cube or made a count negative makes the comparison with the full checks fail."""
    before, action, after = mid_game
    legal = _legal(after)
    bad = breaks(after)
    want = _full(after, Skip(), bad, legal)
    assert {inv.CUBES, inv.NON_NEGATIVE} & {v.invariant for v in want}
    checker = IncrementalChecker()
    checker.step(before, action, after, legal)
    assert checker.step(after, Skip(), bad, legal) == want  # the real scan: exact
    monkeypatch.setattr(IncrementalChecker, "_cube_scan", lambda self, state, changed: (True, False))
    checker = IncrementalChecker()
    checker.step(before, action, after, legal)
    assert checker.step(after, Skip(), bad, legal) != want


def test_a_phase_verdict_is_rechecked_when_a_seat_it_reads_changes(
    mid_game: tuple[GameState, Action, GameState], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The phase verdict is kept while the pending step's type (and, for the steps whose
    check reads it, its seat) and the other fields it reads are the same: a dying choice
    moving to a seat that owes no death is found, and without the seat in the key it
    would not be (the comparison catches that planted bug)."""
    before, action, after = mid_game
    owing = replace(after, pending=ChooseDying(0), deaths_owed=(1, 0, 0, 0))
    other = replace(owing, pending=ChooseDying(1))
    legal: list[Action] = [Skip()]  # given, so the checker does not fall back to the full checks
    want = [v for v in _full(owing, Skip(), other, legal) if v.invariant != inv.LEGAL_SET]
    assert inv.PHASE in {v.invariant for v in want}

    def run() -> list[Violation]:
        checker = IncrementalChecker(oracle=False)
        checker.step(before, action, owing, legal)
        return checker.step(owing, Skip(), other, legal)

    assert run() == want
    monkeypatch.setattr(incremental, "_PHASE_SEAT_TYPES", frozenset())
    assert run() != want


FUSED_BREAKS = [
    _lose_a_cube,
    _negative_cubes,
    _negative_coins,
    _extra_cube_in_the_bag,
    _grain_over_capacity,
    _lifetime_off_track,
    _monks_aside_outside_a_mass,
    _member_off_the_board,
    _born_member_to_an_unknown_city,
    _member_twice,
]
"""Broken states that change only fields the fused sound-test covers (`incremental._FUSED`)."""


@pytest.mark.parametrize("breaks", FUSED_BREAKS, ids=lambda f: f.__name__.strip("_"))
def test_the_fused_sound_test_is_what_catches_these_breaks(
    mid_game: tuple[GameState, Action, GameState],
    monkeypatch: pytest.MonkeyPatch,
    breaks: Callable[[GameState], GameState],
) -> None:
    """These broken steps go through the fused sound-test (they change only fields it
    covers, after a sound state): with the real one the result is the full checks'; with
    a planted one that passes everything the comparison fails."""
    before, action, after = mid_game
    legal = _legal(after)
    bad = breaks(after)
    want = _full(after, Skip(), bad, legal)
    checker = IncrementalChecker()
    checker.step(before, action, after, legal)
    assert checker.step(after, Skip(), bad, legal) == want
    assert not checker._last_changed & incremental._UNFUSED, "the break stays within the fused fields"
    monkeypatch.setattr(IncrementalChecker, "_fused", lambda self, state, changed, seatless: True)
    checker = IncrementalChecker()
    checker.step(before, action, after, legal)
    assert checker.step(after, Skip(), bad, legal) != want


def test_the_fused_fields_are_those_its_sound_test_was_written_for() -> None:
    """`_fused` answers for every check of `_CHECKS` over the fields of `_FUSED`; a new
    check reading one of them, or a new fused field, needs its part in `_fused` first (this
    list is what it covers, check by check)."""
    covered = {
        name: sorted(n for n, bit in incremental._BIT.items() if deps & bit & incremental._FUSED)
        for name, _, deps in incremental._CHECKS
    }
    assert covered == {
        inv.CUBES: sorted(["supply", "green_bag", "spaces", "p.cubes"]),
        inv.COINS: sorted(["supply", "p.coins"]),
        inv.GRAIN: sorted(["supply", "p.grain"]),
        inv.GOODS: sorted(["supply", "p.goods"]),
        inv.CUSTOMERS: [],
        inv.MONKS: sorted(["bag_monks", "monks_aside"]),
        inv.MARKERS: [],
        inv.MEMBERS: ["p.members"],
        inv.GRAIN_CAPACITY: ["p.grain"],
        inv.NON_NEGATIVE: sorted(
            [
                "supply",
                "bag_monks",
                "monks_aside",
                "deaths_owed",
                "mass",
                "market_day",
                "green_bag",
                "spaces",
                "p.coins",
                "p.grain",
                "p.prestige",
                "p.cubes",
                "p.goods",
            ]
        ),
        inv.LIFETIME: ["p.lifetime"],
        inv.SEATS: sorted(["pending", "turn", "market_day", "mass", "deaths_owed"]),
        inv.BOARD: sorted(["spaces", "monks_aside", "mass"]),
    }
