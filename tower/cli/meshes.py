"""``tower meshes build|show``: write the tower and piece meshes, render the tower picture.

Every spec is validated before anything is written; the meshes are built in a temporary
folder first, so a bad spec leaves no files behind. They are then moved into
OUT/<spec name>/ file by file (each atomically) under the output policy of
:class:`tower.files.outputs.OutputFolder`: a file there that an earlier build did not write
is never replaced (unless ``--force``) nor deleted.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import click

from tower.cli.options import force_option, out_option
from tower.files.outputs import OutputFolder
from tower.geometry.spec import PRESETS, TowerSpec, load_preset, load_spec


def _specs(preset: str | None, spec_file: Path | None) -> list[TowerSpec]:
    """The specs named on the command line (all presets when none), validated."""
    if preset and spec_file:
        raise click.UsageError("give --preset or --spec, not both")
    if spec_file is not None:
        return [load_spec(spec_file)]
    return [load_preset(name) for name in ([preset] if preset else PRESETS)]


def _spec_options(f):
    f = click.option(
        "--spec",
        "spec_file",
        type=click.Path(dir_okay=False, path_type=Path),
        help="A spec TOML file (see tower/geometry/presets/ for the format).",
    )(f)
    return click.option(
        "--preset", type=click.Choice(PRESETS), help="A shipped preset (default: all)."
    )(f)


def build_all(specs: list[TowerSpec], out_dir: Path, force: bool) -> dict[str, int]:
    """Build every spec in a temporary folder, check every file against the output policy,
    then copy them into ``out_dir/<name>/``; return the number of files per spec."""
    from tower.geometry.meshes import write_meshes

    with tempfile.TemporaryDirectory() as tmp:
        plans = []
        for spec in specs:
            src = Path(tmp) / spec.name
            write_meshes(spec, src)
            folder = OutputFolder(out_dir / spec.name, "meshes build", force=force)
            folder.check([p.relative_to(src).as_posix() for p in src.rglob("*") if p.is_file()])
            plans.append((spec.name, folder, src))  # every refusal before the first write
        return {name: len(folder.copy_in(src)) for name, folder, src in plans}


@click.group()
def meshes() -> None:
    """Build the tower and piece meshes from a spec, or render the tower picture."""


@meshes.command()
@_spec_options
@out_option(
    "out_dir", "Output folder; each spec goes into OUT/<spec name>/.", folder=True, default="meshes"
)
@force_option
def build(preset: str | None, spec_file: Path | None, out_dir: Path, force: bool) -> None:
    """Write OUT/<name>/spec.toml, tower/*.obj and pieces/*.obj (byte-identical every run)."""
    for name, n in build_all(_specs(preset, spec_file), out_dir, force).items():
        click.echo(f"{name}: {n} files in {out_dir / name}")


@meshes.command()
@_spec_options
@out_option("out_png", "The PNG to write.", default="geometry.png")
@force_option
def show(preset: str | None, spec_file: Path | None, out_png: Path, force: bool) -> None:
    """Render the tower(s) cut away, beside the pieces at scale, into a PNG."""
    from tower.geometry.picture import render_png

    specs = _specs(preset, spec_file)
    render_png(specs, out_png, force=force)
    click.echo(f"{', '.join(s.name for s in specs)}: picture in {out_png}")
