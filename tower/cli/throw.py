"""``tower throw``: throw pieces into one simulated tower and print each throw's result.

Also home of the options every physics command shares (``--preset``, ``--spec``,
``--params``), imported by ``tower simulate`` and ``tower render``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from tower.geometry import PRESETS

#: Mixes of pieces a throw can hold (see :mod:`tower.physics.sequences`).
MIX_HELP = "keshis: N keshis of cycling colours; walls-guards: 1..N keshis, watchmen, brigands."


def physics_options(f):
    """Add ``--preset``, ``--spec`` and ``--params`` to a command."""
    f = click.option(
        "--params",
        "params_file",
        type=click.Path(dir_okay=False, path_type=Path),
        help="A params file: PhysicsParams JSON, or the tower.params/1 file that "
        "`tower calibrate` writes (geometry overrides + physics). Default: built-in defaults.",
    )(f)
    f = click.option(
        "--spec",
        "spec_file",
        type=click.Path(dir_okay=False, path_type=Path),
        help="A tower spec TOML file instead of a preset.",
    )(f)
    return click.option(
        "--preset",
        type=click.Choice(PRESETS),
        default="marrakesh",
        show_default=True,
        help="A shipped tower preset.",
    )(f)


def load_physics(preset: str, spec_file: Path | None, params_file: Path | None) -> tuple[Any, Any]:
    """The (spec, params) named by :func:`physics_options`."""
    from tower.calibration.params_file import apply_params
    from tower.geometry import load_preset, load_spec

    spec = load_spec(spec_file) if spec_file else load_preset(preset)
    return apply_params(spec, params_file)


@click.command()
@physics_options
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the tower.")
@click.option("--throws", type=click.IntRange(1), default=12, show_default=True)
@click.option(
    "--pieces",
    type=click.IntRange(1),
    default=12,
    show_default=True,
    help="Pieces per throw (the most per throw for walls-guards).",
)
@click.option(
    "--mix",
    type=click.Choice(("keshis", "walls-guards")),
    default="keshis",
    show_default=True,
    help=MIX_HELP,
)
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
    help="Save the tower here after the last throw.",
)
def throw(
    preset: str,
    spec_file: Path | None,
    params_file: Path | None,
    seed: int,
    throws: int,
    pieces: int,
    mix: str,
    restore_file: Path | None,
    snapshot_file: Path | None,
) -> None:
    """Throw pieces into one tower THROWS times and print what comes out."""
    from tower.physics import TowerSim
    from tower.physics.sequences import throw_pieces

    spec, params = load_physics(preset, spec_file, params_file)
    if restore_file is not None:
        sim = TowerSim.restore(restore_file, spec)
    else:
        sim = TowerSim(spec, params, seed)
    for batch in throw_pieces(mix, pieces, throws, sim.seed + sim.throws):
        result = sim.throw(batch)
        click.echo(result.summary())
        click.echo("  out:    " + (", ".join(map(str, result.out_pieces)) or "-"))
        for place, inside in result.inside_pieces().items():
            if inside:
                click.echo(f"  {place.value + ':':<7} " + ", ".join(map(str, inside)))
    if snapshot_file is not None:
        sim.snapshot(snapshot_file)
        click.echo(f"snapshot written to {snapshot_file}")
    sim.close()
