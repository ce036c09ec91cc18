"""Stage: search (the z3 archive steer's macro target).

The archive steer's macro target: the nearest abstract state where the query holds, and the
progress measure towards it (what `archive_steer` cuts its cells by and steers its greedy
bursts towards).

BMC over single engine steps cannot see a goal a few turns away (the removed BMC steer,
docs/proofs.md: at depth 6 it covered two or three decisions). Here z3 plans one *macro
step* instead: from the abstraction of an engine state `s` (the counts of
`abstraction.abstract`) to a state `t` where the query's abstract predicate holds, with `t`
meeting every state clause of the counts model (`model.STATE_CLAUSES`: conservation,
capacities, the end's triggers) and `(s, t)` meeting the step clauses that hold across any
number of steps (`MACRO_CLAUSES`: what only grows, only shrinks or stays once set, as
`model.STEP_CLAUSES` states it for one step). Among those, z3's `Optimize` returns the `t`
nearest to `s` (fewest units moved; a seat, phase or flag that must change counts 1),
under a counted `rlimit`.

`Target.distance(v)` is the progress measure: how far the abstract state `v` still is from
`t` on the variables `t` moves; `nearest_relabelling` takes it under the relabelling of the
seats that brings `v` nearest (a goal "some seat has ..." is met by whichever seat gets
there). When the archive makes no progress for a while it blocks the target
(`Targeter.ask(now, blocked)`: the next target must differ on a variable it moved) and asks
again, the counterexample-guided refinement of a macro plan the engine could not follow.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import permutations
from typing import Any

import z3

from village_rules.model.state import GameState
from village_rules.proofs.model.abstraction import PLAYER_FIELDS, abstract, field_names
from village_rules.proofs.model.model import STATE_CLAUSES, STEP_CLAUSES, Z3, Constants

AbstractGoal = Callable[[Mapping[str, Any], Constants], Any]
"""A query's abstract predicate (`Query.abstract`) over the counts model's names."""

MACRO_CLAUSES: tuple[str, ...] = (
    "the dead stay dead, the born stay born",
    "chronicle and graveyard only fill",
    "markers, served customers and prestige only grow",
    "the customer pile only shrinks",
    "the end, once triggered, stays with its player",
    "the end is triggered by a death of its player",
    "final actions only count down",
)
"""The step clauses of `model.STEP_CLAUSES` that are reflexive and transitive (a bound
that only grows, only shrinks or stays once set): they hold between any two states of a
game, so they relate the current state to any later one (a macro step of any length).
The others ("the round grows by at most one", "at most one customer per step") speak of
one step only and are left out."""

CATEGORICAL: frozenset[str] = frozenset(
    {"phase", "actor", "end_by", "final_left", "market_trigger", "mass"}
)
"""Variables that name a seat, a phase or a flag: moving them costs 1, whatever the value."""

SEAT_VALUED: tuple[str, ...] = ("actor", "end_by", "market_trigger")
"""Global variables whose value is a seat (-1: none); relabelled with the seats."""


@dataclass(frozen=True, slots=True)
class Target:
    """z3's macro target: the abstract values the query's state needs, on the variables
    that must move from the state it was asked at (`moves`: name -> value there)."""

    moves: Mapping[str, int]
    lifetime: int
    """The life-time track's length (the weight of a death still needed)."""

    def distance(self, v: Mapping[str, int]) -> int:
        """The progress measure: units still to move to reach the target (a categorical
        variable off its target value counts 1). A death still needed by a seat counts a
        whole life-time track, less the time its token has gone since the quill (TIME-01,
        DEATH-01: a seat's members die when its token passes the quill), so spending time
        is progress towards it before the death itself is."""
        out = 0
        for name, want in self.moves.items():
            have = v[name]
            if name in CATEGORICAL:
                out += have != want
            elif name.startswith("dead_") and want > have:
                out += self.lifetime * (want - have) - v[f"life_{name[5:]}"]
            else:
                out += abs(have - want)
        return out

    def describe(self) -> str:
        """The target in words, e.g. "coins_supply=1, coins_0=29"."""
        return ", ".join(f"{n}={x}" for n, x in sorted(self.moves.items())) or "(here)"


class Targeter:
    """z3's nearest goal state, per ask, in its own context (the same answers whatever the
    process did before), each ask under `rlimit` on top of what the solver has spent."""

    def __init__(self, players: int, k: Constants, goal: AbstractGoal, rlimit: int) -> None:
        self.k = k
        self.names = field_names(players)
        self.rlimit = rlimit
        self.ctx = z3.Context()
        self.t = {n: z3.Int(f"t.{n}", ctx=self.ctx) for n in self.names}
        self.s = {n: z3.Int(f"s.{n}", ctx=self.ctx) for n in self.names}
        self.base: list[Any] = [c(self.t, k, Z3) for c in STATE_CLAUSES.values()]
        self.base += [STEP_CLAUSES[name](self.s, self.t, k, Z3) for name in MACRO_CLAUSES]
        self.base.append(self.t["round"] >= self.s["round"])
        self.base.append(goal(self.t, k))
        # |t - s| as up + down, both >= 0: linear, so z3's optimiser stays in arithmetic
        cost: list[Any] = []
        for n in self.names:
            if n in CATEGORICAL:
                cost.append(z3.If(self.t[n] == self.s[n], 0, 1))
                continue
            up, down = z3.Int(f"up.{n}", ctx=self.ctx), z3.Int(f"down.{n}", ctx=self.ctx)
            self.base += [up >= 0, down >= 0, self.t[n] - self.s[n] == up - down]
            cost += [up, down]
        self.cost = z3.Sum(*cost)

    def ask(self, now: Mapping[str, int], blocked: Sequence[Target] = ()) -> Target | None:
        """The nearest target from the abstract state `now`, differing from each of the
        `blocked` targets on one of the variables it moves; None when z3 finds none (or
        its resource limit runs out)."""
        opt = z3.Optimize(ctx=self.ctx)
        opt.add(*self.base)
        opt.add(*(self.s[n] == now[n] for n in self.names))
        for b in blocked:
            differs = [self.t[n] != x for n, x in b.moves.items()]
            opt.add(z3.Or(*differs) if differs else z3.BoolVal(False, self.ctx))
        opt.minimize(self.cost)
        opt.set("rlimit", self.rlimit)
        r = opt.check()
        if r != z3.sat:
            return None
        m = opt.model()
        values = {n: m.eval(self.t[n], model_completion=True).as_long() for n in self.names}
        return Target({n: int(x) for n, x in values.items() if x != now[n]}, self.k.lifetime)


def counts(state: GameState) -> dict[str, int]:
    """The counts abstraction of a state as a plain dict (what targets are asked from)."""
    a = abstract(state)
    return dict(zip(field_names(state.num_players), a.vector, strict=True))


def relabellings(players: int) -> list[dict[int, int]]:
    """Every relabelling of the seats (seat -> seat), the identity first."""
    return [dict(enumerate(p)) for p in permutations(range(players))]


def nearest_relabelling(
    target: Target, v: Mapping[str, int], seats: Sequence[Mapping[int, int]]
) -> tuple[int, Mapping[str, int]]:
    """The least `target.distance` of `v` over the relabellings `seats`, and `v` relabelled
    by the first that gives it (`v` itself when `seats` holds only the identity): the
    progress towards the target for whichever seat is nearest to playing its part."""
    best: tuple[int, Mapping[str, int]] | None = None
    for sigma in seats:
        moved: dict[str, int] = dict(v)
        for old, new in sigma.items():
            if old == new:
                continue
            for f in PLAYER_FIELDS:
                moved[f"{f}_{new}"] = v[f"{f}_{old}"]
        for g in SEAT_VALUED:
            if v[g] >= 0:
                moved[g] = sigma[v[g]]
        d = target.distance(moved)
        if best is None or d < best[0]:
            best = (d, moved)
    return best if best is not None else (0, v)
