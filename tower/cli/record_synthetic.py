"""``tower record-synthetic``: a recording simulated at known parameters, marked synthetic."""

from __future__ import annotations

from pathlib import Path

import click

from tower.cli.options import check_pieces, force_option, preset_option

#: Draws from the prior tried by --from-prior before giving up (a draw is rejected when its
#: simulation fails: pieces escape, or the tower clogs).
ATTEMPTS = 40


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
@click.option(
    "--out",
    "out_path",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Recording to write (.csv or .jsonl).",
)
@force_option
def record_synthetic(
    preset: str, params_path: Path | None, from_prior: bool, simulator_name: str, throws: int,
    pieces: int, seed: int, out_path: Path, protocol: str | None = None, force: bool = False,
) -> None:  # fmt: skip
    """Write a synthetic recording (same format as `tower record`) with its true parameters."""
    from tower.calibration.calibrate import make_simulator
    from tower.calibration.fit import derive_seed
    from tower.calibration.recording import Recording, recording_format, write_recording
    from tower.calibration.simulators import ReplayAborted
    from tower.calibration.synthetic import draw_from_prior, synthetic_plan, synthetic_recording
    from tower.errors import TowerError
    from tower.files.outputs import check_output
    from tower.physics.sim import SimulationError

    recording_format(out_path)  # reject a bad extension before simulating
    check_output(out_path, force=force)  # and an existing file
    check_pieces(pieces)
    base_geometry: dict[str, float] = {}
    base_physics: dict = {}
    if params_path is not None:
        from tower.calibration.params_file import load_params

        base_geometry, physics = load_params(params_path)
        base_physics = {k: v for k, v in physics.to_json().items() if k != "schema"}
    if protocol is None:
        plan = synthetic_plan(throws, pieces)
    else:
        from tower.calibration.plan import protocol_named, protocol_plan

        plan = protocol_plan(protocol_named(protocol), throws=throws)
    draft = Recording(())
    simulator = make_simulator(simulator_name, draft, preset=preset,
                               base_geometry=base_geometry, base_physics=base_physics)  # fmt: skip
    rec = None
    for attempt in range(ATTEMPTS if from_prior else 1):
        theta = (
            draw_from_prior(simulator.parameters, derive_seed(seed, 7, attempt))
            if from_prior
            else simulator.base_theta()
        )
        try:
            rec = synthetic_recording(
                simulator, theta, plan, derive_seed(seed, 8), tower=preset,
                truth_extra={"preset": preset, "prior_draws_rejected": attempt},
            )  # fmt: skip
            break
        except (SimulationError, ReplayAborted) as exc:
            if not from_prior:
                raise
            click.echo(f"draw {attempt + 1} rejected (the simulation failed: {exc})", err=True)
    if rec is None:
        raise TowerError(
            f"{ATTEMPTS} draws from the prior all failed to simulate; try another --seed"
        )
    write_recording(rec, out_path)
    series = [t for s in rec.sessions for t in s.throws]
    n_in = sum(sum(t.pieces_in.values()) for t in series)
    n_out = sum(sum(t.pieces_out.values()) for t in series)
    click.echo(f"wrote {out_path}: {len(series)} throws, {n_in} in, {n_out} out (synthetic)")
