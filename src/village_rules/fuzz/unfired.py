"""Why a rule ID went unfired in a fuzz run: every traced rule ID a run never fired gets a
reason, so a rule that silently stops being reached shows as "no reason known".

The reasons, in the order they are looked for:
- the run's games cannot fire it: a solo rule (SOLO-*) in a run with no solo game, or a
  rule of one reading (`READING_RULES`, from the rule's row in specs/rules.md) in a run
  where no game plays that reading (drawn, or the edition's default);
- it is known not to be reached by any search so far (`NOT_REACHED`, with the evidence);
- the run is smaller than the default check run (for the rare rules of `RARE`: what a
  game needs to fire it, and how rarely random games do);
- otherwise "no reason known": a coverage gap to look into (a slow test of
  `tests/fuzz/test_unfired.py` fails on one in the default `check` run).
"""

from __future__ import annotations

from collections.abc import Iterable

from village_rules.fuzz.games import FuzzGame, plan_game
from village_rules.fuzz.runner import FuzzSummary
from village_rules.rule_ids import RuleId
from village_rules.rules.register import READINGS

READING_RULES: dict[str, tuple[str, tuple[str, ...]]] = {
    RuleId.TURN_04: ("AMB-03", ("b",)),
    RuleId.DEATH_07: ("AMB-23", ("b",)),
    RuleId.DEATH_08: ("AMB-08", ("b",)),
    RuleId.DEATH_09: ("AMB-46", ("b",)),
    RuleId.CRAFT_05: ("AMB-26", ("b",)),
    RuleId.MKT_08: ("AMB-34", ("b",)),
    RuleId.MKT_09: ("AMB-06", ("c",)),
    RuleId.MKT_10: ("AMB-06", ("b",)),
    RuleId.TRV_06: ("AMB-19", ("b",)),
    RuleId.TRV_08: ("AMB-19", ("c",)),
    RuleId.TRV_07: ("AMB-17", ("b",)),
    RuleId.MASS_06: ("AMB-16", ("b",)),
    RuleId.MASS_07: ("AMB-15", ("b",)),
    RuleId.END_07: ("AMB-09", ("b", "c")),
    RuleId.END_08: ("AMB-33", ("b",)),
    RuleId.END_09: ("AMB-33", ("c",)),
    RuleId.END_10: ("AMB-44", ("b",)),
    RuleId.END_11: ("AMB-45", ("b",)),
    RuleId.SOLO_31: ("AMB-43", ("b",)),
}
"""The rules that fire under some readings of an ambiguity only (specs/rules.md: the rows
whose rule text opens with "AMB-nn x" or "AMB-nn x / y")."""

NOT_REACHED: dict[str, str] = {
    RuleId.END_10: (
        "AMB-44 b needs the chronicle and the graveyard both filled during one market day "
        "(2023 p. 13 'Special case'), which no random, policy or steered fuzz game has reached; "
        "a planned game that does (readings/last_spaces.py) is the stored AMB-44 divergence "
        "witness, and the readings step below fires END-10 when it replays it under b"
    ),
}
"""Rules no fuzz game has reached so far, with the evidence and where else `check` fires
them (a reason, not a proof: the test of the default run fails if a rule listed here fires
in the batch, and the entry must then go)."""

RARE: dict[str, str] = {
    RuleId.CNC_08: (
        "a member on the council chamber's 4th stage and a coin at the privilege step "
        "(the climber reaches it)"
    ),
    RuleId.DEATH_08: (
        "AMB-08 b with a second death owed at once: only with AMB-23 b too (a death kept owed), "
        "2 in 10,000 random games"
    ),
    RuleId.SOLO_23: (
        "a solo game in which all 7 of Carla's \"1\"s and \"2\"s die first: 1 in 10,000 random games"
    ),
}
"""Rules that fire in the default check run but not in every small one: what they need."""

UNKNOWN = "no reason known: a coverage gap to look into"


def planned_games(summary: FuzzSummary) -> list[FuzzGame]:
    """The plans of the games a run played (edition, players, readings, policy)."""
    return [
        plan_game(summary.seed, i, summary.edition, summary.players, summary.readings, summary.policy)
        for i in summary.game_indices
    ]


def reading_in_effect(game: FuzzGame, amb: str) -> str:
    """The letter of `amb` a planned game plays: drawn for it, or its edition's default."""
    drawn = dict(game.variant.readings)
    if amb in drawn:
        return drawn[amb]
    entry = next(r for r in READINGS if r.amb == amb)
    return entry.default(game.edition)


def why_unfired(rules: Iterable[str], games: list[FuzzGame], default_games: int) -> dict[str, str]:
    """A reason for each rule of `rules` (never fired by `games`), by the order above;
    `default_games` is the size of the default check run (smaller runs may miss rare rules)."""
    solo = any(g.players == 1 for g in games)
    out: dict[str, str] = {}
    for rule in rules:
        reading = READING_RULES.get(rule)
        if rule.startswith("SOLO-") and not solo:
            out[rule] = "only solo games (big-box-2023, 1 player) fire it, and the run has none"
        elif reading is not None and not any(reading_in_effect(g, reading[0]) in reading[1] for g in games):
            letters = " or ".join(reading[1])
            out[rule] = f"fires only under {reading[0]} {letters}, which no game of the run plays"
        elif rule in NOT_REACHED:
            out[rule] = NOT_REACHED[rule]
        elif len(games) < default_games:
            need = f"rare: needs {RARE[rule]}; " if rule in RARE else ""
            out[rule] = f"{need}not reached in a run of {len(games)} games (check plays {default_games})"
        else:
            out[rule] = UNKNOWN
    return out


def summary_reasons(summary: FuzzSummary, default_games: int) -> dict[str, str]:
    """`why_unfired` for every rule ID a run never fired."""
    return why_unfired(summary.rules_never_fired, planned_games(summary), default_games)


def grouped(reasons: dict[str, str]) -> list[tuple[tuple[str, ...], str]]:
    """The rules of `reasons` gathered by reason, in the order the reasons first appear."""
    by_reason: dict[str, list[str]] = {}
    for rule, why in reasons.items():
        by_reason.setdefault(why, []).append(rule)
    return [(tuple(rules), why) for why, rules in by_reason.items()]
