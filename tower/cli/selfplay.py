"""``tower selfplay N``: random or greedy agents play N Marrakesh games; score statistics.

With ``--out FILE`` every finished game is appended to FILE (JSONL, one line per game
keyed by its seed, after a run header) through :func:`tower.runs.run_tasks`, so an
interrupted run resumes where it stopped and the file ends byte-identical to an
uninterrupted one.
"""

from __future__ import annotations

import hashlib
import json
import statistics
from pathlib import Path
from typing import Any

import click

from tower.cli.options import force_option, modules_option, out_option


def game_record(args: dict[str, Any]) -> dict[str, Any]:
    """Play the game of seed ``args["key"]`` (a :func:`tower.runs.run_tasks` task)."""
    from tower.marrakesh.selfplay import play_seeds

    [(scores, winners)] = play_seeds(
        args["players"], args["modules"], args["model"], [args["key"]], args["agents"]
    )
    return {"key": args["key"], "scores": list(scores), "winners": list(winners)}


def _run_to_file(
    out: Path, n: int, seed: int, base: dict[str, Any], workers: int, scheduler: str | None,
    force: bool, quiet: bool,
) -> list[dict[str, Any]]:  # fmt: skip
    from tower.files.inputs import read_bytes
    from tower.files.outputs import run_header
    from tower.runs import Task, read_records, run_tasks

    model = base["model"]
    if model is not None and Path(model).is_file():
        model = hashlib.sha256(read_bytes(model)).hexdigest()
    settings = {**base, "model": model or ""}
    tasks = [Task(s, {**base, "key": s}) for s in range(seed, seed + n)]
    run_tasks(
        tasks, game_record, out, header=run_header("selfplay", settings), workers=workers,
        scheduler=scheduler, progress=not quiet, desc="games", force=force,
    )  # fmt: skip
    wanted = {t.key for t in tasks}
    return [r for r in read_records(out) if r["key"] in wanted]


@click.command()
@click.argument("n", type=click.IntRange(min=1))
@click.option("--players", type=click.IntRange(2, 4), default=4, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the first game.")
@click.option(
    "--model",
    "model_path",
    default=None,
    metavar="MODEL",
    help="Tower model: baseline, no-retention, shipped[:NAME] or a model file (default: the "
    "shipped distilled model, else the baseline).",
)
@modules_option
@click.option(
    "--workers", type=click.IntRange(min=1), default=1, show_default=True, help="Local processes."
)
@click.option("--scheduler", default=None, help="Dask scheduler address (instead of --workers).")
@click.option(
    "--agents",
    type=click.Choice(["random", "greedy"]),
    default="random",
    show_default=True,
    help="Agent in every seat: random legal moves, or the greedy one-step lookahead.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the statistics as JSON.")
@out_option("out_file", "Append each game's scores to this JSONL file; a rerun resumes it.")
@force_option
def selfplay(
    n: int, players: int, seed: int, model_path: str | None, modules: str, workers: int,
    scheduler: str | None, agents: str, as_json: bool, out_file: Path | None, force: bool,
) -> None:  # fmt: skip
    """Play N games between random (or greedy) agents and print score statistics."""
    from tqdm import tqdm

    from tower.marrakesh.selfplay import selfplay as run

    chosen = _chosen_modules(modules, players)
    if out_file is not None:
        base = {"players": players, "modules": chosen, "model": model_path, "agents": agents}
        games = _run_to_file(out_file, n, seed, base, workers, scheduler, force, as_json)
        _print_file_summary(out_file, games, as_json)
        return
    with tqdm(total=n, disable=n < 20 or as_json, desc="games") as bar:
        stats = run(
            n, players, seed, chosen, model_path, workers, scheduler, bar.update, agents=agents
        )
    click.echo(json.dumps(stats, indent=2) if as_json else stats_text(stats))


def _chosen_modules(modules: str, players: int) -> list[str]:
    """The modules of ``--modules``: names separated by commas, or ``all``."""
    from tower.marrakesh import MODULES
    from tower.marrakesh.game import ConfigError
    from tower.marrakesh.hooks import everything

    named = filter(None, modules.split(","))
    chosen = sorted(everything(players)) if modules == "all" else sorted(named)
    unknown = sorted(set(chosen) - set(MODULES))
    if unknown:
        raise ConfigError(f"unknown modules {unknown}; known: {list(MODULES)}")
    return chosen


def _print_file_summary(out_file: Path, games: list[dict[str, Any]], as_json: bool) -> None:
    flat = [s for g in games for s in g["scores"]]
    summary = {
        "games": len(games), "file": str(out_file), "mean_score": statistics.fmean(flat),
        "mean_winning_score": statistics.fmean(max(g["scores"]) for g in games),
    }  # fmt: skip
    click.echo(json.dumps(summary, indent=2) if as_json else (
        f"{out_file}: {len(games)} games; score mean {summary['mean_score']:.1f}, "
        f"winning score mean {summary['mean_winning_score']:.1f}"
    ))  # fmt: skip


def stats_text(stats: dict[str, Any]) -> str:
    """The self-play statistics as the lines ``tower selfplay`` prints."""
    n, players = stats["games"], stats["players"]
    lines = [
        f"{n} game(s), {players} players, {stats['agents']} agents, "
        f"modules: {', '.join(stats['modules']) or 'none'}, tower model: {stats['tower_model']}"
    ]
    if n == 1:
        shown = ", ".join(f"player {i}: {s}" for i, s in enumerate(stats["first_game_scores"]))
        lines.append(f"final scores: {shown}")
        lines.append("winner(s): " + ", ".join(f"player {w}" for w in stats["first_game_winners"]))
    lines.append(
        f"score mean {stats['mean_score']:.1f} (sd {stats['stdev_score']:.1f}, "
        f"min {stats['min_score']}, max {stats['max_score']}); "
        f"winning score mean {stats['mean_winning_score']:.1f}"
    )
    lines += [
        f"  seat {i}: mean {stats['mean_score_by_seat'][i]:.1f}, "
        f"wins {stats['wins_by_seat'][i]:.1f}"
        for i in range(players)
    ]
    lines.append(f"{stats['games_per_s']:.1f} games/s")
    return "\n".join(lines)
