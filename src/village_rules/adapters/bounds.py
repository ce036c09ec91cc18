"""Bounds for game-tree wrappers: the most chance outcomes at one chance node, the length
limit of a game, and the range of final scores, per edition data and player count.

Each bound comes with its derivation from the engine (docs/rl.md "Bounds" repeats them):

- `max_chance_outcomes` is sound: every chance event draws from one container, and the
  outcomes of a draw are the distinct kinds of piece in it (see the function).
- The length of a game **cannot be bounded**. No rule forces time to pass or the game
  to approach its end: a turn may take an influence cube and skip the action (TURN-02)
  or use the well (WELL-01) and skip, which costs no time; the cubes taken flow back to
  the supply through the well; and a plague cube may stay in the green bag round after
  round (SEED-02: cubes not drawn stay in the bag). With 4 players (both editions'
  data: the setup card adds as many cubes to the bag as it draws, 24) this gives a
  reachable cycle, a later round starting in exactly the state of an earlier one, the
  round number aside, which the engine never reads: tests/engine/test_unbounded.py plays it.
  For 2, 3 and 5 players the card adds fewer cubes than it draws, yet the proof
  catalogue's termination query (`village-rules prove lasso`) finds such repeating games
  too: its stored witnesses (proofs/witnesses/12-lasso-*.json) cover every Big Box player
  count; for the 2011 data at 2 and 3 players the search has found none yet, which is no
  proof of a bound. The same catalogue's score pump (query 13b) shows the score has no
  upper bound either, apart from the length of the game. Wrappers that need a bound
  (OpenSpiel's `max_game_length`) therefore play the game *truncated* at
  `DEFAULT_MAX_MOVES` moves, a limit ten times the longest seeded random game we have
  seen, and say so.
- Score bounds are sound for games of at most `max_moves` moves (decisions plus chance
  outcomes): the final scoring of every category is capped by the finite components it
  counts, and prestige during play by `prestige_during_play` (3 per move with both
  editions' data; no smaller rate per move holds, see there).
"""

from __future__ import annotations

from dataclasses import dataclass

from village_rules.data.components import INFLUENCE, Cube
from village_rules.data.edition import EditionData, RewardKind
from village_rules.data.solo_data import FateTile

DEFAULT_MAX_MOVES = 20_000
"""The truncation limit of the game-tree wrappers: moves are decisions plus chance outcomes,
the setup's deal included. The longest of 100 seeded random games per edition and player
count took 2,010 moves (big-box-2023, 5 players): `scripts/game_lengths.py` prints these
figures."""


def max_chance_outcomes(data: EditionData, players: int) -> int:
    """The most outcomes one chance event of this game can have.

    - a seeding draw (SEED-02) draws a cube from the green bag: at most one outcome per
      kind of cube, `len(Cube)`;
    - turning up a customer (SET-05 at setup, MKT-07 at a refill) draws from the
      face-down pile, a subset of the edition's tiles: at most `len(data.customers)`;
    - a mass draw (MASS-03) draws a monk or a member, members of one seat and number being
      one outcome: at most 1 + seats x the distinct family numbers (a solo game's black
      bag holds Carla's members too, SOLO-29: two seats);
    - the random compensation cube (SET-10) is one of the influence colours;
    - a fate tile turned up (SOLO-14) is one of the `FateTile` kinds.

    OpenSpiel's `max_chance_outcomes()` is this figure: the game gives a chance outcome as
    its code among the draws of its kind (`chance_codes`, whose range is checked equal).
    """
    numbers = len(set(data.family_numbers))
    fate = len(FateTile) if players == 1 else 0
    return max(len(Cube), len(data.customers), 1 + data.seats(players) * numbers, len(INFLUENCE), fate)


@dataclass(frozen=True, slots=True)
class ScoreBounds:
    """The least and the most final total (score_breakdown(...).total) one player can have."""

    low: int
    high: int


def prestige_per_move(data: EditionData) -> int:
    """The most prestige one player gains on the track during one move.

    Prestige only rises during play, at three places: a council privilege (CNC-08), a
    travel reward (TRV-04, TRV-06) and the church majority at a mass (MASS-05). A move is
    one decision or chance outcome and what `apply` then settles without a choice. Every
    decision that can give a privilege or a travel reward also offers a skip, so it is
    never settled automatically: one move gives at most one of them. The church majority
    comes after the mass's pieces are bought or drawn, each of them a move of its own
    (a purchase offers a skip, a draw is a chance outcome), and what a mass's last move
    settles ends at the next round's seeding (a chance event) or a free final action (a
    choice of seven spaces), before any turn's action: so no move gives both.
    """
    action, majority = _action_prestige(data), max(data.majority_prestige, 0)
    return action + majority if pieces_per_mass(data) == 0 else max(action, majority)


def _action_prestige(data: EditionData) -> int:
    """The most prestige one privilege or one travel reward gives."""
    travel = max((c.amount for c in data.cities if c.reward is RewardKind.PRESTIGE), default=0)
    return max(data.privilege_prestige, travel, 0)


def pieces_per_mass(data: EditionData) -> int:
    """The fewest pieces every mass takes out of the black bag, each in a move of its own:
    `mass_pieces`, bought or drawn (MASS-02, MASS-03), from a bag that holds every monk at
    the start of each mass (the monks drawn go back at its end), so at least
    min(`mass_pieces`, `monks`)."""
    return max(0, min(data.mass_pieces, data.monks))


def prestige_during_play(data: EditionData, moves: int) -> int:
    """The most prestige one player can have after `moves` moves (the deal's included).

    From `prestige_per_move`'s argument: a move gives at most one privilege or travel
    reward (`a` prestige at most), the church majority (`m`) comes once per mass, and each
    mass takes `p = pieces_per_mass` moves of its own in which no privilege or travel
    reward is gained. So with G moves that give a privilege or a reward and R masses,
    G + p*R <= moves and the prestige is at most a*G + m*R, whose largest value is
    max(a*moves, m*(moves // p)). With both editions' data, a privilege 4 or a
    prestige city gives 3 and the majority 2 over 4 pieces, so this is 3 per move.

    No smaller rate per move holds: a member on the council's fourth stage uses the
    privilege in one decision (CNC-04: a privilege is an action of its own), and a turn
    whose choice is forced (one kind of cube on one space, no well affordable) is taken
    automatically, with the other seats' forced turns, so a seat can gain 3 in each of
    consecutive moves (tests/adapters/test_bounds.py plays it).
    """
    if moves <= 0:
        return 0
    p = pieces_per_mass(data)
    if p == 0:
        return moves * prestige_per_move(data)  # a mass without a move: both in one move
    return max(_action_prestige(data) * moves, max(data.majority_prestige, 0) * (moves // p))


def score_bounds(data: EditionData, players: int, max_moves: int = DEFAULT_MAX_MOVES) -> ScoreBounds:
    """Sound bounds on one player's final total in a game of at most `max_moves` moves.

    SCORE-01..06 term by term: travel and chronicle read one entry of their table; council
    and church give each of the player's members at most the best entry of either table;
    customers are at most every tile of the edition; coins at most every coin of the game
    (`supply_coins` is the total, the starting coins included); prestige during play starts
    at 0, never falls, and is at most `prestige_during_play(data, max_moves)`.
    """
    members = len(data.family_numbers)
    stage_scores = (*data.score_council, *data.score_church)
    points = [t.points for t in data.customers]
    high = (
        max(data.score_travel)
        + max(data.score_chronicle)
        + members * max(0, *stage_scores)
        + sum(p for p in points if p > 0)
        + max(0, data.supply_coins * data.score_coin)
        + prestige_during_play(data, max_moves)
    )
    low = (
        min(data.score_travel)
        + min(data.score_chronicle)
        + members * min(0, *stage_scores)
        + sum(p for p in points if p < 0)
        + min(0, data.supply_coins * data.score_coin)
    )
    del players  # the per-player caps above do not depend on the number of players
    return ScoreBounds(low=low, high=high)
