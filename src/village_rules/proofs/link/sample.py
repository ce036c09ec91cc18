"""Stage: link (on `check`'s games).

The link on a deterministic sample of `check`'s fuzz games: the function `check` calls.

`check`'s fuzz batch draws random AMB readings for every game and a solo game now and then,
while the rule-content model covers each edition's default readings only (`guarded.
ContentConstants.of` refuses the rest): in the default batch of 300 games 1 is covered. So
a link "on check's games" can check a game as logged only when its readings are the
defaults; for the others it checks the same game set-up (edition, player count, setup seed)
played by the default readings with the uniform policy (`link.check_game`, seeded by the
log's seed). Either way every step of the game is checked, with the turn's path variables.
Solo games and logs of a custom data file are skipped (the model has no Carla; a custom file
has no default-readings twin here).

Checking every game costs about as much again as playing it, so `link_check_logs` checks a
fixed sample: the games grouped by edition and player count, ordered within a group by a
digest of the log (edition, players, seed and actions: the same logs give the same sample on
any machine and in any order), taken round-robin over the groups so that every edition and
player count of the batch is in it, until `games` games or `max_steps` steps (the game in
progress is checked to its end). The budget is in games and steps, never in seconds.

A sample is sound as a link check is: a step it checks lies in the model or the check fails
naming the clause and the step. The steps it leaves out are not checked; the result says
how many games were checked as logged, checked under the defaults, and skipped.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass

from village_rules.drivers.play import GameLog
from village_rules.errors import ParameterError
from village_rules.proofs.link.link import BrokenStep, check_game, check_log
from village_rules.proofs.model.guarded import ContentConstants

SAMPLE_GAMES = 14
"""Logs sampled by default: two per edition and player count of the default fuzz batch."""
SAMPLE_STEPS = 12_000
"""The most steps checked by default (a sampled game is checked to its end)."""


@dataclass(frozen=True, slots=True)
class SampleResult:
    """What `link_check_logs` checked and found."""

    logged: int
    """Games checked as logged (played by the default readings)."""
    defaults: int
    """Games checked by their set-up played under the default readings (logged with others)."""
    steps: int
    """Steps checked in all."""
    candidates: int
    """Games the sample was drawn from (2 or more players, a built-in edition)."""
    skipped: int
    """Games not sampled at all: solo, or a custom data file."""
    broken: BrokenStep | None

    @property
    def games(self) -> int:
        """Games checked."""
        return self.logged + self.defaults

    @property
    def passed(self) -> bool:
        """True when every checked step lies in the model."""
        return self.broken is None

    def __str__(self) -> str:
        head = (
            f"{self.steps} steps of {self.games} of {self.candidates} games ({self.logged} as logged, "
            f"{self.defaults} by their set-up under the default readings; {self.skipped} solo or "
            "custom-data games skipped)"
        )
        if self.broken is None:
            return f"link check passed on a sample: {head}"
        return f"link check FAILED on a sample ({head}): {self.broken}"


def model_covers(log: GameLog) -> bool:
    """Whether the rule-content model covers the log as played (its readings the defaults)."""
    try:
        ContentConstants.of(log.initial_state().rules, log.players)
    except ParameterError:
        return False
    return True


def log_digest(log: GameLog) -> str:
    """A digest of the log's game: the sample's order within its group."""
    text = "\n".join((log.edition, str(log.players), str(log.seed), *log.actions))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def sample(logs: Iterable[GameLog], games: int) -> tuple[list[GameLog], int, int]:
    """The deterministic sample: (games to check, candidates, skipped)."""
    groups: dict[tuple[str, int], list[tuple[str, GameLog]]] = {}
    skipped = 0
    for log in logs:
        if log.players < 2 or log.data_file is not None:
            skipped += 1
            continue
        groups.setdefault((log.edition, log.players), []).append((log_digest(log), log))
    ordered = [[log for _, log in sorted(g, key=lambda x: x[0])] for _, g in sorted(groups.items())]
    total = sum(len(g) for g in ordered)
    chosen: list[GameLog] = []
    depth = 0
    while len(chosen) < min(games, total):
        chosen += [g[depth] for g in ordered if depth < len(g)][: games - len(chosen)]
        depth += 1
    return chosen, total, skipped


def link_check_logs(
    logs: Iterable[GameLog], *, games: int = SAMPLE_GAMES, max_steps: int = SAMPLE_STEPS
) -> SampleResult:
    """Check the link on a deterministic sample of `logs` (the games `check` played): at
    most `games` games, round-robin over edition and player count, every step of each until
    `max_steps` steps are checked; a game with other readings is checked by its set-up
    under the default readings. `ParameterError` for a budget below 1."""
    if type(games) is not int or games < 1:
        raise ParameterError("games", f"the link's sample needs at least 1 game, not {games!r}")
    if type(max_steps) is not int or max_steps < 1:
        raise ParameterError("max_steps", f"the link's sample needs at least 1 step, not {max_steps!r}")
    chosen, total, skipped = sample(logs, games)
    logged = defaults = steps = 0
    for log in chosen:
        if steps >= max_steps:
            break
        if model_covers(log):
            n, broken = check_log(log)
            logged += 1
        else:
            n, broken = check_game(log.edition, log.players, log.seed, "uniform")
            defaults += 1
        steps += n
        if broken is not None:
            return SampleResult(logged, defaults, steps, total, skipped, broken)
    return SampleResult(logged, defaults, steps, total, skipped, None)
