"""Where two readings part: self-composition of one game under two rule sets.

The same setup (edition, players, seed) is played under two variants that differ in one
AMB reading; every decision and every chance outcome is applied to both games. The first
step at which the legal actions (or chance outcomes), the state or the winner differ is a
*divergence*; the actions up to it are a witness log that replays under both readings.

A game is a list of choice indices (an index into the legal actions or chance outcomes,
sorted by text; past the end of the list the first one is taken). `search` plays seeded
random lists until one diverges, then shrinks it greedily (delta debugging: delete or zero
chunks while it still diverges and the log does not grow). Chance outcomes are chosen
like decisions, so a witness needs no luck to replay. The result is *shrunk*, not proven
minimal, and deterministic: the same request finds the same witness in any process.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from village_rules.data.components import ActionSpace, Building, Cube, Good, workplace
from village_rules.data.loader import builtin_edition
from village_rules.engine import market_day, mass
from village_rules.engine.core import apply, chance_outcomes, legal_actions
from village_rules.engine.scoring import winners
from village_rules.engine.setup import new_game
from village_rules.engine.time_and_death import death_candidates
from village_rules.engine.travel_map import adjacent
from village_rules.errors import InternalError, ParameterError, ReadingError, SetupError, VillageError
from village_rules.model.actions import (
    Action,
    Birth,
    Buy,
    BuyFromBag,
    CallHome,
    ChurchEnter,
    CouncilPlace,
    Die,
    Harvest,
    Mill,
    Pass,
    Pay,
    Privilege,
    Produce,
    Serve,
    Skip,
    TakeCube,
    Train,
    Travel,
    Well,
    format_action,
    parse_action,
)
from village_rules.model.state import GameState
from village_rules.readings import last_spaces
from village_rules.rule_ids import RuleId
from village_rules.rules.register import reading
from village_rules.rules.variant import Variant

LEGAL = "legal actions"
STATE = "state"
WINNER = "winner"


class NoDivergenceError(VillageError):
    """The search ended without a game in which the two readings differ."""


@dataclass(frozen=True, slots=True)
class Difference:
    """What differs after the common actions: `kind` is LEGAL, STATE or WINNER."""

    kind: str
    detail: str


def _options(state: GameState) -> list[Action]:
    if state.is_chance:
        return [a for a, _ in chance_outcomes(state)]
    return legal_actions(state)


def difference(left: GameState, right: GameState) -> Difference | None:
    """How two states of the same game under two readings differ, or None."""
    if left.is_terminal or right.is_terminal:
        if left.is_terminal != right.is_terminal:
            return Difference(
                WINNER, f"game over under one reading only ({left.is_terminal} / {right.is_terminal})"
            )
        lw, rw = winners(left), winners(right)
        if lw != rw:
            return Difference(WINNER, f"winners {list(lw)} / {list(rw)}")
    cl, cr = _comparable(left), _comparable(right)
    if replace(cr, rules=cl.rules) != cl:
        return Difference(STATE, _state_detail(left, right, cl, cr))
    if left.is_terminal:
        return None
    if left.is_chance:
        lo, ro = chance_outcomes(left), chance_outcomes(right)
        if lo != ro:
            return Difference(LEGAL, f"chance outcomes {lo} / {ro}")
        return None
    la = {format_action(a) for a in legal_actions(left)}
    ra = {format_action(a) for a in legal_actions(right)}
    if la != ra:
        only_l, only_r = sorted(la - ra), sorted(ra - la)
        return Difference(LEGAL, f"only under the first: {only_l}; only under the second: {only_r}")
    return None


def _comparable(state: GameState) -> GameState:
    """The state with each reading's own bookkeeping put in the form both readings share:
    AMB-15 a keeps who has stopped buying implicit in the seat order, b in `Mass.stopped`
    (`mass.stopped_buying`), so a mass where each seat declines once is no difference;
    AMB-06 b keeps a waived first pass apart from the passes (`market_day.out_of_the_day`),
    so a waived pass by a market-day player who can sell nothing is no difference."""
    day = state.market_day
    if day is not None:
        passed = day.passed if day.closed else market_day.out_of_the_day(state)
        state = replace(state, market_day=replace(day, passed=passed, first_pass_waived=False))
    if state.mass is None:
        return state
    return replace(state, mass=replace(state.mass, stopped=mass.stopped_buying(state)))


def _state_detail(left: GameState, right: GameState, cl: GameState, cr: GameState) -> str:
    """The fields that differ between the comparable states `cl` / `cr`, with the values
    the two games hold (`left` / `right`)."""
    compared = [f.name for f in dataclasses.fields(left) if f.compare and f.name != "rules"]
    names = [f for f in compared if getattr(cl, f) != getattr(cr, f)]
    parts = []
    for name in names:
        a, b = getattr(left, name), getattr(right, name)
        if name == "players":
            for seat, (pa, pb) in enumerate(zip(a, b, strict=True)):
                fields = [f for f in type(pa).__slots__ if getattr(pa, f) != getattr(pb, f)]
                parts += [f"seat {seat} {f}: {getattr(pa, f)!r} / {getattr(pb, f)!r}" for f in fields]
        else:
            parts.append(f"{name}: {a!r} / {b!r}")
    return "; ".join(parts)


@dataclass(frozen=True, slots=True)
class Walk:
    """A game played under both variants: the actions taken and the first difference."""

    actions: tuple[str, ...]
    difference: Difference | None
    left: GameState
    right: GameState


def walk(  # noqa: PLR0917 - one game, two rule sets
    edition: str,
    players: int,
    seed: int,
    left: Variant,
    right: Variant,
    choices: Sequence[int],
    max_steps: int,
) -> Walk:
    """Play `choices` (then first options) under both variants until they differ, the game
    ends, or `max_steps` actions have been taken."""
    a = new_game(builtin_edition(edition), players, seed, left)
    b = new_game(builtin_edition(edition), players, seed, right)
    taken: list[str] = []
    for step in range(max_steps + 1):
        diff = difference(a, b)
        if diff is not None or a.is_terminal or step == max_steps:
            return Walk(tuple(taken), diff, a, b)
        options = sorted(_options(a), key=format_action)
        pick = options[choices[step] % len(options)] if step < len(choices) else options[0]
        a, b = apply(a, pick), apply(b, pick)
        taken.append(format_action(pick))
    raise AssertionError("unreachable")


@dataclass(frozen=True, slots=True)
class Witness:
    """The shortest game found after which reading `left_letter` and `right_letter` of
    `amb` differ: replay `actions` under both and compare."""

    amb: str
    edition: str
    players: int
    seed: int
    left_letter: str
    right_letter: str
    actions: tuple[str, ...]
    kind: str
    detail: str
    method: str

    def variants(self) -> tuple[Variant, Variant]:
        """The two variants compared: the entry's left reading and its right reading."""
        return Variant(readings={self.amb: self.left_letter}), Variant(readings={self.amb: self.right_letter})


MAX_EXAMPLES = 100_000
"""The most games one `search` may try (`diverge --examples`); the stored witnesses needed
at most a few hundred."""


def search(
    amb: str,
    edition: str,
    players: int,
    *,
    letters: tuple[str, str] | None = None,
    seed: int = 0,
    examples: int = 200,
    max_steps: int = 2500,
    shrink_budget: int = 300,
    progress: Callable[[str, int, int], None] | None = None,
) -> Witness:
    """Search for a game in which two readings of `amb` differ (default: the edition's
    default against the first other letter), then shrink it.

    Up to `examples` random games (choice lists from `random.Random(f"diverge {k}")`) are
    played under both readings; the first that diverges is shrunk greedily, in at most
    `shrink_budget` replays: chunks of choices are deleted or set to 0 (the first option)
    while the game still diverges and its log does not grow. Deterministic; the result is
    shrunk, not proven minimal. `progress`, if given, is called with (phase, done, total)
    as games are tried ("search") and replays spent shrinking ("shrink"); it decides nothing."""
    entry = reading(amb)
    data = builtin_edition(edition)
    if not data.supports_players(players):  # 1 is a solo game where the edition has one
        counts = ", ".join(map(str, data.playable_counts))
        raise SetupError(RuleId.SET_01, f"{edition} is for {counts} players, not {players}")
    if letters is None:
        default = entry.default(edition)
        letters = (default, next(x for x in entry.letter_names if x != default))
    for x in letters:
        if x not in entry.letter_names:
            raise ReadingError(f"{amb} has no reading {x!r} (it has {', '.join(entry.letter_names)})")
    if not 1 <= examples <= MAX_EXAMPLES:
        raise ParameterError("examples", f"must be from 1 to {MAX_EXAMPLES:,}, not {examples}")
    left, right = Variant(readings={amb: letters[0]}), Variant(readings={amb: letters[1]})

    def run(choices: Sequence[int]) -> Walk:
        return walk(edition, players, seed, left, right, choices, max_steps)

    found: list[int] | None = None
    planned = PLANS.get(amb)
    method = "random search"
    if planned is not None and letters[1] == "b":
        game = last_spaces.plan(edition, players, seed, right)
        found = None if game.choices is None else list(game.choices)
        method = f"beam search ({planned}; {game.expanded:,} states expanded)"
    hints = HINTS.get(amb, ())
    steer = STEERS.get(amb)
    cell = CELLS.get(amb)
    if found is None:
        method = "steered search" if steer is not None else "random search"
    if progress is not None:
        progress("search", 0, examples)
    if cell is not None and steer is not None and found is None:
        found = explore(edition, players, seed, (left, right), steer, cell, examples, max_steps)
        method = "go-explore search (cells of progress, steered bursts)"
    for k in range(examples if found is None else 0):
        rng = random.Random(f"diverge {amb} {k}")
        even = k % 2 == 0
        guide = steer if even else None
        choices = rollout(edition, players, seed, left, right, rng, hints if even else (), max_steps, guide)
        w = run(choices)
        if progress is not None:
            progress("search", k + 1, examples)
        if w.difference is not None:
            found = choices[: len(w.actions)]
            break
    if found is None:
        raise NoDivergenceError(
            f"{amb} {letters[0]} / {letters[1]}: no divergence in {examples} random games of {edition}, "
            f"{players} players, seed {seed} (not a proof that none exists)"
        )
    replays = 0

    def replay(choices: Sequence[int]) -> Walk:
        nonlocal replays
        replays += 1
        if progress is not None:
            progress("shrink", min(replays, shrink_budget), shrink_budget)
        return run(choices)

    best, budget = shrink(found, replay, shrink_budget)
    result = run(best)
    if result.difference is None:
        raise InternalError("divergence.find_witness", f"{amb}: the shrunk game no longer diverges")
    return Witness(
        amb,
        edition,
        players,
        seed,
        letters[0],
        letters[1],
        result.actions,
        result.difference.kind,
        result.difference.detail,
        f"{method}, then greedy shrinking "
        f"({shrink_budget - budget} replays): shrunk, not minimal",
    )


PLANS: dict[str, str] = {
    "AMB-44": "readings/last_spaces.py: both seats onto the two last spaces in one market day",
}
"""Entries whose witness game is planned (issue 29): `last_spaces.plan` searches a beam of
games, every decision and chance outcome chosen, under the entry's reading b, before any
random game is tried."""


HINTS: dict[str, tuple[str, ...]] = {
    "AMB-01": ("mill", "take crafts", "well", "take travel", "travel"),
    "AMB-18": ("travel", "wainwright", "take crafts"),
    "AMB-19": ("travel", "wainwright", "take crafts"),
    "AMB-23": ("church", "take church", "mill", "produce"),
    "AMB-46": ("church", "take church", "mill", "produce"),
    "AMB-45": ("train", "produce", "take crafts"),
    "AMB-08": ("church", "take church", "mill", "produce", "train"),
    "AMB-09": ("market", "serve", "train", "produce", "take crafts"),
    "AMB-16": ("church", "take church", "step", "buy"),
    "AMB-15": ("buy-from-bag", "take church", "church", "serve", "market"),
    "AMB-10": ("train", "produce", "take crafts", "take church", "church"),
    "AMB-12": ("train", "produce", "take crafts"),
    "AMB-43": ("well market", "take crafts", "buy", "produce", "harvest"),
    "AMB-44": ("serve", "take market", "train", "produce", "take crafts"),
}
"""Words of the actions a biased rollout prefers, per entry: every other search game picks
among the options containing one of them with probability 0.8 (the rest are uniform)."""


Scorer = Callable[[GameState, Action], float]
"""A steering policy: how much the acting seat wants an option (higher is preferred)."""


def _seat(state: GameState) -> int | None:
    return None if state.is_chance or state.is_terminal else state.current_player()


def _spends_coins(action: Action) -> bool:
    """An option that gives coins away (a steer that hoards coins avoids it)."""
    match action:
        case Pay(_, coins):
            return coins.total() > 0
        case BuyFromBag() | Privilege(4) | Well():
            return True
    return False


def _drain_the_supply(state: GameState, action: Action) -> float:
    """AMB-03: every seat mills for coins and keeps them, so the coin supply runs out
    (the 2011 supply holds 15 coins; the mill pays 2)."""
    seat = _seat(state)
    if seat is None:
        return 0.0
    grain = state.players[seat].grain
    match action:
        case Mill():
            return 10.0
        case Harvest():
            return 8.0
        case TakeCube(space, cube) if cube is not Cube.PLAGUE:
            if space is ActionSpace.CRAFTS:
                return 7.0 if grain >= 2 else 3.0
            return 6.0 if space is ActionSpace.GRAIN_HARVEST else 0.0
        case TakeCube():
            return -3.0
        case Skip():
            return -1.0
    return -10.0 if _spends_coins(action) else 0.0


def _travel_everywhere(state: GameState, action: Action) -> float:
    """AMB-18: seat 0 buys wagons and travels on to cities it has not marked, so that it
    places all its markers and is then offered another trip; the other seats take cubes
    and do nothing (no time spent, few deaths: the game lasts long enough)."""
    seat = _seat(state)
    if seat is None:
        return 0.0
    if seat != 0:
        match action:
            case Skip():
                return 5.0
            case TakeCube(_, Cube.PLAGUE):
                return -5.0
        return 0.0 if isinstance(action, TakeCube) else -3.0
    p = state.players[seat]
    data = state.rules.data
    wagon = p.goods[Good.WAGON] > 0
    match action:
        case Travel(_, destination, _):
            if destination not in p.markers:
                return 20.0
            onward = [c for c in adjacent(data, destination) if c != data.village and c not in p.markers]
            return 15.0 if onward else 3.0
        case Buy(Building.WAINWRIGHT, Good.WAGON):
            return 11.0
        case Train(Building.WAINWRIGHT, _, Good.WAGON) | Produce(Building.WAINWRIGHT, Good.WAGON):
            return 10.0
        case Birth():
            return 5.0
        case TakeCube(_, Cube.PLAGUE):
            return -5.0
        case TakeCube(ActionSpace.TRAVEL, _):
            return 8.0 if wagon else 2.0
        case TakeCube(ActionSpace.CRAFTS, _):
            return 3.0 if wagon else 7.0
        case TakeCube(ActionSpace.FAMILY, _):
            return 4.0
        case CallHome() | Skip():
            return -2.0
    return 0.0


def _crowd_the_bag(state: GameState, action: Action) -> float:
    """AMB-15: every seat sends members to church and keeps coins for the mass, so that at
    a mass the start player can buy more than one member while another seat can buy too."""
    seat = _seat(state)
    if seat is None:
        return 0.0
    match action:
        case BuyFromBag():
            return 10.0
        case ChurchEnter():
            return 9.0
        case Mill():
            return 8.0
        case TakeCube(_, Cube.PLAGUE):
            return -5.0
        case TakeCube(ActionSpace.CHURCH, _):
            return 7.0
        case TakeCube(ActionSpace.CRAFTS, _):
            return 6.0 if state.players[seat].grain >= 2 else 2.0
        case Harvest():
            return 6.0
        case TakeCube(ActionSpace.GRAIN_HARVEST, _):
            return 5.0
        case Skip():
            return -1.0
    return -10.0 if _spends_coins(action) else 0.0


def _next_death_to_chronicle(state: GameState, seat: int) -> bool:
    """Whether the seat's next death can go to a free chronicle space (else the graveyard)."""
    return any(state.chronicle_free(workplace(loc)) > 0 for loc in death_candidates(state, seat))


def _fill_both_in_a_market_day(state: GameState, action: Action) -> float:
    """AMB-44: the seats spend time (goods to sell, deaths) with their "1"s at work, so the
    dead go to the chronicle as well as the graveyard; a seat whose next death would take
    the last space of one while the other still has more than one avoids passing the
    quill; once both have one space left, the seats take the market cube and sell (each
    later sale costs 1 time), so that two seats die onto the two last spaces in one market
    day."""
    seat = _seat(state)
    if seat is None:
        return 0.0
    chronicle, graves = state.chronicle_free_total(), state.graveyard_free()
    near = chronicle <= 1 and graves <= 1
    in_market_day = state.market_day is not None and not state.market_day.closed
    if not in_market_day and not isinstance(action, Die):
        after = apply(state, action)
        if after.deaths_owed[seat] > state.deaths_owed[seat] or after.players[seat].lifetime < (
            state.players[seat].lifetime
        ):
            to_chronicle = _next_death_to_chronicle(state, seat)
            if near or (to_chronicle and chronicle <= 1) or (not to_chronicle and graves <= 1):
                return -20.0  # this death would end the game outside a market day
            return 15.0  # a death that fills the chronicle and graveyard further
        if near and after.players[seat].lifetime > state.players[seat].lifetime:
            return 10.0  # time that does not kill yet: the token nearer the quill for the market day
        if chronicle <= 2 and _next_death_to_chronicle(after, seat) > _next_death_to_chronicle(state, seat):
            return 14.0  # the seat's next to die now works where the chronicle has room
    match action:
        case Serve():
            return 30.0
        case Pass():
            return -5.0
        case Die(location):
            into_chronicle = state.chronicle_free(workplace(location)) > 0
            return 10.0 if into_chronicle == (chronicle - 1 >= graves) else 0.0
        case TakeCube(ActionSpace.MARKET, _):
            return (25.0 if _sides(state)[1] == 2 else -2.0) if near else 1.0
        case Well(ActionSpace.MARKET, _) if near:
            return 22.0 if _sides(state)[1] == 2 else -2.0
        case TakeCube(_, Cube.GREEN) if near:
            return 8.0  # the later sales' green cube
        case Train(_, 1, _) | CouncilPlace(1) | Travel(_, _, 1):
            return 12.0  # a "1" (the next to die) to work: its death goes to that category
        case TakeCube(ActionSpace.COUNCIL_CHAMBER | ActionSpace.TRAVEL, cube) if cube is not Cube.PLAGUE:
            return 6.0
        case Train() | Produce() | Buy():
            return 9.0
        case CallHome():
            return -3.0
        case Birth():
            return 8.0
        case TakeCube(ActionSpace.CRAFTS, _):
            return 7.0
        case TakeCube(ActionSpace.FAMILY, _):
            return 6.0
        case Harvest():
            return 5.0
        case Skip():
            return -1.0
    return 0.0


STEERS: dict[str, Scorer] = {
    "AMB-03": _drain_the_supply,
    "AMB-18": _travel_everywhere,
    "AMB-15": _crowd_the_bag,
    "AMB-44": _fill_both_in_a_market_day,
}
"""Steered search (issue 9): for entries whose readings part only far from random play,
every other search game follows a policy that heads for the position where they part
(with probability 0.85 the best-scored option, ties at random; else a uniform one)."""


Cell = Callable[[GameState], tuple[float, tuple[int, ...]] | None]
"""A go-explore cell: (progress score, lower is nearer the goal; the cell's key), or None
for a state that cannot lead to the goal any more."""


def _sides(state: GameState) -> tuple[bool, int, tuple[int, ...]]:
    """AMB-44: whether one seat's next death goes to the chronicle and another's to the
    graveyard (a pair), how many of the two sides have a seat ready to die of a later sale
    (MKT-03: the token one space before the quill, a customer it can serve, a green cube
    or a coin), and per side whether a seat has its token there and one can serve."""
    length = state.rules.data.lifetime_track_length
    seats = [seat for seat in range(state.num_players) if seat != state.end_triggered_by]
    day = state.market_day
    out = set() if day is None else set(day.passed)
    to_chronicle = {seat for seat in seats if _next_death_to_chronicle(state, seat)} - out
    to_graves = set(seats) - to_chronicle - out
    near = {seat for seat, p in enumerate(state.players) if p.lifetime >= length - 2}
    serve = {seat for seat in seats if _can_serve(state, seat)}
    ready = near & serve
    parts = tuple(int(bool(side & x)) for side in (to_chronicle, to_graves) for x in (near, serve))
    return bool(to_chronicle and to_graves), bool(ready & to_chronicle) + bool(ready & to_graves), parts


def _can_serve(state: GameState, seat: int) -> bool:
    """Whether the seat has the goods, grain and green cube (or coin) of a later sale to one
    of the available customers (MKT-03)."""
    p = state.players[seat]
    if p.cubes[Cube.GREEN] + p.coins < 1:
        return False
    for tile in state.market_available:
        if tile is not None:
            customer = state.rules.data.customer(tile)
            if p.grain >= customer.grain and all(p.goods[g] >= n for g, n in customer.goods.items):
                return True
    return False


def _both_last_spaces(state: GameState) -> tuple[float, tuple[int, ...]] | None:
    """AMB-44: how near the chronicle and the graveyard both are to their last space (with
    the seats' life-time tokens near the quill); a state whose end was triggered outside a
    market day, or with either full outside one, leads nowhere."""
    chronicle, graves = state.chronicle_free_total(), state.graveyard_free()
    in_market_day = state.market_day is not None
    if (chronicle == 0 or graves == 0 or state.end_triggered_by is not None) and not in_market_day:
        return None
    pair, sides, parts = _sides(state)
    balance = abs(chronicle - graves) * 0.5
    score = chronicle + graves + balance - pair * 1.5 - sides * 0.7 - sum(parts) * 0.3 - in_market_day * 0.5
    return score, (chronicle, graves, int(pair), sides, *parts, int(in_market_day))


CELLS: dict[str, Cell] = {"AMB-44": _both_last_spaces}
"""Entries searched go-explore style (issue 29): their readings part only after a long,
narrow approach (AMB-44: two seats dying onto the two last spaces in one market day)."""


def explore(  # noqa: PLR0917 - one game, two rule sets, a search budget
    edition: str,
    players: int,
    seed: int,
    variants: tuple[Variant, Variant],
    steer: Scorer,
    cell: Cell,
    iterations: int,
    max_steps: int,
    burst: int = 60,
) -> list[int] | None:
    """Go-explore: an archive keeps, per cell, the shortest choice list that reached it;
    each iteration picks the most promising cell (progress score plus a penalty for the
    times it was picked), restores its states and plays a steered burst from there,
    adding every cell it reaches. Returns the choices of the first game whose readings
    part, or None. Deterministic."""
    rng = random.Random(f"explore {edition} {players} {seed}")
    start = (
        new_game(builtin_edition(edition), players, seed, variants[0]),
        new_game(builtin_edition(edition), players, seed, variants[1]),
    )
    archive: dict[tuple[int, ...], tuple[float, GameState, GameState, list[int]]] = {}
    picked: dict[tuple[int, ...], int] = {}

    def keep(a: GameState, b: GameState, choices: list[int]) -> None:
        found = cell(a)
        if found is not None:
            score, key = found
            if key not in archive or len(choices) < len(archive[key][3]):
                archive[key] = (score, a, b, list(choices))

    keep(*start, [])
    for _ in range(iterations):
        if not archive:
            return None
        key = min(archive, key=lambda k: (archive[k][0] + picked.get(k, 0), k))
        picked[key] = picked.get(key, 0) + 1
        _, a, b, choices = archive[key]
        choices = list(choices)
        for _ in range(burst):
            if a.is_terminal or len(choices) >= max_steps:
                break
            options = sorted(_options(a), key=format_action)
            if rng.random() < 0.9:
                index = max((steer(a, o), rng.random(), i) for i, o in enumerate(options))[2]
            else:
                index = rng.randrange(len(options))
            choices.append(index)
            a, b = apply(a, options[index]), apply(b, options[index])
            if difference(a, b) is not None:
                return choices
            if cell(a) is None:
                break
            if a.market_day is not None and _near_both_last_spaces(a):
                tail = _search_market_day(a, b, budget=[1500])
                if tail is not None:
                    return choices + tail
            keep(a, b, choices)
    return None


def _near_both_last_spaces(state: GameState) -> bool:
    return state.chronicle_free_total() <= 1 and state.graveyard_free() <= 1


def _search_market_day(a: GameState, b: GameState, budget: list[int]) -> list[int] | None:
    """Every decision of the market day in progress (depth first, the chance outcomes by
    their first one), until the readings part or the day is over; `budget` caps the
    states visited. The choice indices found, or None."""
    if a.market_day is None or a.is_terminal or budget[0] <= 0:
        return None
    budget[0] -= 1
    options = sorted(_options(a), key=format_action)
    for index in range(1 if a.is_chance else len(options)):
        na, nb = apply(a, options[index]), apply(b, options[index])
        if difference(na, nb) is not None:
            return [index]
        tail = _search_market_day(na, nb, budget)
        if tail is not None:
            return [index, *tail]
    return None


def rollout(  # noqa: PLR0917 - one game, two rule sets
    edition: str,
    players: int,
    seed: int,
    left: Variant,
    right: Variant,
    rng: random.Random,
    hints: tuple[str, ...],
    max_steps: int,
    steer: Scorer | None = None,
) -> list[int]:
    """A random choice list, played out under `left` (stops early where the readings part,
    which `walk` then finds again): uniform, biased towards options matching `hints`, or
    steered by `steer`."""
    a = new_game(builtin_edition(edition), players, seed, left)
    b = new_game(builtin_edition(edition), players, seed, right)
    out: list[int] = []
    while len(out) < max_steps and not a.is_terminal and difference(a, b) is None:
        options = sorted(_options(a), key=format_action)
        if steer is not None and rng.random() < 0.85:
            scored = [(steer(a, o), rng.random(), i) for i, o in enumerate(options)]
            index = max(scored)[2]
        else:
            preferred = [i for i, o in enumerate(options) if any(h in format_action(o) for h in hints)]
            biased = bool(preferred) and rng.random() < 0.8
            index = rng.choice(preferred) if biased else rng.randrange(len(options))
        out.append(index)
        a, b = apply(a, options[index]), apply(b, options[index])
    return out


def shrink(choices: list[int], run: Callable[[Sequence[int]], Walk], budget: int) -> tuple[list[int], int]:
    """Greedy delta shrinking: delete or zero chunks while the game still diverges and its
    log gets no longer (ties: the smaller choice list wins)."""
    best = list(choices)
    best_len = len(run(best).actions)
    size = max(1, len(best) // 2)
    while size >= 1 and budget > 0:
        improved = False
        start = 0
        while start < len(best) and budget > 0:
            for candidate in (
                best[:start] + best[start + size :],
                best[:start] + [0] * size + best[start + size :],
            ):
                if candidate == best or budget <= 0:
                    continue
                budget -= 1
                w = run(candidate)
                if w.difference is not None and len(w.actions) <= best_len:
                    best, best_len = candidate[: len(w.actions)], len(w.actions)
                    improved = True
                    break
            else:
                start += size
        if not improved:
            size //= 2
    return best, budget


def replay_both(witness: Witness) -> Difference | None:
    """Replay a witness under both readings; the difference at its end (None if gone)."""
    left, right = witness.variants()
    a = new_game(builtin_edition(witness.edition), witness.players, witness.seed, left)
    b = new_game(builtin_edition(witness.edition), witness.players, witness.seed, right)
    for k, text in enumerate(witness.actions):
        diff = difference(a, b)
        if diff is not None:
            raise NoDivergenceError(f"{witness.amb}: the readings already differ before action {k + 1}")
        action = parse_action(text)
        a, b = apply(a, action), apply(b, action)
    return difference(a, b)
