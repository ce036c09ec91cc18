"""What `max_moves` means, the same in the OpenSpiel game and the PettingZoo environment
(docs/rl.md, "Truncation").

A game of Village has no finite length bound (`village_rules.adapters.bounds`), so both
adapters stop a game that reaches `max_moves` moves (decisions plus chance outcomes, the
setup's deal included) without an end:

- it is *truncated*, not ended: OpenSpiel's `state.truncated()` and PettingZoo's
  `truncations` say so, and only then (an end by the rules is never truncated);
- it pays `truncated_returns`: an equal share of the win (`returns="win"`: 1/players each,
  so the win game stays constant-sum) or the totals the final scoring gives the state as
  it stands (`returns="score"`). OpenSpiel returns them, PettingZoo pays them as the last
  rewards; a learner that wants to bootstrap from a truncated state can tell it apart.

`max_moves` must leave room for a decision: the moves before the first one (the setup's
deal, then the first round's seeding) are a fixed number for an edition, player count and
variant (`moves_before_first_decision`), and a smaller or equal `max_moves` is refused
with a `ParameterError` saying so, rather than a game truncated before anyone plays.
"""

from __future__ import annotations

from fractions import Fraction

from village_rules.data.edition import EditionData
from village_rules.engine.core import apply, chance_outcomes
from village_rules.engine.scoring import ReturnsKind, score_breakdown
from village_rules.engine.setup import deal_outcomes, game_from_deal
from village_rules.errors import ParameterError
from village_rules.model.actions import Action
from village_rules.model.state import GameState
from village_rules.rules.variant import Variant

SOLO_HAS_NO_WINNER = (
    "a solo game has no winner to share out (SOLO-30: its result is the player's rank by"
    " prestige), so it is played for its score only"
)
"""Why both adapters refuse `returns="win"` with 1 player."""


def moves_before_first_decision(data: EditionData, players: int, variant: Variant) -> int:
    """The chance moves from the start of a game to its first decision: the setup's deal
    and the first round's seeding. Every deal and every seeding draws the same number of
    times whatever comes out (tests/adapters/test_truncation.py plays many), so following
    the first outcome of each counts them."""
    dealt: list[Action] = []
    while outcomes := deal_outcomes(data, players, dealt, variant):
        dealt.append(outcomes[0][0])
    state = game_from_deal(data, players, dealt, variant)
    moves = len(dealt)
    while state.is_chance:
        state = apply(state, chance_outcomes(state)[0][0])
        moves += 1
    return moves


def check_max_moves(max_moves: object, data: EditionData, players: int, variant: Variant) -> int:
    """`max_moves` if it is a whole number above `moves_before_first_decision`; a
    `ParameterError` naming the least it may be otherwise."""
    if not isinstance(max_moves, int) or isinstance(max_moves, bool) or max_moves < 1:
        raise ParameterError("max_moves", f"a positive whole number, not {max_moves!r}")
    before = moves_before_first_decision(data, players, variant)
    if max_moves <= before:
        raise ParameterError(
            "max_moves",
            f"must be more than the {before} chance moves before the first decision of a"
            f" {players}-player {data.edition} game (the setup's deal and the first seeding),"
            f" so that someone plays; at least {before + 1}, not {max_moves}",
        )
    return max_moves


def truncated_returns(state: GameState, kind: ReturnsKind) -> tuple[Fraction, ...]:
    """What a game truncated at `state` pays: an equal share of the win, or the final
    scoring of the state as it stands."""
    n = state.num_players
    if kind == "win":
        return tuple(Fraction(1, n) for _ in range(n))
    return tuple(Fraction(b.total) for b in score_breakdown(state))
