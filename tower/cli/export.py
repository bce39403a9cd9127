"""``tower export --preset NAME --out DIR``: a folder with what a digital game needs."""

from __future__ import annotations

from pathlib import Path

import click

from tower.cli.options import out_option
from tower.geometry.spec import PRESETS


@click.command("export")
@click.option("--preset", type=click.Choice(PRESETS), default="marrakesh", show_default=True)
@click.option(
    "--model",
    "model_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="A model file (default: the model shipped for the preset).",
)
@out_option(
    "out_dir", "The folder to write (other files in it are kept).", folder=True, required=True
)
@click.option("--force", is_flag=True, help="Replace files that `tower export` did not write.")
def export(preset: str, model_path: Path | None, out_dir: Path, force: bool) -> None:
    """Write the model file, its format document, glTF meshes and a README into OUT."""
    from tower.export import export_folder

    written = export_folder(out_dir, preset, model_path, force)
    for path in written:
        click.echo(f"  {path}")
    click.echo(f"{preset}: {len(written)} files in {out_dir}")
