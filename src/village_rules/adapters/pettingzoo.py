"""Village as a PettingZoo AEC environment (optional extra `pettingzoo`:
`pip install village-rules[pettingzoo]`; docs/rl.md).

`env(edition=..., players=...)` makes an environment whose agents `player_0`, ... are the
seats. Every chance event, the setup's deal included, is resolved inside the environment
from the `random.Random` seeded by `reset(seed=...)`, so the same seed and actions give the
same game in any process. Observations are dicts: `observation` (the float32 tensor of
`village_rules.adapters.observation`, from the agent's seat) and `action_mask` (int8, 1 at the id of
every legal action of the agent to act, all 0 for the others). Rewards come at the end:
the win shared out (`returns="win"`) or final prestige (`returns="score"`).

Solo (`players=1`, big-box-2023, with `returns="score"`): one agent, `player_0`, plays
against Carla, who is part of the environment: her moves are the engine's (she never
decides), and her chance events (the fate tiles) are drawn from the same seeded RNG
inside `step`.

Games are truncated at `max_moves` moves (decisions plus chance outcomes), like the
OpenSpiel game (a game of Village has no finite length bound: `village_rules.adapters.bounds`);
a truncated game ends with `truncations` True and the rewards the OpenSpiel game returns
then: an equal share of the win, or the final scoring of the state as it stands
(`village_rules.adapters.truncation`). A `max_moves` that leaves no room for a decision
(the setup's deal and first seeding) is refused, so `reset` always starts a live game.

`engine="native"` plays the moves and computes the observations on the C++ core,
`engine="reference"` on the Python engine; unset, the native core where it is built and the
reference otherwise, as for `fuzz` and `explore` (`village_rules.adapters.positions`). The
same seed and actions give the same game, rewards and observations on either;
`game_state` and `render` decode the reference's state from the core's on the native engine.
"""

from __future__ import annotations

import random
from typing import ClassVar, Literal

import gymnasium
import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from village_rules.adapters.bounds import DEFAULT_MAX_MOVES
from village_rules.adapters.ids import action_id_of, num_distinct_actions
from village_rules.adapters.observation import tensor_size
from village_rules.adapters.positions import Position, engine_named, position_of
from village_rules.adapters.truncation import SOLO_HAS_NO_WINNER, check_max_moves
from village_rules.data.loader import EDITIONS, builtin_edition
from village_rules.engine.scoring import ReturnsKind
from village_rules.engine.setup import deal_outcomes, game_from_deal
from village_rules.errors import IllegalActionError, ParameterError
from village_rules.model.actions import Action, action_from_id
from village_rules.model.chance import sample
from village_rules.model.render import render as render_text
from village_rules.model.state import GameState
from village_rules.rules.variant import Variant

__all__ = ["VillageEnv", "env", "raw_env"]

RenderMode = Literal["ansi", "human"]
RENDER_MODES: tuple[RenderMode, ...] = ("ansi", "human")


class VillageEnv(AECEnv):
    """The AEC environment of one edition, player count and variant; every setup."""

    metadata: ClassVar[dict[str, object]] = {
        "name": "village_v0",
        "render_modes": list(RENDER_MODES),
        "is_parallelizable": False,
    }

    def __init__(
        self,
        *,
        edition: str = "big-box-2023",
        players: int = 3,
        variant: Variant | None = None,
        returns: ReturnsKind = "win",
        max_moves: int = DEFAULT_MAX_MOVES,
        render_mode: RenderMode | None = None,
        engine: str | None = None,
    ) -> None:
        super().__init__()
        if edition not in EDITIONS:
            raise ParameterError("edition", f"one of {', '.join(EDITIONS)}, not {edition!r}")
        self.data = builtin_edition(edition)
        playable = isinstance(players, int) and not isinstance(players, bool)
        if not playable or not self.data.supports_players(players):
            solo = ", or 1 (solo against Carla)" if self.data.solo is not None else ""
            counts = f"{self.data.min_players}-{self.data.max_players} players{solo}"
            raise ParameterError("players", f"{edition} is for {counts}, not {players!r}")
        if returns not in ("win", "score"):
            raise ParameterError("returns", f"'win' or 'score', not {returns!r}")
        if players == 1 and returns == "win":
            raise ParameterError("returns", SOLO_HAS_NO_WINNER + "; pass returns='score'")
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ParameterError("render_mode", f"None, 'ansi' or 'human', not {render_mode!r}")
        self.players = players
        self.variant = variant or Variant()
        self.returns_kind: ReturnsKind = returns
        self.max_moves = check_max_moves(max_moves, self.data, players, self.variant)
        self.render_mode = render_mode
        if engine is not None and not isinstance(engine, str):
            raise ParameterError("engine", f"'native', 'reference' or None (the default), not {engine!r}")
        self.engine = engine_named(engine)
        """The engine the moves are played on (`positions.engine_named`)."""
        self.possible_agents = [f"player_{seat}" for seat in range(players)]
        n_actions = num_distinct_actions(self.data)
        size = tensor_size(self.data, players)
        self.observation_spaces = {
            agent: gymnasium.spaces.Dict(
                {
                    "observation": gymnasium.spaces.Box(0.0, np.inf, (size,), np.float32),
                    "action_mask": gymnasium.spaces.Box(0, 1, (n_actions,), np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self.action_spaces = {agent: gymnasium.spaces.Discrete(n_actions) for agent in self.possible_agents}
        self.position: Position | None = None
        self.moves = 0
        self._rng = random.Random(0)

    def observation_space(self, agent: str) -> gymnasium.spaces.Dict:
        """The observation space of an agent."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Discrete:
        """The action space of an agent."""
        return self.action_spaces[agent]

    @property
    def game_state(self) -> GameState:
        """The reference's state of the game in progress (on the native engine: decoded
        from the core's)."""
        return self._position.state

    @property
    def _position(self) -> Position:
        if self.position is None:
            raise ParameterError("reset", "call reset() before using the environment")
        return self.position

    # --- the AEC cycle ------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, object] | None = None) -> None:
        """A new game: the setup deal and every later chance event are drawn from
        `random.Random(seed)` (seed None: a fresh random seed)."""
        self._rng = random.Random(seed if seed is not None else random.SystemRandom().randrange(2**63))
        dealt: list[Action] = []
        while outcomes := deal_outcomes(self.data, self.players, dealt, self.variant):
            dealt.append(sample(outcomes, self._rng))
        self.moves = len(dealt)
        self.position = position_of(game_from_deal(self.data, self.players, dealt, self.variant), self.engine)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, object]] = {a: {} for a in self.agents}
        self._resolve_chance()
        self._select()

    def step(self, action: int | None) -> None:
        """Take the action with this id for the agent to act (None only for an agent
        whose game is over: PettingZoo's dead step). `ParameterError` before `reset`,
        `ActionTypeError` for an id that is not a whole number (0.5, "0", True)."""
        position = self._position  # before reset: ParameterError, not AttributeError
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise IllegalActionError("STEP", "None", f"{agent} must choose an action: the game is not over")
        index = action_id_of(action)
        chosen = action_from_id(self.data, index)
        if index not in position.legal_ids():
            raise IllegalActionError("STEP", str(chosen), f"not a legal action of {agent} now")
        self._cumulative_rewards[agent] = 0.0
        self.position = position.after(chosen)
        self.moves += 1
        self._resolve_chance()
        self.rewards = {a: 0.0 for a in self.agents}
        if self._position.is_terminal:
            final = self._position.returns(self.returns_kind)
            self.rewards = {a: float(final[seat]) for seat, a in enumerate(self.agents)}
            self.terminations = {a: True for a in self.agents}
        elif self.moves >= self.max_moves:  # what the OpenSpiel game returns when truncated
            final = self._position.truncated_returns(self.returns_kind)
            self.rewards = {a: float(final[seat]) for seat, a in enumerate(self.agents)}
            self.truncations = {a: True for a in self.agents}
        self._accumulate_rewards()
        self._select()
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """An agent's observation: the tensor and the mask of its legal action ids."""
        seat = self.possible_agents.index(agent)
        position = self._position
        mask = np.zeros(num_distinct_actions(self.data), np.int8)
        if position.current_player() == seat and not self.truncations.get(agent, False):
            mask[position.legal_ids()] = 1
        return {
            "observation": position.observation(seat),
            "action_mask": mask,
        }

    def render(self) -> str | None:
        """The state as text (render_mode 'ansi'), or None without a render mode."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode: env(render_mode='ansi')")
            return None
        text = render_text(self.game_state)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release: the environment holds no files or windows."""

    # --- inside ------------------------------------------------------------------------

    def _resolve_chance(self) -> None:
        """Draw every pending chance event from the environment's RNG."""
        position = self._position
        while position.is_chance and self.moves < self.max_moves:
            position = position.after(sample(position.outcomes(), self._rng))
            self.moves += 1
        self.position = position  # still at chance only at max_moves: `step` truncates the game then

    def _select(self) -> None:
        seat = self._position.current_player()
        if seat >= 0:
            self.agent_selection = self.possible_agents[seat]
        elif self.agents:
            # over: the agents step out one by one (dead steps), in seat order
            self.agent_selection = self.agents[0]


def raw_env(**kwargs: object) -> VillageEnv:
    """The environment without PettingZoo's checking wrappers."""
    return VillageEnv(**kwargs)  # type: ignore[arg-type]


def env(**kwargs: object) -> AECEnv:
    """The environment wrapped as PettingZoo recommends (order and bounds checks)."""
    wrapped: AECEnv = wrappers.AssertOutOfBoundsWrapper(VillageEnv(**kwargs))  # type: ignore[arg-type]
    return wrappers.OrderEnforcingWrapper(wrapped)
