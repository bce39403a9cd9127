"""Marrakesh as a PettingZoo AEC environment with action masks.

Agents are ``player_0`` .. ``player_{n-1}``. Each observation is a dict:
``"observation"``, the agent's view as a fixed-size float vector
(:class:`~tower.marrakesh.adapters.views.TensorLayout`, other players' screens and
pending selections hidden), and ``"action_mask"``, an ``int8`` vector over the engine's
fixed action space (1 = legal for that agent now). The action space is
``Discrete(game.num_distinct_actions)`` for every agent.

- The tower throw (the chance node) is resolved inside the environment with its own
  generator, seeded by ``reset(seed=...)``; the setup of the game is drawn from the same
  generator, so a seed fixes the whole game given the agents' actions.
- The simultaneous phase-1 selection is played as sequential hidden turns: the pending
  players choose one after another in seat order, and no observation shows another
  player's choice until all have chosen (the engine reveals the selections together).
- Rewards come at the end only: each winner (after the rulebook's tie-breaks) gets
  ``1 / number of winners``, the others 0. The final ``infos`` carry each agent's score.
- An illegal action raises :class:`tower.marrakesh.IllegalActionError` and changes
  nothing. :meth:`MarrakeshEnv.action_to_string` says what an action means now.

Examples
--------
>>> env = MarrakeshEnv(players=2)
>>> env.reset(seed=1)
>>> obs, reward, terminated, truncated, info = env.last()
>>> int(obs["action_mask"].sum()) >= 2, env.agent_selection
(True, 'player_0')
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from tower.marrakesh.adapters.views import TensorLayout
from tower.marrakesh.game import Game, GameConfig
from tower.marrakesh.state import SIMULTANEOUS, State
from tower.model.interface import TowerModel


class MarrakeshEnv(AECEnv):
    """The AEC environment; see the module docstring.

    Parameters
    ----------
    players : int
        2 to 4.
    modules : iterable of str
        Expansion modules (names in ``tower.marrakesh.MODULES``).
    tower : TowerModel or None
        The tower model (default: the engine's default, the baseline).
    render_mode : {"ansi", "human"} or None
        ``render()`` returns (``ansi``) or prints (``human``) the board as the agent to
        move sees it.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "name": "marrakesh_v0",
        "render_modes": ["ansi", "human"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        players: int = 4,
        modules: frozenset[str] | set[str] | tuple[str, ...] = frozenset(),
        tower: TowerModel | None = None,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        kw: dict[str, Any] = {"players": players, "modules": frozenset(modules)}
        if tower is not None:
            kw["tower"] = tower
        self.game = Game(GameConfig(**kw))
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self._index = {a: i for i, a in enumerate(self.possible_agents)}
        self.layout = TensorLayout(self.game)
        n_actions = self.game.num_distinct_actions
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(-np.inf, np.inf, (self.layout.size,), np.float32),
                "action_mask": spaces.Box(0, 1, (n_actions,), np.int8),
            }
        )
        act_space = spaces.Discrete(n_actions)
        self._obs_spaces = {a: obs_space for a in self.possible_agents}
        self._act_spaces = {a: act_space for a in self.possible_agents}
        self._rng = random.Random()
        #: the engine state of the current game (``None`` before ``reset``)
        self.marrakesh: State | None = None

    def observation_space(self, agent: str) -> spaces.Dict:
        return self._obs_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self._act_spaces[agent]

    # -- the AEC cycle ----------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = random.Random(seed)
        self.marrakesh = self.game.new_initial_state(seed=self._rng.randrange(2**31))
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._settle()

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        assert self.marrakesh is not None
        self.marrakesh.apply(int(action), player=self._index[agent])
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        self._settle()
        self._accumulate_rewards()

    def _settle(self) -> None:
        """Resolve tower throws, then point ``agent_selection`` at the agent to move, or
        end the game."""
        s = self.marrakesh
        while s.is_chance_node():
            s.sample_chance(self._rng)
        if s.is_terminal():
            winners = s.winners()
            for a, i in self._index.items():
                self.rewards[a] = 1.0 / len(winners) if i in winners else 0.0
                self.terminations[a] = True
                self.infos[a] = {"score": s.scores()[i], "winners": list(winners)}
            return
        cp = s.current_player
        p = s.pending_players()[0] if cp == SIMULTANEOUS else cp
        self.agent_selection = self.possible_agents[p]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        assert self.marrakesh is not None
        p = self._index[agent]
        mask = np.zeros(self.game.num_distinct_actions, np.int8)
        mask[self.marrakesh.legal_action_ids(p)] = 1
        return {"observation": self.layout.encode(self.marrakesh, p), "action_mask": mask}

    def action_to_string(self, action: int, agent: str | None = None) -> str:
        """What ``action`` means for ``agent`` (default: the agent to act) now: the label
        of a legal action (``State.describe_action``), else its plain form."""
        assert self.marrakesh is not None
        who = self.agent_selection if agent is None else agent
        return self.marrakesh.action_to_string(int(action), player=self._index[who])

    def render(self) -> str | None:
        if self.render_mode is None or self.marrakesh is None:
            return None
        from tower.marrakesh.ui import render

        text = render(self.marrakesh, self._index[self.agent_selection])
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        self.marrakesh = None
