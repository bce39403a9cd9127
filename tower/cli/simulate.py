"""``tower simulate``: many independent game-length sequences, written as a trace file.

Each finished sequence is appended at once as one line of the trace format
(:mod:`tower.traces`); running the same command again after an interruption completes the
file without repeating or losing a sequence (:func:`tower.runs.run_tasks`).
"""

from __future__ import annotations

from pathlib import Path

import click

from tower.cli.options import (
    check_pieces,
    cluster_options,
    force_option,
    load_physics,
    out_option,
    physics_options,
    throw_shape_options,
    tower_mix,
)


@click.command()
@physics_options
@click.option(
    "--sequences",
    type=click.IntRange(1),
    default=100,
    show_default=True,
    help="Independent towers, each starting empty.",
)
@throw_shape_options
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the batch.")
@out_option("out_file", "Trace file (JSONL); resumed if it exists.", required=True)
@click.option(
    "--retries",
    type=click.IntRange(0),
    default=3,
    show_default=True,
    help="Re-throws of a throw in which the simulation loses a piece (recorded in the "
    "trace as 'rethrows'); a sequence that still loses one stops the batch.",
)
@cluster_options("sequences")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@click.option(
    "--as-recording",
    is_flag=True,
    help="Write a synthetic recording (the format of `tower record`, marked synthetic, with "
    "the true parameters inside) instead of traces: same as `tower record-synthetic`.",
)
@click.option(
    "--protocol",
    default=None,
    help="With --as-recording: throw by this recording protocol (see `tower calibrate plan "
    "--list`).",
)
@click.option(
    "--plot",
    "plot_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also plot the pieces inside over the throws of every sequence (PNG).",
)
@force_option
def simulate(
    preset: str, spec_file: Path | None, params_file: Path | None, sequences: int,
    throws: int, pieces: int, mix: str | None, seed: int, out_file: Path, retries: int,
    scheduler: str | None, workers: int | None, quiet: bool, as_recording: bool,
    protocol: str | None, plot_file: Path | None, force: bool,
) -> None:  # fmt: skip
    """Simulate SEQUENCES towers of THROWS throws each into a trace file.

    With ``--as-recording``, write one synthetic recording of THROWS throws of PIECES
    keshis instead (see ``tower record-synthetic``).
    """
    if as_recording:
        if spec_file is not None or mix not in (None, "keshis"):
            raise click.UsageError("--as-recording takes --preset and keshis only")
        from tower.cli.record_synthetic import record_synthetic

        click.get_current_context().invoke(
            record_synthetic, preset=preset, params_path=params_file, throws=throws,
            pieces=pieces, seed=seed, out_path=out_file, protocol=protocol, force=force,
        )  # fmt: skip
        return
    from tower.files.outputs import check_output
    from tower.physics.sequences import run_sequences

    spec, params = load_physics(preset, spec_file, params_file)
    check_pieces(pieces)
    mix = tower_mix(spec, mix)
    if plot_file is not None:
        check_output(plot_file, force=force)
    summary = run_sequences(
        spec, params, out_file, sequences=sequences, throws=throws, pieces=pieces, mix=mix,
        seed=seed, retries=retries, scheduler=scheduler, workers=workers, progress=not quiet,
        force=force,
    )  # fmt: skip
    click.echo(
        f"{out_file}: {summary['done']} sequences simulated, {summary['skipped']} already there"
    )
    if plot_file is not None:
        _plot(out_file, plot_file)


def _plot(traces: Path, plot_file: Path) -> None:
    from tower.physics.plots import plot_inside
    from tower.traces import read_traces

    plot_inside(list(read_traces(traces)), plot_file, force=True)  # checked before the run
    click.echo(f"wrote {plot_file}")
