"""Setting up a game, step by step as 2023 p. 3 and the 2011 "Setup" section say.

Random steps (customers turned up from the shuffled pile, the 3rd player's random cube) are
chance events over what is actually left, resolved from an explicit seed. The state ends
ready for round 1: the green bag is filled and the first seeding draw is pending (or the
4th player's choice of a compensation cube).
"""

from __future__ import annotations

import random
from dataclasses import replace

from village_rules.chance import sample, uniform
from village_rules.components import FARMYARD, INFLUENCE, UNBORN, Compensation, Cube, Good
from village_rules.edition import EditionData, Row
from village_rules.engine.common import take_coins, take_cube, take_grain
from village_rules.engine.seeding import begin_round
from village_rules.errors import ArgumentTypeError, SetupError
from village_rules.loader import builtin_edition
from village_rules.pending import ChooseCompensationCube, ChooseTurn
from village_rules.rules import Rules, Variant
from village_rules.state import PLAYER_COLOURS, GameState, PlayerState, Supply
from village_rules.tally import Tally


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
        raise SetupError("SET-01", f"seed {seed} is negative; a seed is a whole number 0 or more")
    if not isinstance(edition, str | EditionData):
        raise ArgumentTypeError(f"new_game: edition must be an edition id or EditionData, got {edition!r}")
    if variant is not None and not isinstance(variant, Variant):
        raise ArgumentTypeError(f"new_game: variant must be a Variant or None, got {variant!r}")
    data = builtin_edition(edition) if isinstance(edition, str) else edition
    rules = Rules(data, variant or Variant())
    if players not in data.player_counts:
        raise SetupError(
            "SET-01",
            f"{data.edition} is for {data.min_players}-{data.max_players} players, not {players}",
        )
    rng = random.Random(seed)
    state = _empty_board(rules, players)
    state = _deal_customers(state, rng)
    if rules.variant.starting_compensation and data.starting_compensation:
        state = _compensate(state, rng)
    if isinstance(state.pending, ChooseCompensationCube):
        return state
    return begin_round(state)


def _empty_board(rules: Rules, n: int) -> GameState:
    d = rules.data
    members = tuple(FARMYARD if k == d.first_generation_number else UNBORN for k in d.family_numbers)
    players = tuple(
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
        for seat in range(n)
    )
    supply = Supply(  # SET-08
        cubes=Tally.of([(c, d.influence_cubes_each) for c in INFLUENCE] + [(Cube.PLAGUE, d.plague_cubes)]),
        coins=d.supply_coins - n * d.starting_coins,
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
        players=players,
        pending=ChooseTurn(0),
        deaths_owed=tuple(0 for _ in range(n)),
    )


def _deal_customers(state: GameState, rng: random.Random) -> GameState:
    """SET-05: turn a customer from the face-down pile onto every market space in use."""
    available = list(state.market_available)
    waiting = list(state.market_waiting)
    pile = list(state.customer_pile)
    for row in (available, waiting):
        for i in range(len(row)):
            if not pile:
                break
            tile = sample(uniform(pile), rng)
            pile.remove(tile)
            row[i] = tile
    return replace(
        state,
        market_available=tuple(available),
        market_waiting=tuple(waiting),
        customer_pile=tuple(pile),
    )


def _compensate(state: GameState, rng: random.Random) -> GameState:
    """SET-10: the 2023 recommended starting compensations, by seat from the start player."""
    kinds = state.rules.data.starting_compensation
    chooser: int | None = None
    for seat in range(state.num_players):
        match kinds[seat]:
            case Compensation.START_PLAYER:
                pass  # the starting player marker itself
            case Compensation.GRAIN:
                state = take_grain(state, seat, 1)
            case Compensation.RANDOM_CUBE:
                colour = sample(uniform([c for c in INFLUENCE if state.supply.cubes[c] > 0]), rng)
                state = take_cube(state, seat, colour)
            case Compensation.CHOSEN_CUBE:
                chooser = seat
            case Compensation.COIN:
                state = take_coins(state, seat, 1)
    if chooser is not None:
        return replace(state, pending=ChooseCompensationCube(chooser))
    return state
