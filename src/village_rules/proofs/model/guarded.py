"""Stage: model (the rule-content model).

The rule-content transition relation: one guarded command per kind of action.

A step of the engine is (s, a, t): the abstract state before (`content.content_abstract`),
the abstract action (`content.action_vars`) and the abstract state after `apply` has
settled everything that follows without a choice. For each kind of action this module says
what the step requires of s (its *guard*: the pending step it answers) and what it changes
(its *effect*), as named clauses citing the rule (`specs/rules.md`). Clauses are plain
functions of a backend (`model.Ops`): `PY` evaluates them on the integers of a real step
(the refinement check, `link.py`), `Z3` builds the formula the solver reasons with
(`induction.py`). One definition serves both.

Because `apply` settles forced follow-ups (a decision with one legal action is taken, the
turn ends, a mass begins, ...), a step may go further than its kind: effects are therefore
stated for what the kind itself must do, and where later automatic steps could undo it,
only while the phase the step began in lasts (for example "while the mass goes on").

The model covers the default readings of each edition and no solo mode; `ContentConstants.of`
refuses anything else with a `ParameterError` naming the reading.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from village_rules.data.edition import EditionData, Row
from village_rules.errors import ParameterError
from village_rules.proofs.model.content import (
    A_BIRTH,
    A_CALL_HOME,
    A_COUNCIL_ADVANCE,
    A_COUNCIL_PLACE,
    A_HARVEST,
    A_PRIVILEGE,
    A_TRAVEL,
    CATEGORIES,
    K_ACTION,
    K_BUY_FROM_BAG,
    K_CHURCH_STEP,
    K_DIE,
    K_DRAW_CUBE,
    K_DRAW_CUSTOMER,
    K_DRAW_MEMBER,
    K_DRAW_MONK,
    K_FREE,
    K_LAST,
    K_PASS,
    K_PAY,
    K_PICK,
    K_SERVE,
    K_SKIP,
    K_TAKE,
    K_WELL,
    MASS_PENDING,
    P_ACTION,
    P_COMPENSATION,
    P_DYING,
    P_LAST,
    P_MARKET,
    P_MASS_ADVANCE,
    P_MASS_BUY,
    P_MASS_DRAW,
    P_OVER,
    P_PAY,
    P_PICK,
    P_REFILL,
    P_SEED,
    P_TURN,
    SPACES,
    STAGES,
)
from village_rules.proofs.model.model import PY, STATE_CLAUSES, STEP_CLAUSES, Constants, Ops
from village_rules.rules.register import reading
from village_rules.rules.variant import Rules

Vars = Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class ContentConstants:
    """The constants of the rule-content model: the counts model's and the rule values."""

    base: Constants
    plague_time: int
    well_cubes: int
    edition: str
    sale_time: int = 1
    """MKT-03: the time of a sale that is not the market-day player's first."""
    action_time: int = 0
    """The dearest time one action can cost (`dearest_action_time`)."""
    turn_time: int = 0
    """The most time one seat can spend in one turn (`dearest_turn_time`)."""
    majority_prestige: int = 0
    """MASS-05: the church majority's prestige."""
    score_coin: int = 0
    """SCORE-06: points per coin."""
    score_travel: tuple[int, ...] = ()
    """SCORE-02: points by cities visited (the last entry for that many or more)."""
    score_council: tuple[int, ...] = ()
    """SCORE-03: points per member by council stage."""
    score_church: tuple[int, ...] = ()
    """SCORE-04: points per member by church stage."""
    score_chronicle: tuple[int, ...] = ()
    """SCORE-05: points by members in the chronicle (the last entry for that many or more)."""
    act_times: tuple[tuple[int, int, tuple[int, ...]], ...] = ()
    """(`A_*` code, council stage or -1, the times its cost alternatives take): the actions
    whose time the model states exactly (`action_times`)."""

    @property
    def players(self) -> int:
        """How many seats."""
        return self.base.players

    @staticmethod
    def of(rules: Rules, players: int) -> ContentConstants:
        """The constants for a game's rules; refuses solo and non-default readings."""
        if players < 2:
            raise ParameterError(
                "players", "the rule-content model has no Carla (solo mode): use 2 or more players"
            )
        chosen = [
            f"{amb}={letter}" for amb, letter in rules.variant.choices if letter != _default(rules, amb)
        ]
        if chosen:
            raise ParameterError(
                "readings",
                "the rule-content model covers each edition's default readings only, "
                f"not {', '.join(chosen)}",
            )
        data = rules.data
        return ContentConstants(
            Constants.of(data, players),
            data.plague_time,
            data.well_cubes,
            data.edition,
            data.later_sale.time,
            dearest_action_time(data),
            dearest_turn_time(data, players),
            data.majority_prestige,
            data.score_coin,
            tuple(data.score_travel),
            tuple(data.score_council),
            tuple(data.score_church),
            tuple(data.score_chronicle),
            action_times(data),
        )


def action_times(data: EditionData) -> tuple[tuple[int, int, tuple[int, ...]], ...]:
    """The time each of these actions costs, from the edition's data: the harvest, a birth,
    calling home and a privilege none (2023 pp. 6, 8, 9); travel its path's time (p. 10: "2
    time"); placing in the council chamber its cost's time and advancing the cost's time
    plus the time of the stage left (p. 9: "2 or 3 time depending on the stage")."""
    paths = tuple(sorted({p.cost.time for p in data.paths}))
    place = tuple(sorted({c.time for c in data.council_place}))
    out = [(A_HARVEST, -1, (0,)), (A_BIRTH, -1, (0,)), (A_CALL_HOME, -1, (0,)), (A_TRAVEL, -1, paths)]
    out.append((A_COUNCIL_PLACE, -1, place))
    for stage, extra in enumerate(data.council_advance_time, start=1):
        out.append((A_COUNCIL_ADVANCE, stage, tuple(sorted({c.time + extra for c in data.council_advance}))))
    out += [(A_PRIVILEGE, stage, (0,)) for stage in range(1, STAGES + 1)]
    return tuple(out)


def dearest_action_time(data: EditionData) -> int:
    """The most time one action can cost, from the edition's data: a craft building's
    training and production in one action (2023 p. 7: "You may then immediately produce";
    p. 12: the smithy's 3 + 3), the mill (p. 7), placing in or advancing in the council
    chamber (p. 9), entering the church (p. 10: "1 brown ... OR 3 time") and walking one
    path (p. 10: "2 time"). Birth, calling home and the harvest cost no time (pp. 6, 8)."""
    costs = [c.training_time + c.production_time for c in data.crafts]
    costs.append(data.mill_cost.time)
    costs += [c.time for c in data.council_place]
    advance = max(data.council_advance_time, default=0)
    costs += [c.time + advance for c in data.council_advance]
    costs += [c.time for c in data.church_enter]
    costs += [p.cost.time for p in data.paths]
    return max(costs, default=0)


def dearest_turn_time(data: EditionData, players: int) -> int:
    """The most time one seat can spend in one turn (2023 p. 5: a turn is one cube, or the
    well, and the action of its space): the turn's player a plague cube (p. 5: 2 time) and
    the dearest action, or a plague cube from the market and every sale but the free first
    (p. 8: 1 time each, one customer per available space); any other seat only its sales
    in the turn's market day. The well (p. 10) costs cubes, not time."""
    customers = sum(
        1 for m in data.market_spaces if m.row is Row.AVAILABLE and m.min_players <= players
    )
    sale = data.later_sale.time
    return max(
        data.plague_time + dearest_action_time(data),
        data.plague_time + max(customers - 1, 0) * sale,
        customers * sale,
    )


def _default(rules: Rules, amb: str) -> str:
    return reading(amb).default(rules.data.edition)


ContentStateClause = Callable[[Vars, ContentConstants, Ops], Any]
KindClause = Callable[[Vars, Vars, Vars, ContentConstants, Ops], Any]


def _seats(k: ContentConstants) -> range:
    return range(k.players)


def _total(v: Vars, field: str, k: ContentConstants) -> Any:
    return sum((v[f"{field}_{p}"] for p in _seats(k)), 0)


def actor_has(v: Vars, k: ContentConstants, o: Ops, pred: Callable[[int], Any]) -> Any:
    """`pred(p)` for the seat p that is `v["actor"]` (false at chance)."""
    return o.any(*(o.all(v["actor"] == p, pred(p)) for p in _seats(k)))


def _in(o: Ops, x: Any, codes: tuple[int, ...]) -> Any:
    return o.any(*(x == c for c in codes))


def _time_spent(s: Vars, t: Vars, p: int, o: Ops, at_least: int, *, lifetime: int) -> Any:
    """Seat p spent at least `at_least` time in the step (less than a lap more: no forced
    follow-up spends the seat's time): its token moved that far, or it passed the quill
    (its position went down). When `at_least` is a whole lap of the track or more (a short
    track in a reduced configuration), the token may stand where it was: only a pass, seen
    in the deaths it makes owed or happen, is certain."""
    if at_least >= lifetime:
        return o.any(
            t[f"life_{p}"] < s[f"life_{p}"],
            t[f"owed_{p}"] > s[f"owed_{p}"],
            t[f"dead_{p}"] > s[f"dead_{p}"],
            t["md_held"] > s["md_held"],
        )
    return o.any(t[f"life_{p}"] >= s[f"life_{p}"] + at_least, t[f"life_{p}"] < s[f"life_{p}"])


def _no_time(s: Vars, t: Vars, p: int, o: Ops) -> Any:
    return t[f"life_{p}"] == s[f"life_{p}"]


def is_sale(s: Vars, a: Vars, t: Vars, o: Ops) -> Any:
    """The step serves a customer: `Serve` paid at once (not asking how to pay), or the
    payment chosen for one."""
    asks = o.all(t["pending"] == P_PAY, t["pay_for"] == K_SERVE)
    return o.any(
        o.all(a["kind"] == K_SERVE, o.not_(asks)), o.all(a["kind"] == K_PAY, s["pay_for"] == K_SERVE)
    )


def is_free_sale(s: Vars, k: ContentConstants, o: Ops) -> Any:
    """MKT-02: the seat to decide is the market-day player and has not sold yet."""
    return o.all(s["md"] == 1, s["md_sold"] == 0, s["actor"] == s["market_trigger"])


def _turn_begins(s: Vars) -> Any:
    """The step leaves a `ChooseTurn`: it begins a turn (the turn's path variables restart)."""
    return s["pending"] == P_TURN


def spends_at_most(s: Vars, a: Vars, t: Vars, p: int, o: Ops, *, most: Any) -> Any:
    """Seat p spent at most `most` time in the step (read off the turn's time, exact), when
    the step stays in its turn: the round goes on and no cube is taken but the step's own.
    (`apply` settles a lone decision: a step may run into later turns, whose forced cubes
    cost their own time; there no bound is claimed.)"""
    taken = a["kind"] == K_TAKE
    stays = o.all(
        t["round"] == s["round"],
        o.implies(taken, t["board"] == s["board"] - 1),
        o.implies(o.not_(taken), t["board"] == s["board"]),
    )
    return o.implies(
        stays,
        o.all(
            o.implies(_turn_begins(s), t[f"turn_time_{p}"] <= most),
            o.implies(o.not_(_turn_begins(s)), t[f"turn_time_{p}"] - s[f"turn_time_{p}"] <= most),
        ),
    )


def _turn_follows(s: Vars, a: Vars, t: Vars, k: ContentConstants, o: Ops) -> Any:
    """TIME-01 / DEATH-01: the turn's time grows by the token's move (modulo the track: a step
    spends less than a lap), its deaths by the step's deaths, and a chosen turn restarts
    both from the state it was chosen in."""
    n = k.base.lifetime
    parts = []
    for p in _seats(k):
        move = (t[f"life_{p}"] - s[f"life_{p}"]) % n
        died = t[f"dead_{p}"] - s[f"dead_{p}"]
        tt, td, tl = f"turn_time_{p}", f"turn_dead_{p}", f"turn_life0_{p}"
        parts.append(
            o.implies(_turn_begins(s), o.all(t[tt] == move, t[td] == died, t[tl] == s[f"life_{p}"]))
        )
        parts.append(
            o.implies(
                o.not_(_turn_begins(s)),
                o.all(t[tt] == s[tt] + move, t[td] == s[td] + died, t[tl] == s[tl]),
            )
        )
    return o.all(*parts)


TURN_TIME_CLAUSE = "TURN-03, CRAFT-01, MKT-03: a seat spends at most the dearest turn's time in one turn"
"""The clause query 5's proof rests on (with `TURN_DEATH_CLAUSE` and the laps clause)."""
TURN_DEATH_CLAUSE = "DEATH-01, DEATH-05 (AMB-23 a): every death of a turn needs a quill pass in it"
TURN_LAPS_CLAUSE = "TIME-01: the turn's quill passes are the laps its time took the token round"

TURN_STATE_CLAUSES: dict[str, ContentStateClause] = {
    TURN_LAPS_CLAUSE: lambda v, k, o: o.all(
        *(
            o.all(
                v[f"turn_life0_{p}"] >= 0,
                v[f"turn_life0_{p}"] < k.base.lifetime,
                v[f"turn_time_{p}"] >= 0,
                v[f"turn_passes_{p}"] >= 0,
                v[f"turn_life0_{p}"] + v[f"turn_time_{p}"]
                == v[f"life_{p}"] + k.base.lifetime * v[f"turn_passes_{p}"],
            )
            for p in _seats(k)
        )
    ),
    TURN_DEATH_CLAUSE: lambda v, k, o: o.all(
        *(o.all(v[f"turn_dead_{p}"] >= 0, v[f"turn_dead_{p}"] <= v[f"turn_passes_{p}"]) for p in _seats(k))
    ),
    TURN_TIME_CLAUSE: lambda v, k, o: o.all(*(v[f"turn_time_{p}"] <= k.turn_time for p in _seats(k))),
}
"""State clauses over the turn's path variables (`content.CONTENT_TURN`). The dearest turn
(`dearest_turn_time`) comes from the edition's costs; the link checks it on every step."""

TURN_STEP_CLAUSES: dict[str, KindClause] = {
    "TIME-01: the turn's time and deaths follow the token (a chosen turn restarts them)": _turn_follows,
}

ACTION_IDS = "CRAFT-01, CRAFT-04, CNC-01, CNC-02, CHU-01, TRV-01, TRV-02"
"""The rules that give an action a time cost (crafts, the mill, the council, the church, travel)."""

TURN_COSTS: dict[int, dict[str, KindClause]] = {
    K_TAKE: {
        "TURN-03: taking a cube costs at most the plague time": lambda s, a, t, k, o: actor_has(
            s, k, o, lambda p: spends_at_most(s, a, t, p, o, most=k.plague_time * a["plague"])
        ),
    },
    K_WELL: {
        "WELL-01: the well costs cubes, not time": lambda s, a, t, k, o: actor_has(
            s, k, o, lambda p: spends_at_most(s, a, t, p, o, most=0)
        ),
    },
    K_SERVE: {
        "MKT-02, MKT-03: a sale costs at most the later sale's time": lambda s, a, t, k, o: actor_has(
            s, k, o, lambda p: spends_at_most(s, a, t, p, o, most=k.sale_time)
        ),
    },
    K_PAY: {
        f"{ACTION_IDS}: a payment costs at most the dearest action's time": (
            lambda s, a, t, k, o: actor_has(
                s, k, o, lambda p: spends_at_most(s, a, t, p, o, most=k.action_time)
            )
        ),
    },
    K_ACTION: {
        f"{ACTION_IDS}: an action costs at most the dearest action's time": (
            lambda s, a, t, k, o: actor_has(
                s, k, o, lambda p: spends_at_most(s, a, t, p, o, most=k.action_time)
            )
        ),
    },
}
"""Each guarded command's time cost (an upper bound on what its actor spends in the step)."""

TURN_CLAUSE_NAMES: frozenset[str] = frozenset(
    [*TURN_STATE_CLAUSES, *TURN_STEP_CLAUSES, *(n for c in TURN_COSTS.values() for n in c)]
)
"""The clauses that read the turn's path variables: a step checked without the path that
led to it (`link.check_step` with no `before_vars`) cannot check them."""


# --- rule content that holds in every state ----------------------------------------------

CONTENT_STATE_CLAUSES: dict[str, ContentStateClause] = {
    "pending is a step of the game": lambda v, k, o: o.all(v["pending"] >= 0, v["pending"] <= P_LAST),
    "MKT-01: a market choice only in an open market day": lambda v, k, o: o.implies(
        v["pending"] == P_MARKET, o.all(v["md"] == 1, v["md_closed"] == 0)
    ),
    "MKT-04: a player asked at the market has not passed": lambda v, k, o: o.implies(
        v["pending"] == P_MARKET, o.not_(actor_has(v, k, o, lambda p: v[f"passed_{p}"] == 1))
    ),
    "MKT-01: a market day is held in its player's turn": lambda v, k, o: o.implies(
        v["md"] == 1, o.all(v["turn_seat"] >= 0, v["turn_seat"] == v["market_trigger"])
    ),
    "MASS-01: a mass is held between turns": lambda v, k, o: o.implies(v["mass"] >= 1, v["turn_seat"] == -1),
    "MASS-02: the mass steps are pending exactly during a mass": lambda v, k, o: (
        _in(o, v["pending"], MASS_PENDING) == (v["mass"] >= 1)
    ),
    "flags of a market day only during one": lambda v, k, o: o.implies(
        v["md"] == 0,
        o.all(
            v["md_sold"] == 0,
            v["md_closed"] == 0,
            v["md_held"] == 0,
            v["market_trigger"] == -1,
            *(v[f"passed_{p}"] == 0 for p in _seats(k)),
        ),
    ),
    "the market day's holder is a seat": lambda v, k, o: o.implies(v["md"] == 1, v["market_trigger"] >= 0),
    "flags are 0 or 1": lambda v, k, o: o.all(
        *(o.all(v[x] >= 0, v[x] <= 1) for x in ("md", "md_sold", "md_closed")),
        *(
            o.all(v[f"{f}_{p}"] >= 0, v[f"{f}_{p}"] <= 1)
            for p in _seats(k)
            for f in ("passed", "final", "can_serve")
        ),
    ),
    "the final actions left are the seats still to take one": lambda v, k, o: o.all(
        o.implies(v["final_left"] >= 0, _total(v, "final", k) == v["final_left"]),
        o.implies(v["final_left"] == -1, _total(v, "final", k) == 0),
    ),
    "pay_market only while paying for an action": lambda v, k, o: o.all(
        v["pay_market"] >= 0, v["pay_market"] <= 1, o.implies(v["pending"] != P_PAY, v["pay_market"] == 0)
    ),
    "cubes on the board are the cubes on the action spaces": lambda v, k, o: (
        sum((v[f"space_{i}"] for i in range(len(SPACES))), 0) == v["board"]
    ),
    "the chronicle is its categories": lambda v, k, o: o.all(
        sum((v[f"chron_{c.value}"] for c in CATEGORIES), 0) == v["chronicle"],
        *(v[f"chron_{c.value}"] >= 0 for c in CATEGORIES),
    ),
    "living members are on the farmyard, on the board or in the black bag": lambda v, k, o: o.all(
        *(
            o.all(
                v[f"home_{p}"] + v[f"placed_{p}"] + v[f"in_bag_{p}"] == v[f"alive_{p}"],
                v[f"home_{p}"] >= 0,
                v[f"placed_{p}"] >= 0,
            )
            for p in _seats(k)
        )
    ),
    "a seat's green cubes are among its cubes": lambda v, k, o: o.all(
        *(o.all(v[f"green_{p}"] >= 0, v[f"green_{p}"] <= v[f"cubes_{p}"]) for p in _seats(k))
    ),
    "the game is over exactly at the last step": lambda v, k, o: (
        (v["pending"] == P_OVER) == (v["phase"] == 5)
    ),
}


# --- the guarded commands, per kind of action -----------------------------------------------


def _mass_goes_on(s: Vars, t: Vars, k: ContentConstants, o: Ops) -> Any:
    """MASS-01..07: while a mass goes on, nobody spends time and nobody dies."""
    return o.implies(
        t["mass"] >= 1,
        o.all(
            *(
                o.all(
                    _no_time(s, t, p, o), t[f"dead_{p}"] == s[f"dead_{p}"], t[f"owed_{p}"] == s[f"owed_{p}"]
                )
                for p in _seats(k)
            )
        ),
    )


def _market_held(s: Vars, a: Vars, t: Vars, k: ContentConstants, o: Ops) -> Any:
    """MKT-01: the market (a cube from it, or the well or a free action there, once paid)
    holds a market day of the seat whose turn it is; it may end within the step only if
    that seat could pay no available customer (then every choice was a forced pass)."""
    asks = o.all(t["pending"] == P_PAY, t["pay_for"] == a["kind"])
    at_market = o.any(
        o.all(a["market"] == 1, o.not_(asks)),
        o.all(a["kind"] == K_PAY, s["pay_market"] == 1, _in(o, s["pay_for"], (K_WELL, K_FREE))),
    )
    return o.implies(
        at_market,
        o.any(
            o.all(t["md"] == 1, t["market_trigger"] == s["actor"]),
            actor_has(s, k, o, lambda p: s[f"can_serve_{p}"] == 0),
        ),
    )


def _final_actions_settled(s: Vars, t: Vars, k: ContentConstants, o: Ops) -> Any:
    """END-02: once the end is settled, a player who triggered it in their own turn (or their
    own market day) takes no final action."""
    settled = o.all(s["final_left"] == -1, t["final_left"] >= 0)
    return o.implies(
        settled,
        o.all(
            *(
                o.implies(
                    o.all(t["end_by"] == p, s["turn_seat"] == p),
                    o.all(t[f"final_{p}"] == 0, o.not_(o.all(t["pending"] == P_TURN, t["actor"] == p))),
                )
                for p in _seats(k)
            )
        ),
    )


KIND_CLAUSES: dict[int, dict[str, KindClause]] = {
    K_TAKE: {
        "TURN-01: a cube is taken at a turn, from a space that holds one": lambda s, a, t, k, o: o.all(
            s["pending"] == P_TURN,
            o.any(*(o.all(a["space"] == i, s[f"space_{i}"] >= 1) for i in range(len(SPACES)))),
        ),
        "TURN-01: the cube leaves its space": lambda s, a, t, k, o: o.all(
            *(o.implies(a["space"] == i, t[f"space_{i}"] <= s[f"space_{i}"] - 1) for i in range(len(SPACES)))
        ),
        "TURN-03: a plague cube costs the plague time": lambda s, a, t, k, o: o.implies(
            a["plague"] == 1,
            actor_has(s, k, o, lambda p: _time_spent(s, t, p, o, k.plague_time, lifetime=k.base.lifetime)),
        ),
        "MKT-01: the market holds a market day": _market_held,
    },
    K_WELL: {
        "WELL-01: the well is used at a turn, for an action space": lambda s, a, t, k, o: o.all(
            s["pending"] == P_TURN, a["space"] >= 0
        ),
        "MKT-01: the market holds a market day": _market_held,
    },
    K_FREE: {
        "END-03: a free action only as a final action on an empty board": lambda s, a, t, k, o: o.all(
            s["pending"] == P_TURN, s["board"] == 0, s["end_by"] >= 0
        ),
        "MKT-01: the market holds a market day": _market_held,
    },
    K_SKIP: {
        "TURN-02: skipping answers an action, privilege or mass step": lambda s, a, t, k, o: _in(
            o, s["pending"], (P_ACTION, P_PICK, P_MASS_BUY, P_MASS_ADVANCE)
        ),
        "MASS: nobody spends time or dies while the mass goes on": lambda s, a, t, k, o: o.implies(
            _in(o, s["pending"], MASS_PENDING), _mass_goes_on(s, t, k, o)
        ),
    },
    K_PICK: {
        "COUNCIL-02 / SET-10: a cube or good is picked when offered": lambda s, a, t, k, o: _in(
            o, s["pending"], (P_PICK, P_COMPENSATION)
        ),
    },
    K_ACTION: {
        "TURN-02: an action is performed when offered": lambda s, a, t, k, o: _in(
            o, s["pending"], (P_ACTION, P_PICK)
        ),
    },
    K_PAY: {
        "PAY: a payment answers a payment choice": lambda s, a, t, k, o: s["pending"] == P_PAY,
        "MKT-01: the market holds a market day": _market_held,
    },
    K_DIE: {
        "DEATH-02: choosing who dies answers a tie, and someone dies": lambda s, a, t, k, o: o.all(
            s["pending"] == P_DYING, actor_has(s, k, o, lambda p: t[f"dead_{p}"] >= s[f"dead_{p}"] + 1)
        ),
    },
    K_SERVE: {
        "MKT-02: a customer is served at a market choice": lambda s, a, t, k, o: s["pending"] == P_MARKET,
    },
    K_PASS: {
        "MKT-04: a pass answers a market choice": lambda s, a, t, k, o: s["pending"] == P_MARKET,
        "MKT-04: a pass is final for the day": lambda s, a, t, k, o: o.implies(
            o.all(t["md"] == 1, t["md_closed"] == 0, t["market_trigger"] == s["market_trigger"]),
            actor_has(s, k, o, lambda p: t[f"passed_{p}"] == 1),
        ),
    },
    K_BUY_FROM_BAG: {
        "MASS-02: buying out of the bag answers the mass's buying step": lambda s, a, t, k, o: (
            s["pending"] == P_MASS_BUY
        ),
        "MASS-02: a member bought out of the bag costs 1 coin": lambda s, a, t, k, o: o.implies(
            t["mass"] >= 1,
            actor_has(
                s,
                k,
                o,
                lambda p: o.all(
                    t[f"coins_{p}"] == s[f"coins_{p}"] - 1, t[f"in_bag_{p}"] == s[f"in_bag_{p}"] - 1
                ),
            ),
        ),
        "MASS: nobody spends time or dies while the mass goes on": lambda s, a, t, k, o: _mass_goes_on(
            s, t, k, o
        ),
    },
    K_CHURCH_STEP: {
        "MASS-04: moving up answers the mass's advancing step": lambda s, a, t, k, o: (
            s["pending"] == P_MASS_ADVANCE
        ),
        "MASS: nobody spends time or dies while the mass goes on": lambda s, a, t, k, o: _mass_goes_on(
            s, t, k, o
        ),
    },
    K_DRAW_CUBE: {
        "SEED-02: a cube is drawn at the seeding": lambda s, a, t, k, o: o.all(
            s["pending"] == P_SEED, s["bag"] >= 1
        ),
        "SEED-02: the drawn cube goes from the bag onto the board": lambda s, a, t, k, o: o.implies(
            t["pending"] == P_SEED, o.all(t["bag"] == s["bag"] - 1, t["board"] == s["board"] + 1)
        ),
    },
    K_DRAW_CUSTOMER: {
        "MKT-07: a customer is drawn to refill the market": lambda s, a, t, k, o: o.all(
            s["pending"] == P_REFILL, s["pile"] >= 1, t["pile"] == s["pile"] - 1
        ),
    },
    K_DRAW_MONK: {
        "MASS-03: a piece is drawn at the mass": lambda s, a, t, k, o: s["pending"] == P_MASS_DRAW,
        "MASS: nobody spends time or dies while the mass goes on": lambda s, a, t, k, o: _mass_goes_on(
            s, t, k, o
        ),
    },
    K_DRAW_MEMBER: {
        "MASS-03: a piece is drawn at the mass": lambda s, a, t, k, o: s["pending"] == P_MASS_DRAW,
        "MASS: nobody spends time or dies while the mass goes on": lambda s, a, t, k, o: _mass_goes_on(
            s, t, k, o
        ),
    },
}

SALE_CLAUSES: dict[str, KindClause] = {
    "MKT-02: the market-day player's first sale costs no time": lambda s, a, t, k, o: o.implies(
        o.all(is_sale(s, a, t, o), is_free_sale(s, k, o)), actor_has(s, k, o, lambda p: _no_time(s, t, p, o))
    ),
    "MKT-03: every other sale costs 1 time": lambda s, a, t, k, o: o.implies(
        o.all(is_sale(s, a, t, o), o.not_(is_free_sale(s, k, o))),
        actor_has(s, k, o, lambda p: _time_spent(s, t, p, o, 1, lifetime=k.base.lifetime)),
    ),
    "MKT-02: the market-day player's sale uses the free sale": lambda s, a, t, k, o: o.implies(
        o.all(is_sale(s, a, t, o), s["actor"] == s["market_trigger"], t["md"] == 1, t["md_closed"] == 0),
        t["md_sold"] == 1,
    ),
}
"""Clauses of every sale, whether the step is the `Serve` or the payment chosen for it."""

EVERY_STEP: dict[str, KindClause] = {
    "the action is of a known kind": lambda s, a, t, k, o: o.all(a["kind"] >= 0, a["kind"] <= K_LAST),
    "END-02: the trigger player of their own turn takes no final action": lambda s, a, t, k, o: (
        _final_actions_settled(s, t, k, o)
    ),
    **SALE_CLAUSES,
}


# --- prestige, the final scoring, yields and action times (issue 41, item 3) ---------------


def _entry(o: Ops, y: Any, x: Any, table: tuple[int, ...]) -> Any:
    """y is `table[min(x, len(table) - 1)]` (a scoring table read by a count)."""
    last = len(table) - 1
    return o.all(
        *(o.implies(x == i, y == value) for i, value in enumerate(table[:last])),
        o.implies(x >= last, y == table[last]),
    )


def _per_stage(v: Vars, p: int, track: str, points: tuple[int, ...]) -> Any:
    return sum((points[i] * v[f"{track}{i + 1}_{p}"] for i in range(min(STAGES, len(points)))), 0)


def _at_end(v: Vars, k: ContentConstants, o: Ops, clause: Callable[[int], Any]) -> Any:
    if o is PY and v["pending"] != P_OVER:  # the link's fast path: the same value
        return True
    return o.implies(v["pending"] == P_OVER, o.all(*(clause(p) for p in _seats(k))))


SCORE_FIELDS_NAMES = ("sc_travel", "sc_council", "sc_church", "sc_chron", "sc_cust", "sc_coins")

SCORE_STATE_CLAUSES: dict[str, ContentStateClause] = {
    "SCORE-01: the final scoring is made once the game is over, not before": lambda v, k, o: o.implies(
        v["pending"] != P_OVER, o.all(*(v[f"{f}_{p}"] == 0 for f in SCORE_FIELDS_NAMES for p in _seats(k)))
    ),
    "SCORE-02: travel scores by the cities visited": lambda v, k, o: _at_end(
        v, k, o, lambda p: _entry(o, v[f"sc_travel_{p}"], v[f"markers_{p}"], k.score_travel)
    ),
    "SCORE-03: the council chamber scores per member by its stage": lambda v, k, o: _at_end(
        v, k, o, lambda p: v[f"sc_council_{p}"] == _per_stage(v, p, "council", k.score_council)
    ),
    "SCORE-04: the church scores per member by its stage": lambda v, k, o: _at_end(
        v, k, o, lambda p: v[f"sc_church_{p}"] == _per_stage(v, p, "church", k.score_church)
    ),
    "SCORE-05: the chronicle scores by the members in it": lambda v, k, o: _at_end(
        v, k, o, lambda p: _entry(o, v[f"sc_chron_{p}"], v[f"chron_own_{p}"], k.score_chronicle)
    ),
    "SCORE-06: customers score their printed points": lambda v, k, o: _at_end(
        v, k, o, lambda p: v[f"sc_cust_{p}"] == v[f"cust_points_{p}"]
    ),
    "SCORE-06: each coin scores its points": lambda v, k, o: _at_end(
        v, k, o, lambda p: v[f"sc_coins_{p}"] == k.score_coin * v[f"coins_{p}"]
    ),
    "MASS-05: a seat's furthest church member is on its furthest occupied stage": lambda v, k, o: o.all(
        *(
            o.all(
                *(v[f"church{i}_{p}"] >= 0 for i in range(1, STAGES + 1)),
                *(
                    (v[f"church_front_{p}"] == i)
                    == o.all(
                        v[f"church{i}_{p}"] >= 1,
                        *(v[f"church{j}_{p}"] == 0 for j in range(i + 1, STAGES + 1)),
                    )
                    for i in range(1, STAGES + 1)
                ),
                (v[f"church_front_{p}"] == 0)
                == o.all(*(v[f"church{i}_{p}"] == 0 for i in range(1, STAGES + 1))),
            )
            for p in _seats(k)
        )
    ),
}
"""State clauses of the final scoring (`content.SCORE_FIELDS`: the engine's categories once
the game is over) and of the church track."""


def _church_count(v: Vars, p: int) -> Any:
    return sum((v[f"church{i}_{p}"] for i in range(1, STAGES + 1)), 0)


def _majority(v: Vars, p: int, k: ContentConstants, o: Ops) -> Any:
    """MASS-05 (AMB-16 a, the default): seat p has the most members on the church track,
    and of those tied the furthest-forward member (each still tied seat counts)."""
    n = _church_count(v, p)
    return o.all(
        n >= 1,
        *(
            o.any(
                n > _church_count(v, q),
                o.all(n == _church_count(v, q), v[f"church_front_{p}"] >= v[f"church_front_{q}"]),
            )
            for q in _seats(k)
            if q != p
        ),
    )


def _mass_ends(s: Vars, t: Vars, o: Ops) -> Any:
    return o.all(s["mass"] >= 1, o.any(t["mass"] == 0, t["pending"] == P_OVER))


def _majority_awarded(s: Vars, a: Vars, t: Vars, k: ContentConstants, o: Ops) -> Any:
    """MASS-05: when a mass ends, the majority's seats gain its prestige, and nobody else any."""
    if o is PY and not _mass_ends(s, t, o):  # the link's fast path: the same value
        return True
    parts = []
    for p in _seats(k):
        gain = t[f"prestige_{p}"] - s[f"prestige_{p}"]
        best = _majority(t, p, k, o)
        parts.append(o.all(o.implies(best, gain == k.majority_prestige), o.implies(o.not_(best), gain == 0)))
    return o.implies(_mass_ends(s, t, o), o.all(*parts))


def _stays(s: Vars, t: Vars, o: Ops) -> Any:
    """The step ends in the round it began in, with no cube taken (no later turn began)."""
    return o.all(t["round"] == s["round"], t["board"] == s["board"])


def pays_for(s: Vars, a: Vars, t: Vars, o: Ops, *, act: int, stage: int) -> Any:
    """The step pays for action `act` (at council `stage`, -1 any): the action itself when
    its payment is not asked for, or the payment chosen for it."""
    asks = o.all(t["pending"] == P_PAY, t["pay_for"] == K_ACTION)
    own = o.all(a["kind"] == K_ACTION, a["act"] == act, o.not_(asks))
    paid = o.all(a["kind"] == K_PAY, s["pay_act"] == act)
    if stage >= 0:
        own = o.all(own, a["stage"] == stage)
        paid = o.all(paid, s["pay_stage"] == stage)
    return o.any(own, paid)


def _costs_time(act: int, stage: int) -> KindClause:
    def clause(s: Vars, a: Vars, t: Vars, k: ContentConstants, o: Ops) -> Any:
        n = k.base.lifetime
        times = next((x for c, st, x in k.act_times if (c, st) == (act, stage)), ())
        if not times or max(times) >= n:  # a lap or more (a reduced track): nothing exact to say
            return True
        if o is PY and not (a["kind"] in (K_ACTION, K_PAY) and act in (a["act"], s["pay_act"])):
            return True  # the link's fast path: not this action, so the same value
        return o.implies(
            o.all(pays_for(s, a, t, o, act=act, stage=stage), _stays(s, t, o)),
            actor_has(s, k, o, lambda p: o.any(*((t[f"life_{p}"] - s[f"life_{p}"]) % n == x for x in times))),
        )

    return clause


_TIME_RULES: dict[int, str] = {
    A_HARVEST: "HARV-01: the harvest costs no time",
    A_BIRTH: "FAM-01: a birth costs no time",
    A_CALL_HOME: "FAM-02: calling a member home costs no time",
    A_TRAVEL: "TRV-01, TRV-02: travel costs its path's time",
    A_COUNCIL_PLACE: "CNC-01: placing in the council chamber costs its time",
    A_COUNCIL_ADVANCE: "CNC-02: advancing in the council chamber costs the time of the stage left",
    A_PRIVILEGE: "CNC-03: a privilege costs no time",
}
_STAGED = (A_COUNCIL_ADVANCE, A_PRIVILEGE)


def _time_clause_slot() -> dict[str, KindClause]:
    """One clause per action whose time the model states exactly (the times come from
    `ContentConstants.act_times`, so the edition's data)."""
    out: dict[str, KindClause] = {}
    for act, rule in _TIME_RULES.items():
        for stage in range(1, STAGES + 1) if act in _STAGED else (-1,):
            out[rule + (f" (stage {stage})" if stage >= 0 else "")] = _costs_time(act, stage)
    return out


TIME_CLAUSES: dict[str, KindClause] = _time_clause_slot()
"""The action-time clauses by name."""


def _harvest_yields(s: Vars, a: Vars, t: Vars, k: ContentConstants, o: Ops) -> Any:
    """HARV-02, HARV-03: the harvest gives the seat's yield, up to the farmyard's room and
    the grain left in the supply."""
    def gets(p: int) -> Any:
        got = t[f"grain_{p}"] - s[f"grain_{p}"]
        bounds = (s[f"yield_{p}"], k.base.grain_capacity - s[f"grain_{p}"], s["grain_supply"])
        return o.all(*(got <= b for b in bounds), o.any(*(got == b for b in bounds)))

    harvest = o.all(a["kind"] == K_ACTION, a["act"] == A_HARVEST, _stays(s, t, o), t["mass"] == 0)
    if o is PY and not harvest:  # the link's fast path: the same value
        return True
    return o.implies(harvest, actor_has(s, k, o, gets))


SCORING_STEP_CLAUSES: dict[str, KindClause] = {
    "SCORE-01: prestige earned during play never goes down": lambda s, a, t, k, o: o.all(
        *(t[f"prestige_{p}"] >= s[f"prestige_{p}"] for p in _seats(k))
    ),
    "MASS-05: the church majority gains its prestige when the mass ends": _majority_awarded,
    "HARV-02: a harvest gives the seat's yield, up to the room and the supply": _harvest_yields,
}
"""Step clauses of prestige, the church majority and the harvest (every kind of step); the
action times are `TIME_CLAUSES`."""


def content_clauses(drop: frozenset[str] = frozenset()) -> list[tuple[str, int | None, KindClause]]:
    """Every step clause as (name, kind or None for every kind, clause), minus `drop`."""
    every = {**EVERY_STEP, **TURN_STEP_CLAUSES, **SCORING_STEP_CLAUSES, **TIME_CLAUSES}
    out: list[tuple[str, int | None, KindClause]] = [
        (name, None, c) for name, c in every.items() if name not in drop
    ]
    for kind, clauses in KIND_CLAUSES.items():
        out += [(name, kind, c) for name, c in clauses.items() if name not in drop]
    for kind, clauses in TURN_COSTS.items():
        out += [(name, kind, c) for name, c in clauses.items() if name not in drop]
    return out


def state_clauses(
    drop: frozenset[str] = frozenset(),
) -> list[tuple[str, Callable[[Vars, ContentConstants, Ops], Any]]]:
    """Every state clause (the counts model's and the content ones), minus `drop`."""
    out: list[tuple[str, Callable[[Vars, ContentConstants, Ops], Any]]] = [
        (name, _lift(c)) for name, c in STATE_CLAUSES.items() if name not in drop
    ]
    out += [(name, c) for name, c in CONTENT_STATE_CLAUSES.items() if name not in drop]
    out += [(name, c) for name, c in TURN_STATE_CLAUSES.items() if name not in drop]
    out += [(name, c) for name, c in SCORE_STATE_CLAUSES.items() if name not in drop]
    return out


def counts_step_clauses(drop: frozenset[str] = frozenset()) -> list[tuple[str, KindClause]]:
    """The counts model's step clauses (`model.STEP_CLAUSES`), as content step clauses."""
    return [(name, _lift_step(c)) for name, c in STEP_CLAUSES.items() if name not in drop]


def _lift(c: Callable[[Vars, Constants, Ops], Any]) -> Callable[[Vars, ContentConstants, Ops], Any]:
    return lambda v, k, o: c(v, k.base, o)


def _lift_step(c: Callable[[Vars, Vars, Constants, Ops], Any]) -> KindClause:
    return lambda s, a, t, k, o: c(s, t, k.base, o)


def step_relation(
    s: Vars, a: Vars, t: Vars, k: ContentConstants, o: Ops, *, drop: frozenset[str] = frozenset()
) -> Any:
    """T_c(s, a, t): the guarded command of a's kind, the clauses of every step, the counts
    model's step clauses and every state clause of t."""
    parts = [
        c(s, a, t, k, o) if kind is None else o.implies(a["kind"] == kind, c(s, a, t, k, o))
        for _, kind, c in content_clauses(drop)
    ]
    parts += [c(s, a, t, k, o) for _, c in counts_step_clauses(drop)]
    parts += [c(t, k, o) for _, c in state_clauses(drop)]
    return o.all(*parts)


def _step_clauses_of(kind: int) -> list[tuple[str, KindClause]]:
    """The step clauses a step of `kind` must meet: the counts model's, every step's and its
    kind's (read from the dicts on every call, so a test may patch them)."""
    out = counts_step_clauses()
    out += [(name, c) for name, of, c in content_clauses() if of is None or of == kind]
    return out


def broken_step(s: Vars, a: Vars, t: Vars, k: ContentConstants) -> list[str]:
    """The names of the clauses the concrete step (s, a, t) breaks: state clauses of t,
    the counts model's step clauses, the clauses of every step and those of a's kind."""
    out = [name for name, c in state_clauses() if not c(t, k, PY)]
    out += [name for name, c in _step_clauses_of(a["kind"]) if not c(s, a, t, k, PY)]
    return out


def broken_start(v: Vars, k: ContentConstants) -> list[str]:
    """The state clauses an initial state breaks."""
    return [name for name, c in state_clauses() if not c(v, k, PY)]
