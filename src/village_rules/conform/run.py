"""One `conform` run: the inputs chosen by kind and budget, run in order until the first
failure, and what is printed about it (the coverage; the failure, its step, what differs,
the rules applied there, and the replayable log)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from village_rules.conform.compare import describe
from village_rules.conform.inputs import (
    GOLDEN,
    KINDS,
    MAX_STEPS,
    SEEDED,
    STATES,
    WITNESS,
    combinations,
    golden_games,
    players_text,
    seeded_games,
    witness_games,
)
from village_rules.conform.pack import PackWriter
from village_rules.conform.protocol import ConformError, Engine
from village_rules.conform.reference import initial_state, setup_data
from village_rules.conform.runner import SHRINK_REPLAYS, Coverage, Failure, Runner
from village_rules.conform.states import CONFIGS, walk
from village_rules.drivers.play import GameLog, data_file_name
from village_rules.explore.configs import configuration
from village_rules.explore.witnesses import seed_of
from village_rules.model.actions import action_from_id, format_action
from village_rules.rules.register import READINGS, SOLO_READINGS
from village_rules.rules.variant import Variant


@dataclass(frozen=True)
class Selection:
    """What a run compares: the input kinds and their budgets (all counts)."""

    kinds: tuple[str, ...] = KINDS
    games: int = 100
    """Seeded games."""
    seed: int = 0
    max_steps: int = MAX_STEPS
    """The most steps of one seeded game."""
    golden: int | None = None
    """The first this many golden games (all when None)."""
    witnesses: int | None = None
    """The first this many stored witnesses (all when None)."""
    extra_logs: tuple[Path, ...] = ()
    configs: tuple[str, ...] = CONFIGS
    states: int | None = None
    """The first this many states of each configuration (all when None)."""
    shrink_replays: int = SHRINK_REPLAYS
    players: tuple[int, ...] | None = None
    """Only games (and configurations) of these player counts (every count when None): for
    an implementation that does not play them all yet, such as the native core without
    solo. What is left out is counted and printed, never passed over silently."""

    def check(self) -> None:
        """`ConformError` for an unknown kind or configuration, a player count no edition
        has, or a negative budget."""
        unknown = [k for k in self.kinds if k not in KINDS]
        if unknown:
            raise ConformError(f"unknown input kind {', '.join(unknown)}; the kinds are {', '.join(KINDS)}")
        if self.players is not None:
            counts = sorted({n for _, n in combinations()})
            wrong = [n for n in self.players if n not in counts]
            if wrong or not self.players:
                raise ConformError(
                    f"--players {players_text(self.players)}: the player counts are "
                    f"{', '.join(str(n) for n in counts)}"
                )
        for name, value in (
            ("--games", self.games),
            ("--max-steps", self.max_steps),
            ("--golden", self.golden),
            ("--witnesses", self.witnesses),
            ("--states", self.states),
            ("--shrink-replays", self.shrink_replays),
        ):
            if value is not None and value < 0:
                raise ConformError(f"{name} must be 0 or more, not {value}")


@dataclass
class Result:
    """A run's coverage and its failure (None: no difference)."""

    coverage: Coverage
    failure: Failure | None = None
    log: GameLog | None = None
    log_note: str = ""
    engine: str = ""
    pack: PackWriter | None = field(default=None)
    left_out: dict[str, int] = field(default_factory=dict)
    """Per input kind, the games (or configurations) of other player counts than
    `Selection.players` asks for: not compared."""


def run(
    impl: Engine | None,
    selection: Selection,
    *,
    pack: PackWriter | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> Result:
    """Compare `impl` with the reference over the selected inputs (only record the
    reference's side, for a pack, when `impl` is None); stops at the first failure.
    `progress(what, done, total)` is told how far each input kind got: games, or the states
    of a configuration (a long run's heartbeat says it, not only which kind it is in)."""
    selection.check()
    runner = Runner(impl, recorder=pack, shrink_replays=selection.shrink_replays)
    result = Result(runner.coverage, pack=pack)
    for kind in KINDS:
        if kind not in selection.kinds:
            continue
        wanted = selection.players
        if kind == STATES:
            for name in selection.configs:
                if wanted is not None and configuration(name).player_counts[0] not in wanted:
                    result.left_out[kind] = result.left_out.get(kind, 0) + 1
                    continue
                tick = None if progress is None else _tick(progress, f"conform: {kind} of {name}")
                if not walk(runner, name, selection.states, None if pack is None else pack.state, tick):
                    break
        else:
            if kind == SEEDED:
                games = seeded_games(selection.games, selection.seed, selection.max_steps, wanted)
            elif kind == GOLDEN:
                games = golden_games()[: selection.golden]
            else:
                games = witness_games(selection.extra_logs)[: selection.witnesses]
            if wanted is not None:
                kept = [g for g in games if g.setup.players in wanted]
                if len(kept) < len(games):
                    result.left_out[kind] = len(games) - len(kept)
                games = kept
            for done, game in enumerate(games):
                if progress is not None:
                    progress(f"conform: {kind} games", done, len(games))
                if not runner.run_game(game):
                    break
        if runner.failure is not None:
            result.failure = runner.failure
            result.log, result.log_note = failure_log(runner.failure)
            break
    return result


def _tick(progress: Callable[[str, int, int], None], what: str) -> Callable[[int, int], None]:
    return lambda done, total: progress(what, done, total)


def left_out_text(selection: Selection, result: Result) -> list[str]:
    """What `Selection.players` left out, per input kind (nothing when it left nothing out)."""
    if selection.players is None:
        return []
    counts = ", ".join(
        f"{n} {'configuration' if kind == STATES else 'game'}{'' if n == 1 else 's'} of {kind}"
        for kind, n in result.left_out.items()
    )
    return [
        f"  only {players_text(selection.players)} players (--players): "
        + (f"left out {counts} of other player counts" if counts else "nothing left out")
    ]


def failure_log(failure: Failure) -> tuple[GameLog | None, str]:
    """The failing game as a replayable log, or None and why not (a game set up from a deal
    for which no seed up to `explore.witnesses.MAX_SEED_SEARCH` gives the same set-up)."""
    setup = failure.setup
    data = setup_data(setup)
    variant = Variant(setup.starting_compensation, setup.readings)
    seed = setup.seed
    if seed is None:
        seed = seed_of(data, setup.players, initial_state(setup), variant)
        if seed is None:
            return None, "no log: no seed sets up this game's deal (it starts from an explicit set-up deal)"
    texts = tuple(format_action(action_from_id(data, i)) for i in failure.actions)
    data_file = None if setup.data_file is None else data_file_name(Path(setup.data_file))
    log = GameLog(
        data.edition,
        setup.players,
        seed,
        texts,
        variant,
        data_file=data_file,
        data_fingerprint=data.fingerprint,
    )
    return log, ""


def coverage_text(c: Coverage) -> list[str]:
    """What was compared, per input kind."""
    lines = []
    for kind in (SEEDED, GOLDEN, WITNESS):
        if c.games[kind]:
            lines.append(f"  {kind:<10} {c.games[kind]:>7,} games {c.steps[kind]:>10,} steps")
    if c.combinations:
        combos = combinations()
        letters = {(r.amb, x) for r in READINGS for x in r.letter_names}
        solo = {(a, x) for a, x in letters if a in SOLO_READINGS}
        lines.append(
            f"             editions and player counts: {len(c.combinations)} of {len(combos)}; "
            f"readings chosen: {len(c.readings & letters)} of {len(letters)} letters "
            f"({len(c.readings & solo)} of {len(solo)} solo)"
        )
    for name in c.states:
        lines.append(f"  {STATES:<10} {name:<7} {c.states[name]:>7,} states {c.edges[name]:>9,} edges")
    total_games = sum(c.games.values())
    total_steps = sum(c.steps.values()) + sum(c.edges.values())
    lines.append(
        f"  total      {total_games:>7,} games, {sum(c.states.values()):,} states, "
        f"{total_steps:,} steps compared"
    )
    return lines


def failure_text(failure: Failure) -> list[str]:
    """The failure in words: the input, the step, what differs, the rules applied there."""
    data = setup_data(failure.setup)
    lines = [
        f"DIFFERENCE in {failure.kind} input {failure.name} ({failure.setup.describe()})",
        f"  {failure.difference.kind}: {failure.difference.detail}",
    ]
    if failure.step == 0:
        lines.append("  at step 0: right after the set-up, before any action")
    else:
        last = describe(data, failure.actions[-1])
        lines.append(f"  at step {failure.step}: after action {failure.step}, {last}")
    if failure.found_at != failure.step:
        lines.append(
            f"  shrunk from step {failure.found_at} to {failure.step} "
            f"({failure.replays} replays, ddmin over the decisions)"
        )
    elif failure.note:
        lines.append(f"  {failure.note}")
    if failure.rules:
        lines.append(f"  rules the reference applied on that action: {', '.join(failure.rules)}")
    elif failure.step == 0:
        lines.append("  rules the reference applied: the set-up (SET-*)")
    return lines


def log_actions(failure: Failure) -> Sequence[str]:
    """The failing game's actions as text (for tests and reports)."""
    data = setup_data(failure.setup)
    return [format_action(action_from_id(data, i)) for i in failure.actions]
