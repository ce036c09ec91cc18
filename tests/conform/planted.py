"""Engines with one planted difference each, wrapping the reference (imported by the conform
tests, and served over the protocol by `python -m village_rules.conform.serve --engine
planted:NAME` with tests/conform on the path).

Each difference shows only once some player holds a good (crafts), which a random game
reaches after some 80 actions and a shorter game far sooner: the shorter way is what ddmin
finds."""

from __future__ import annotations

import json
from fractions import Fraction

from village_rules.conform.reference import ReferenceEngine


class Planted(ReferenceEngine):
    """The reference, with `armed` saying when the planted difference acts."""

    @property
    def armed(self) -> bool:
        """Whether some player holds a good."""
        return any(p.goods.total() > 0 for p in self.state.players)


class SwappedOrder(Planted):
    """Lists the first two legal actions the other way round, once armed."""

    def legal_actions(self) -> list[int]:
        legal = super().legal_actions()
        if self.armed and len(legal) >= 2:
            legal[0], legal[1] = legal[1], legal[0]
        return legal


class ShiftedProbability(Planted):
    """Moves 1/1000 of probability from the second chance outcome to the first, once
    armed (the probabilities still sum to 1)."""

    def chance_outcomes(self) -> list[tuple[int, Fraction]]:
        out = super().chance_outcomes()
        if self.armed and len(out) >= 2 and out[1][1] > Fraction(1, 1000):
            (a, p), (b, q) = out[0], out[1]
            out[0], out[1] = (a, p + Fraction(1, 1000)), (b, q - Fraction(1, 1000))
        return out


class ExtraCoin(Planted):
    """Reports one coin more for the first player in the state, once armed."""

    def state_json(self) -> str:
        text = super().state_json()
        if not self.armed:
            return text
        raw = json.loads(text)
        raw["players"][0]["coins"] += 1
        return json.dumps(raw, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
