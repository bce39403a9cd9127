"""``tower record-synthetic``: a recording simulated at known parameters, marked synthetic."""

from __future__ import annotations

from pathlib import Path

import click

from tower.cli.options import check_pieces, force_option, out_option, preset_option


@click.command("record-synthetic")
@preset_option
@click.option(
    "--params",
    "params_path",
    default=None,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Params file with the true values (default: the preset's and physics defaults).",
)
@click.option(
    "--from-prior",
    is_flag=True,
    help="Draw the true values of the fitted parameters from their plausible ranges.",
)
@click.option(
    "--simulator",
    "simulator_name",
    default="physics",
    show_default=True,
    type=click.Choice(["physics", "baseline"]),
)
@click.option("--throws", type=click.IntRange(min=1), default=200, show_default=True)
@click.option(
    "--pieces",
    type=click.IntRange(min=1),
    default=12,
    show_default=True,
    help="Keshis per throw (colours rotate in groups of three); see --protocol.",
)
@click.option(
    "--protocol",
    default=None,
    help="Throw by this recording protocol instead of --pieces (the names of `tower "
    "calibrate plan --list`; one-colour is the recommended one).",
)
@click.option("--seed", type=int, default=0, show_default=True)
@out_option("out_path", "Recording to write (.csv or .jsonl).", required=True)
@force_option
def record_synthetic(
    preset: str, params_path: Path | None, from_prior: bool, simulator_name: str, throws: int,
    pieces: int, seed: int, out_path: Path, protocol: str | None = None, force: bool = False,
) -> None:  # fmt: skip
    """Write a synthetic recording (same format as `tower record`) with its true parameters."""
    from tower.calibration.recording import recording_format, write_recording
    from tower.calibration.synthetic_run import simulate_recording
    from tower.files.outputs import check_output

    recording_format(out_path)  # reject a bad extension before simulating
    check_output(out_path, force=force)  # and an existing file
    check_pieces(pieces)
    rec = simulate_recording(
        preset, params_path=params_path, from_prior=from_prior, simulator_name=simulator_name,
        throws=throws, pieces=pieces, protocol=protocol, seed=seed, rejected=_rejected,
    )  # fmt: skip
    write_recording(rec, out_path)
    series = [t for s in rec.sessions for t in s.throws]
    n_in = sum(sum(t.pieces_in.values()) for t in series)
    n_out = sum(sum(t.pieces_out.values()) for t in series)
    click.echo(f"wrote {out_path}: {len(series)} throws, {n_in} in, {n_out} out (synthetic)")


def _rejected(attempt: int, exc: Exception) -> None:
    click.echo(f"draw {attempt + 1} rejected (the simulation failed: {exc})", err=True)
