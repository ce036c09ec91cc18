"""Stage: model (the counts model).

The z3 model: a symbolic transition relation over the abstract state (`abstraction.py`).

Each clause is one fact about a single engine step (`apply`, settling included) written
once, as a function of a *backend* (`Ops`): the same clause is evaluated on plain integers
by the refinement check and turned into a z3 formula by the solver. The relation is an
over-approximation of the rules on purpose: it keeps only what the catalogue's queries need
(conservation of every finite component, what only grows or only shrinks, the end phase,
the round counter), and the refinement check (`refinement.py`) shows on real games that
the engine never takes a step outside it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import z3

from village_rules.data.edition import EditionData
from village_rules.proofs.model.abstraction import PHASE_OVER, AbstractState, field_names


class Ops(Protocol):
    """Boolean connectives for one backend (Python integers or z3 terms)."""

    def all(self, *xs: Any) -> Any:
        """True when every term holds."""

    def any(self, *xs: Any) -> Any:
        """True when some term holds."""

    def implies(self, a: Any, b: Any) -> Any:
        """`a` implies `b`."""

    def not_(self, a: Any) -> Any:
        """Not `a`."""


class PyOps:
    """Concrete evaluation: the clauses on the integers of two abstract states."""

    def all(self, *xs: Any) -> Any:
        """True when every value is true."""
        return all(xs)

    def any(self, *xs: Any) -> Any:
        """True when some value is true."""
        return any(xs)

    def implies(self, a: Any, b: Any) -> Any:
        """`a` implies `b`, on Python values."""
        return (not a) or bool(b)

    def not_(self, a: Any) -> Any:
        """Not `a`, on a Python value."""
        return not a


class Z3Ops:
    """Symbolic evaluation: the clauses as z3 formulas."""

    def all(self, *xs: Any) -> Any:
        """The z3 conjunction of the terms (True for none)."""
        return z3.And(*xs) if xs else z3.BoolVal(True)

    def any(self, *xs: Any) -> Any:
        """The z3 disjunction of the terms (False for none)."""
        return z3.Or(*xs) if xs else z3.BoolVal(False)

    def implies(self, a: Any, b: Any) -> Any:
        """The z3 implication `a` => `b`."""
        return z3.Implies(a, b)

    def not_(self, a: Any) -> Any:
        """The z3 negation of `a`."""
        return z3.Not(a)


PY = PyOps()
Z3 = Z3Ops()

Vars = Mapping[str, Any]
"""An abstract state seen by a clause: name -> int (concrete) or z3 Int (symbolic)."""


@dataclass(frozen=True, slots=True)
class Constants:
    """The edition data values the model needs, for one player count."""

    players: int
    cubes: int
    coins: int
    grain: int
    goods: int
    customers: int
    members: int
    chronicle_cap: int
    graveyard_cap: int
    lifetime: int
    markers: int
    monks: int
    grain_capacity: int

    @staticmethod
    def of(data: EditionData, players: int) -> Constants:
        """The model's constants for an edition and player count."""
        return Constants(
            players=players,
            cubes=4 * data.influence_cubes_each + data.plague_cubes,
            coins=data.supply_coins,
            grain=data.supply_grain,
            goods=5 * data.goods_each,
            customers=len(data.customers),
            members=len(data.family_numbers),
            chronicle_cap=data.chronicle_open_total(players),
            graveyard_cap=data.graveyard_open(players),
            lifetime=data.lifetime_track_length,
            markers=data.travel_markers,
            monks=data.monks,
            grain_capacity=data.grain_capacity,
        )


StateClause = Callable[[Vars, Constants, Ops], Any]
StepClause = Callable[[Vars, Vars, Constants, Ops], Any]


def _seats(k: Constants) -> range:
    return range(k.players)


def _sum(v: Vars, field: str, k: Constants) -> Any:
    return sum((v[f"{field}_{s}"] for s in _seats(k)), 0)


# --- facts about every reachable state (also the strengthening of k-induction) -----------

STATE_CLAUSES: dict[str, StateClause] = {
    "cubes are conserved (board + green bag + supply + farmyards)": lambda v, k, o: (
        v["board"] + v["bag"] + v["influence_supply"] + v["plague_supply"] + _sum(v, "cubes", k) == k.cubes
    ),
    "coins are conserved": lambda v, k, o: v["coins_supply"] + _sum(v, "coins", k) == k.coins,
    "grain is conserved": lambda v, k, o: v["grain_supply"] + _sum(v, "grain", k) == k.grain,
    "goods are conserved": lambda v, k, o: v["goods_supply"] + _sum(v, "goods", k) == k.goods,
    "customers are conserved (pile + market + served)": lambda v, k, o: (
        v["pile"] + v["market"] + _sum(v, "served", k) == k.customers
    ),
    "monks are conserved": lambda v, k, o: v["monks"] == k.monks,
    "every member is alive, unborn or dead": lambda v, k, o: o.all(
        *(v[f"alive_{s}"] + v[f"unborn_{s}"] + v[f"dead_{s}"] == k.members for s in _seats(k))
    ),
    "members in the black bag are alive": lambda v, k, o: o.all(
        *(o.all(v[f"in_bag_{s}"] >= 0, v[f"in_bag_{s}"] <= v[f"alive_{s}"]) for s in _seats(k))
    ),
    "counts are non-negative": lambda v, k, o: o.all(
        *(
            v[name] >= 0
            for name in (
                "board",
                "bag",
                "influence_supply",
                "plague_supply",
                "coins_supply",
                "grain_supply",
                "goods_supply",
                "pile",
                "market",
                "chronicle",
                "graveyard",
            )
        ),
        *(
            v[f"{f}_{s}"] >= 0
            for s in _seats(k)
            for f in (
                "alive",
                "unborn",
                "dead",
                "markers",
                "served",
                "coins",
                "grain",
                "cubes",
                "goods",
                "prestige",
                "owed",
            )
        ),
    ),
    "life-time tokens stay on the track": lambda v, k, o: o.all(
        *(o.all(v[f"life_{s}"] >= 0, v[f"life_{s}"] < k.lifetime) for s in _seats(k))
    ),
    "chronicle and graveyard hold at most their open spaces": lambda v, k, o: o.all(
        v["chronicle"] <= k.chronicle_cap, v["graveyard"] <= k.graveyard_cap
    ),
    "the dead fill the chronicle and graveyard (or were removed)": lambda v, k, o: (
        _sum(v, "dead", k) >= v["chronicle"] + v["graveyard"]
    ),
    "a farmyard holds at most its grain capacity": lambda v, k, o: o.all(
        *(v[f"grain_{s}"] <= k.grain_capacity for s in _seats(k))
    ),
    "a player places at most their disc markers": lambda v, k, o: o.all(
        *(v[f"markers_{s}"] <= k.markers for s in _seats(k))
    ),
    "seats are seats": lambda v, k, o: o.all(
        *(o.all(v[x] >= -1, v[x] < k.players) for x in ("actor", "end_by", "market_trigger"))
    ),
    "final actions only once the end is triggered": lambda v, k, o: o.all(
        o.implies(v["final_left"] >= 0, v["end_by"] >= 0), v["final_left"] >= -1, v["final_left"] < k.players
    ),
    "the end is triggered only by a full chronicle or graveyard": lambda v, k, o: o.implies(
        v["end_by"] >= 0, o.any(v["chronicle"] == k.chronicle_cap, v["graveyard"] == k.graveyard_cap)
    ),
    "the game is over only after the final actions": lambda v, k, o: o.implies(
        v["phase"] == PHASE_OVER, o.all(v["final_left"] == 0, v["mass"] == 0)
    ),
    "mass flag is 0, 1 or 2": lambda v, k, o: o.all(v["mass"] >= 0, v["mass"] <= 2),
    "the final mass only after the final actions": lambda v, k, o: o.implies(
        v["mass"] == 2, v["final_left"] == 0
    ),
}

# --- facts about every single step -------------------------------------------------------

STEP_CLAUSES: dict[str, StepClause] = {
    "no step after the end of the game": lambda s, t, k, o: s["phase"] != PHASE_OVER,
    "the round counter grows by at most one, and not once the end is triggered": lambda s, t, k, o: o.any(
        t["round"] == s["round"], o.all(t["round"] == s["round"] + 1, s["end_by"] == -1)
    ),
    "the dead stay dead, the born stay born": lambda s, t, k, o: o.all(
        *(o.all(t[f"dead_{p}"] >= s[f"dead_{p}"], t[f"unborn_{p}"] <= s[f"unborn_{p}"]) for p in _seats(k))
    ),
    "chronicle and graveyard only fill": lambda s, t, k, o: o.all(
        t["chronicle"] >= s["chronicle"], t["graveyard"] >= s["graveyard"]
    ),
    "markers, served customers and prestige only grow": lambda s, t, k, o: o.all(
        *(
            o.all(
                t[f"markers_{p}"] >= s[f"markers_{p}"],
                t[f"served_{p}"] >= s[f"served_{p}"],
                t[f"prestige_{p}"] >= s[f"prestige_{p}"],
            )
            for p in _seats(k)
        )
    ),
    "at most one customer is served per step": lambda s, t, k, o: (
        _sum(t, "served", k) - _sum(s, "served", k) <= 1
    ),
    "the customer pile only shrinks": lambda s, t, k, o: t["pile"] <= s["pile"],
    "the end, once triggered, stays with its player": lambda s, t, k, o: o.implies(
        s["end_by"] >= 0, t["end_by"] == s["end_by"]
    ),
    "the end is triggered by a death of its player": lambda s, t, k, o: o.implies(
        o.all(s["end_by"] == -1, t["end_by"] >= 0),
        o.any(*(o.all(t["end_by"] == p, t[f"dead_{p}"] > s[f"dead_{p}"]) for p in _seats(k))),
    ),
    "final actions only count down": lambda s, t, k, o: o.implies(
        s["final_left"] >= 0, t["final_left"] <= s["final_left"]
    ),
    # No clause "a market day keeps its market-day player": the slow refinement run found a
    # step (big-box-2023, 4 players, seed 22, action 403) in which one market day ends and
    # the next player's forced single take at the market begins another.
}


def state_holds(v: Vars, k: Constants, ops: Ops) -> Any:
    """Every state clause of the model holds for `v`."""
    return ops.all(*(c(v, k, ops) for c in STATE_CLAUSES.values()))


def transition(s: Vars, t: Vars, k: Constants, ops: Ops) -> Any:
    """T(s, t): the step clauses and the state clauses of the target state."""
    return ops.all(*(c(s, t, k, ops) for c in STEP_CLAUSES.values()), state_holds(t, k, ops))


def broken_clauses(before: AbstractState, after: AbstractState, k: Constants) -> list[str]:
    """The names of the clauses of T that the concrete pair (before, after) violates."""
    out = [name for name, c in STATE_CLAUSES.items() if not c(after, k, PY)]
    out += [name for name, c in STEP_CLAUSES.items() if not c(before, after, k, PY)]
    return out


def broken_initial(initial: AbstractState, k: Constants) -> list[str]:
    """The names of the state clauses an initial abstract state breaks."""
    return [name for name, c in STATE_CLAUSES.items() if not c(initial, k, PY)]


# --- z3 terms -----------------------------------------------------------------------------


def symbols(players: int, step: int) -> dict[str, Any]:
    """Fresh z3 integers for the abstract state at `step` of a path."""
    return {name: z3.Int(f"{name}@{step}") for name in field_names(players)}


def equals(v: Vars, a: AbstractState) -> Any:
    """The z3 formula: the symbolic state `v` is the concrete abstract state `a`."""
    return z3.And(*(v[name] == a[name] for name in a))


def z3_accepts(before: AbstractState, after: AbstractState, k: Constants) -> bool:
    """Whether z3 itself finds (before, after) in T: the formula is built with z3 terms and
    decided by a solver, independently of the Python evaluation of the same clauses."""
    s, t = symbols(k.players, 0), symbols(k.players, 1)
    solver = z3.Solver()
    solver.add(equals(s, before), equals(t, after), transition(s, t, k, Z3))
    return bool(solver.check() == z3.sat)


def names(clauses: Sequence[str]) -> str:
    """Clause names as one line of text."""
    return "; ".join(clauses)
