"""``tower selfplay N``: random agents play N Marrakesh games; score statistics."""

from __future__ import annotations

import json
import statistics
import time

import click


def _model(path: str | None):
    """The tower model: a model file, else the shipped distilled model, else the baseline."""
    from tower.errors import TowerError
    from tower.model import BaselineModel, load_model, load_shipped

    if path is not None:
        return load_model(path)
    try:
        return load_shipped("marrakesh")
    except TowerError:
        return BaselineModel()


@click.command()
@click.argument("n", type=click.IntRange(min=1))
@click.option("--players", type=click.IntRange(2, 4), default=4, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the first game.")
@click.option(
    "--model",
    "model_path",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="Tower model file (default: the shipped distilled model, else the baseline).",
)
@click.option(
    "--modules",
    default="",
    help="Comma-separated expansion modules, or 'all' (default: base game only).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the statistics as JSON.")
def selfplay(
    n: int, players: int, seed: int, model_path: str | None, modules: str, as_json: bool
) -> None:
    """Play N games between random agents and print score statistics."""
    from tqdm import tqdm

    from tower.marrakesh import MODULES, Game, GameConfig, RandomAgent, play

    chosen = frozenset(MODULES) if modules == "all" else frozenset(filter(None, modules.split(",")))
    model = _model(model_path)
    game = Game(GameConfig(players=players, modules=chosen, tower=model))
    scores: list[list[int]] = []
    wins = [0.0] * players
    start = time.perf_counter()
    for g in tqdm(range(n), disable=n < 20 or as_json, desc="games"):
        agents = [RandomAgent(1000 * (seed + g) + k) for k in range(players)]
        state = play(game, agents, seed=seed + g)
        scores.append(state.scores())
        for w in state.winners():
            wins[w] += 1 / len(state.winners())
    elapsed = time.perf_counter() - start
    flat = [s for row in scores for s in row]
    best = [max(row) for row in scores]
    stats = {
        "games": n,
        "players": players,
        "modules": sorted(chosen),
        "tower_model": model.name,
        "mean_score": statistics.fmean(flat),
        "stdev_score": statistics.pstdev(flat),
        "min_score": min(flat),
        "max_score": max(flat),
        "mean_winning_score": statistics.fmean(best),
        "mean_score_by_seat": [statistics.fmean(r[i] for r in scores) for i in range(players)],
        "wins_by_seat": wins,
        "games_per_s": n / elapsed,
    }
    if as_json:
        click.echo(json.dumps(stats, indent=2))
        return
    click.echo(
        f"{n} game(s), {players} players, modules: {', '.join(stats['modules']) or 'none'}, "
        f"tower model: {model.name}"
    )
    if n == 1:
        click.echo(
            "final scores: " + ", ".join(f"player {i}: {s}" for i, s in enumerate(scores[0]))
        )
        click.echo(f"winner(s): {', '.join(f'player {w}' for w in state.winners())}")
    click.echo(
        f"score mean {stats['mean_score']:.1f} (sd {stats['stdev_score']:.1f}, "
        f"min {stats['min_score']}, max {stats['max_score']}); "
        f"winning score mean {stats['mean_winning_score']:.1f}"
    )
    for i in range(players):
        click.echo(f"  seat {i}: mean {stats['mean_score_by_seat'][i]:.1f}, wins {wins[i]:.1f}")
    click.echo(f"{stats['games_per_s']:.1f} games/s")
