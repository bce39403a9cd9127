"""A greedy heuristic agent for Marrakesh: one-step lookahead on a clone.

At a player decision, :class:`GreedyAgent` applies each legal action to a clone of the
state (the engine runs on to the next decision, or stops before a tower throw) and scores
the result with :func:`value`, a hand-written estimate of a player's position: points
now, resources, keshis on the board and held, scrolls, luxury goods, and progress on the
staircases and the river. Ties are broken by the agent's own
seeded generator, so the agent is deterministic given its seed.

The agent reads the engine state it is given, but its value counts only the player's own
points and assets, so it gains nothing from the hidden stack orders or other players'
screens.

The hidden phase-1 selection has no immediate effect to look ahead to, so it is scored
by :func:`selection_value`: keshis for sectors that still have room, red (wild) and
goods keshis for the souk.

Examples
--------
>>> from tower.marrakesh import Game, GameConfig, RandomAgent, play
>>> game = Game(GameConfig(players=2))
>>> final = play(game, [GreedyAgent(1), RandomAgent(2)], seed=3)
>>> final.is_terminal()
True
"""

from __future__ import annotations

import random

from tower.marrakesh.actions import GOODS, SELECTIONS, VENDOR_SECTORS, Action
from tower.marrakesh.state import SIMULTANEOUS, State
from tower.pieces import KESHI_COLOURS

#: Weights of :func:`value` (hand-tuned, not fitted): points count 1 each.
WEIGHTS: dict[str, float] = {
    "resource": 0.4,  # one water, date or dinar
    "keshi": 0.6,  # one keshi on the player board (sectors, souk)
    "stair": 0.7,  # one step on the mosque or palace staircase
    "river": 0.3,  # one space on the river
    "scroll": 1.0,  # one scroll owned
    "luxury": 1.0,  # one luxury good owned
    "held": 0.5,  # one keshi claimed or gained but not yet deployed
    "wood": 0.3,  # Walls & Guards: one wood
    "wall": 1.5,  # Walls & Guards: one repaired wall section (safe in every battle)
    "recruited": 0.5,  # Walls & Guards: one watchman ready for battle
}
#: Capacity of a sector on the player board (rulebook: 8 keshis).
SECTOR_CAPACITY = 8


def value(state: State, player: int) -> float:
    """Heuristic worth of ``state`` to ``player``: points plus weighted assets."""
    pl = state.players[player]
    w = WEIGHTS
    return (
        pl.score
        + w["resource"] * (pl.water + pl.dates + pl.dinars)
        + w["keshi"] * sum(pl.keshis.values())
        + w["stair"] * (pl.mosque + pl.palace)
        + w["river"] * pl.river
        + w["scroll"] * len(pl.scrolls)
        + w["luxury"] * len(pl.luxuries)
        + w["held"] * len(pl.held)
        + w["wood"] * pl.wood
        + w["wall"] * len(pl.wall)
        + w["recruited"] * pl.recruited
    )


def selection_value(state: State, player: int, colours: tuple[str, ...]) -> float:
    """Worth of sending ``colours`` to the tower in phase 1: one per keshi whose sector
    still has room, 1.5 for a red (it may go to any sector), 1 for a goods keshi."""
    pl = state.players[player]
    total = 0.0
    for c in colours:
        if c == "red":
            total += 1.5
        elif c in GOODS:
            total += 1.0
        elif c in VENDOR_SECTORS:
            total += 1.0 if pl.keshis[c] < SECTOR_CAPACITY else 0.0
    return total


class GreedyAgent:
    """Picks the legal action with the best :func:`value` one step ahead.

    Parameters
    ----------
    seed : int or None
        Seed of the tie-breaking generator; the agent is deterministic given it.
    """

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def step(self, state: State, player: int) -> Action:
        legal = state.legal_actions(player)
        if len(legal) == 1:
            return legal[0]
        if state.current_player == SIMULTANEOUS:
            scored = [(self._select_score(state, player, a), a) for a in legal]
        else:
            scored = [(self._lookahead(state, player, a), a) for a in legal]
        best = max(s for s, _ in scored)
        return self.rng.choice([a for s, a in scored if s >= best - 1e-9])

    @staticmethod
    def _select_score(state: State, player: int, action: Action) -> float:
        colours = tuple(KESHI_COLOURS[i] for i in SELECTIONS[action.arg])
        return selection_value(state, player, colours)

    @staticmethod
    def _lookahead(state: State, player: int, action: Action) -> float:
        child = state.clone()
        child.apply(action)  # the engine runs on to the next decision or chance node
        return value(child, player)


__all__ = ["WEIGHTS", "GreedyAgent", "selection_value", "value"]
