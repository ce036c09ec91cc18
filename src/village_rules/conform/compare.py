"""What differs between the reference's and an implementation's answers at one step, in
words: the seat to act or the end, the legal set (ids, order), a chance outcome or its
probability, the first differing path of the state, the scores."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from village_rules.conform.protocol import Observation
from village_rules.conform.wire import fraction_text, player_text
from village_rules.data.edition import EditionData
from village_rules.model.actions import action_from_id, format_action

PLAYER = "player to act"
TERMINAL_FLAG = "terminal flag"
LEGAL = "legal actions"
CHANCE_OUTCOMES = "chance outcomes"
PROBABILITY = "chance probability"
STATE = "state"
SCORES = "scores"
WINNERS = "winners"
FAILED = "implementation failed"
"""The kinds of difference, as reports and tests name them."""


@dataclass(frozen=True, slots=True)
class Difference:
    """One difference: its kind (the constants above) and what exactly differs."""

    kind: str
    detail: str


def describe(data: EditionData | None, ident: int) -> str:
    """An action id with its text (`12 (draw-cube brown)`), or the id alone if it is no id."""
    if data is None:
        return str(ident)
    try:
        return f"{ident} ({format_action(action_from_id(data, ident))})"
    except Exception:  # an id outside the universe: the implementation invented it
        return f"{ident} (no such action id)"


def _ids(data: EditionData | None, ids: Sequence[int], limit: int = 6) -> str:
    shown = ", ".join(describe(data, i) for i in ids[:limit])
    return (shown + f", ... ({len(ids)} in all)") if len(ids) > limit else shown or "none"


def _sequence(data: EditionData | None, kind: str, ref: Sequence[int], imp: Sequence[int]) -> Difference:
    only_ref = [i for i in ref if i not in set(imp)]
    only_imp = [i for i in imp if i not in set(ref)]
    if not only_ref and not only_imp and len(ref) == len(imp):
        at = next(k for k, (a, b) in enumerate(zip(ref, imp, strict=True)) if a != b)
        return Difference(
            kind,
            f"the same {len(ref)} ids in another order: at position {at} the reference has "
            f"{describe(data, ref[at])}, the implementation {describe(data, imp[at])}",
        )
    parts = []
    if only_ref:
        parts.append(f"only the reference offers {_ids(data, only_ref)}")
    if only_imp:
        parts.append(f"only the implementation offers {_ids(data, only_imp)}")
    if not parts:
        parts.append(f"the reference lists {len(ref)} ids, the implementation {len(imp)} (a repeated id)")
    return Difference(kind, "; ".join(parts))


def first_path(ref: object, imp: object, path: str = "$") -> str | None:
    """The first path (`$.players[0].coins`) where two JSON values differ, with both values;
    None when they are equal. Keys in sorted order, list items in order."""
    if type(ref) is not type(imp):
        return f"{path}: reference {_value(ref)}, implementation {_value(imp)}"
    if isinstance(ref, dict) and isinstance(imp, dict):
        for key in sorted(set(ref) | set(imp)):
            if key not in imp:
                return f"{path}.{key}: only in the reference ({_value(ref[key])})"
            if key not in ref:
                return f"{path}.{key}: only in the implementation ({_value(imp[key])})"
            found = first_path(ref[key], imp[key], f"{path}.{key}")
            if found is not None:
                return found
        return None
    if isinstance(ref, list) and isinstance(imp, list):
        for k, (a, b) in enumerate(zip(ref, imp, strict=False)):
            found = first_path(a, b, f"{path}[{k}]")
            if found is not None:
                return found
        if len(ref) != len(imp):
            return f"{path}: the reference has {len(ref)} items, the implementation {len(imp)}"
        return None
    return None if ref == imp else f"{path}: reference {_value(ref)}, implementation {_value(imp)}"


def _value(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 120 else text[:117] + "..."


def state_difference(ref: str, imp: str) -> Difference | None:
    """The states' first differing path, or None when the texts are equal."""
    if ref == imp:
        return None
    try:
        imp_value = json.loads(imp)
    except ValueError:
        return Difference(STATE, f"the implementation's state is not JSON: {imp[:120]!r}")
    found = first_path(json.loads(ref), imp_value)
    if found is None:  # equal values written differently: not canonical JSON
        return Difference(
            STATE, "equal values, but the text is not the canonical form (sorted keys, no spaces)"
        )
    return Difference(STATE, found)


def compare(ref: Observation, imp: Observation, data: EditionData | None) -> Difference | None:
    """The first difference between two observations of the same step, or None."""
    if ref.terminal != imp.terminal:
        return Difference(
            TERMINAL_FLAG,
            f"the reference's game {'is over' if ref.terminal else 'goes on'}, the implementation's "
            f"{'is over' if imp.terminal else 'goes on'} (player {player_text(imp.player)})",
        )
    if ref.player != imp.player:
        return Difference(
            PLAYER, f"reference {player_text(ref.player)}, implementation {player_text(imp.player)}"
        )
    if ref.legal != imp.legal:
        return _sequence(data, LEGAL, ref.legal, imp.legal)
    ref_ids = [i for i, _ in ref.chance]
    imp_ids = [i for i, _ in imp.chance]
    if ref_ids != imp_ids:
        return _sequence(data, CHANCE_OUTCOMES, ref_ids, imp_ids)
    for (i, p), (_, q) in zip(ref.chance, imp.chance, strict=True):
        if p != q:
            return Difference(
                PROBABILITY,
                f"outcome {describe(data, i)}: reference {fraction_text(p)}, implementation {_fraction(q)}",
            )
    found = state_difference(ref.state, imp.state)
    if found is not None:
        return found
    if ref.scores != imp.scores:
        return Difference(SCORES, f"reference {ref.scores}, implementation {imp.scores}")
    if ref.winners != imp.winners:
        return Difference(WINNERS, f"reference seats {ref.winners}, implementation seats {imp.winners}")
    return None


def _fraction(p: Fraction) -> str:
    return fraction_text(p)
