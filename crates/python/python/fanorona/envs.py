"""Environments over the Rust engine: PettingZoo's ``AECEnv`` and Gymnasium's ``Env``.

Both use step-level actions (one stone moves one point; after a capture the same side moves
again while its chain can go on, and ``END_TURN_INDEX`` stops the chain), indexed as the
project's network does (``fanorona.action_index``), with a legal-action mask. The batched
environment is ``fanorona.VectorEnv`` (Rust).

- ``env()`` / ``raw_env``: two agents, ``player_0`` (White, moves first) and ``player_1``
  (Black). Observations are ``{"observation": float32[16, 5, 9], "action_mask":
  int8[1081]}``; the planes are from the side to move's view, and the mask is all zeros for
  the agent not to move. Rewards: +1 to the winner and -1 to the loser at the end, 0 for a
  draw and before. An illegal action ends the game with -1 for the agent that played it and
  0 for the other (``info["illegal_move"]``), as PettingZoo's ``TerminateIllegalWrapper``
  does.
- ``FanoronaEnv``: one agent against a built-in player (``opponent="alphabeta:ms=50,
  eval=learned"``), which plays its whole turn inside ``step``. ``info["action_mask"]`` and
  ``action_masks()`` give the mask; an illegal action ends the episode with reward -1
  (``info["illegal_move"]`` says why). Registered with Gymnasium as ``fanorona/Fanorona-v0``.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from fanorona._fanorona import (
    ACTION_COUNT,
    BOARD_SHAPE,
    INPUT_PLANES,
    FanoronaError,
    Game,
    Player,
)

OBSERVATION_SHAPE = (INPUT_PLANES, *BOARD_SHAPE)
AGENTS = ("player_0", "player_1")


def _planes_space() -> spaces.Box:
    return spaces.Box(low=0.0, high=1.0, shape=OBSERVATION_SHAPE, dtype=np.float32)


def _render(game: Game, mode: str | None) -> str | None:
    """The board and its notation: returned for "ansi", printed for "human"."""
    if mode is None:
        gymnasium.logger.warn("render() called without a render_mode")
        return None
    text = f"{game.board()}\n{game.fen}"
    if mode == "ansi":
        return text
    print(text)
    return None


def env(render_mode: str | None = None, **kwargs: Any) -> AECEnv:
    """The AEC environment. What PettingZoo's ``OrderEnforcingWrapper`` and
    ``AssertOutOfBoundsWrapper`` check is built in (calls before ``reset()`` raise; an action
    out of range is an illegal action), so it comes unwrapped: each wrapper would cost a
    third of its speed (docs/python.md)."""
    return raw_env(render_mode=render_mode, **kwargs)


class raw_env(AECEnv):  # noqa: N801 (PettingZoo's name for the unwrapped environment)
    """Two-player Fanorona as a PettingZoo AEC environment (see the module's docstring).

    ``reset(options={"fen": ...})`` starts from a position in notation instead of the start.
    """

    metadata = {
        "render_modes": ["human", "ansi"],
        "name": "fanorona_v0",
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(self, render_mode: str | None = None, no_progress_limit: int = 50):
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not one of {self.metadata['render_modes']}")
        self.render_mode = render_mode
        self.no_progress_limit = no_progress_limit
        self.possible_agents = list(AGENTS)
        self.agents = []
        self._observation_space = spaces.Dict(
            {
                "observation": _planes_space(),
                "action_mask": spaces.Box(low=0, high=1, shape=(ACTION_COUNT,), dtype=np.int8),
            }
        )
        self._action_space = spaces.Discrete(ACTION_COUNT)
        self._no_mask = np.zeros(ACTION_COUNT, dtype=np.int8)
        self.game = Game(no_progress_limit=no_progress_limit)
        self._has_reset = False

    def _check_reset(self, call: str) -> None:
        if not self._has_reset:
            raise FanoronaError(f"{call}() called before reset(): reset the environment first")

    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_space

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        fen = (options or {}).get("fen")
        self.game = Game(fen, no_progress_limit=self.no_progress_limit)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0 for a in self.agents}
        self._cumulative_rewards = {a: 0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.agents[self.game.player]
        self._has_reset = True
        if self.game.is_over:
            self._finish()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        self._check_reset("observe")
        planes = self.game.observation()
        if agent == self.agent_selection and not self.game.is_over:
            mask = self.game.action_mask().view(np.int8)
        else:
            mask = self._no_mask.copy()
        return {"observation": planes, "action_mask": mask}

    def legal_actions(self) -> list[int]:
        """The legal actions of the agent to move, as indices (cheaper than the mask)."""
        self._check_reset("legal_actions")
        return self.game.legal_actions()

    def step(self, action: int | None) -> None:
        self._check_reset("step")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0
        for a in self.agents:
            self.rewards[a] = 0
        try:
            self.game.step(int(action))
        except (FanoronaError, TypeError):
            other = AGENTS[1 - AGENTS.index(agent)]
            self.rewards[agent] = -1
            self.rewards[other] = 0
            for a in self.agents:
                self.terminations[a] = True
                self.infos[a] = {"illegal_move": True}
        else:
            if self.game.is_over:
                self._finish()
            else:
                self.agent_selection = AGENTS[self.game.player]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _finish(self) -> None:
        winner = self.game.outcome.winner
        for index, a in enumerate(AGENTS):
            side = "white" if index == 0 else "black"
            self.rewards[a] = 0 if winner is None else (1 if winner == side else -1)
            self.terminations[a] = True

    def render(self) -> str | None:
        return _render(self.game, self.render_mode)

    def close(self) -> None:
        pass


class FanoronaEnv(gymnasium.Env):
    """One side of Fanorona against a built-in player (see the module's docstring).

    ``side`` is ``"white"``, ``"black"`` or ``"random"`` (drawn at each reset from the
    environment's generator). ``tablebases`` gives the opponent endgame tables.
    ``reset(options={"fen": ...})`` starts from a position in notation.
    """

    metadata = {"render_modes": ["human", "ansi"], "render_fps": 2}

    def __init__(
        self,
        opponent: str = "alphabeta:ms=50,eval=learned",
        side: str = "white",
        no_progress_limit: int = 50,
        tablebases: str | None = None,
        render_mode: str | None = None,
    ):
        if side not in ("white", "black", "random"):
            raise ValueError(f"side {side!r} is not one of 'white', 'black', 'random'")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not one of {self.metadata['render_modes']}")
        self.render_mode = render_mode
        self.side = side
        self.no_progress_limit = no_progress_limit
        self.opponent = Player(opponent, tablebases=tablebases, no_progress_limit=no_progress_limit)
        self.observation_space = _planes_space()
        self.action_space = spaces.Discrete(ACTION_COUNT)
        self.game = Game(no_progress_limit=no_progress_limit)
        self.agent_side = "white"
        self._illegal = False

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        fen = (options or {}).get("fen")
        self.game = Game(fen, no_progress_limit=self.no_progress_limit)
        if self.side == "random":
            self.agent_side = ("white", "black")[int(self.np_random.integers(2))]
        else:
            self.agent_side = self.side
        self._illegal = False
        self.opponent.new_game()
        self._opponent_plays()
        return self.game.observation(), self._info()

    def step(self, action: int):
        if self.game.is_over or self._illegal:
            raise FanoronaError("step() called on a finished game: call reset()")
        try:
            self.game.step(int(action))
        except FanoronaError as error:
            self._illegal = True
            info = self._info()
            info["illegal_move"] = str(error)
            return self.game.observation(), -1.0, True, False, info
        self._opponent_plays()
        reward = 0.0
        terminated = self.game.is_over
        if terminated:
            winner = self.game.outcome.winner
            reward = 0.0 if winner is None else (1.0 if winner == self.agent_side else -1.0)
        if self.render_mode == "human":
            self.render()
        return self.game.observation(), reward, terminated, False, self._info()

    def action_masks(self) -> np.ndarray:
        """The legal actions of the agent as a boolean mask (MaskablePPO's convention)."""
        return self.game.action_mask()

    def _opponent_plays(self) -> None:
        while not self.game.is_over and self.game.side_to_move != self.agent_side:
            for a in self.opponent.choose(self.game).actions:
                self.game.step(a)

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"action_mask": self.game.action_mask(), "side": self.agent_side}
        if self.game.is_over:
            outcome = self.game.outcome
            info["winner"] = outcome.winner
            info["reason"] = outcome.reason
        return info

    def render(self) -> str | None:
        return _render(self.game, self.render_mode)


gymnasium.register(id="fanorona/Fanorona-v0", entry_point="fanorona.envs:FanoronaEnv")
