"""Self-play statistics: many games between random or greedy agents, on local processes or
Dask.

:func:`selfplay` splits the seeds into chunks; each chunk is played by
:func:`play_seeds` in this process (``workers=1``), in a local process pool, or on a Dask
cluster (``scheduler="tcp://..."``). Results are the same in every case: game ``i`` is
played from seed ``seed + i`` with agents seeded from it. ``agents`` names the agent
kind of every seat (:data:`AGENTS`).
"""

from __future__ import annotations

import functools
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

from tower.model.interface import TowerModel

#: Agent kinds: name -> "module:class", built with a seed.
AGENTS: dict[str, str] = {
    "random": "tower.marrakesh.agents:RandomAgent",
    "greedy": "tower.marrakesh.greedy:GreedyAgent",
}


def make_agent(kind: str, seed: int) -> Any:
    """An agent of ``kind`` (a key of :data:`AGENTS`) seeded with ``seed``."""
    import importlib

    if kind not in AGENTS:
        raise ValueError(f"unknown agent kind {kind!r}; known: {sorted(AGENTS)}")
    module, name = AGENTS[kind].split(":")
    return getattr(importlib.import_module(module), name)(seed)


def load_tower(model: str | None) -> TowerModel:
    """The model ``model`` names (:func:`tower.model.open_model`), else the shipped
    distilled model, else the baseline.

    Loaded once per process and model (a file once per version: path, size, modification
    time), so the chunks a process plays share one model (a model's throws do not depend
    on what it threw before).
    """
    from pathlib import Path

    if model is None or not Path(model).is_file():
        return _load_tower(model, None)
    stat = Path(model).stat()
    return _load_tower(model, (stat.st_size, stat.st_mtime_ns))


@functools.lru_cache(maxsize=4)
def _load_tower(model: str | None, version: tuple[int, int] | None) -> TowerModel:
    from tower.errors import TowerError
    from tower.model import BaselineModel, open_model

    if model is not None:
        return open_model(model)
    try:
        return open_model("shipped")
    except TowerError:
        return BaselineModel()


def play_seeds(
    players: int,
    modules: Sequence[str],
    model_path: str | None,
    seeds: Sequence[int],
    agents: str = "random",
) -> list[tuple[list[int], list[int]]]:
    """Play one game per seed between ``agents``; returns (scores, winners) per game."""
    from tower.marrakesh import Game, GameConfig, play

    game = Game(GameConfig(players, frozenset(modules), load_tower(model_path)))
    out = []
    for s in seeds:
        seats = [make_agent(agents, 1000 * s + k) for k in range(players)]
        state = play(game, seats, seed=s)
        out.append((state.scores(), state.winners()))
    return out


def selfplay(
    n: int,
    players: int = 4,
    seed: int = 0,
    modules: Sequence[str] = (),
    model_path: str | None = None,
    workers: int = 1,
    scheduler: str | None = None,
    progress: Callable[[int], None] | None = None,
    agents: str = "random",
) -> dict[str, Any]:
    """Play ``n`` games between ``agents`` (``"random"`` or ``"greedy"`` in every seat)
    and return score statistics (see the keys of the result)."""
    if agents not in AGENTS:
        raise ValueError(f"unknown agent kind {agents!r}; known: {sorted(AGENTS)}")
    seeds = list(range(seed, seed + n))
    size = max(1, min(50, n // max(1, 4 * workers)))
    chunks = [seeds[i : i + size] for i in range(0, n, size)]
    args = (players, tuple(sorted(modules)), model_path)
    results: list[tuple[list[int], list[int]]] = []
    start = time.perf_counter()
    if scheduler is not None:
        from distributed import Client, as_completed

        with Client(scheduler) as client:
            futures = [client.submit(play_seeds, *args, c, agents, pure=False) for c in chunks]
            done = {}
            for fut in as_completed(futures):
                done[futures.index(fut)] = fut.result()
                if progress:
                    progress(len(done[futures.index(fut)]))
            for i in range(len(chunks)):
                results += done[i]
    elif workers > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(workers) as pool:
            jobs = [(*args, c, agents) for c in chunks]
            for part in pool.map(play_seeds, *zip(*jobs, strict=True)):
                results += part
                if progress:
                    progress(len(part))
    else:
        for c in chunks:
            part = play_seeds(*args, c, agents)
            results += part
            if progress:
                progress(len(part))
    elapsed = time.perf_counter() - start
    scores = [r[0] for r in results]
    wins = [0.0] * players
    for _, winners in results:
        for w in winners:
            wins[w] += 1 / len(winners)
    flat = [s for row in scores for s in row]
    return {
        "games": n,
        "players": players,
        "modules": sorted(modules),
        "agents": agents,
        "tower_model": load_tower(model_path).name,
        "mean_score": statistics.fmean(flat),
        "stdev_score": statistics.pstdev(flat),
        "min_score": min(flat),
        "max_score": max(flat),
        "mean_winning_score": statistics.fmean(max(row) for row in scores),
        "mean_score_by_seat": [statistics.fmean(r[i] for r in scores) for i in range(players)],
        "wins_by_seat": wins,
        "games_per_s": n / elapsed,
        "first_game_scores": scores[0],
        "first_game_winners": results[0][1],
    }
