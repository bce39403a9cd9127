"""``tower calibrate RECORDING --out DIR``: fit the simulator to recorded throws, with a report."""

from __future__ import annotations

from pathlib import Path

import click

from tower.calibration import DEFAULT_BUDGET, DEFAULT_CHECKS
from tower.cli.options import cluster_options, force_option, preset_option

#: What ``calibrate`` writes into --out (checked against the output policy before the fit).
OUTPUTS = (
    "params.json", "posterior.csv", "fit.json", "report.md", "out_by_n.png",
    "inside_over_time.png", "fresh_old.png", "colour_mixing.png", "posterior.png",
    "cache/replays.jsonl",
)  # fmt: skip


@click.command()
@click.argument("recording", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--out",
    "out_dir",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Directory for params.json, posterior.csv, fit.json, report.md and PNGs.",
)
@preset_option
@click.option(
    "--simulator",
    "simulator_name",
    default="physics",
    show_default=True,
    type=click.Choice(["physics", "baseline"]),
    help="physics: the pybullet tower; baseline: the two-chance tower model.",
)
@click.option(
    "--budget",
    type=click.IntRange(min=8),
    default=DEFAULT_BUDGET,
    show_default=True,
    help="Design replays of the training throws.",
)
@click.option(
    "--checks",
    type=click.IntRange(min=2),
    default=DEFAULT_CHECKS,
    show_default=True,
    help="Posterior predictive replays for the report.",
)
@cluster_options("replays")
@click.option(
    "--holdout",
    type=click.FloatRange(0, 0.9),
    default=0.25,
    show_default=True,
    help="Share of each session's throws (its tail) held out of the fit.",
)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option(
    "--fit",
    "fit_names",
    default=None,
    help="Comma-separated parameters to fit (default: see calibration/README.md).",
)
@click.option(
    "--params",
    "params_path",
    default=None,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Params file giving the values of the parameters not fitted.",
)
@click.option("--quiet", is_flag=True, help="No progress bars.")
@force_option
def calibrate(
    recording: Path, out_dir: Path, preset: str, simulator_name: str, budget: int,
    checks: int, scheduler: str | None, workers: int | None, holdout: float, seed: int,
    fit_names: str | None, params_path: Path | None, quiet: bool, force: bool = False,
) -> None:  # fmt: skip
    """Calibrate the simulator against RECORDING (.csv or .jsonl) and report the fit.

    Prints each parameter's 90% credible interval; writes params.json (usable as --params),
    posterior.csv, fit.json and report.md with plots into --out.
    """
    from tower.calibration.calibrate import Settings
    from tower.calibration.calibrate import calibrate as run

    settings = Settings(
        budget=budget, holdout=holdout, seed=seed, checks=checks, scheduler=scheduler,
        workers=workers, progress=not quiet,
    )  # fmt: skip
    from tower.calibration.recording import read_recording
    from tower.files.outputs import OutputFolder

    folder = OutputFolder(out_dir, "calibrate", force=force)
    folder.check(OUTPUTS)
    read_recording(recording)  # a bad recording or params file fails before any write
    if params_path is not None:
        from tower.calibration.params_file import load_params

        load_params(params_path)

    names = [n.strip() for n in fit_names.split(",") if n.strip()] if fit_names else None
    with folder.claiming(OUTPUTS):
        done = run(recording, out_dir, simulator_name, settings, preset=preset,
                   fit_names=names, params_path=params_path)  # fmt: skip
    width = max(len(f.parameter.name) for f in done.result.fits)
    for f in done.result.fits:
        flag = "" if f.identifiable else "  (not identifiable)"
        click.echo(
            f"{f.parameter.name:<{width}}  {f.median:10.4g}  90% [{f.low:.4g}, {f.high:.4g}]{flag}"
        )
    poor = [c.name for c in done.checks if c.p_value < 0.05]
    click.echo(f"held-out checks: {len(done.checks)} run, poor fit on: {', '.join(poor) or 'none'}")
    click.echo(
        f"wrote {out_dir / 'report.md'} and {out_dir / 'params.json'} ({done.seconds:.0f} s)"
    )
