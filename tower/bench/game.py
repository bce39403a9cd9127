"""``tower bench game``: full random 4-player Marrakesh games per second on one core, for
the base game and with every compatible playable module on.

Times are CPU seconds of this process (:func:`time.process_time`): the engine is single
threaded, and on a shared machine the wall clock mostly measures the other processes.

The baseline measured in the same run is the raw cost of the tower model alone: the 12
baseline-model throws of 12 keshis a base game makes. The games are played in chunks of
:data:`CHUNK`, each between two runs of the baseline, and a chunk's ratio is its time per
game over the baseline's time per game around it; the median of the chunks' ratios is
reported. Interleaving keeps the ratio steady on a machine whose load changes during the
run, so the ratio compares engines across runs and machines where games/s cannot.
``ratio_game_to_tower_only_time`` is the base game's: the figure to watch when the engine
changes (the base game must not get slower). ``compiled_engine_files`` counts the engine
files that ran compiled (``setup.py``; 0: all plain Python).
"""

from __future__ import annotations

import random
import statistics
import time

from tower.compiled import running
from tower.marrakesh import Game, GameConfig, RandomAgent, play
from tower.marrakesh.hooks import everything
from tower.model import BaselineModel
from tower.pieces import mixed_keshis

#: Games per chunk, and games' worth of tower-only throws run before and after each chunk.
CHUNK = 5
REFERENCE_GAMES = 20


def tower_only(n_games: int) -> float:
    """Seconds for the tower-model throws of ``n_games`` base games (12 throws each)."""
    model = BaselineModel()
    rng = random.Random(0)
    pieces = mixed_keshis(12)
    t0 = time.process_time()
    for _ in range(n_games):
        tower = model.new_state()
        for _ in range(12):
            _, tower = model.throw(tower, pieces, rng)
    return time.process_time() - t0


def measure(game: Game, n_games: int) -> dict[str, float]:
    """Play ``n_games`` random 4-player games of ``game`` in chunks between baseline runs:
    total seconds, player decisions, tower-only seconds per game, median chunk ratio."""
    seconds = decisions = 0.0
    ratios, reference = [], []
    before = tower_only(REFERENCE_GAMES) / REFERENCE_GAMES
    for first in range(0, n_games, CHUNK):
        chunk = range(first, min(n_games, first + CHUNK))
        t0 = time.process_time()
        for i in chunk:
            state = play(game, [RandomAgent(1000 * i + k) for k in range(4)], seed=i)
            decisions += sum(not h.startswith("chance") for h in state.history)
        took = time.process_time() - t0
        after = tower_only(REFERENCE_GAMES) / REFERENCE_GAMES
        ratios.append(took / len(chunk) / ((before + after) / 2))
        reference.append(after)
        seconds += took
        before = after
    return {
        "seconds": seconds,
        "decisions": decisions,
        "tower_only": statistics.median(reference),
        "ratio": statistics.median(ratios),
    }


def run(quick: bool = False) -> dict[str, float]:
    """Play random 4-player games, base and all modules; returns games/s, decisions/s and
    the ratios to the tower-only baseline."""
    n_games = 10 if quick else 60
    base = measure(Game(GameConfig(players=4)), n_games)
    every = everything(4)  # every compatible module
    full = measure(Game(GameConfig(players=4, modules=every)), n_games)
    return {
        "games_per_s": n_games / base["seconds"],
        "decisions_per_s": base["decisions"] / base["seconds"],
        "decisions_per_game": base["decisions"] / n_games,
        "games": float(n_games),
        "tower_only_games_per_s": 1.0 / base["tower_only"],
        "ratio_game_to_tower_only_time": base["ratio"],
        "all_modules_games_per_s": n_games / full["seconds"],
        "all_modules_decisions_per_game": full["decisions"] / n_games,
        "all_modules_count": float(len(every)),
        "ratio_all_modules_to_tower_only_time": full["ratio"],
        "ratio_all_modules_to_base_game_time": full["ratio"] / base["ratio"],
        "compiled_engine_files": float(len(running("tower.marrakesh"))),
    }
