"""Chance outcome codes for OpenSpiel: a chance outcome's id at a chance node is its index
among the outcomes of its kind of draw, not its action id, so that every code is below the
most outcomes one chance node can have (`bounds.max_chance_outcomes`: 24 for both
editions' data, instead of the 499 / 510 action ids).

A chance node draws from one container, and every outcome of a draw is of that
container's kind (tests/adapters/test_chance_codes.py plays many games):

- the green bag (SEED-02, the set-up's compensation cube SET-10): `DrawCube`, by colour;
- the face-down customer pile (SET-05, MKT-07): `DrawCustomer`, by tile;
- the black bag (MASS-03): `DrawMonk` and `DrawMember` of the game's seats, monk first;
- Carla's fate tiles (SOLO-14): `RevealFate`, by tile.

Each kind's codes are the positions of its actions in `action_universe(data)` (members of
seats the game has only), so the codes of one node are distinct and decoding a code needs
only the node's own outcomes (`action_of_code`).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from village_rules.data.edition import EditionData
from village_rules.errors import IllegalActionError, InternalError
from village_rules.model.actions import (
    Action,
    DrawCube,
    DrawCustomer,
    DrawMember,
    DrawMonk,
    RevealFate,
    action_universe,
)

_KIND: dict[type, str] = {
    DrawCube: "green bag",
    DrawCustomer: "customer pile",
    DrawMonk: "black bag",
    DrawMember: "black bag",
    RevealFate: "fate tiles",
}
"""The container each kind of chance action draws from."""


_CODES: dict[tuple[int, int], tuple[EditionData, dict[Action, int]]] = {}
"""The codes by the identity of the edition data (hashing the data itself costs more than
a step) and the player count; the entry keeps the data alive, so its id is not reused."""


def _codes(data: EditionData, players: int) -> dict[Action, int]:
    hit = _CODES.get((id(data), players))
    if hit is not None and hit[0] is data:
        return hit[1]
    seats = data.seats(players)
    counters: dict[str, int] = {}
    out: dict[Action, int] = {}
    ordered = sorted(action_universe(data), key=lambda a: not isinstance(a, DrawMonk))  # monk first
    for action in ordered:
        kind = _KIND.get(type(action))
        if kind is None or (isinstance(action, DrawMember) and action.seat >= seats):
            continue
        out[action] = counters.get(kind, 0)
        counters[kind] = out[action] + 1
    _CODES[(id(data), players)] = (data, out)
    return out


def code_range(data: EditionData, players: int) -> int:
    """How many codes there are: every code of this game is in range(code_range), the size
    of the largest container kind (`bounds.max_chance_outcomes` derives the same figure
    from the rules; tests/adapters/test_chance_codes.py checks they agree)."""
    codes = _codes(data, players)
    return max(codes.values()) + 1


def outcome_code(data: EditionData, players: int, action: Action) -> int:
    """The code of a chance outcome (`InternalError` for an action that is no chance draw)."""
    code = _codes(data, players).get(action)
    if code is None:
        raise InternalError("chance_codes", f"{action} is not a chance outcome of this game")
    return code


def coded_outcomes(
    data: EditionData, players: int, outcomes: Sequence[tuple[Action, Fraction]]
) -> list[tuple[int, Fraction]]:
    """(code, probability) of a node's outcomes, ascending by code."""
    return sorted((outcome_code(data, players, a), p) for a, p in outcomes)


def action_of_code(
    data: EditionData, players: int, outcomes: Sequence[tuple[Action, Fraction]], code: int
) -> Action:
    """The outcome of this node whose code is `code`; `IllegalActionError` when none is."""
    for action, _ in outcomes:
        if outcome_code(data, players, action) == code:
            return action
    raise IllegalActionError("CHANCE", str(code), "no outcome of this chance node has this code")
