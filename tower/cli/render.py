"""``tower render``: an animated GIF of one throw, the tower's near walls cut away."""

from __future__ import annotations

from pathlib import Path

import click

from tower.cli.options import check_pieces, force_option, load_physics, out_option, physics_options


@click.command()
@physics_options
@out_option("out_file", "The GIF to write.", default="throw.gif")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the tower.")
@click.option(
    "--pieces",
    type=click.IntRange(1),
    default=12,
    show_default=True,
    help="Pieces per throw: keshis of cycling colours (cubes in a cube tower).",
)
@click.option(
    "--warmup",
    type=click.IntRange(0, 100),
    default=3,
    show_default=True,
    help="Throws before the filmed one (so earlier pieces sit inside).",
)
@click.option(
    "--size",
    type=(click.IntRange(16, 4096), click.IntRange(16, 4096)),
    default=(360, 400),
    show_default=True,
    help="Width and height in pixels.",
)
@click.option("--fps", type=click.IntRange(1, 50), default=25, show_default=True)
@click.option(
    "--slow-motion",
    type=click.FloatRange(0.1, 20),
    default=2.0,
    show_default=True,
    help="How many times slower than real time the GIF plays.",
)
@force_option
def render(
    preset: str,
    spec_file: Path | None,
    params_file: Path | None,
    out_file: Path,
    seed: int,
    pieces: int,
    warmup: int,
    size: tuple[int, int],
    fps: int,
    slow_motion: float,
    force: bool,
) -> None:
    """Film one throw through the tower into an animated GIF."""
    from tower.files.outputs import check_output
    from tower.physics.render import render_throw
    from tower.physics.sequences import own_mix, throw_pieces

    check_pieces(pieces)
    check_output(out_file, force=force)
    spec, params = load_physics(preset, spec_file, params_file)
    (batch,) = throw_pieces(own_mix(spec), pieces, 1, seed)
    result = render_throw(
        spec, params, out=out_file, seed=seed, pieces=batch, warmup=warmup, size=size,
        fps=fps, slow_motion=slow_motion, force=True,  # checked above
    )  # fmt: skip
    click.echo(result.summary())
    click.echo(f"wrote {out_file}")
