"""Steered games: stored fuzz-game plans that reach a rule too rare for `check`'s batch.

A few rules fire in about 1 of 5,000-10,000 games whatever the policy (a solo game in which
all of Carla's "1"s and "2"s die first; a second death owed at once under two non-default
readings). Rather than play thousands more games, `check` plays each of these games too,
with every invariant checked and the game played again unchecked (same digest). A
steered game is named by what fixes it (run seed, game index, the run's fixed player count
and readings), so it is the fuzz game `fuzz --seed S --players P --reading ...` plays at
that index; `python scripts/find_steered.py RULE ...` searches for one. If an engine change
makes a stored game miss its rule, `tests/fuzz/test_steered.py` fails, naming it.
"""

from __future__ import annotations

from dataclasses import dataclass

from village_rules.fuzz.games import FuzzGame, plan_game
from village_rules.rule_ids import RuleId


@dataclass(frozen=True, slots=True)
class Steered:
    """A stored game plan and the rule it is kept for."""

    rule: str
    seed: int
    index: int
    players: int | None = None
    readings: tuple[tuple[str, str], ...] | None = None
    why: str = ""
    """What the rule needs, which the game reaches."""

    def plan(self) -> FuzzGame:
        """The game: game `index` of a random fuzz run with these fixed options."""
        return plan_game(self.seed, self.index, None, self.players, self.readings)

    def describe(self) -> str:
        """The fuzz command whose run plays this game, and the game's index in it."""
        options = f"--seed {self.seed}"
        if self.players is not None:
            options += f" --players {self.players}"
        options += "".join(f" --reading {amb}={letter}" for amb, letter in self.readings or ())
        return f"{self.rule}: game {self.index} of `fuzz {options}` ({self.why})"


STEERED: tuple[Steered, ...] = (
    Steered(
        RuleId.SOLO_23,
        0,
        801,
        players=1,
        why="all 7 of Carla's \"1\"s and \"2\"s die before her church members (2023 p. 18)",
    ),
    Steered(
        RuleId.DEATH_08,
        2,
        27,
        readings=(("AMB-08", "b"), ("AMB-23", "b")),
        why="AMB-23 b keeps a death owed, and a second quill pass meets the AMB-08 b cap",
    ),
)
"""The steered games `check` plays, each the first hit of `scripts/find_steered.py` (SOLO-23:
seed 0, solo games 0-801; DEATH-08: seed 2 with both readings fixed, games 0-27, found
again in issue 43: game 114 no longer fires it under AMB-46 a)."""
