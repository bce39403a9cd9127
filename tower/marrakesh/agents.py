"""Agents that play through the core API, and :func:`play`, which runs a whole game.

An agent is anything with ``step(state, player) -> Action``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

from tower.marrakesh import rules
from tower.marrakesh.actions import ACTIONS, Action
from tower.marrakesh.state import State

if TYPE_CHECKING:
    from tower.marrakesh.game import Game


class Agent(Protocol):
    def step(self, state: State, player: int) -> Action: ...


class RandomAgent:
    """Picks uniformly among the legal actions, from its own seeded generator."""

    __slots__ = ("rng",)

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def step(self, state: State, player: int) -> Action:
        # The rules' own list of legal ids (read, not copied): one agent step per move. A
        # pending decision of the player's holds its options (rules.legal_ids, without the
        # call); the selection asks the rules.
        stack = state.stack
        top = stack[-1] if stack else None
        if top is not None and top["t"] == "ask" and top["p"] == player:
            ids = top["o"]
        else:
            ids = rules.legal_ids(state, player)
        n = len(ids)
        if not n:
            raise IndexError("no legal action to choose from")
        # self.rng.choice(ids), spelt out (the same draws: the k bits of n, redrawn until
        # below n), without its two calls on every move.
        rng = self.rng  # its method called in place (no bound method made per move)
        k = n.bit_length()
        r = rng.getrandbits(k)
        while r >= n:
            r = rng.getrandbits(k)
        return ACTIONS[ids[r]]


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
    stack = state.stack
    apply = rules.apply
    # state.current_player and state.apply, spelt out: two calls less per move.
    while stack:  # until state.is_terminal()
        top = stack[-1]
        if top["t"] == "ask":
            p = top["p"]
            a = agents[p].step(state, p)
            apply(state, a if type(a) is Action else rules.as_action(a), None)
        elif top["t"] == "select":
            p = state.pending_players()[0]
            state.apply(agents[p].step(state, p), player=p)
        else:
            state.sample_chance()
        if on_action is not None:
            on_action(state)
    return state
