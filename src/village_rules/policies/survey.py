"""What play looks like under a policy: seeded games played by it, and their figures (how
games end, game length, scores per seat and category, the rule IDs fired). The benchmark
`benchmarks/bench_policies.py` prints them per policy; the match figures (`match`) compare
one policy against another seat by seat."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from village_rules.drivers.play import EndlessGameError, GameLog, Policy, game_bound
from village_rules.engine.core import apply, chance_outcomes, legal_actions
from village_rules.engine.end_of_game import ended_by
from village_rules.engine.scoring import score_breakdown, winners
from village_rules.engine.setup import new_game
from village_rules.model.actions import Action, format_action
from village_rules.model.chance import sample
from village_rules.model.state import GameState

CATEGORIES: tuple[str, ...] = (
    "during_play", "travel", "council_chamber", "church", "chronicle", "customers", "coins",
)


@dataclass(frozen=True, slots=True)
class Played:
    """One seeded game: its final state, its length in actions, the rule IDs it fired."""

    final: GameState
    actions: int
    rules: Counter[str]


def play_traced(edition: str, players: int, seed: int, seats: Sequence[Policy]) -> Played:
    """A seeded game played by `seats` (chance sampled from the seed's RNG), traced."""
    state = new_game(edition, players, seed=seed)
    rng = random.Random(seed)
    rules: Counter[str] = Counter()
    trace: list[str] = []
    actions: list[Action] = []
    bound = game_bound(None)
    while not state.is_terminal:
        if len(actions) >= bound:  # reported with its log, not played for ever
            log = GameLog(edition, players, seed, tuple(format_action(a) for a in actions))
            raise EndlessGameError(bound, actions, log)
        if state.is_chance:
            action = sample(chance_outcomes(state), rng)
        else:
            action = seats[state.current_player()](state, legal_actions(state), rng)
        trace.clear()
        state = apply(state, action, trace=trace)
        rules.update(trace)
        actions.append(action)
    return Played(state, len(actions), rules)


@dataclass
class Survey:
    """Figures of games played by one policy in every seat."""

    games: int = 0
    ends: Counter[str] = field(default_factory=Counter)
    actions: int = 0
    per_seat: dict[int, Counter[str]] = field(default_factory=dict)
    """Seat -> category -> summed points (and "total")."""
    rules: Counter[str] = field(default_factory=Counter)

    def add(self, played: Played) -> None:
        """Count one game in."""
        self.games += 1
        self.ends[ended_by(played.final)] += 1
        self.actions += played.actions
        self.rules.update(played.rules)
        for b in score_breakdown(played.final):
            seat = self.per_seat.setdefault(b.seat, Counter())
            for name in CATEGORIES:
                seat[name] += getattr(b, name)
            seat["total"] += b.total

    def share_ending(self, word: str) -> float:
        """The share of games whose end names `word` ("chronicle", "graveyard")."""
        return sum(n for end, n in self.ends.items() if word in end) / max(1, self.games)

    def mean(self, *categories: str) -> float:
        """The mean over games and seats of the summed `categories`."""
        seats = len(self.per_seat)
        total = sum(c[name] for c in self.per_seat.values() for name in categories)
        return total / max(1, self.games * seats)


def survey(make: Callable[[], Policy], edition: str, players: int, seeds: Sequence[int]) -> Survey:
    """Play one game per seed with a fresh instance of the policy in every seat."""
    out = Survey()
    for seed in seeds:
        policy = make()
        out.add(play_traced(edition, players, seed, [policy] * players))
    return out


@dataclass
class Match:
    """How often `policy` beat `opponent` (seats alternating), and its games' length."""

    games: int = 0
    wins: int = 0
    ties: int = 0

    @property
    def win_share(self) -> float:
        """Wins over games (a shared win, a full tie, is not a win)."""
        return self.wins / max(1, self.games)


def match(make: Callable[[], Policy], opponent: Callable[[], Policy], edition: str,
          seeds: Sequence[int]) -> tuple[Match, list[Policy]]:
    """2-player games, one per seed, the policy first on even seeds and second on odd ones;
    returns the figures and the policy instances (to read their counters)."""
    out = Match()
    made = []
    for seed in seeds:
        mine, theirs = make(), opponent()
        made.append(mine)
        seat = seed % 2
        seats = [mine, theirs] if seat == 0 else [theirs, mine]
        best = winners(play_traced(edition, 2, seed, seats).final)  # with the tie-breakers
        out.games += 1
        if best == (seat,):
            out.wins += 1
        elif seat in best:
            out.ties += 1
    return out, made
