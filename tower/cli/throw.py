"""``tower throw``: throw pieces into one simulated tower and print each throw's result."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from tower.cli.options import (
    check_pieces,
    force_option,
    load_physics,
    physics_options,
    throw_shape_options,
    tower_mix,
)


@click.command()
@physics_options
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the tower.")
@throw_shape_options
@click.option(
    "--restore",
    "restore_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Continue the tower saved in this snapshot (its seed and parameters).",
)
@click.option(
    "--snapshot",
    "snapshot_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Save the tower here after the last throw. A snapshot of this same tower (such "
    "as the one --restore continues) is replaced; any other file needs --force.",
)
@force_option
def throw(
    preset: str, spec_file: Path | None, params_file: Path | None, seed: int, throws: int,
    pieces: int, mix: str | None, restore_file: Path | None, snapshot_file: Path | None,
    force: bool,
) -> None:  # fmt: skip
    """Throw pieces into one tower THROWS times and print what comes out."""
    from tower.files.outputs import check_output, check_replaceable
    from tower.physics import TowerSim
    from tower.physics.sequences import throw_pieces

    check_pieces(pieces)
    if restore_file is not None and params_file is not None:
        raise click.UsageError(
            "--restore continues the snapshot's own parameters; drop --params (or start a "
            "new tower without --restore)"
        )
    if snapshot_file is not None:
        check_output(snapshot_file, force=True)  # a file path in a writable folder
    spec, params = load_physics(preset, spec_file, params_file)
    mix = tower_mix(spec, mix)
    if restore_file is not None:
        sim = TowerSim.restore(restore_file, spec)
    else:
        sim = TowerSim(spec, params, seed)
    header = _identity(sim)
    if snapshot_file is not None:
        check_replaceable(snapshot_file, header, force=force)
    for batch in throw_pieces(mix, pieces, throws, sim.seed + sim.throws):
        click.echo(_result_text(sim.throw(batch)))
    if snapshot_file is not None:  # as sim.snapshot, under the output policy
        _save_snapshot(snapshot_file, header, sim)
    sim.close()


def _identity(sim: Any) -> dict[str, Any]:
    """The tower's identity as a run header: a snapshot of the same tower (this one's, or
    the one it continues) may be replaced."""
    from tower.files.outputs import run_header

    return run_header("throw", {
        "spec_toml": sim.spec.to_toml(), "params": sim.params.to_json(), "seed": sim.seed,
        "numerics": sim.numerics.to_json(),
    })  # fmt: skip


def _result_text(result: Any) -> str:
    """One throw's summary, the pieces out and the pieces in each place inside."""
    lines = [result.summary(), "  out:    " + (", ".join(map(str, result.out_pieces)) or "-")]
    lines += [
        f"  {place.value + ':':<7} " + ", ".join(map(str, inside))
        for place, inside in result.inside_pieces().items()
        if inside
    ]
    return "\n".join(lines)


def _save_snapshot(path: Path, header: dict[str, Any], sim: Any) -> None:
    import json

    from tower.files.outputs import write_text

    write_text(path, json.dumps({**header, **sim.state_json()}, indent=1) + "\n", checked=True)
    click.echo(f"snapshot written to {path}")
