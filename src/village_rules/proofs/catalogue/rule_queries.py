"""Stage: catalogue (the market-day, mass and end queries).

Queries about what the rules allow during a market day, a mass and the end (issue 23):
queries 14-19, each a concrete predicate over the game path (`History`), a steer for the
witness search, and an abstract predicate over the current model's variables.

The abstract predicates here are the weak ones the counts-only model can state; each is
implied by its concrete predicate on every state (what the refinement link requires). A
rule-content model keys stronger ones by the same query names.

What the rulebooks say (2023 = `village-big-box-2023-rulebook.txt`, 2011 =
`village-original-2011-rules.txt`, in /work/shared/rules):

- 14, 15: the mass (2023 p. 11, 2011 "Mass") is drawing, buying out of the bag with coins,
  moving up with grain and the majority's prestige: nothing costs time, so nobody passes
  the quill, and no action is taken, so no market day can begin (a market day is held only
  by the market action, p. 8). Both unreachable by the rules.
- 16: "Only the first sale of the market day triggering player is free" (2023 p. 8; 2011
  "Market" the same); the market-day player is the first allowed to serve, so a free sale
  is the day's first sale. Unreachable under the default reading of AMB-06 (a); under
  AMB-06 b a waived first pass lets the market-day player's later first sale be free.
- 17: "The player who put their family member onto the last empty space ... does not get
  another turn", except when the end is triggered during a market day by a player other
  than the market-day player: "then all players ... may carry out one final action" (2023
  p. 13; AMB-09). Reachable only through that special case.
- 18: "Carla never serves more than 1 customer per market day" (2023 p. 16). Solo only;
  unreachable by the rules.
- 5 / 5b: a member dies when the life-time token passes the quill, "at the end of your
  turn" or at once in a market day, and only a visible member can die (2023 p. 12, 2011 "A
  family member passes away"). Under AMB-23 a (the default of both editions) a death with no
  visible member lapses, so two deaths of one player in one turn need two quill passes in
  it: at least 11 time on the 10-space track, while a turn costs at most 8 (the dearest
  action) or, holding a market day, a plague cube (2) and four paid sales (1 each). So
  query 5 is unreachable under the default: proved by k-induction over the rule-content
  model's turn path variables (`content.CONTENT_TURN`, `guarded.TURN_STATE_CLAUSES`). A turn
  is one take and its action (2011 "Taking your turn"; 2023 "Phase 2"): the path is read by
  sub-steps (`proofs.search.history`), so a turn whose only take the engine makes itself is a turn
  of its own; read by `apply` steps, two turns of a seat merged and two engine games met the
  predicate (proofs/regressions, docs/proofs.md "Event semantics"). Under
  AMB-23 b a death without a visible member stays owed until one is visible at the end of
  a turn: a player hiding every member in the black bag piles up owed deaths, and after a
  mass puts two of them on the church track, the end of their next turn kills both (5b).
- 19: "Players who do not want to, or are unable to pay and sell anything, must pass and
  may not reenter the current market day later" (2023 p. 8; 2011 "Market"). Unreachable.
"""

from __future__ import annotations

import z3

from village_rules.data.components import Cube, InBlackBag, Unborn, is_alive
from village_rules.model.actions import (
    Action,
    Birth,
    BuyFromBag,
    ChurchEnter,
    DrawCube,
    DrawMember,
    DrawMonk,
    Pass,
    Pay,
    Serve,
    Skip,
    TakeCube,
    Travel,
    Well,
)
from village_rules.model.pending import ChoosePayment, ChooseTurn
from village_rules.model.state import GameState
from village_rules.proofs.catalogue.query import PATH, ConcretePredicate, Query, any_seat
from village_rules.proofs.search.history import History, dead, last_events, market_day_start
from village_rules.proofs.search.search import Scorer, Steer
from village_rules.rule_ids import RuleId
from village_rules.rules.variant import Variant

CARLA = 1
"""Carla's seat in a solo game (`model.carla_board.CARLA`)."""

SOLO: dict[str, tuple[int, ...]] = {"big-box-2023": (1,)}
"""Solo rows: only the 2023 edition has a solo mode (2011: SET-01 refuses one player)."""

RULES_FORBID = (
    "the rulebooks forbid it (see proofs/catalogue/rule_queries.py); a proof needs the rule-content model"
)


# --- predicates ------------------------------------------------------------------------------


DEATHS = frozenset({RuleId.DEATH_03, RuleId.DEATH_04, RuleId.END_05})
"""The rule events of a member's death (`time_and_death.kill`: to the chronicle, to a
grave, out of the game)."""


def death_during_mass(h: History) -> bool:
    """14: a member of some player dies while a mass is held: a death event whose moment
    is in a mass, or a death in a sub-step taken at a mass."""
    if any(e.rule in DEATHS and e.mass for e in last_events(h)):
        return True
    before, after = h.states[-2], h.last
    if before.mass is None:
        return False
    return any(dead(after, s) > dead(before, s) for s in range(after.num_players))


def market_day_during_mass(h: History) -> bool:
    """15: a market day and a mass are in progress at the same time (in a state, or at the
    moment of a rule event)."""
    s = h.last
    if s.mass is not None and s.market_day is not None:
        return True
    return any(e.mass and e.market_player is not None for e in last_events(h))


def _sale_step(h: History) -> int | None:
    """The index of the action that made the sale completed by the last step (a `Serve`
    whose payment is settled, or the `Pay` that settled it), else None."""
    n = len(h.actions)
    last = h.actions[-1]
    if isinstance(last, Serve):
        pending = h.last.pending
        if isinstance(pending, ChoosePayment) and pending.action == last:
            return None  # paid by the next step
        return n - 1
    if isinstance(last, Pay) and n >= 2 and isinstance(h.actions[-2], Serve):
        pending = h.states[-2].pending
        if isinstance(pending, ChoosePayment) and pending.action == h.actions[-2]:
            return n - 2
    return None


def free_sale_not_first(h: History) -> bool:
    """16: a sale whose seller spent no time, no green cube and no coin (only the customer's
    goods and grain), made after another sale of the same market day."""
    j = _sale_step(h)
    if j is None:
        return False
    before, after = h.states[j], h.last
    start = market_day_start(h, j)
    if start is None:
        return False
    sold_before = sum(len(p.customers) for p in before.players)
    if sold_before == sum(len(p.customers) for p in h.states[start].players):
        return False  # the first sale of the day
    seat = before.current_player()
    p, q = before.players[seat], after.players[seat]
    return p.lifetime == q.lifetime and q.cubes[Cube.GREEN] >= p.cubes[Cube.GREEN] and q.coins >= p.coins


def trigger_final_action(h: History) -> bool:
    """17: the player who triggered the end is handed a final action (a turn of theirs after
    the final actions were settled)."""
    s = h.last
    pending = s.pending
    return (
        s.final_turns is not None
        and s.end_triggered_by is not None
        and isinstance(pending, ChooseTurn)
        and pending.seat == s.end_triggered_by
    )


def carla_two_customers(h: History) -> bool:
    """18 (solo): Carla has served two customers since the market day held before the last
    step began."""
    before = h.states[-2]
    if not before.is_solo or before.market_day is None:
        return False
    start = market_day_start(h, -2)
    if start is None:
        return False
    return len(h.last.players[CARLA].customers) - len(h.states[start].players[CARLA].customers) >= 2


def act_after_pass(h: History) -> bool:
    """19: a player decides something in a market day after passing in it (a pass that
    counted: not the market-day player's first-chance pass AMB-06 b waives)."""
    before = h.states[-2]
    day = before.market_day
    if day is None or day.closed or before.is_chance or before.is_terminal:
        return False
    seat = before.current_player()
    start = market_day_start(h, -2)
    if start is None:
        return False
    for i in range(start, len(h.actions) - 1):
        was, now = h.states[i], h.states[i + 1]
        if isinstance(h.actions[i], Pass) and was.current_player() == seat and not _waived(was, now):
            return True
    return False


def _waived(was: GameState, now: GameState) -> bool:
    """The pass between these states was the first-chance pass AMB-06 b does not count."""
    a, b = was.market_day, now.market_day
    return a is not None and b is not None and b.first_pass_waived and not a.first_pass_waived


def _explain_final_action(h: History) -> str:
    s = h.last
    before_end = next(
        (h.states[i] for i in range(len(h.states) - 1, 0, -1) if h.states[i - 1].end_triggered_by is None),
        None,
    )
    day = None if before_end is None else before_end.market_day
    where = (
        f"during the market day of seat {day.trigger} (2023 p. 13 special case, AMB-09: every player "
        "gets one final action)"
        if day is not None and day.trigger != s.end_triggered_by
        else "outside the market-day special case of 2023 p. 13: the rules give this player none"
    )
    return f"Seat {s.end_triggered_by} triggered the end {where}; it is handed a final action here."


# --- steers ----------------------------------------------------------------------------------


def _time_spender(state: GameState, action: Action) -> float:
    """Spend time and end rounds fast, so lives run out near a mass: take plague cubes, pay
    with time, travel; at a mass, draw monks."""
    if state.is_chance:
        if isinstance(action, DrawCube):
            return 2.0 if action.cube is Cube.PLAGUE else 0.0
        return 1.0 if isinstance(action, DrawMonk) else 0.0
    match action:
        case TakeCube(_, cube):
            return 3.0 if cube is Cube.PLAGUE else 1.0
        case Travel():
            return 2.0
        case Pay(alternative, coins):
            return float(alternative) - coins.total()  # the later alternatives are time
    return 0.5


def _market_goer(state: GameState, action: Action) -> float:
    """Hold market days: the market cube, the well at the market, and sell at every chance."""
    if state.is_chance:
        return 1.0 if isinstance(action, DrawMonk) else 0.0
    match action:
        case TakeCube(space, cube):
            return 4.0 if space.value == "market" else (-2.0 if cube is Cube.PLAGUE else 1.0)
        case Well(space, _):
            return 5.0 if space.value == "market" else -1.0
        case Serve():
            return 5.0
        case Pass():
            return -1.0
    return 0.5


def _passer(state: GameState, action: Action) -> float:
    """Hold market days and pass at once, then be asked again: pass early, never serve first."""
    if state.is_chance:
        return 0.0
    match action:
        case TakeCube(space, _):
            return 4.0 if space.value == "market" else 0.5
        case Well(space, _):
            return 4.0 if space.value == "market" else -1.0
        case Pass():
            return 3.0
        case Serve():
            return 2.0
        case Skip():
            return 0.5
    return 0.5


def _visible(state: GameState, seat: int) -> int:
    """The seat's members that could die now: alive, not in the black bag (nor unborn)."""
    return sum(
        1 for loc in state.players[seat].members if is_alive(loc) and not isinstance(loc, InBlackBag | Unborn)
    )


def _owed(state: GameState, seat: int) -> int:
    return state.deaths_owed[seat] if state.deaths_owed else 0


def _owed_deaths(state: GameState, action: Action) -> float:
    """AMB-23 b: hide every member in the black bag (paying time), spend time while none is
    visible so deaths pile up owed, then buy two of them out of the bag at a mass: the end
    of the next turn kills both."""
    if state.is_chance:
        if isinstance(action, DrawMember):
            return 5.0 if _owed(state, action.seat) >= 2 else -5.0
        if isinstance(action, DrawCube):
            return 2.0 if action.cube is Cube.PLAGUE else 0.0
        return 0.0
    seat = state.current_player()
    hidden = _visible(state, seat) == 0
    match action:
        case TakeCube(space, cube):
            if cube is Cube.PLAGUE:
                return 4.0 if hidden else -1.0
            return 3.0 if space.value == "church" and not hidden else 1.0
        case ChurchEnter():
            return 6.0
        case BuyFromBag():
            return 5.0 if _owed(state, seat) >= 2 else -5.0
        case Pay(alternative, coins):
            return float(alternative) - coins.total()  # the later alternatives are time
        case Birth():
            return -2.0
    return 0.0


def _waiver(state: GameState, action: Action) -> float:
    """AMB-06 b: the market-day player passes at the first chance (the pass is waived), the
    others sell, paying, and then the market-day player makes the free first sale."""
    if state.is_chance:
        return 0.0
    day = state.market_day
    waiting = (
        day is not None
        and state.current_player() == day.trigger
        and not day.trigger_sold
        and not day.first_pass_waived
    )
    match action:
        case TakeCube(space, cube):
            return 4.0 if space.value == "market" else (-2.0 if cube is Cube.PLAGUE else 1.0)
        case Well(space, _):
            return 4.0 if space.value == "market" else -1.0
        case Pass():
            return 6.0 if waiting else -1.0
        case Serve():
            return -5.0 if waiting else 5.0
    return 0.5


# --- the queries -----------------------------------------------------------------------------

def rule_queries(deadly: Scorer, two_deaths_in_a_turn: ConcretePredicate) -> tuple[Query, ...]:
    """Queries 5b, 14-19, appended to `catalogue.CATALOGUE`; `deadly` (spend time, die fast)
    and `two_deaths_in_a_turn` (query 5's predicate) are the catalogue's own."""
    return (
        Query(
            "two-deaths-owed",
            "5b",
            "two deaths of the same player within one turn, under AMB-23 b (owed deaths)",
            lambda v, k: any_seat(k, lambda s: v[f"dead_{s}"] >= 2),
            two_deaths_in_a_turn,
            Steer(_owed_deaths, randomness=0.1),
            horizon=PATH,
            variant=Variant(readings={"AMB-23": "b"}),
            needs=(RuleId.DEATH_01,),
        ),
        Query(
            "death-during-mass",
            "14",
            "a member dies during a mass",
            lambda v, k: any_seat(k, lambda s: v[f"dead_{s}"] >= 1),
            death_during_mass,
            Steer(_time_spender, randomness=0.3),
            search_games=10,
            unknown_because=RULES_FORBID,
            needs=(RuleId.MASS_01, RuleId.DEATH_01,),
        ),
        Query(
            "market-day-during-mass",
            "15",
            "a market day held during a mass",
            lambda v, k: z3.And(v["mass"] >= 1, v["market_trigger"] >= 0),
            market_day_during_mass,
            Steer(_market_goer, randomness=0.3),
            search_games=10,
            unknown_because=RULES_FORBID,
            needs=(RuleId.MASS_01, RuleId.MKT_01,),
        ),
        Query(
            "free-sale-not-first",
            "16",
            "a sale that costs nothing (no time, no green cube or coin) but is not the day's first",
            lambda v, k: z3.Sum(*(v[f"served_{s}"] for s in range(k.players))) >= 2,
            free_sale_not_first,
            Steer(_market_goer, randomness=0.2),
            search_games=10,
            unknown_because=RULES_FORBID + " (under AMB-06 b it is reachable: query 16b)",
            horizon=PATH,
            needs=(RuleId.MKT_01,),
        ),
        Query(
            "free-sale-amb-06-b",
            "16b",
            "query 16 under AMB-06 b: a waived first pass lets the market-day player sell free after others",
            lambda v, k: z3.Sum(*(v[f"served_{s}"] for s in range(k.players))) >= 2,
            free_sale_not_first,
            Steer(_waiver, randomness=0.2),
            horizon=PATH,
            variant=Variant(readings={"AMB-06": "b"}),
            needs=(RuleId.MKT_01,),
        ),
        Query(
            "trigger-final-action",
            "17",
            "a final action for the player who triggered the end",
            lambda v, k: z3.And(v["end_by"] >= 0, v["final_left"] >= 0, v["actor"] == v["end_by"]),
            trigger_final_action,
            Steer(deadly, randomness=0.4),
            explain=_explain_final_action,
            needs=(RuleId.END_01,),
        ),
        Query(
            "carla-two-customers",
            "18",
            "Carla serving two customers in one market day (solo)",
            lambda v, k: v["round"] >= 1,
            carla_two_customers,
            Steer(_market_goer, randomness=0.2),
            players=SOLO,
            search_games=20,
            unknown_because=RULES_FORBID + "; the z3 model has no solo mode",
            horizon=PATH,
            needs=(RuleId.SOLO_10, RuleId.MKT_01,),
        ),
        Query(
            "act-after-pass",
            "19",
            "a player acting in a market day after passing in it",
            lambda v, k: v["phase"] != 5,
            act_after_pass,
            Steer(_passer, randomness=0.3),
            search_games=10,
            unknown_because=RULES_FORBID,
            horizon=PATH,
            needs=(RuleId.MKT_04,),
        ),
    )
