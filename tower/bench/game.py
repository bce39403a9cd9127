"""``tower bench game``: full random 4-player Marrakesh games per second on one core.

The baseline measured in the same run is the raw cost of the tower model alone: as many
baseline-model throws of 12 keshis as a game makes (12), so the ratio shows how much of a
game's time the rules take beyond the tower.
"""

from __future__ import annotations

import random
import time

from tower.marrakesh import Game, GameConfig, RandomAgent, play
from tower.model import BaselineModel
from tower.pieces import mixed_keshis


def run(quick: bool = False) -> dict[str, float]:
    """Play random 4-player base games; returns ``games_per_s`` and ``decisions_per_s``."""
    n_games = 10 if quick else 60
    game = Game(GameConfig(players=4))
    decisions = 0
    start = time.perf_counter()
    for i in range(n_games):
        state = play(game, [RandomAgent(1000 * i + k) for k in range(4)], seed=i)
        decisions += sum(not h.startswith("chance") for h in state.history)
    elapsed = time.perf_counter() - start

    model = BaselineModel()
    rng = random.Random(0)
    pieces = mixed_keshis(12)
    t0 = time.perf_counter()
    for _ in range(n_games):
        tower = model.new_state()
        for _ in range(12):
            _, tower = model.throw(tower, pieces, rng)
    base = time.perf_counter() - t0
    return {
        "games_per_s": n_games / elapsed,
        "decisions_per_s": decisions / elapsed,
        "decisions_per_game": decisions / n_games,
        "games": float(n_games),
        "tower_only_games_per_s": n_games / base,
        "ratio_game_to_tower_only_time": elapsed / base,
    }
