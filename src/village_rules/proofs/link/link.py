"""Stage: link (the rule-content model).

The refinement link: every engine step is a step of the rule-content model.

A step is checked by its sub-steps (`engine.events`: the decision, then every decision with
a single legal action the engine took itself), so a forced turn choice is a step of the
model of its own and begins a turn. For a sub-step (s, a, s') of the real engine the guarded
command of a's kind (`guarded.py`) must
hold on (alpha_c(s), a, alpha_c(s')); the check names the clause that broke and the step.
`link_check` plays a deterministic batch of seeded games (a budget in games and steps,
never in seconds) with several policies, uniform and not, and is what `prove` runs before
it prints a verdict: an "unreachable" built on a model the engine leaves is worthless.
`implication_check` checks a query's concrete predicate against its abstract one at every
state of such games (concrete(s) => abstract(alpha(s))).
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import z3

from village_rules.data.components import ActionSpace, Cube
from village_rules.drivers.play import GameLog, Policy, play, random_policy
from village_rules.drivers.scenario import give, ready
from village_rules.engine.core import apply_steps
from village_rules.engine.events import SubStep
from village_rules.engine.setup import new_game
from village_rules.model.actions import (
    Action,
    CouncilAdvance,
    CouncilPlace,
    Mill,
    Pass,
    Pay,
    Privilege,
    Produce,
    Serve,
    Skip,
    TakeCube,
    Train,
    Travel,
    Well,
    format_action,
    parse_action,
)
from village_rules.model.state import GameState
from village_rules.proofs.link.coverage import Coverage
from village_rules.proofs.model.content import (
    action_vars,
    content_abstract,
    content_head,
    content_vars,
    vars_of_head,
)
from village_rules.proofs.model.guarded import TURN_CLAUSE_NAMES, ContentConstants, broken_start, broken_step
from village_rules.proofs.model.model import Constants
from village_rules.proofs.search.history import History
from village_rules.rules.variant import Variant


@dataclass(frozen=True, slots=True)
class BrokenStep:
    """A step of the engine outside the rule-content model."""

    edition: str
    players: int
    seed: int
    policy: str
    step: int
    action: str
    clauses: tuple[str, ...]

    def __str__(self) -> str:
        return (
            f"{self.edition}, {self.players} players, seed {self.seed}, policy {self.policy}, "
            f"step {self.step} ({self.action}): clause {', '.join(map(repr, self.clauses))} broken"
        )


@dataclass(frozen=True, slots=True)
class LinkResult:
    """The result of a link check: passed, or the first broken step; and what was checked."""

    games: int
    steps: int
    broken: BrokenStep | None

    @property
    def passed(self) -> bool:
        """True when every step checked lies in the model."""
        return self.broken is None

    def __str__(self) -> str:
        if self.broken is None:
            return f"link check passed: {self.steps} steps of {self.games} seeded games in the model"
        return f"link check FAILED after {self.steps} steps of {self.games} games: {self.broken}"


def check_step(
    before: GameState, action: Action, after: GameState, before_vars: Mapping[str, int] | None = None
) -> list[str]:
    """The clauses the engine step (before, action, after) breaks; empty when it refines.
    `before_vars` is alpha_c of `before` along its path (`content_vars(before, ...)`); without
    it the turn's path variables are unknown and the clauses reading them are not checked."""
    k = ContentConstants.of(before.rules, before.num_players)
    if before_vars is None:
        return check_step_of_heads(k, content_head(before), action, content_head(after))
    s = dict(before_vars)
    return broken_step(s, action_vars(action), content_vars(after, s), k)


def check_step_of_heads(
    k: ContentConstants, before: tuple[int, ...], action: Action, after: tuple[int, ...]
) -> list[str]:
    """`check_step` without the turn's path, on the states' `content_head`s: for a walk over
    many steps that abstracts each state once (the after of one step is the before of the
    next), `explore.crosscheck.content_link_on_edges`."""
    length, players = k.base.lifetime, k.players
    s = vars_of_head(before, None, length, players)
    broken = broken_step(s, action_vars(action), vars_of_head(after, s, length, players), k)
    return [c for c in broken if c not in TURN_CLAUSE_NAMES]


def _check_pair(
    k: ContentConstants, s: dict[str, int], action: Action, after: GameState
) -> tuple[list[str], dict[str, int]]:
    t = content_vars(after, s)
    return broken_step(s, action_vars(action), t, k), t


# --- policies: uniform and not -------------------------------------------------------------


def _weighted(score: Callable[[GameState, Action], float]) -> Policy:
    def policy(state: GameState, legal: Sequence[Action], rng: random.Random) -> Action:
        weights = [1.0 + max(0.0, score(state, a)) for a in legal]
        return rng.choices(list(legal), weights)[0]

    return policy


def _market_lover(state: GameState, action: Action) -> float:
    if isinstance(action, Serve):
        return 20.0
    if isinstance(action, TakeCube | Well) and action.space is ActionSpace.MARKET:
        return 8.0
    return 0.0


def _plague_lover(state: GameState, action: Action) -> float:
    if isinstance(action, TakeCube) and action.cube is Cube.PLAGUE:
        return 15.0
    return 3.0 if isinstance(action, Pass | Skip) else 0.0


def _well_lover(state: GameState, action: Action) -> float:
    if isinstance(action, Well):
        return 25.0 if action.space is ActionSpace.MARKET else 10.0
    return 4.0 if isinstance(action, Serve) else 0.0


_COUNCIL_SPACES = (ActionSpace.COUNCIL_CHAMBER,)
_CRAFT_SPACES = (ActionSpace.CRAFTS, ActionSpace.TRAVEL)


def _council_lover(state: GameState, action: Action) -> float:
    if isinstance(action, TakeCube | Well) and action.space in _COUNCIL_SPACES:
        return 12.0
    if isinstance(action, CouncilAdvance):
        return 20.0 + 5 * action.stage
    if isinstance(action, Privilege):
        return 4.0 * action.stage
    return 6.0 if isinstance(action, CouncilPlace | Pay) else 0.0


def _craft_lover(state: GameState, action: Action) -> float:
    if isinstance(action, TakeCube | Well) and action.space in _CRAFT_SPACES:
        return 12.0
    if isinstance(action, Train | Produce | Mill | Travel):
        return 15.0
    return 5.0 if isinstance(action, Pay) else 0.0


POLICIES: dict[str, Policy] = {
    "uniform": random_policy,
    "market": _weighted(_market_lover),
    "plague": _weighted(_plague_lover),
    "well": _weighted(_well_lover),
    "council": _weighted(_council_lover),
    "crafts": _weighted(_craft_lover),
}
"""Named policies for the link's games: uniform, and ones that favour the market (sales
and market days), plague cubes (deaths, the end), the well (the market at the well), the
council chamber (its later stages and privileges) and the crafts and travel (their
payments). The last two exist for coverage (`COVERAGE_GAMES`)."""

_SAMPLED = ("uniform", "market", "plague", "well")
"""The policies `default_games` takes in turn."""

def _coins(state: GameState) -> GameState:
    """Every seat 3 coins from the supply: coins may stand in for cubes, so payments are
    chosen (AMB-01's coin splits), and the 4th privilege can be paid."""
    for seat in range(state.num_players):
        state = give(state, seat, coins=min(3, state.supply.coins // state.num_players))
    return state


def _grain(state: GameState) -> GameState:
    """Every seat 4 grain from the supply, so the supply runs short at a harvest."""
    for seat in range(state.num_players):
        state = give(state, seat, grain=min(4, state.supply.grain // state.num_players))
    return state


SCENARIOS: dict[str, Callable[[GameState], GameState]] = {"coins": _coins, "grain": _grain}
"""Scenario starts for the link's coverage games (`drivers.scenario`: pieces move from the
supply, nothing appears), applied to the first turn of a seeded game (`scenario.ready`)."""

CoverageGame = tuple[str, int, int, str, str]
"""(edition, players, seed, policy, scenario start)."""

COVERAGE_GAMES: tuple[CoverageGame, ...] = (
    ("original-2011", 2, 0, "council", "coins"),
    ("big-box-2023", 3, 0, "council", "coins"),
    ("original-2011", 3, 0, "crafts", "coins"),
    ("big-box-2023", 2, 0, "crafts", "coins"),
    ("big-box-2023", 4, 0, "uniform", "grain"),
)
"""Games the gate adds to `default_games` so that the rarer branches of the guarded commands
are exercised (`coverage`: the council's later stages and privileges, payments chosen
for crafts and travel, a harvest cut by the supply)."""


def default_games(games_per_row: int = 2, seed: int = 0) -> list[tuple[str, int, int, str]]:
    """The link's batch: every edition and player count, each policy in turn."""
    names = list(_SAMPLED)
    out: list[tuple[str, int, int, str]] = []
    for edition, counts in (("original-2011", (2, 3, 4)), ("big-box-2023", (2, 3, 4, 5))):
        for players in counts:
            for g in range(games_per_row):
                out.append((edition, players, seed + g, names[(g + players) % len(names)]))
    return out


def check_game(
    edition: str,
    players: int,
    seed: int,
    policy: str = "uniform",
    *,
    max_steps: int = 3000,
    on_state: Callable[[History], None] | None = None,
    coverage: Coverage | None = None,
    scenario: str | None = None,
) -> tuple[int, BrokenStep | None]:
    """Play one seeded game with a named policy (every seat) and check every step; also
    hands the path to `on_state` after every step and counts the branches each step
    exercises in `coverage`. With `scenario` (a name of `SCENARIOS`) the game starts at its
    first turn changed by that scenario. Returns the steps played and the first broken step
    (the game stops there)."""
    state = new_game(edition, players, seed, Variant())
    if scenario is not None:
        state = SCENARIOS[scenario](ready(edition, players, seed, Variant()))
    k = ContentConstants.of(state.rules, players)
    start = broken_start(content_abstract(state), k)
    if start:
        return 0, BrokenStep(edition, players, seed, policy, 0, "new_game", tuple(start))
    last = [content_vars(state)]
    history = History([state], content=[last[0]])
    found: list[BrokenStep] = []
    count = [0]

    class _StopError(Exception):
        pass

    def on_step(before: GameState, action: Action, after: GameState) -> None:
        count[0] += 1
        for sub in apply_steps(before, action):  # every sub-step, forced decisions included
            s = last[0]
            broken, last[0] = _check_pair(k, s, sub.action, sub.after)
            if coverage is not None:
                coverage.add(s, action_vars(sub.action), last[0], players)
            if broken:
                found.append(
                    BrokenStep(
                        edition, players, seed, policy, count[0], _named(action, sub), tuple(broken)
                    )
                )
                raise _StopError
            if on_state is not None:
                history.push_sub(sub)
                history.content.append(last[0])
                on_state(history)

    with contextlib.suppress(_StopError):
        play(state, [POLICIES[policy]] * players, random.Random(seed), max_steps, on_step)
    return count[0], (found[0] if found else None)


def link_check(
    games: Iterable[tuple[str, int, int, str]] | None = None,
    max_steps: int = 3000,
    coverage: Coverage | None = None,
) -> LinkResult:
    """The link check `prove` runs before printing a verdict: a fixed batch of seeded games
    (edition, players, seed, policy; `default_games()` unless given), each at most
    `max_steps` steps, every step checked. Deterministic: the same engine and data give
    the same result on any machine."""
    played = steps = 0
    for edition, players, seed, policy in games if games is not None else default_games():
        n, broken = check_game(edition, players, seed, policy, max_steps=max_steps, coverage=coverage)
        played += 1
        steps += n
        if broken is not None:
            return LinkResult(played, steps, broken)
    return LinkResult(played, steps, None)


def check_log(
    log: GameLog, on_state: Callable[[History], None] | None = None, coverage: Coverage | None = None
) -> tuple[int, BrokenStep | None]:
    """Replay a game log (a stored witness) and check every step against the model
    (counting the branches of each in `coverage`)."""
    state = log.initial_state()
    k = ContentConstants.of(state.rules, log.players)
    start = broken_start(content_abstract(state), k)
    if start:
        return 0, BrokenStep(log.edition, log.players, log.seed, "log", 0, "new_game", tuple(start))
    last = content_vars(state)
    history = History([state], content=[last])
    for i, text in enumerate(log.actions, start=1):
        action = parse_action(text)
        for sub in apply_steps(history.last, action):  # every sub-step, forced decisions included
            s = last
            broken, last = _check_pair(k, s, sub.action, sub.after)
            if coverage is not None:
                coverage.add(s, action_vars(sub.action), last, log.players)
            if broken:
                return i, BrokenStep(
                    log.edition, log.players, log.seed, "log", i, _named(action, sub), tuple(broken)
                )
            history.push_sub(sub)
            history.content.append(last)
            if on_state is not None:
                on_state(history)
    return len(log.actions), None


def _named(action: Action, sub: SubStep) -> str:
    """The step's action, and the forced decision within it where that broke a clause."""
    text = format_action(action)
    return text if not sub.forced else f"{text}, then the forced {format_action(sub.action)}"


# --- a query's concrete predicate against its abstract one ---------------------------------


def path_vars(h: History, index: int = -1) -> dict[str, int]:
    """alpha_c of `h.states[index]` with the turn's path variables: recorded by the link's
    games (`History.content`), else computed along the whole path."""
    if not h.content or len(h.content) > len(h.states):
        h.content = [content_vars(h.states[0])]
    while len(h.content) < len(h.states):
        h.content.append(content_vars(h.states[len(h.content)], h.content[-1]))
    return h.content[index]



def abstract_holds(
    predicate: Callable[[Mapping[str, int], Constants], object], v: Mapping[str, int], k: Constants
) -> bool:
    """A catalogue abstract predicate (written with z3 connectives) evaluated on the
    integers of one abstract state."""
    value = predicate(v, k)
    if isinstance(value, bool):
        return value
    return bool(z3.is_true(z3.simplify(value)))


CheckedQuery = tuple[str, Callable[[History], bool], Callable[[Mapping[str, int], Constants], object]]
"""A query as the implication check reads it: (name, concrete predicate, abstract predicate)."""


@dataclass(frozen=True, slots=True)
class ImplicationFailure:
    """A state where a query's concrete predicate holds but its abstract one does not."""

    query: str
    edition: str
    players: int
    seed: int
    policy: str
    step: int

    def __str__(self) -> str:
        return (
            f"query {self.query}: concrete holds but abstract does not at {self.edition}, "
            f"{self.players} players, seed {self.seed}, policy {self.policy}, step {self.step}"
        )


def implication_check(
    queries: Sequence[
        tuple[str, Callable[[History], bool], Callable[[Mapping[str, int], Constants], object]]
    ],
    games: Iterable[tuple[str, int, int, str]],
    max_steps: int = 1500,
) -> tuple[dict[str, int], ImplicationFailure | None]:
    """concrete(s) => abstract(alpha(s)) at every state of the games (edition, players,
    seed, policy), for each query (name, concrete, abstract): an "unreachable" proved for
    the abstract predicate then covers the concrete one. Returns, per query, the states
    where its concrete predicate held, and the first failure. A query where this fails
    must be refused."""
    held = {name: 0 for name, _, _ in queries}
    for edition, players, seed, policy in games:
        k = ContentConstants.of(new_game(edition, players, seed, Variant()).rules, players).base
        failure: list[ImplicationFailure] = []
        where = (edition, players, seed, policy)
        on_state = _implication_watch(queries, k, held, failure, where)
        check_game(edition, players, seed, policy, max_steps=max_steps, on_state=on_state)
        if failure:
            return held, failure[0]
    return held, None


def _implication_watch(
    queries: Sequence[
        tuple[str, Callable[[History], bool], Callable[[Mapping[str, int], Constants], object]]
    ],
    k: Constants,
    held: dict[str, int],
    failure: list[ImplicationFailure],
    where: tuple[str, int, int, str],
) -> Callable[[History], None]:
    """The per-state check of `implication_check` for one game."""

    def on_state(h: History) -> None:
        if failure:
            return
        v: dict[str, int] | None = None
        for name, concrete, abstract in queries:
            if not concrete(h):
                continue
            held[name] += 1
            v = v if v is not None else path_vars(h)
            if not abstract_holds(abstract, v, k):
                failure.append(ImplicationFailure(name, *where, h.step_count))
                return

    return on_state
