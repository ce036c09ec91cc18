"""AMB-44's divergence game, planned: a beam search to the two last spaces in one market day.

The readings of AMB-44 part only when the chronicle and the graveyard are each one space
short, one seat's next death goes to the chronicle and another's to the graveyard, both
life-time tokens stand one space before the quill, and a market day is held in which the
market-day player sells first (free) and then both seats sell again (each later sale costs
1 green cube and 1 time, 2023 p. 8), so that both die at once (p. 12 "Exception: Anyone who
moves their life time track token past the quill during a market day must immediately
choose") onto the two last spaces (p. 13 "Special case"). Random, steered and go-explore
search did not reach it (specs/ambiguities.md AMB-44).

Every decision and every chance outcome of a search game is a choice (as in
`divergence.walk`), so the game is a puzzle with no luck in it. `plan` keeps a beam of the
`width` most promising states per step, each expanded by every option, scored by how many
deaths are still needed before the last two (each death is 10 time: the life-time tokens
are pushed on) and, once only the last two are left, by how ready the final market day is.
A state that ended the game any other way is dropped, and a state met before (by its
hash) is not scored again. The budget is in states expanded; deterministic (the ties are
broken by a seeded RNG; only a 64-bit hash collision between two states met in one search
could change the path, as the hash of a state differs between processes)."""

from __future__ import annotations

import random
from dataclasses import dataclass

from village_rules.data.components import ActionSpace, Category, Cube, workplace
from village_rules.data.loader import builtin_edition
from village_rules.engine.core import apply, chance_outcomes, legal_actions
from village_rules.engine.setup import new_game
from village_rules.engine.time_and_death import death_candidates
from village_rules.errors import ReadingError
from village_rules.model.actions import Action, format_action
from village_rules.model.state import GameState
from village_rules.rule_ids import RuleId
from village_rules.rules.variant import Variant

CHRONICLE = "chronicle"
GRAVES = "graveyard"


@dataclass(frozen=True, slots=True)
class Beam:
    """The beam search's budget: states kept per step, steps, states expanded in all, and
    how many kept states may share one coarse key (spaces left, tokens, round, cubes on
    the board, where each seat's next death goes, in a market day) so the beam stays
    varied."""

    width: int = 150
    max_depth: int = 2500
    max_states: int = 1_000_000
    per_key: int = 3


def options(state: GameState) -> list[Action]:
    """The choices at `state` in `divergence.walk`'s order (sorted by text)."""
    found = [a for a, _ in chance_outcomes(state)] if state.is_chance else legal_actions(state)
    return sorted(found, key=format_action)


def next_death(state: GameState, seat: int) -> frozenset[str]:
    """Where the seat's next death may go (p. 12: its lowest-numbered visible members, the
    owner choosing among them): CHRONICLE where the workplace's category has a free
    space, GRAVES where it has none; empty with no visible member."""
    places = death_candidates(state, seat)
    return frozenset(CHRONICLE if state.chronicle_free(workplace(loc)) > 0 else GRAVES for loc in places)


def sales(state: GameState, seat: int) -> int:
    """How many of the available customers the seat could serve one after another with its
    goods and grain (greedily, the cheapest first)."""
    p = state.players[seat]
    grain, goods = p.grain, {g: p.goods[g] for g, _ in p.goods.items}
    count = 0
    tiles = [state.rules.data.customer(t) for t in state.market_available if t is not None]
    for customer in sorted(tiles, key=lambda c: (c.grain + sum(n for _, n in c.goods.items), c.id)):
        if grain >= customer.grain and all(goods.get(g, 0) >= n for g, n in customer.goods.items):
            grain -= customer.grain
            for g, n in customer.goods.items:
                goods[g] -= n
            count += 1
    return count


def hopeless(state: GameState, trace: list[str]) -> bool:
    """A state from which the two last spaces cannot both be taken in one market day: the
    game is over, or the end was triggered (or a last space taken) outside a market day,
    or one last space is taken while the other is not the only one left."""
    if state.is_terminal:
        return True
    chronicle, graves = state.chronicle_free_total(), state.graveyard_free()
    if state.market_day is None and (state.end_triggered_by is not None or chronicle == 0 or graves == 0):
        return RuleId.END_10 not in trace
    return (chronicle == 0 and graves != 1) or (graves == 0 and chronicle != 1)


def score(state: GameState) -> float:
    """How far the state is from the goal (lower is nearer): 12 per death still needed
    before the last two, less the tokens' progress round the track; near the end, a free
    farmyard (or crafts) chronicle space (a member at home can die into it); at the end,
    one seat bound for the chronicle and another for the graveyard, goods to sell, green
    cubes (or coins) for the later sales, and a cube left on the market space."""
    chronicle, graves = state.chronicle_free_total(), state.graveyard_free()
    need = max(0, chronicle - 1) + max(0, graves - 1)
    seats = range(state.num_players)
    tokens = [state.players[s].lifetime for s in seats]
    value = 12.0 * need - sum(tokens)
    out = set(state.market_day.passed) if state.market_day is not None else set()
    deaths = [frozenset() if s in out else next_death(state, s) for s in seats]
    for s in seats:
        allowed = (CHRONICLE in deaths[s] and chronicle > 1) or (GRAVES in deaths[s] and graves > 1)
        if need > 0 and not allowed and tokens[s] >= 7:
            value += 3.0  # this seat's next death would take a last space too early
    sell = [0 if s in out else min(sales(state, s), 2) for s in seats]
    green = [min(state.players[s].cubes[Cube.GREEN] + state.players[s].coins, 2) for s in seats]
    value -= 1.0 * sum(sell) + 0.5 * sum(green)
    if chronicle <= 4:
        value -= 4.0 * (state.chronicle_free(Category.FARMYARD) > 0)
        value -= 1.5 * (state.chronicle_free(Category.CRAFTS) > 0)
    if need == 0:
        pair = any(CHRONICLE in deaths[x] and GRAVES in deaths[y] for x in seats for y in seats if x != y)
        market = state.space(ActionSpace.MARKET)
        cube = sum(n for c, n in market.items if c is not Cube.PLAGUE) > 0
        value -= 10.0 * pair + 2.0 * (sum(sell) >= 3) + 2.0 * (sum(green) >= 2) + 3.0 * cube
        if pair and sum(sell) >= 3 and min(sell) >= 1 and min(green) >= 1 and cube:
            value -= 8.0
    if state.market_day is not None:
        value -= 1.0
    return value


def _key(state: GameState) -> tuple[object, ...]:
    seats = range(state.num_players)
    return (
        state.chronicle_free_total(),
        state.graveyard_free(),
        tuple(p.lifetime for p in state.players),
        state.round,
        state.cubes_on_board(),
        tuple(sorted(tuple(sorted(next_death(state, s))) for s in seats)),
        state.market_day is not None,
    )


@dataclass(frozen=True, slots=True)
class Plan:
    """The choices found (None if the budget ran out), the steps and states expanded."""

    choices: tuple[int, ...] | None
    depth: int
    expanded: int


def plan(edition: str, players: int, seed: int, variant: Variant, beam: Beam = Beam()) -> Plan:
    """Beam search, under `variant` (which must read AMB-44 as b), for choices after which
    END-10 fires: the later of the two last spaces names who triggered the end, so the two
    readings of AMB-44 part there."""
    if dict(variant.choices).get("AMB-44") != "b":
        raise ReadingError("AMB-44 plan: the beam search runs under reading b, where END-10 marks the goal")
    rng = random.Random(f"beam {edition} {seed}")
    start = new_game(builtin_edition(edition), players, seed, variant)
    level: list[tuple[GameState, tuple[int, ...]]] = [(start, ())]
    expanded = 0
    seen: set[int] = set()  # the hashes of the states met at any step: each is scored once
    for depth in range(beam.max_depth):
        scored: dict[GameState, tuple[float, int, tuple[int, ...]]] = {}
        for state, choices in level:
            for index, option in enumerate(options(state)):
                if expanded >= beam.max_states:
                    return Plan(None, depth, expanded)
                expanded += 1
                trace: list[str] = []
                after = apply(state, option, trace=trace)
                if RuleId.END_10 in trace:
                    return Plan((*choices, index), depth + 1, expanded)
                if hopeless(after, trace) or hash(after) in seen:
                    continue
                seen.add(hash(after))
                scored[after] = (score(after) + rng.random() * 0.5, len(scored), (*choices, index))
        ranked = sorted(scored.items(), key=lambda item: item[1][:2])
        kept: dict[tuple[object, ...], int] = {}
        level = []
        for state, (_, _, choices) in ranked:
            key = _key(state)
            if kept.get(key, 0) >= beam.per_key:
                continue
            kept[key] = kept.get(key, 0) + 1
            level.append((state, choices))
            if len(level) >= beam.width:
                break
        if not level:
            return Plan(None, depth + 1, expanded)
    return Plan(None, beam.max_depth, expanded)
