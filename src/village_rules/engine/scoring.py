"""Final scoring (2023 p. 14; 2011 "Final Scoring") and the winner with tie-breakers.

`prestige` on a player is the prestige track during play; the final scoring is added on top
of it here, so a result can be checked line by line against the state it comes from.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Literal

from village_rules.data.components import InChronicle, OnChurch, OnCouncil, TieBreaker
from village_rules.engine.guards import present
from village_rules.errors import ParameterError
from village_rules.model.state import GameState


@dataclass(frozen=True, slots=True, repr=False)
class ScoreBreakdown:
    """A seat's final score, category by category (2023 p. 14)."""
    seat: int
    during_play: int
    travel: int
    council_chamber: int
    church: int
    chronicle: int
    customers: int
    coins: int
    rank: str | None = None
    """Solo (SOLO-30): the player's rank by the p. 18 table; None in a multi-player game
    and for Carla."""

    def __repr__(self) -> str:
        # The rank only in a solo game, so multi-player breakdowns read as before it existed.
        tail = f", rank={self.rank!r}" if self.rank is not None else ""
        return (
            f"ScoreBreakdown(seat={self.seat!r}, during_play={self.during_play!r}, travel={self.travel!r}, "
            f"council_chamber={self.council_chamber!r}, church={self.church!r}, "
            f"chronicle={self.chronicle!r}, customers={self.customers!r}, coins={self.coins!r}{tail})"
        )

    @property
    def total(self) -> int:
        """The sum of every category."""
        return (
            self.during_play
            + self.travel
            + self.council_chamber
            + self.church
            + self.chronicle
            + self.customers
            + self.coins
        )


def score_breakdown(state: GameState) -> tuple[ScoreBreakdown, ...]:
    """SCORE-01..06: the final points of every player, per category. Solo: Carla scores
    nothing (SOLO-03) and the player's breakdown names the solo rank (SOLO-30)."""
    d = state.rules.data
    out = []
    for seat, p in enumerate(state.players):
        if state.is_carla(seat):
            out.append(ScoreBreakdown(seat, 0, 0, 0, 0, 0, 0, 0))
            continue
        cities = min(len(p.markers), len(d.score_travel) - 1)
        council = sum(d.score_council[loc.stage - 1] for loc in p.members if isinstance(loc, OnCouncil))
        church = sum(d.score_church[loc.stage - 1] for loc in p.members if isinstance(loc, OnChurch))
        chronicled = sum(1 for loc in p.members if isinstance(loc, InChronicle))
        chronicle = d.score_chronicle[min(chronicled, len(d.score_chronicle) - 1)]
        customers = sum(d.customer(t).points for t in p.customers)
        out.append(
            ScoreBreakdown(
                seat=seat,
                during_play=p.prestige,
                travel=d.score_travel[cities],
                council_chamber=council,
                church=church,
                chronicle=chronicle,
                customers=customers,
                coins=p.coins * d.score_coin,
            )
        )
    if state.is_solo:
        solo = present(d.solo, "scoring.score_breakdown", "the edition's solo data")
        mine = out[0]
        out[0] = replace(mine, rank=solo.rank(mine.total))
    return tuple(out)


def ranking_key(state: GameState, seat: int, total: int) -> tuple[int, ...]:
    """SCORE-07: total prestige, then the edition's tie-breakers in order."""
    p = state.players[seat]
    key = [total]
    for tie in state.rules.data.tie_breakers:
        match tie:
            case TieBreaker.MOST_GRAIN:
                key.append(p.grain)
            case TieBreaker.MOST_CUSTOMERS:
                key.append(len(p.customers))
            case TieBreaker.MOST_LIVING_MEMBERS:
                key.append(state.living_members(seat))
    return tuple(key)


def winners(state: GameState) -> tuple[int, ...]:
    """The winning seats: more than one only after a full tie (a shared win, AMB-29).
    Solo: the player (SOLO-30: the result is their rank; Carla scores no prestige)."""
    if state.is_solo:
        return (0,)
    keys = {b.seat: ranking_key(state, b.seat, b.total) for b in score_breakdown(state)}
    best = max(keys.values())
    return tuple(seat for seat, k in keys.items() if k == best)


ReturnsKind = Literal["win", "score"]


def returns(state: GameState, kind: ReturnsKind = "win") -> tuple[Fraction, ...]:
    """The returns vector, one entry per seat, for game-tree wrappers and RL code.

    - `"win"`: the win shared out: 1 split equally among `winners` (a full tie is a shared
      win, AMB-29), 0 for everyone else; the entries sum to 1.
    - `"score"`: each seat's final total prestige (`score_breakdown(...).total`).

    Rewards come only at the end: before it every entry is 0.
    """
    n = state.num_players
    if not state.is_terminal:
        return tuple(Fraction(0) for _ in range(n))
    if kind == "score":
        return tuple(Fraction(b.total) for b in score_breakdown(state))
    if kind != "win":
        raise ParameterError("kind", f"returns takes 'win' or 'score', not {kind!r}")
    best = winners(state)
    return tuple(Fraction(1, len(best)) if seat in best else Fraction(0) for seat in range(n))
