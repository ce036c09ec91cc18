"""Stage: link (the branches it exercises).

How much of the rule-content model the link's steps exercise: every guarded command, each
branch of its guard, and each case the scoring, yield and time clauses state.

A *branch* is a named case of one step (s, a, t) of the model: a kind of action answering
one kind of pending step (`K_SKIP` at an action, at a privilege, at the mass's buying or
advancing step, ...), a cube from each action space, each action of a space paid by itself
or by a chosen payment, each council stage, each bound of the harvest, the end of a mass
with and without a church majority, the end of the game, and the forced follow-ups `apply`
settles (a step running into a later turn, a round's end, a quill pass). `branches_of`
names the branches one step exercises; `Coverage` counts the link steps per branch; the
gate prints the branches no step exercised, each with its reason (`KNOWN_GAPS`) or as a gap.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

from village_rules.proofs.model.content import (
    A_BIRTH,
    A_CALL_HOME,
    A_COUNCIL_ADVANCE,
    A_HARVEST,
    A_MILL,
    A_PRIVILEGE,
    A_PRODUCE,
    A_TRAIN,
    ACT_NAMES,
    K_ACTION,
    K_BUY_FROM_BAG,
    K_CHURCH_STEP,
    K_DIE,
    K_DRAW_CUBE,
    K_DRAW_CUSTOMER,
    K_DRAW_MEMBER,
    K_DRAW_MONK,
    K_FREE,
    K_PASS,
    K_PAY,
    K_PICK,
    K_SERVE,
    K_SKIP,
    K_TAKE,
    K_WELL,
    KIND_NAMES,
    P_ACTION,
    P_COMPENSATION,
    P_MASS_ADVANCE,
    P_MASS_BUY,
    P_OVER,
    P_PAY,
    P_PICK,
    SPACES,
    STAGES,
)

_PENDING_NAMES = {
    P_ACTION: "an action",
    P_PICK: "a privilege or pick",
    P_MASS_BUY: "the mass's buying step",
    P_MASS_ADVANCE: "the mass's advancing step",
    P_COMPENSATION: "a compensation cube",
}

_GUARD_PENDING: dict[int, tuple[int, ...]] = {
    K_SKIP: (P_ACTION, P_PICK, P_MASS_BUY, P_MASS_ADVANCE),
    K_PICK: (P_PICK, P_COMPENSATION),
    K_ACTION: (P_ACTION, P_PICK),
}
"""The kinds whose guard admits several pending steps (one branch each)."""

_PAID: tuple[int, ...] = (K_ACTION, K_SERVE, K_WELL, K_FREE)
"""The kinds a payment can be chosen for (`pay_for`)."""

_ONE_BRANCH = (
    K_DIE,
    K_PASS,
    K_BUY_FROM_BAG,
    K_CHURCH_STEP,
    K_DRAW_CUBE,
    K_DRAW_CUSTOMER,
    K_DRAW_MONK,
    K_DRAW_MEMBER,
)


def _act_stages(act: int) -> tuple[int, ...]:
    if act == A_COUNCIL_ADVANCE:
        return tuple(range(1, STAGES))  # a member on the last stage advances no further
    return tuple(range(1, STAGES + 1)) if act == A_PRIVILEGE else (-1,)


_NO_PAYMENT_CHOICE = (A_HARVEST, A_BIRTH, A_CALL_HOME, A_PRIVILEGE, A_TRAIN, A_PRODUCE, A_MILL)
"""Actions with no way of paying to choose, so no "paid by a chosen payment" branch: the
harvest, a birth, calling home and the privileges cost nothing to choose between (HARV-01,
FAM-01, FAM-02, CNC-03; the 4th privilege's 1 coin is one way), and training, producing and
the mill cost one alternative without cubes (time, grain: CRAFT-01..04), so no coin can
stand in for a cube (`engine.crafts.costs`, `engine.payment.coin_splits`)."""


def _act_name(act: int, stage: int) -> str:
    return ACT_NAMES[act] + (f" (stage {stage})" if stage >= 0 else "")


def all_branches() -> tuple[str, ...]:
    """Every branch, in a fixed order."""
    out: list[str] = []
    for kind, pendings in _GUARD_PENDING.items():
        out += [f"{KIND_NAMES[kind]} at {_PENDING_NAMES[p]}" for p in pendings]
    out += [f"{KIND_NAMES[K_TAKE]}: {space.value}" for space in SPACES]
    out += [f"{KIND_NAMES[K_TAKE]}: a plague cube", f"{KIND_NAMES[K_TAKE]}: a plague cube from the market"]
    out += [f"{KIND_NAMES[K_WELL]}: the market", f"{KIND_NAMES[K_WELL]}: another space"]
    out += [f"{KIND_NAMES[K_FREE]}: the market", f"{KIND_NAMES[K_FREE]}: another space"]
    out += [f"{KIND_NAMES[K_SERVE]}: the free sale", f"{KIND_NAMES[K_SERVE]}: a later sale"]
    out += [f"{KIND_NAMES[K_PAY]} for {KIND_NAMES[k]}" for k in _PAID]
    out += [KIND_NAMES[k] for k in _ONE_BRANCH]
    for act in ACT_NAMES:
        for stage in _act_stages(act):
            out.append(f"action {_act_name(act, stage)}, paid by itself")
            if act not in _NO_PAYMENT_CHOICE:
                out.append(f"action {_act_name(act, stage)}, paid by a chosen payment")
    out += [
        "harvest: the whole yield",
        "harvest: cut by the farmyard's room",
        "harvest: cut by the supply",
        "harvest with a horse and a plow",
        "harvest with an ox and a plow",
        "a mass ends with a church majority",
        "a mass ends with a tie for the church majority",
        "a mass ends with nobody in the church",
        "the game ends (final scoring)",
        "forced: the step runs into a later turn",
        "forced: the step ends the round",
        "forced: a quill pass in the step",
        "forced: a death in the step",
    ]
    return tuple(out)


def branches_of(s: Mapping[str, int], a: Mapping[str, int], t: Mapping[str, int], players: int) -> list[str]:
    """The branches the step (s, a, t) exercises (the abstract states and action)."""
    kind = a["kind"]
    out: list[str] = []
    if kind in _GUARD_PENDING and s["pending"] in _GUARD_PENDING[kind]:
        out.append(f"{KIND_NAMES[kind]} at {_PENDING_NAMES[s['pending']]}")
    if kind == K_TAKE:
        out.append(f"{KIND_NAMES[K_TAKE]}: {SPACES[a['space']].value}")
        if a["plague"]:
            out.append(f"{KIND_NAMES[K_TAKE]}: a plague cube" + (" from the market" if a["market"] else ""))
    if kind in (K_WELL, K_FREE):
        out.append(f"{KIND_NAMES[kind]}: " + ("the market" if a["market"] else "another space"))
    if kind == K_SERVE or (kind == K_PAY and s["pay_for"] == K_SERVE):
        free = s["md"] == 1 and s["md_sold"] == 0 and s["actor"] == s["market_trigger"]
        out.append(f"{KIND_NAMES[K_SERVE]}: " + ("the free sale" if free else "a later sale"))
    if kind == K_PAY and s["pay_for"] in _PAID:
        out.append(f"{KIND_NAMES[K_PAY]} for {KIND_NAMES[s['pay_for']]}")
    if kind in _ONE_BRANCH:
        out.append(KIND_NAMES[kind])
    if kind == K_ACTION and a["act"] >= 0:
        asks = t["pending"] == P_PAY and t["pay_for"] == K_ACTION
        if not asks:
            out.append(f"action {_act_name(a['act'], a['stage'])}, paid by itself")
    if kind == K_PAY and s["pay_act"] >= 0:
        out.append(f"action {_act_name(s['pay_act'], s['pay_stage'])}, paid by a chosen payment")
    actor = s["actor"]
    if kind == K_ACTION and a["act"] == A_HARVEST and 0 <= actor < players:
        out += _harvest(s, t, actor)
    if s["mass"] >= 1 and (t["mass"] == 0 or t["pending"] == P_OVER):
        out.append(_majority(t, players))
    if t["pending"] == P_OVER and s["pending"] != P_OVER:
        out.append("the game ends (final scoring)")
    if kind != K_TAKE and t["board"] < s["board"] and t["round"] == s["round"]:
        out.append("forced: the step runs into a later turn")
    if t["round"] != s["round"]:
        out.append("forced: the step ends the round")
    if any(t[f"owed_{p}"] > s[f"owed_{p}"] or t[f"life_{p}"] < s[f"life_{p}"] for p in range(players)):
        out.append("forced: a quill pass in the step")
    if any(t[f"dead_{p}"] > s[f"dead_{p}"] for p in range(players)):
        out.append("forced: a death in the step")
    return out


def _harvest(s: Mapping[str, int], t: Mapping[str, int], p: int) -> list[str]:
    got = t[f"grain_{p}"] - s[f"grain_{p}"]
    out = []
    if got == s[f"yield_{p}"]:
        out.append("harvest: the whole yield")
    elif got == s["grain_supply"] and got < s[f"yield_{p}"]:
        out.append("harvest: cut by the supply")
    else:
        out.append("harvest: cut by the farmyard's room")
    if s[f"yield_{p}"] == 3:
        out.append("harvest with a horse and a plow")
    if s[f"yield_{p}"] == 4:
        out.append("harvest with an ox and a plow")
    return out


def _majority(t: Mapping[str, int], players: int) -> str:
    counts = [sum(t[f"church{i}_{p}"] for i in range(1, STAGES + 1)) for p in range(players)]
    most = max(counts)
    if most == 0:
        return "a mass ends with nobody in the church"
    fronts = [t[f"church_front_{p}"] for p in range(players) if counts[p] == most]
    return (
        "a mass ends with a tie for the church majority"
        if fronts.count(max(fronts)) > 1
        else ("a mass ends with a church majority")
    )


_RARE = "rare, not reached in the gate's budget: "
KNOWN_GAPS: dict[str, str] = {
    f"{KIND_NAMES[K_FREE]}: the market": _RARE + "END-03: a free action is a final action on an empty "
    "board; the games' ends come by the graveyard or the chronicle far more often",
    f"{KIND_NAMES[K_FREE]}: another space": _RARE + "END-03: a free action is a final action on an empty "
    "board; the games' ends come by the graveyard or the chronicle far more often",
    f"{KIND_NAMES[K_PAY]} for {KIND_NAMES[K_FREE]}": _RARE + "a free final action whose action has a "
    "choice of payment",
    "action Travel, paid by a chosen payment": _RARE + "a path's one cost becomes a choice only when coins "
    "stand in for its cubes (coin splits), with a wagon and a member on the farmyard",
    "action CouncilAdvance (stage 2), paid by a chosen payment": _RARE + "2 green cubes and a scroll (or "
    "coins for the cubes) at an advance from stage 2",
    "action CouncilAdvance (stage 3), paid by a chosen payment": _RARE + "2 green cubes and a scroll (or "
    "coins for the cubes) at an advance from stage 3",
    "action Privilege (stage 4), paid by itself": _RARE + "a member on the council's 4th stage and a coin",
    "harvest: cut by the supply": _RARE + "the general supply holding less grain than the harvest's yield",
    f"{KIND_NAMES[K_SKIP]} at {_PENDING_NAMES[P_MASS_BUY]}": _RARE + "a seat at the mass's buying step with "
    "a coin and a member in the black bag, that buys none (the hunt reaches it)",
}
"""Branches the link's games may leave unexercised, and why (printed with the gap)."""


@dataclass
class Coverage:
    """Link steps per branch."""

    counts: Counter[str] = field(default_factory=Counter)
    steps: int = 0

    def add(self, s: Mapping[str, int], a: Mapping[str, int], t: Mapping[str, int], players: int) -> None:
        """Count one checked step."""
        self.steps += 1
        self.counts.update(branches_of(s, a, t, players))

    def merge(self, other: Coverage) -> None:
        """Add another coverage's counts."""
        self.steps += other.steps
        self.counts.update(other.counts)

    def gaps(self) -> list[str]:
        """The branches no step exercised, in `all_branches` order."""
        return [b for b in all_branches() if self.counts[b] == 0]

    def summary(self) -> str:
        """One line: branches exercised, and each gap with its reason (or "no reason known")."""
        total = len(all_branches())
        gaps = self.gaps()
        head = f"branch coverage {total - len(gaps)} of {total} over {self.steps} link steps"
        if not gaps:
            return head
        named = "; ".join(f"{g} ({KNOWN_GAPS.get(g, 'gap: no link step took it')})" for g in gaps)
        return f"{head}; not exercised: {named}"
