"""Stage: link (a hunt for breaking steps).

A search for steps that break the rule-content model, guided by the branches they exercise.

Sampled games take the common branches of the guarded commands thousands of times and the
rare ones (a payment chosen for an advance, a harvest cut by the supply, a skip at the
mass's buying step) seldom or never; a wrong clause on a rare branch stays unseen. Like the
guided fuzzer (`fuzz/guided.py`), which steers toward rare rule IDs, `hunt` keeps a corpus
of game prefixes: a prefix joins when one of its steps exercised a branch
(`coverage.branches_of`: every guard branch and every forced follow-up) first; each
round extends the prefix whose branch is least seen by a few uniformly random options
(decisions and chance outcomes of non-zero probability), and every few rounds starts
afresh. Every step is checked by the link. The budget is in steps, so a hunt repeats
exactly; a step outside the model ends it with the game (a replayable log) that broke it,
to be kept as a regression input (`regressions.keep`).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

from village_rules.drivers.play import GameLog
from village_rules.engine.core import apply_steps
from village_rules.engine.setup import new_game
from village_rules.model.actions import Action, format_action
from village_rules.model.state import GameState
from village_rules.proofs.link.coverage import Coverage, branches_of
from village_rules.proofs.link.link import BrokenStep
from village_rules.proofs.model.content import action_vars, content_vars
from village_rules.proofs.model.guarded import ContentConstants, broken_step
from village_rules.proofs.search.search import options

HUNT_STEPS = 1500
"""The gate's hunt budget per edition and player count (steps)."""
EXTEND = 30
"""Options played from a prefix in one round."""
FRESH_EVERY = 4
"""Every this many rounds a round starts from the set-up."""


@dataclass(frozen=True)
class _Prefix:
    actions: tuple[Action, ...]
    state: GameState
    vars: dict[str, int]
    branch: str


@dataclass
class HuntResult:
    """What a hunt did: steps checked, the branches they took, and the first broken step
    with its game (None when every step lay in the model)."""

    steps: int
    rounds: int
    coverage: Coverage = field(default_factory=Coverage)
    broken: BrokenStep | None = None
    log: GameLog | None = None


def hunt(edition: str, players: int, steps: int = HUNT_STEPS, seed: int = 0) -> HuntResult:
    """Search the games of `edition` at `players` seats (seed `seed`, each edition's
    default readings) for a step outside the rule-content model, for at most `steps` steps."""
    rng = random.Random(seed)
    start = new_game(edition, players, seed)
    k = ContentConstants.of(start.rules, players)
    root = _Prefix((), start, content_vars(start), "the set-up")
    corpus: list[_Prefix] = []
    seen: Counter[str] = Counter()
    result = HuntResult(0, 0)
    while result.steps < steps:
        result.rounds += 1
        if not corpus or result.rounds % FRESH_EVERY == 0:
            prefix = root
        else:
            least = min(seen[p.branch] for p in corpus)
            prefix = rng.choice([p for p in corpus if seen[p.branch] == least])
        actions, state, s = list(prefix.actions), prefix.state, prefix.vars
        for _ in range(EXTEND):
            if state.is_terminal or result.steps >= steps:
                break
            action = rng.choice(options(state))
            actions.append(action)
            result.steps += 1
            after = state
            for sub in apply_steps(state, action):  # every sub-step, forced decisions included
                a = action_vars(sub.action)
                t = content_vars(sub.after, s)
                broken = broken_step(s, a, t, k)
                if broken:
                    named = format_action(action)
                    if sub.forced:
                        named += f", then the forced {format_action(sub.action)}"
                    result.broken = BrokenStep(
                        edition, players, seed, "hunt", len(actions), named, tuple(broken)
                    )
                    result.log = GameLog(edition, players, seed, tuple(format_action(x) for x in actions))
                    return result
                result.coverage.add(s, a, t, players)
                after = sub.after
                for b in branches_of(s, a, t, players):
                    if seen[b] == 0:
                        corpus.append(_Prefix(tuple(actions), after, t, b))
                    seen[b] += 1
                s = t
            state = after
    return result
