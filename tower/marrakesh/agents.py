"""Agents that play through the core API, and :func:`play`, which runs a whole game.

An agent is anything with ``step(state, player) -> Action``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

from tower.marrakesh import rules
from tower.marrakesh.actions import ACTIONS
from tower.marrakesh.state import CHANCE, SIMULTANEOUS, State

if TYPE_CHECKING:
    from tower.marrakesh.actions import Action
    from tower.marrakesh.game import Game


class Agent(Protocol):
    def step(self, state: State, player: int) -> Action: ...


class RandomAgent:
    """Picks uniformly among the legal actions, from its own seeded generator."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def step(self, state: State, player: int) -> Action:
        # The rules' own list of legal ids (read, not copied): one agent step per move.
        return ACTIONS[self.rng.choice(rules.legal_ids(state, player))]


def play(
    game: Game,
    agents: Sequence[Agent],
    seed: int = 0,
    on_action: Callable[[State], None] | None = None,
) -> State:
    """Play one game from ``seed`` with one agent per player; returns the final state.

    ``on_action`` is called after every action and chance outcome (for checks)."""
    if len(agents) != game.config.players:
        raise ValueError(f"{game.config.players} players need {game.config.players} agents")
    state = game.new_initial_state(seed)
    while state.stack:  # until state.is_terminal()
        cp = rules.current_player(state)  # state.current_player, one call less per move
        if cp == CHANCE:
            state.sample_chance()
        elif cp == SIMULTANEOUS:
            p = state.pending_players()[0]
            state.apply(agents[p].step(state, p), player=p)
        else:
            state.apply(agents[cp].step(state, cp))
        if on_action is not None:
            on_action(state)
    return state
