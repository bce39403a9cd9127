"""``tower battle traces``: simulated battle seasons as traces for ``tower distill``.

Its own module, loaded when the subcommand runs, because its physics options import the
tower geometry (trimesh), which ``tower battle`` itself does not need.
"""

from __future__ import annotations

from pathlib import Path

import click

from tower.cli.options import (
    cluster_options,
    force_option,
    out_option,
    params_option,
    preset_option,
)


@click.command("traces")
@click.option("--seasons", default=1000, show_default=True, type=click.IntRange(1))
@click.option("--seed", default=0, show_default=True, type=int)
@out_option("out_file", "Trace file (JSONL); resumed if it exists.", required=True)
@preset_option
@params_option
@click.option(
    "--warmups",
    default=None,
    help="Warm-up rounds to draw from, uniformly, as a comma list with repeats "
    "(default: 0,0,0,0,0,0,0,1,2,3,4,6,8,12, i.e. half of the towers empty).",
)
@click.option(
    "--experts",
    is_flag=True,
    help="Gems & Experts too: every warm-up round also throws 1-5 expert keshis.",
)
@cluster_options("seasons")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@force_option
def traces_cmd(
    seasons: int, seed: int, out_file: Path, preset: str, params_file: Path | None,
    warmups: str | None, experts: bool, workers: int | None, scheduler: str | None,
    quiet: bool, force: bool,
) -> None:  # fmt: skip
    """Simulate SEASONS random battle seasons in physics towers as traces for `tower distill`.

    Each season draws players (1-4), season (1-3), recruits (0-3 each) and warm-up rounds
    (by default an empty tower half of the time, else 1-12 rounds) and plays every battle
    in one tower (see tower.battle.traces).
    """
    from tower.battle.traces import SeasonMix, run_traces

    summary = run_traces(
        seasons, out_file, seed=seed, preset=preset, params_file=params_file,
        mix=SeasonMix.with_warmups(warmups), experts=experts, workers=workers,
        scheduler=scheduler, progress=not quiet, force=force,
    )  # fmt: skip
    click.echo(
        f"{out_file}: {summary['done']} seasons simulated, {summary['skipped']} already there"
    )
