"""Setting up a game, step by step as 2023 p. 3 and the 2011 "Setup" section say.

Random steps (customers turned up from the shuffled pile, the 3rd player's random cube) are
chance events over what is actually left. `new_game` resolves them from an explicit seed;
the explicit-deal path (`deal_outcomes`, `game_from_deal`) lists them one at a time and
builds the game from the outcomes chosen, so a game-tree wrapper (OpenSpiel) can make the
setup chance nodes of its game. Both paths build the same state from the same outcomes.
The state ends ready for round 1: the green bag is filled and the first seeding draw is
pending (or the 4th player's choice of a compensation cube).
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import replace
from fractions import Fraction

from village_rules.data.components import FARMYARD, INFLUENCE, UNBORN, Compensation, Cube, Good
from village_rules.data.edition import EditionData, Row
from village_rules.data.jsonio import MAX_INT_DIGITS, MAX_SEED
from village_rules.data.loader import builtin_edition
from village_rules.data.tally import Tally
from village_rules.engine import solo_setup
from village_rules.engine.common import take_coins, take_cube, take_grain
from village_rules.engine.seeding import begin_round
from village_rules.errors import ArgumentTypeError, SetupError
from village_rules.model.actions import Action, DrawCube, DrawCustomer, format_action
from village_rules.model.chance import sample, uniform
from village_rules.model.pending import ChooseCompensationCube, ChooseTurn
from village_rules.model.state import PLAYER_COLOURS, GameState, PlayerState, Supply
from village_rules.rule_ids import RuleId
from village_rules.rules.variant import Rules, Variant


def new_game(
    edition: str | EditionData,
    players: int,
    seed: int,
    variant: Variant | None = None,
) -> GameState:
    """A set-up game: same edition data, players, seed and variant give the same state."""
    for name, value in (("players", players), ("seed", seed)):
        if not isinstance(value, int) or isinstance(value, bool):
            raise ArgumentTypeError(
                f"new_game: {name} must be an int, got {value!r} (a game is reproduced from its seed)"
            )
    if seed < 0:
        # random.Random(-s) is random.Random(s): a negative seed would silently replay the
        # game of its absolute value, so it is refused rather than aliased.
        raise SetupError(RuleId.SET_01, f"seed {seed} is negative; a seed is a whole number 0 or more")
    if seed >= MAX_SEED:
        # a game log holds integers of up to MAX_INT_DIGITS digits: a longer seed would make a
        # log that cannot be replayed
        raise SetupError(RuleId.SET_01, f"a seed has at most {MAX_INT_DIGITS} digits, not {len(str(seed))}")
    rules = _rules(edition, players, variant)
    rng = random.Random(seed)
    dealt: list[Action] = []
    while outcomes := _deal_step(rules, players, dealt):
        dealt.append(sample(outcomes, rng))
    return _build(rules, players, dealt)


def deal_outcomes(
    edition: str | EditionData,
    players: int,
    dealt: Sequence[Action] = (),
    variant: Variant | None = None,
) -> list[tuple[Action, Fraction]]:
    """The outcomes of the next random step of the setup after `dealt`, with exact
    probabilities; empty once the deal is complete.

    The steps, in order: SET-05 a `DrawCustomer` for each market space in use (the
    available row, then the waiting row), then SET-10 (2023, with starting compensation)
    a `DrawCube` of an influence colour for the seat that gets a random cube.
    """
    rules = _rules(edition, players, variant)
    _check_deal(rules, players, dealt)
    return _deal_step(rules, players, list(dealt))


def game_from_deal(
    edition: str | EditionData,
    players: int,
    dealt: Sequence[Action],
    variant: Variant | None = None,
) -> GameState:
    """The set-up game after the complete deal `dealt` (each outcome one of
    `deal_outcomes` of the deal before it). Raises `SetupError` for a wrong deal."""
    rules = _rules(edition, players, variant)
    _check_deal(rules, players, dealt)
    if _deal_step(rules, players, list(dealt)):
        raise SetupError(
            RuleId.SET_05, f"the deal is incomplete: {len(dealt)} outcome(s) given, more are needed"
        )
    return _build(rules, players, list(dealt))


def board_after(
    edition: str | EditionData,
    players: int,
    dealt: Sequence[Action],
    variant: Variant | None = None,
) -> GameState:
    """The board of a deal in progress: the customer tiles of `dealt` on their market
    spaces, nothing else done yet. For showing and observing the deal only: the state is
    not ready to play (its pending step is a placeholder) until `game_from_deal`."""
    rules = _rules(edition, players, variant)
    _check_deal(rules, players, dealt)
    customers = [a for a in dealt if isinstance(a, DrawCustomer)]
    return _deal_customers(_empty_board(rules, players), iter(customers))


def _rules(edition: str | EditionData, players: int, variant: Variant | None) -> Rules:
    """The rules of a setup, after checking the arguments every setup entry point shares."""
    if not isinstance(players, int) or isinstance(players, bool):
        raise ArgumentTypeError(f"setup: players must be an int, got {players!r}")
    if not isinstance(edition, str | EditionData):
        raise ArgumentTypeError(f"setup: edition must be an edition id or EditionData, got {edition!r}")
    if variant is not None and not isinstance(variant, Variant):
        raise ArgumentTypeError(f"setup: variant must be a Variant or None, got {variant!r}")
    data = builtin_edition(edition) if isinstance(edition, str) else edition
    if not data.supports_players(players):
        solo = " or 1 (the solo mode, SOLO-01)" if data.solo is not None else ""
        none = " (it has no solo mode: SOLO-01 is the 2023 edition's)" if players == 1 and not solo else ""
        raise SetupError(
            RuleId.SET_01,
            f"{data.edition} is for {data.min_players}-{data.max_players} players{solo}, not {players}{none}",
        )
    return Rules(data, variant or Variant())


def _check_deal(rules: Rules, players: int, dealt: Sequence[Action]) -> None:
    for k in range(len(dealt)):
        offered = [a for a, _ in _deal_step(rules, players, list(dealt[:k]))]
        if dealt[k] not in offered:
            rule = RuleId.SET_10 if isinstance(dealt[k], DrawCube) else RuleId.SET_05
            allowed = ", ".join(format_action(a) for a in offered) or "none: the deal is complete"
            raise SetupError(
                rule, f"deal outcome {k} {format_action(dealt[k])!r} is not possible (outcomes: {allowed})"
            )


def _customer_spaces(rules: Rules, players: int) -> int:
    return sum(1 for s in rules.data.market_layout(players) if s.row in (Row.AVAILABLE, Row.WAITING))


def _random_cube_seats(rules: Rules, players: int) -> int:
    if not (rules.variant.starting_compensation and rules.data.starting_compensation):
        return 0
    kinds = rules.data.starting_compensation
    return sum(1 for seat in range(players) if kinds[seat] is Compensation.RANDOM_CUBE)


def _deal_step(rules: Rules, players: int, dealt: list[Action]) -> list[tuple[Action, Fraction]]:
    """The next random step after `dealt` (assumed valid), in the order `new_game` draws."""
    tiles = sorted(t.id for t in rules.data.customers)
    spaces = min(_customer_spaces(rules, rules.data.seats(players)), len(tiles))
    if len(dealt) < spaces:
        taken = {a.tile for a in dealt if isinstance(a, DrawCustomer)}
        return [(DrawCustomer(t), p) for t, p in uniform([t for t in tiles if t not in taken])]
    if len(dealt) < spaces + _random_cube_seats(rules, players):
        supply = rules.data.influence_cubes_each
        drawn = [a.cube for a in dealt[spaces:] if isinstance(a, DrawCube)]
        left = [c for c in INFLUENCE if supply - drawn.count(c) > 0]
        return [(DrawCube(c), p) for c, p in uniform(left)]
    return []


def _build(rules: Rules, players: int, dealt: list[Action]) -> GameState:
    outcomes = iter(dealt)
    state = _empty_board(rules, players)
    state = _deal_customers(state, outcomes)
    if rules.variant.starting_compensation and rules.data.starting_compensation:
        state = _compensate(state, outcomes)
    if isinstance(state.pending, ChooseCompensationCube):
        return state
    return begin_round(state)


def _empty_board(rules: Rules, players: int) -> GameState:
    d = rules.data
    n = d.seats(players)  # SOLO-02: a solo game is set up for two seats, the player's and Carla's
    members = tuple(FARMYARD if k == d.first_generation_number else UNBORN for k in d.family_numbers)
    players_state = tuple(
        PlayerState(
            colour=PLAYER_COLOURS[seat],
            members=members,  # SET-02
            grain=0,
            coins=d.starting_coins,  # SET-04
            cubes=Tally(),
            goods=Tally(),
            lifetime=0,  # SET-03: right of the quill
            prestige=0,
            customers=(),
            markers=(),
        )
        for seat in range(players)
    )
    if players == 1:
        players_state = (*players_state, solo_setup.carla_player(rules))  # SOLO-04, SOLO-05
    supply = Supply(  # SET-08
        cubes=Tally.of([(c, d.influence_cubes_each) for c in INFLUENCE] + [(Cube.PLAGUE, d.plague_cubes)]),
        coins=d.supply_coins - players * d.starting_coins,
        grain=d.supply_grain,
        goods=Tally.of([(g, d.goods_each) for g in Good]),
    )
    layout = d.market_layout(n)
    return GameState(
        rules=rules,
        round=1,
        start_player=0,  # SET-09: the oldest player; seat 0 by convention
        next_start_holder=None,  # SET-07
        supply=supply,
        green_bag=Tally(),
        spaces=tuple(Tally() for _ in range(7)),
        market_available=tuple(None for s in layout if s.row is Row.AVAILABLE),
        market_waiting=tuple(None for s in layout if s.row is Row.WAITING),
        customer_pile=tuple(sorted(t.id for t in d.customers)),
        bag_monks=d.monks,
        monks_aside=0,
        players=players_state,
        pending=ChooseTurn(0),
        deaths_owed=tuple(0 for _ in range(n)),
        carla=solo_setup.carla_board(rules) if players == 1 else None,  # SOLO-06
    )


def _deal_customers(state: GameState, outcomes: Iterator[Action]) -> GameState:
    """SET-05: turn a customer from the face-down pile onto every market space in use."""
    available = list(state.market_available)
    waiting = list(state.market_waiting)
    pile = list(state.customer_pile)
    for row in (available, waiting):
        for i in range(len(row)):
            if not pile:
                break
            drawn = next(outcomes, None)
            if drawn is None:
                break
            if not (isinstance(drawn, DrawCustomer) and drawn.tile in pile):
                problem = f"{format_action(drawn)!r} is not a customer tile left in the pile"
                raise SetupError(RuleId.SET_05, problem)
            tile = drawn.tile
            pile.remove(tile)
            row[i] = tile
    return replace(
        state,
        market_available=tuple(available),
        market_waiting=tuple(waiting),
        customer_pile=tuple(pile),
    )


def _compensate(state: GameState, outcomes: Iterator[Action]) -> GameState:
    """SET-10: the 2023 recommended starting compensations, by seat from the start player."""
    kinds = state.rules.data.starting_compensation
    chooser: int | None = None
    for seat in range(state.num_players):
        if state.is_carla(seat):
            continue  # SOLO-05: Carla collects no coin, grain or cube
        match kinds[seat]:
            case Compensation.START_PLAYER:
                pass  # the starting player marker itself
            case Compensation.GRAIN:
                state = take_grain(state, seat, 1)
            case Compensation.RANDOM_CUBE:
                drawn = next(outcomes)
                if not (isinstance(drawn, DrawCube) and state.supply.cubes[drawn.cube] > 0):
                    raise SetupError(
                        RuleId.SET_10, f"{format_action(drawn)!r} is not a cube the supply still holds"
                    )
                state = take_cube(state, seat, drawn.cube)
            case Compensation.CHOSEN_CUBE:
                chooser = seat
            case Compensation.COIN:
                state = take_coins(state, seat, 1)
    if chooser is not None:
        return replace(state, pending=ChooseCompensationCube(chooser))
    return state
