"""``tower battle``: the Walls & Guards battle checker.

With no subcommand it analyses a situation (by default: 4 players, season 2, each with 2
recruited watchmen and 2 repaired wall sections, a steady-state tower from the shipped
model) and prints a table and writes a plot. ``tower battle check`` scores an observed
battle throw by a tail probability under the model.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, ClassVar

import click

from tower.cli import LazyGroup
from tower.cli.options import cluster_options, force_option


class BattleGroup(LazyGroup):
    """``tower battle``: its ``traces`` subcommand (physics) is imported when it runs."""

    lazy: ClassVar[dict[str, str]] = {"traces": "tower.cli.battle_traces:traces_cmd"}


@click.group(cls=BattleGroup, invoke_without_command=True)
@click.option("--players", default=4, show_default=True, type=click.IntRange(1, 4))
@click.option("--season", default=2, show_default=True, type=click.IntRange(1, 3))
@click.option(
    "--recruited",
    default="2",
    show_default=True,
    help="Watchmen hired: N for everyone, or colour=N,... (others 0).",
)
@click.option(
    "--walls",
    default="2",
    show_default=True,
    help="Repaired wall sections: N for everyone, or colour=N,... (others 0).",
)
@click.option(
    "--watchtower", default="", help="Comma-separated colours owning the Watchtower building."
)
@click.option(
    "--first",
    default=None,
    help="Colour holding the round tracker (battles first); default the first colour.",
)
@click.option(
    "--tower",
    "tower_spec",
    default="steady",
    show_default=True,
    help="steady (steady-state pool from the model), empty, warm:R (after R ordinary "
    "rounds from empty), or a TowerState JSON file.",
)
@click.option(
    "--model",
    "model_name",
    default="shipped",
    show_default=True,
    help="shipped (the shipped distilled model; baseline if none ships), baseline, or a "
    "model file.",
)
@click.option(
    "--samples",
    default=2000,
    show_default=True,
    type=click.IntRange(2),
    help="Monte Carlo seasons (each variant of the hiring table uses as many).",
)
@click.option("--seed", default=0, show_default=True, type=int)
@click.option(
    "--plot",
    "plot_path",
    default="battle.png",
    show_default=True,
    help="PNG written here ('' for none); a plot tower battle wrote there is replaced.",
)
@click.option(
    "--json",
    "json_path",
    default=None,
    type=click.Path(path_type=Path),
    help="Also write the analysis as JSON here.",
)
@click.option("--no-hiring", is_flag=True, help="Skip the hiring 0-3 table.")
@click.option(
    "--physics",
    "physics_n",
    default=0,
    type=click.IntRange(0),
    help="Cross-check with N simulated seasons (pybullet; --tower empty or warm:R).",
)
@click.option(
    "--physics-log",
    default=None,
    type=click.Path(path_type=Path),
    help="JSONL log of the simulated seasons; a rerun resumes from it.",
)
@cluster_options("--physics seasons")
@click.option(
    "--physics-params",
    default=None,
    type=click.Path(path_type=Path),
    help="Physical parameter file for --physics (default: the preset's defaults).",
)
@force_option
@click.pass_context
def battle(
    ctx: click.Context, players: int, season: int, recruited: str, walls: str,
    watchtower: str, first: str | None, tower_spec: str, model_name: str, samples: int,
    seed: int, plot_path: str, json_path: Path | None, no_hiring: bool, physics_n: int,
    physics_log: Path | None, workers: int | None, scheduler: str | None,
    physics_params: Path | None, force: bool,
) -> None:  # fmt: skip
    """Analyse a season's Battles at the Wall under the tower model (default action)."""
    if ctx.invoked_subcommand is not None:
        return
    from tower.battle import inputs
    from tower.battle.checker import analyse
    from tower.battle.report import is_battle_plot, plot, table
    from tower.files.outputs import check_output, write_text

    if plot_path:  # a plot this command wrote before may be replaced
        check_output(plot_path, force=force or is_battle_plot(plot_path))
    if json_path is not None:
        check_output(json_path, force=force)
    start = time.perf_counter()
    situation = inputs.situation_from_text(players, season, recruited, walls, watchtower, first)
    warmup = inputs.warmup_rounds(tower_spec, physics=physics_n > 0)
    model, note = inputs.choose_model(model_name)
    tower = inputs.choose_tower(tower_spec, model, players, seed)
    result = analyse(model, situation, tower, samples=samples, seed=seed, hiring=not no_hiring)
    click.echo(f"{note}\n{table(result)}")
    if plot_path:
        click.echo(f"plot: {plot(result, plot_path, force=True)}")  # checked above
    doc = {**result.to_json(), "note": note}
    if physics_n:
        doc["physics"] = _cross_check(
            result, situation, physics_n, warmup or 0, seed=seed, params_file=physics_params,
            log=physics_log, workers=workers, scheduler=scheduler, force=force,
        )  # fmt: skip
    if json_path is not None:
        write_text(json_path, json.dumps(doc, indent=2, sort_keys=True) + "\n", checked=True)
        click.echo(f"json: {json_path}")
    click.echo(f"({time.perf_counter() - start:.1f} s)")


def _cross_check(
    result: Any, situation: Any, seasons: int, warmup: int, **run: Any
) -> dict[str, Any]:
    """Simulate ``seasons`` seasons, print the model against them; the JSON of it."""
    from tower.battle.physics import compare, physics_seasons, physics_stats
    from tower.battle.report import comparison_text

    done = physics_seasons(situation, seasons, warmup=warmup, **run)
    rows = compare(result, physics_stats(situation, done.seasons))
    click.echo(comparison_text(rows, seasons, warmup, done.rethrows))
    return {
        "seasons": seasons, "warmup_rounds": warmup, "rethrows": done.rethrows,
        "comparisons": [r.to_json() for r in rows],
    }  # fmt: skip


@battle.command("check")
@click.argument("observation", required=False, type=click.Path(path_type=Path))
@click.option("--thrown", default=None, help="Pieces thrown, e.g. '2*watchman:red,2*brigand'.")
@click.option("--out", "out_", default=None, help="Pieces that came out, same notation.")
@click.option("--player", default=None, help="Whose battle (reports its outcome too).")
@click.option("--wall", default=None, type=click.IntRange(0, 6), help="Their repaired sections.")
@click.option(
    "--tower",
    "tower_spec",
    default="steady",
    show_default=True,
    help="steady, empty, or a TowerState JSON file (ignored with OBSERVATION).",
)
@click.option(
    "--model",
    "model_name",
    default="shipped",
    show_default=True,
    help="shipped, baseline, or a model file.",
)
@click.option(
    "--samples",
    default=20000,
    show_default=True,
    type=click.IntRange(2),
    help="Model throws when the exact law is not available.",
)
@click.option("--seed", default=0, show_default=True, type=int)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def check_cmd(
    observation: Path | None, thrown: str | None, out_: str | None, player: str | None,
    wall: int | None, tower_spec: str, model_name: str, samples: int, seed: int,
    as_json: bool,
) -> None:  # fmt: skip
    """How plausible is an observed battle throw under the model?

    Give OBSERVATION (a tower.battle-observation/1 JSON file) or --thrown and --out.
    Prints the tail probability of the observed summary (watchmen by colour, brigands,
    keshis out): the model's probability of a summary at most as likely as this one.
    """
    from tower.battle.checker import check
    from tower.battle.inputs import (
        BadNotation,
        choose_model,
        choose_tower,
        observation_from_text,
        read_observation,
    )
    from tower.battle.report import check_text

    model, note = choose_model(model_name)
    if observation is not None:
        if thrown is not None or out_ is not None:
            raise BadNotation("give either an OBSERVATION file or --thrown/--out, not both")
        obs, tower = read_observation(observation, model)
    else:
        obs = observation_from_text(thrown, out_, player, wall)
        tower = choose_tower(tower_spec, model, 4, seed)
    result = check(model, obs, tower, samples=samples, seed=seed)
    if as_json:
        click.echo(json.dumps({**result.to_json(), "model_note": note, "tower": tower.label}))
    else:
        click.echo(f"{note}\ntower: {tower.label}\n{check_text(result)}")
