"""`village-rules check`: the library's verification, run as a list of independent steps.

A step is anything with a `name` and a `run(context) -> StepResult` (the `CheckStep`
protocol). `run_check` runs the steps in order, each on its own (a failing step does not
stop the next), and the verdict is PASS only if every step passed. The HTML report
(`village_rules.check.report`) draws every result; a `FuzzResult` also carries per-game figures
for the plots.

Steps today:
- `FuzzStep`: seeded random games of both editions with every state and transition
  invariant checked after every action (`village_rules.fuzz.runner.run_fuzz`), then every game
  played again without the checks, which must give the same game bit for bit (same
  digest), and the per-game figures (length, how it ended, scores) for the report; with
  `guided_actions`, also a coverage-guided and a uniform campaign of that many actions
  (`check.modes`), for the report's coverage comparison.
- `LogsStep`: logged games (`village-rules play --log`) replayed with every invariant
  checked (`village-rules report LOG...`).

- `ProofsStep`: the stored verdicts of the z3 proof catalogue (`village-rules prove
  --out proofs/witnesses`): every witness replayed on the engine to its query's situation,
  every unreachability proof re-proved (`village_rules.proofs.table.stored`).

- `DivergenceStep`: the stored divergence witnesses of the ambiguity register
  (`village-rules diverge --write src/village_rules/readings/witnesses`): each replayed under both readings,
  which must still part at the stored action in the stored way.

More verification plugs in at `default_steps()` below: one more `CheckStep` returning a
`StepResult` whose `findings` list each verdict or witness with its log and picture.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import signal
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol

from village_rules.check.modes import GUIDED_PER_GAME, ModeComparison, compare_modes
from village_rules.check.stories import story_of_file
from village_rules.checks.invariants import STATE_INVARIANTS, TRANSITION_INVARIANTS, replay_checked
from village_rules.data.files import write_text
from village_rules.data.jsonio import MAX_LOG_CHARS, JsonInputError, read_text_file
from village_rules.data.text import natural_key
from village_rules.drivers.play import GameLog
from village_rules.drivers.serialization import to_json
from village_rules.engine.core import apply
from village_rules.engine.end_of_game import ended_by
from village_rules.engine.scoring import score_breakdown, winners
from village_rules.errors import InternalError, LogFormatError, VillageError
from village_rules.fuzz.engines import NATIVE
from village_rules.fuzz.games import MIX, MIX_CYCLE, plan_game, play_game, play_unchecked
from village_rules.fuzz.guided import MODES, Coverage, run_coverage
from village_rules.fuzz.runner import FuzzSummary, run_fuzz
from village_rules.fuzz.steered import STEERED, Steered
from village_rules.fuzz.unfired import grouped, planned_games, why_unfired
from village_rules.model.actions import Action, parse_action
from village_rules.model.state import GameState
from village_rules.pictures.svg import actor_of, state_svg
from village_rules.pictures.viewer import viewer_html
from village_rules.proofs.link.sample import link_check_logs
from village_rules.proofs.table.stored import WITNESSES as PROOF_WITNESSES
from village_rules.proofs.table.stored import check_stored, witness_files
from village_rules.readings.divergence import replay_both
from village_rules.readings.stored import WITNESSES as DIVERGENCE_WITNESSES
from village_rules.readings.stored import read_witness

DEFAULT_GAMES = 300
"""Games `check` plays by default, chosen so that the checked play and the second,
unchecked play of every game take about a minute on 2 idle cores."""


@dataclass(frozen=True, slots=True)
class CheckContext:
    """What every step gets: where to write files, and the common knobs."""

    out_dir: Path
    """The report directory; steps write logs and pictures below it."""
    seed: int = 0
    workers: int = 1
    progress: Callable[[str, int, int], None] | None = None
    """Called with (step name, done, total) as a step advances."""
    shown_dir: Path | None = None
    """Where `out_dir` will be once the run is over (the report is assembled aside and
    swapped in): paths shown to people are given there."""

    def shown(self, path: Path) -> Path:
        """`path` (below `out_dir`) as it will be found once the report is in place."""
        if self.shown_dir is None or not path.is_relative_to(self.out_dir):
            return path
        return self.shown_dir / path.relative_to(self.out_dir)


@dataclass(frozen=True, slots=True)
class Finding:
    """One item a step wants shown with its evidence: a failing game, a proof verdict, a
    divergence witness. Paths are relative to the report directory."""

    title: str
    verdict: str
    detail: str = ""
    log: str | None = None
    picture: str | None = None
    viewer: str | None = None
    """A step-through page of the witness (`village_rules.pictures.viewer`), its last steps."""


@dataclass(frozen=True, slots=True)
class StepResult:
    """The outcome of one step: a verdict, one headline line, a few detail lines."""

    name: str
    passed: bool
    headline: str
    details: tuple[str, ...] = ()
    findings: tuple[Finding, ...] = ()
    seconds: float = 0.0


class CheckStep(Protocol):
    """One independent piece of verification."""

    @property
    def name(self) -> str:
        """The step's name, as the report shows it."""

    def run(self, context: CheckContext) -> StepResult:
        """Run the step and return its result (a failure is a result, not an exception)."""


# --- per-game figures ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GameStats:
    """What the report plots about one game."""

    label: str
    edition: str
    players: int
    seed: int
    actions: int
    rounds: int
    ended_by: str
    """"chronicle", "graveyard", "chronicle and graveyard", or "not ended"."""
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    policy: str = "random"
    """The policy every seat played by (`fuzz.games.MIX_CYCLE` in a mixed run)."""
    rules: frozenset[str] = frozenset()
    """The rule IDs the game fired (empty for a logged game: not traced)."""
    pairs: frozenset[tuple[str, str]] = frozenset()
    """The rule-ID pairs it fired (consecutive IDs of its trace)."""


def game_stats(
    label: str,
    log: GameLog,
    final: GameState,
    policy: str = "random",
    traced: tuple[frozenset[str], frozenset[tuple[str, str]]] = (frozenset(), frozenset()),
) -> GameStats:
    """The figures of one replayed game (length, rounds, scores; its policy and the rule
    IDs and pairs it fired when traced) for the report."""
    return GameStats(
        label=label,
        edition=log.edition,
        players=log.players,
        seed=log.seed,
        actions=len(log.actions),
        rounds=final.round,
        ended_by=ended_by(final),
        # Solo: the player's score only (Carla scores nothing, SOLO-03).
        scores=tuple(b.total for b in score_breakdown(final) if not final.is_carla(b.seat))
        if final.is_terminal
        else (),
        winners=winners(final) if final.is_terminal else (),
        policy=policy,
        rules=traced[0],
        pairs=traced[1],
    )


def game_digest(log: GameLog, final: GameState) -> str:
    """The fuzzer's digest of a game: SHA-256 of its log and its final state."""
    return hashlib.sha256((log.to_json() + "\n" + to_json(final)).encode()).hexdigest()


def _unchecked_game(seed: int, index: int, policy: str = MIX) -> tuple[GameStats, str, str]:
    """Game `index` of a fuzz run played again without invariant checks (the same game,
    as `village_rules.fuzz.runner` documents): its figures, digest and log."""
    g = plan_game(seed, index, policy=policy)
    u = play_unchecked(g)
    st = game_stats(f"game {index}", u.log, u.final, g.policy, (u.rules, u.pairs))
    return st, game_digest(u.log, u.final), u.log.to_json()


# --- the fuzz step ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FuzzResult(StepResult):
    """A `StepResult` with what the report plots."""

    summary: FuzzSummary | None = None
    """The batch's summary, its rule counts with the steered games' added."""
    games: tuple[GameStats, ...] = ()
    steered: tuple[GameStats, ...] = ()
    """The steered games' figures (`fuzz.steered`), apart from the batch's."""
    modes: ModeComparison | None = None
    """The guided-against-uniform comparison (`check.modes`), when the step played one."""
    state_invariants: int = len(STATE_INVARIANTS)
    transition_invariants: int = len(TRANSITION_INVARIANTS)


@dataclass(frozen=True, slots=True)
class FuzzStep:
    """Seeded games of both editions by a mix of policies (`fuzz.games.MIX_CYCLE`), every
    invariant checked after every action; every rule ID never fired is named with a reason
    (`fuzz.unfired`)."""

    games: int = DEFAULT_GAMES
    policy: str = MIX
    """What the seats play by: `MIX` (the default: `fuzz.games.MIX_CYCLE`, game by game)
    or one policy of `village_rules.policies.POLICIES` for every game."""
    samples: int = 2
    """Games whose log and final picture are written to the report (the first of each edition)."""
    steered: tuple[Steered, ...] = STEERED
    """Stored games played too, for rules too rare for the batch (`fuzz.steered`)."""
    guided_actions: int = 0
    """The budget of the guided-against-uniform comparison (`check.modes`): a coverage-guided
    and a uniform campaign of `fuzz.guided` of this many actions each, every invariant
    checked; 0 plays none (`village-rules check` plays `GUIDED_PER_GAME` per game)."""
    engine: str | None = None
    """The engine the checked games are played on (`fuzz.engines`; None: the native core where
    it is built). Every passing game is then played again on the reference, unchecked."""
    name: str = "fuzz"

    def run(self, context: CheckContext) -> FuzzResult:
        """Play the fuzz games, replay each, and collect their figures and findings."""
        start = time.perf_counter()
        out = context.out_dir

        def fuzz_progress(done: int, total: int) -> None:
            if context.progress is not None:
                context.progress("fuzz games (checked)", done, total)

        summary = run_fuzz(
            self.games,
            context.seed,
            context.workers,
            None,
            None,
            out / "failures",
            fuzz_progress,
            policy=self.policy,
            engine=self.engine,
        )
        findings: list[Finding] = []
        if summary.failure is not None:
            findings.append(_failure_finding(summary, out))
        # Play every passing game again without checks: the same digest, or non-determinism.
        native = summary.engine == NATIVE
        passing = summary.games - (1 if summary.failure is not None else 0)
        stats: list[GameStats] = []
        mismatched: list[int] = []
        logs: dict[int, str] = {}
        for index, (st, digest, log_json) in enumerate(
            _map_games(context.seed, passing, context.workers, context.progress, self.policy)
        ):
            stats.append(st)
            if digest != summary.game_digests[index]:
                mismatched.append(index)
            logs[index] = log_json
        for index in mismatched[:3]:
            findings.append(
                Finding(
                    f"game {index}",
                    "FAIL: not reproducible"
                    + (": the native core and the reference differ" if native else ""),
                    "played again without checks on the reference, the game differs from the one checked "
                    f"on the {summary.engine} engine",
                    log=_write(out, f"games/game-{index}.json", logs[index]),
                )
            )
        findings += _samples(stats, logs, out, self.samples)
        steered, steered_counts, steered_failed = _play_steered(self.steered, out, findings)
        # The rule-content model's link (issue 23) on a deterministic sample of these games:
        # every step of each sampled game must lie in the model, or its proofs are not printed.
        link = link_check_logs(GameLog.from_json(text) for text in logs.values())
        modes = self._modes(context, findings)
        modes_failed = modes is not None and any(r.violations for r in modes.runs)
        merged = Counter(dict(summary.rule_counts)) + steered_counts
        summary = replace(summary, rule_counts=tuple(sorted(merged.items())))
        editions = Counter(s.edition for s in stats)
        policies = Counter(s.policy for s in stats)
        clean = summary.failure is None and not mismatched and not steered_failed
        passed = clean and link.passed and not modes_failed
        violations = summary.violations + len(mismatched)
        per_edition = ", ".join(f"{k} {e}" for e, k in sorted(editions.items()))
        by_policy = ", ".join(f"{policies[p]} {p}" for p in dict.fromkeys(MIX_CYCLE) if p in policies)
        by_policy += "".join(f", {k} {p}" for p, k in sorted(policies.items()) if p not in MIX_CYCLE)
        headline = (
            f"{summary.games} seeded games ({per_edition or 'none'}; by policy: {by_policy or 'none'}), "
            f"{summary.steps:,} actions"
            + (f"; and {len(self.steered)} steered games" if self.steered else "")
        )
        fired = len(summary.rule_counts)
        known = len({*summary.known_rule_ids, *summary.rules_fired})
        played = planned_games(summary) + [g.plan() for g in self.steered]
        reasons = why_unfired(summary.rules_never_fired, played, DEFAULT_GAMES)
        details = [
            f"{len(STATE_INVARIANTS)} state + {len(TRANSITION_INVARIANTS)} transition invariants "
            f"checked after every action, on the {summary.engine} engine: {violations} violation(s)",
            f"rule IDs fired: {fired} of {known}",
            *(f"  never fired: {', '.join(rules)}: {why}" for rules, why in grouped(reasons)),
            "replayed without checks on the reference"
            + (" (so the native core and the reference played the same games)" if native else "")
            + ": "
            + ("every game identical" if not mismatched else f"{len(mismatched)} game(s) differ"),
            *(f"steered game {g.describe()}" for g in self.steered),
            *steered_failed,
            f"rule-content link (the z3 model's steps): {link}",
        ]
        if modes is not None:
            found = sum(len(r.violations) for r in modes.runs)
            details.append(
                f"guided against uniform fuzzing, {modes.budget:,} actions each, every invariant checked "
                f"({found} violation(s)): {modes.sentence}"
            )
        if summary.failure is not None:
            f = summary.failure
            details.append(f"FAILED game {f.game.index} after {f.actions} actions: {f.violations[0]}")
            details.append(f"replayable log: {context.shown(f.log_path)}")
        return FuzzResult(
            name=self.name,
            passed=passed,
            headline=headline,
            details=tuple(details),
            findings=tuple(findings),
            seconds=time.perf_counter() - start,
            summary=summary,
            games=tuple(stats),
            steered=tuple(steered),
            modes=modes,
        )

    def _modes(self, context: CheckContext, findings: list[Finding]) -> ModeComparison | None:
        """Play the guided and the uniform campaign (side by side on 2 or more workers) and
        compare them; a campaign that broke an invariant is a finding with its log."""
        if self.guided_actions < 1:
            return None
        step = "guided vs uniform campaigns"
        if context.progress is not None:
            context.progress(step, 0, len(MODES))
        budgets = [self.guided_actions] * len(MODES)
        seeds = [context.seed] * len(MODES)
        if context.workers == 1:
            played = list(map(run_coverage, MODES, seeds, budgets))
        else:
            with ProcessPoolExecutor(min(context.workers, len(MODES)), initializer=_ignore_sigint) as pool:
                played = list(pool.map(run_coverage, MODES, seeds, budgets))
        if context.progress is not None:
            context.progress(step, len(MODES), len(MODES))
        coverage: dict[str, Coverage] = dict(zip(MODES, played, strict=True))
        modes = compare_modes(context.seed, self.guided_actions, coverage)
        for r in modes.runs:
            if r.violations:
                log = r.failing_log and _write(context.out_dir, f"failures/{r.mode}.json", r.failing_log)
                detail = "; ".join(str(v) for v in r.violations[:3])
                findings.append(Finding(f"{r.mode} fuzzing (seed {context.seed})", "FAIL", detail, log=log))
        return modes


def _play_steered(
    games: tuple[Steered, ...], out: Path, findings: list[Finding]
) -> tuple[list[GameStats], Counter[str], list[str]]:
    """Play each steered game checked, then unchecked (the same digest): their figures,
    the rule IDs they fired, and a FAIL line for each that broke an invariant, was not
    reproducible, or no longer fires its rule (each also a finding with its log)."""
    stats: list[GameStats] = []
    counts: Counter[str] = Counter()
    failed: list[str] = []
    for k, s in enumerate(games):
        plan = s.plan()
        checked = play_game(plan)
        u = play_unchecked(plan)
        problem = None
        if checked.failed:
            problem = f"breaks an invariant: {checked.violations[0]}"
        elif game_digest(u.log, u.final) != checked.digest:
            problem = "played again without checks, the game differs from the checked one"
        elif s.rule not in u.rules:
            problem = f"no longer fires {s.rule}: find another (scripts/find_steered.py)"
        counts.update(dict(checked.rule_counts))
        stats.append(game_stats(f"steered {s.rule}", u.log, u.final, "steered", (u.rules, u.pairs)))
        if problem is not None:
            failed.append(f"FAILED steered game {s.describe()}: {problem}")
            log = _write(out, f"steered/{k}-{s.rule}.json", checked.log_json or u.log.to_json())
            findings.append(Finding(f"steered game for {s.rule}", "FAIL", problem, log=log))
    return stats, counts, failed


def _map_games(
    seed: int,
    games: int,
    workers: int,
    progress: Callable[[str, int, int], None] | None,
    policy: str = MIX,
) -> list[tuple[GameStats, str, str]]:
    results: list[tuple[GameStats, str, str]] = []
    if workers == 1:
        for i in range(games):
            results.append(_unchecked_game(seed, i, policy))
            if progress is not None:
                progress("fuzz games (replayed)", i + 1, games)
        return results
    pool = ProcessPoolExecutor(max_workers=workers, initializer=_ignore_sigint)
    try:
        chunk = max(1, games // (workers * 4))
        mapped = pool.map(_unchecked_game, [seed] * games, range(games), [policy] * games, chunksize=chunk)
        for i, r in enumerate(mapped):
            results.append(r)
            if progress is not None:
                progress("fuzz games (replayed)", i + 1, games)
    finally:  # on Ctrl-C or SIGTERM: the queued games are dropped, the workers end
        pool.shutdown(wait=True, cancel_futures=True)
    return results


def _ignore_sigint() -> None:
    """Pool workers leave Ctrl-C to the parent (a terminal sends it to the whole group)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _evidence(out: Path, folder: str, source: Path, picture: str) -> tuple[str | None, str | None]:
    """A stored log copied into the report's `folder`, and a picture of the last state it
    reaches; (None, None) for a log that cannot be read (its check fails and says why)."""
    try:
        text = read_log_text(source)
        state, last, actor = last_good_state(GameLog.from_json(text, source=str(source)))
    except VillageError:
        return None, None
    log = _write(out, f"{folder}/{source.name}", text)
    return log, _write(out, f"{folder}/{picture}", state_svg(state, last, actor))


VIEWER_STEPS = 8
"""The report's viewer pages draw the last this many actions up to the witness's step
(`village-rules view LOG` draws them all): a page per witness stays small and quick."""


def _viewer(out: Path, folder: str, source: Path) -> str | None:
    """A step-through page of a stored witness in the report's `folder`, or None for a
    witness that cannot be told (its check fails and says why)."""
    try:
        story = story_of_file(source, window=VIEWER_STEPS)
    except VillageError:
        return None
    return _write(out, f"{folder}/{source.stem}.html", viewer_html(story))


def _write(out: Path, relative: str, text: str) -> str:
    write_text(out / relative, text)
    return relative


def _samples(stats: list[GameStats], logs: dict[int, str], out: Path, count: int) -> list[Finding]:
    """The log and the final picture of the first game of each edition (up to `count`)."""
    chosen: dict[str, int] = {}
    for index, st in enumerate(stats):
        if st.edition not in chosen and len(chosen) < count:
            chosen[st.edition] = index
    findings = []
    for edition, index in sorted(chosen.items()):
        log = GameLog.from_json(logs[index])
        final, last, actor = last_good_state(log)
        st = stats[index]
        findings.append(
            Finding(
                f"sample game {index} ({edition}, {st.players} players)",
                "passed",
                f"{st.actions} actions, ended by the {st.ended_by}; scores {list(st.scores)}",
                log=_write(out, f"games/game-{index}.json", logs[index]),
                picture=_write(out, f"games/game-{index}.svg", state_svg(final, last, actor)),
            )
        )
    return findings


def _failure_finding(summary: FuzzSummary, out: Path) -> Finding:
    """The failing game: its log (already written by the fuzzer, copied here) and a picture
    of the last state reached before the first violation."""
    f = summary.failure
    if f is None:
        raise InternalError("check._failure_finding", "the fuzz summary has no failure")
    text = read_log_text(f.log_path)
    log = GameLog.from_json(text, source=str(f.log_path))
    state, last, actor = last_good_state(log)
    return Finding(
        f"game {f.game.index} ({f.game.edition}, {f.game.players} players, seed {f.game.seed})",
        "FAIL",
        "; ".join(str(v) for v in f.violations[:3]),
        log=_write(out, f"failures/game-{f.game.index}.json", text),
        picture=_write(out, f"failures/game-{f.game.index}.svg", state_svg(state, last, actor)),
    )


def last_good_state(log: GameLog) -> tuple[GameState, Action | None, int | None]:
    """The state after the longest prefix of the log that applies, its last action, and
    the seat that took it (None for a chance outcome or an empty prefix)."""
    state = log.initial_state()
    last: Action | None = None
    actor: int | None = None
    for text in log.actions:
        try:
            action = parse_action(text)
            after = apply(state, action)
        except Exception:  # a failure log may end in an engine crash: stop before it
            break
        last, actor, state = action, actor_of(state), after
    return state, last, actor


# --- logged games -------------------------------------------------------------------------


def read_log(path: Path) -> GameLog:
    """A game log file, read no further than `MAX_LOG_CHARS` bytes; raises `LogFormatError`
    naming the file and the field at fault."""
    return GameLog.from_json(read_log_text(path), source=str(path))


def read_log_text(path: Path) -> str:
    """The text of a game log file, read no further than `MAX_LOG_CHARS` bytes; raises
    `LogFormatError` naming the file."""
    try:
        return read_text_file(path, MAX_LOG_CHARS, "game log")
    except JsonInputError as exc:
        raise LogFormatError(f"{path}: {exc.problem}") from None
    except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the path
        raise LogFormatError(f"{path}: cannot be read: {getattr(exc, 'strerror', None) or exc}") from None


@dataclass(frozen=True, slots=True)
class LogsStep:
    """Logged games replayed with every invariant checked; each gets a picture."""

    logs: tuple[Path, ...]
    name: str = "logs"

    def run(self, context: CheckContext) -> FuzzResult:
        """Replay the stored golden games and collect their figures and findings."""
        start = time.perf_counter()
        stats: list[GameStats] = []
        findings: list[Finding] = []
        failed = 0
        actions = 0
        for k, path in enumerate(self.logs):
            try:
                text = read_log_text(path)
                log = GameLog.from_json(text, source=str(path))
            except LogFormatError as exc:  # an unreadable log is a failed game, with its file named
                failed += 1
                findings.append(Finding(str(path), "FAIL", str(exc)))
                continue
            stem = f"logs/{k}-{path.stem}"
            log_rel = _write(context.out_dir, f"{stem}.json", text)
            try:
                final = replay_checked(log)
            except VillageError as exc:
                failed += 1
                picture = None
                with contextlib.suppress(VillageError):  # a log whose set-up fails has no picture
                    state, last, actor = last_good_state(log)
                    picture = _write(context.out_dir, f"{stem}.svg", state_svg(state, last, actor))
                findings.append(Finding(str(path), "FAIL", str(exc), log=log_rel, picture=picture))
                continue
            actions += len(log.actions)
            st = game_stats(str(path), log, final)
            stats.append(st)
            _, last, actor = last_good_state(log)
            picture = _write(context.out_dir, f"{stem}.svg", state_svg(final, last, actor))
            verdict = f"ended by the {st.ended_by}" if final.is_terminal else "not finished"
            findings.append(
                Finding(str(path), "passed", f"{st.actions} actions, {verdict}", log=log_rel, picture=picture)
            )
            if context.progress is not None:
                context.progress("logged games", k + 1, len(self.logs))
        return FuzzResult(
            name=self.name,
            passed=failed == 0,
            headline=(
                f"{len(self.logs)} logged game(s) replayed, {actions:,} actions, every invariant checked "
                f"after every action: {failed} failed"
            ),
            details=tuple(f"FAILED {f.title}: {f.detail}" for f in findings if f.verdict == "FAIL")[:5],
            findings=tuple(findings),
            seconds=time.perf_counter() - start,
            games=tuple(stats),
        )


# --- running the steps --------------------------------------------------------------------


# --- stored proofs ------------------------------------------------------------------------

PROOFS_DIR = PROOF_WITNESSES
"""The proof catalogue's stored verdicts, shipped with the package (`village_rules.proofs.table.stored`)."""


@dataclass(frozen=True, slots=True)
class ProofsStep:
    """Replay every stored proof witness and re-prove every stored unreachability proof."""

    directory: Path = PROOFS_DIR
    name: str = "proofs"

    def run(self, context: CheckContext) -> StepResult:
        """Recheck every stored proof witness against the real engine."""
        start = time.perf_counter()
        if not witness_files(self.directory):
            return StepResult(
                self.name,
                False,
                f"no stored witnesses in {self.directory} (the package data is missing: reinstall "
                "village-rules, or regenerate them with `village-rules prove --out DIR`)",
                seconds=time.perf_counter() - start,
            )

        # In query order ("1a" < "2" < "11"), the witnesses and the proofs of a query together.
        def files_done(done: int, total: int) -> None:
            if context.progress is not None:
                context.progress("stored proof files", done, total)

        checks = sorted(check_stored(self.directory, files_done), key=lambda c: natural_key(c.path.name))
        failed = [c for c in checks if not c.passed]
        witnesses = sum(1 for c in checks if c.kind == "witness")
        proofs = len(checks) - witnesses
        findings = []
        for c in checks:
            log = picture = viewer = None
            if c.kind == "witness":
                log, picture = _evidence(context.out_dir, "proofs", c.path, f"{c.path.stem}.svg")
                viewer = _viewer(context.out_dir, "proofs", c.path)
            verdict = "passed" if c.passed else "FAIL"
            findings.append(
                Finding(f"{c.kind} {c.path.stem}", verdict, c.detail, log=log, picture=picture, viewer=viewer)
            )
        headline = (
            f"{witnesses} reachable verdicts replayed on the engine, {proofs} unreachable verdicts "
            f"re-proved: {len(failed)} failed"
        )
        details = tuple(f"FAILED {c.path.name}: {c.detail}" for c in failed[:5])
        return StepResult(
            self.name, not failed, headline, details, tuple(findings), time.perf_counter() - start
        )


# --- divergence witnesses -----------------------------------------------------------------

DIVERGENCE_DIR = DIVERGENCE_WITNESSES
"""The register's divergence witnesses, shipped with the package (`village_rules.readings.stored`)."""


@dataclass(frozen=True, slots=True)
class DivergenceStep:
    """Replay every stored divergence witness under both of its readings."""

    directory: Path = DIVERGENCE_DIR
    name: str = "readings"

    def run(self, context: CheckContext) -> StepResult:
        """Replay every stored divergence witness under both of its readings."""
        start = time.perf_counter()
        paths = sorted(p for p in self.directory.glob("*.json") if not p.name.endswith(".log.json"))
        if not paths:
            return StepResult(
                self.name,
                False,
                f"no stored divergence witnesses in {self.directory} (the package data is missing: "
                "reinstall village-rules, or write them with `village-rules diverge --all --write DIR`)",
                seconds=time.perf_counter() - start,
            )
        findings = []
        failed = []
        entries: set[str] = set()
        for k, path in enumerate(paths):
            if context.progress is not None:
                context.progress("divergence witnesses", k, len(paths))
            try:
                witness = read_witness(path)
                entries.add(witness.amb)
                diff = replay_both(witness)
            except VillageError as exc:  # a broken stored witness: a FAIL row naming it
                detail = f"broken stored witness: {exc}"
                failed.append(f"FAILED {path.name}: {detail}")
                findings.append(Finding(f"witness {path.stem}", "FAIL", detail))
                continue
            ok = diff is not None and (diff.kind, diff.detail) == (witness.kind, witness.detail)
            detail = (
                f"{witness.amb} {witness.left_letter}/{witness.right_letter} part after "
                f"{len(witness.actions)} actions: {witness.kind}"
                if ok
                else "the readings no longer part as stored"
            )
            if not ok:
                failed.append(f"FAILED {path.name}: {detail}")
            # the replayable log of the first reading, and a picture of where the two part
            replayable = path.parent / f"{path.stem}.{witness.left_letter}.log.json"
            log = picture = None
            if replayable.is_file():
                log, picture = _evidence(context.out_dir, "readings", replayable, f"{path.stem}.svg")
            viewer = _viewer(context.out_dir, "readings", path)
            verdict = "passed" if ok else "FAIL"
            findings.append(
                Finding(f"witness {path.stem}", verdict, detail, log=log, picture=picture, viewer=viewer)
            )
        headline = (
            f"{len(paths)} divergence witnesses of {len(entries)} register entries replayed under both "
            f"readings: {len(failed)} failed"
        )
        return StepResult(
            self.name, not failed, headline, tuple(failed[:5]), tuple(findings), time.perf_counter() - start
        )


def default_steps(games: int = DEFAULT_GAMES, guided_actions: int | None = None) -> list[CheckStep]:
    """The steps of `village-rules check`, in order. The fuzz step also plays the report's
    guided-against-uniform comparison: `guided_actions` actions of each mode (by default
    `GUIDED_PER_GAME` per fuzzed game; 0: none)."""
    guided = GUIDED_PER_GAME * games if guided_actions is None else guided_actions
    steps: list[CheckStep] = [FuzzStep(games=games, guided_actions=guided), ProofsStep(), DivergenceStep()]
    return steps


@dataclass(frozen=True, slots=True)
class CheckOutcome:
    """The results of a whole `village-rules check` run, step by step."""

    results: tuple[StepResult, ...]
    seconds: float
    notes: tuple[str, ...] = field(default=())

    @property
    def passed(self) -> bool:
        """True when every step passed."""
        return all(r.passed for r in self.results)


def run_check(steps: Sequence[CheckStep], context: CheckContext) -> CheckOutcome:
    """Run every step in order (each independently) and collect the results."""
    if context.workers < 1:
        raise ValueError("workers must be >= 1")
    start = time.perf_counter()
    context.out_dir.mkdir(parents=True, exist_ok=True)
    results = tuple(_run_step(step, context) for step in steps)
    return CheckOutcome(results, time.perf_counter() - start)


def _run_step(step: CheckStep, context: CheckContext) -> StepResult:
    """A step's result; a step that raises instead fails, saying why (the run goes on)."""
    start = time.perf_counter()
    try:
        return step.run(context)
    except Exception as exc:  # a broken artefact or a bug: a FAIL row, not a lost report
        what = str(exc) if isinstance(exc, VillageError) else f"internal error: {type(exc).__name__}: {exc}"
        return StepResult(step.name, False, f"the step stopped: {what}", seconds=time.perf_counter() - start)


def format_outcome(outcome: CheckOutcome, report: Path | None, report_note: str = "") -> str:
    """The short summary printed by `village-rules check`."""
    lines = []
    for r in outcome.results:
        mark = "PASS" if r.passed else "FAIL"
        lines.append(f"[{mark}] {r.name}: {r.headline}")
        lines += [f"       {d}" for d in r.details]
    if report is not None:
        lines.append(f"report: {report}" + (f"  ({report_note})" if report_note else ""))
    verdict = "PASS" if outcome.passed else "FAIL"
    failed = sum(1 for r in outcome.results if not r.passed)
    lines.append(
        f"result: {verdict} - {len(outcome.results)} step(s), {failed} failed, in {outcome.seconds:.0f} s"
    )
    return "\n".join(lines)


def default_workers() -> int:
    """The default number of fuzz workers: the machine's CPU count."""
    return os.cpu_count() or 1
