"""``tower meshes build|show``: write the tower and piece meshes, render the tower picture.

Every spec is validated before anything is written; files are written into a temporary
folder next to the target and moved into place only after the whole preset succeeded, so
a bad spec leaves no files behind and an interrupted build leaves the old meshes intact.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import click

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


def _replace_dir(target: Path, fill) -> None:
    """Fill a fresh temporary folder with ``fill(path)``, then swap it in for ``target``."""
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    tmp.chmod(0o755)  # mkdtemp makes it private; the result is an ordinary folder
    try:
        fill(tmp)
        old = None
        if target.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{target.name}-old-", dir=target.parent))
            os.replace(target, old / target.name)
        os.replace(tmp, target)
        if old is not None:
            shutil.rmtree(old)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


@click.group()
def meshes() -> None:
    """Build the tower and piece meshes from a spec, or render the tower picture."""


@meshes.command()
@_spec_options
@click.option(
    "--out",
    "out_dir",
    default="meshes",
    show_default=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Output folder; each spec goes into OUT/<spec name>/.",
)
def build(preset: str | None, spec_file: Path | None, out_dir: Path) -> None:
    """Write OUT/<name>/spec.toml, tower/*.obj and pieces/*.obj (byte-identical every run)."""
    from tower.geometry.meshes import write_meshes

    specs = _specs(preset, spec_file)
    for spec in specs:
        target = out_dir / spec.name
        _replace_dir(target, lambda tmp, spec=spec: write_meshes(spec, tmp))
        n = sum(1 for p in target.rglob("*") if p.is_file())
        click.echo(f"{spec.name}: {n} files in {target}")


@meshes.command()
@_spec_options
@click.option(
    "--out",
    "out_png",
    default="geometry.png",
    show_default=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The PNG to write.",
)
def show(preset: str | None, spec_file: Path | None, out_png: Path) -> None:
    """Render the tower(s) cut away, beside the pieces at scale, into a PNG."""
    from tower.geometry.render import render_png

    specs = _specs(preset, spec_file)
    out_png.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(suffix=".png", prefix=f".{out_png.stem}-", dir=out_png.parent)
    os.close(fd)
    Path(tmp).chmod(0o644)  # mkstemp makes it private; the result is an ordinary file
    try:
        render_png(specs, tmp)
        os.replace(tmp, out_png)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    click.echo(f"{', '.join(s.name for s in specs)}: picture in {out_png}")
