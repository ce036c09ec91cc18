"""`VillageMachine`: a Hypothesis stateful test that plays Village through the public API and
checks every invariant after every action.

Run it as a test case (pytest or unittest pick it up)::

    from village_rules.testing import VillageMachine, profile_settings

    TestVillage = VillageMachine.TestCase
    TestVillage.settings = profile_settings()  # "ci" unless VILLAGE_HYPOTHESIS_PROFILE says otherwise

On a failure Hypothesis shrinks the game to the shortest failing sequence of actions and
reports, besides its own step listing, the replayable game log (edition, players, seed,
variant and the actions in text notation) as `village-rules replay` JSON. The same log is
kept on the instance (`machine.log`) and on the class (`failure_log`) for tests to read.

Subclass to narrow the games (`setup_strategy`), to turn off the random fast-forward rule
(`fast_forward_limit = 0`), or to test a modified engine (`apply_action`).
"""

from __future__ import annotations

import random
from typing import ClassVar

from hypothesis import event, note
from hypothesis import strategies as st
from hypothesis.control import currently_in_test_context
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from village_rules.checks.incremental import IncrementalChecker
from village_rules.checks.invariants import InvariantError, Violation
from village_rules.drivers.play import GameLog
from village_rules.engine.core import apply, chance_outcomes, legal_actions
from village_rules.engine.scoring import winners
from village_rules.errors import IllegalActionError, InternalError
from village_rules.model.actions import Action, Harvest, Pass, Skip, format_action
from village_rules.model.chance import sample
from village_rules.model.state import GameState
from village_rules.policies import policy_named
from village_rules.testing.strategies import GameSetup, game_setups, seeds


class VillageMachine(RuleBasedStateMachine):
    """Plays one game per example: an `@initialize` rule sets it up, `act` takes the next
    action (a legal action, or a chance outcome, chosen by Hypothesis), and the invariants
    of `village_rules.checks.invariants` are checked after every action."""

    fast_forward_limit: ClassVar[int] = 25
    """Most actions one `fast_forward` step plays with a seeded random policy (0 = never):
    it lets a run of a few dozen steps reach the end of a game."""

    fast_forward_policy: ClassVar[str] = "random"
    """The policy `fast_forward` plays by (a name of `village_rules.policies.POLICIES`): a
    subclass that sets "greedy" or "chronicle" reaches the states deliberate play reaches."""

    failure_log: ClassVar[GameLog | None] = None
    """The log of the last failing game of this class (after shrinking: the minimal one)."""

    def __init__(self) -> None:
        super().__init__()
        self.setup: GameSetup | None = None
        self.state: GameState | None = None
        self.legal: list[Action] | None = None
        self.actions: list[str] = []
        self.previous: tuple[GameState, Action] | None = None
        self.checker = IncrementalChecker()
        """The full checks' violations, over what each step changed (as the fuzzer)."""

    # --- hooks for subclasses -----------------------------------------------------------

    def setup_strategy(self) -> st.SearchStrategy[GameSetup]:
        """Which games to play: every edition, player count, seed and variant."""
        return game_setups()

    def apply_action(self, state: GameState, action: Action, trace: list[str] | None = None) -> GameState:
        """The engine under test: override to inject a fault (or to wrap the engine)."""
        return apply(state, action, trace=trace)

    # --- the log ------------------------------------------------------------------------

    @property
    def log(self) -> GameLog | None:
        """The replayable log of the game so far (None before the set-up)."""
        if self.setup is None:
            return None
        return self.setup.log(self.actions)

    def _report(self, problem: str, failing: Action | None = None) -> None:
        """Note the replayable log (with the failing action, if one raised) and keep it."""
        if self.setup is None:
            return
        texts = [*self.actions, *([format_action(failing)] if failing is not None else [])]
        log = self.setup.log(texts)
        type(self).failure_log = log
        if not currently_in_test_context():
            return
        note(
            f"{problem}\nReplayable log ({self.setup.edition}, {self.setup.players} players, "
            f"seed {self.setup.seed}, {self.setup.variant}, {len(texts)} actions):\n"
            f"actions: {'; '.join(texts)}\n"
            f"village-rules replay JSON:\n{log.to_json()}"
        )

    # --- rules --------------------------------------------------------------------------

    @initialize(data=st.data())
    def set_up(self, data: st.DataObject) -> None:
        """Draw a set-up and start its game."""
        setup = data.draw(self.setup_strategy(), label="setup")
        self.setup = setup
        try:
            state = setup.new_game()
        except Exception as exc:
            self._report(f"new_game raised {type(exc).__name__}: {exc}")
            raise
        self.state = state
        self.legal = None if state.is_chance or state.is_terminal else legal_actions(state)
        self.actions = []
        self.previous = None

    @precondition(lambda self: self.state is not None and not self.state.is_terminal)
    @rule(data=st.data())
    def act(self, data: st.DataObject) -> None:
        """The next action: a chance outcome or one of the legal actions, by Hypothesis."""
        state = self.state
        if state is None:  # excluded by the precondition
            raise InternalError("VillageMachine.act", "no game state")
        if state.is_chance:
            options = [a for a, _ in chance_outcomes(state)]
            label = f"chance {type(state.pending).__name__}"
        else:
            options = list(self.legal or ())
            label = f"seat {state.current_player()} {type(state.pending).__name__}"
        by_text = {format_action(a): a for a in options}
        if not by_text:  # no move at a non-terminal state: the invariant reports it
            self._check(state)
            return
        text = data.draw(st.sampled_from(sorted(by_text)), label=label)
        self._advance(by_text[text])

    @precondition(
        lambda self: self.fast_forward_limit > 0 and self.state is not None and not self.state.is_terminal
    )
    @rule(data=st.data())
    def fast_forward(self, data: st.DataObject) -> None:
        """Several actions of a seeded random game, each checked like a single step."""
        steps = data.draw(st.integers(1, self.fast_forward_limit), label="fast-forward steps")
        rng = random.Random(data.draw(seeds(), label="fast-forward seed"))
        policy = policy_named(self.fast_forward_policy)
        for k in range(steps):
            state = self.state
            if state is None:  # excluded by the precondition
                raise InternalError("VillageMachine.fast_forward", "no game state")
            if state.is_terminal:
                return
            if k:
                self._check(state)
            if state.is_chance:
                action = sample(chance_outcomes(state), rng)
            elif self.legal:
                action = policy(state, self.legal, rng)
            else:
                return
            self._advance(action)

    @precondition(lambda self: self.state is not None and self.state.is_terminal)
    @rule()
    def game_over(self) -> None:
        """At the end nothing more can be done: every action is refused, the game scores.
        (Hypothesis needs an enabled rule until the run's step count is used up.)"""
        state = self.state
        if state is None:  # excluded by the precondition
            raise InternalError("VillageMachine.game_over", "no game state")
        for action in (Skip(), Pass(), Harvest()):
            try:
                self.apply_action(state, action)
            except IllegalActionError:
                continue
            self._report(f"the game is over, yet {format_action(action)!r} was accepted", failing=action)
            raise AssertionError(f"the game is over, yet {format_action(action)!r} was accepted")
        if not winners(state):
            self._report("the game is over, yet nobody wins")
            raise AssertionError("the game is over, yet nobody wins")

    @invariant()
    def invariants_hold(self) -> None:
        """Every state invariant holds after every step."""
        if self.state is not None:
            self._check(self.state)

    # --- internals ----------------------------------------------------------------------

    def _advance(self, action: Action) -> None:
        before = self.state
        if before is None:  # excluded by the precondition
            raise InternalError("VillageMachine._advance", "no game state")
        trace: list[str] = []
        try:
            after = self.apply_action(before, action, trace)
        except Exception as exc:
            self._report(f"apply raised {type(exc).__name__}: {exc}", failing=action)
            raise
        self.actions.append(format_action(action))
        for rule_id in dict.fromkeys(trace):
            event(f"rule {rule_id}")
        event(f"pending {type(after.pending).__name__}")
        self.previous = (before, action)
        self.state = after
        self.legal = None if after.is_chance or after.is_terminal else legal_actions(after)

    def _check(self, state: GameState) -> None:
        context = ""
        if self.previous is None:
            found: list[Violation] = self.checker.state(state, self.legal)
        else:
            before, action = self.previous
            found = self.checker.step(before, action, state, self.legal)
            context = f"after action {len(self.actions)} ({format_action(action)!r})"
        if found:
            error = InvariantError(found, context)
            self._report(str(error))
            raise error
