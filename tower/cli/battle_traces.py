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
    load_physics,
    params_option,
    preset_option,
)


@click.command("traces")
@click.option("--seasons", default=1000, show_default=True, type=click.IntRange(1))
@click.option("--seed", default=0, show_default=True, type=int)
@click.option(
    "--out",
    "out_file",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Trace file (JSONL); resumed if it exists.",
)
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
    seasons: int,
    seed: int,
    out_file: Path,
    preset: str,
    params_file: Path | None,
    warmups: str | None,
    experts: bool,
    workers: int | None,
    scheduler: str | None,
    quiet: bool,
    force: bool,
) -> None:
    """Simulate SEASONS random battle seasons in physics towers as traces for `tower distill`.

    Each season draws players (1-4), season (1-3), recruits (0-3 each) and warm-up rounds
    (by default an empty tower half of the time, else 1-12 rounds) and plays every battle
    in one tower (see tower.battle.traces).
    """
    from tower.battle.inputs import BadNotation
    from tower.battle.traces import SeasonMix, trace_task, trace_tasks
    from tower.runs import run_tasks

    mix = SeasonMix()
    if warmups is not None:
        try:
            drawn = tuple(int(w) for w in warmups.split(","))
        except ValueError:
            raise BadNotation(f"--warmups must be a comma list, got {warmups!r}") from None
        if not drawn or min(drawn) < 0:
            raise BadNotation(f"--warmups needs rounds >= 0, got {warmups!r}")
        mix = SeasonMix(warmups=drawn)
    from tower.files.outputs import run_header
    from tower.physics.world import NUMERICS_VERSION

    # a bad preset or params file fails here, once
    spec, params = load_physics(preset, None, params_file)
    tasks = trace_tasks(
        seasons, seed=seed, preset=preset, params_file=params_file, mix=mix, experts=experts
    )
    settings = {"seed": seed, "spec_toml": spec.to_toml(), "params": params.to_json(),
                "warmups": list(mix.warmups), "numerics": NUMERICS_VERSION}  # fmt: skip
    if experts:  # absent when off, so earlier batches keep their header
        settings["experts"] = True
    header = run_header("battle traces", settings)
    summary = run_tasks(
        tasks,
        trace_task,
        out_file,
        scheduler=scheduler,
        workers=workers,
        progress=not quiet,
        key_field="seq",
        desc="battle seasons",
        header=header,
        force=force,
    )
    click.echo(
        f"{out_file}: {summary['done']} seasons simulated, {summary['skipped']} already there"
    )
