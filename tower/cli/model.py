"""``tower model vectors|bundle``: conformance vectors for ports, the web page's scripts."""

from __future__ import annotations

from pathlib import Path

import click

from tower.cli.options import out_option
from tower.errors import TowerError


def _open(spec: str):
    from tower.model import open_model

    model = open_model(spec)
    if not hasattr(model, "sampler"):
        raise TowerError(f"{spec}: conformance vectors need a distilled model file")
    return model


@click.group("model")
def model() -> None:
    """Tools for ports of the distilled tower model to other languages."""


@model.command()
@click.option(
    "--model",
    "model_spec",
    default="shipped:marrakesh",
    show_default=True,
    help="A model file, or shipped:NAME.",
)
@out_option(
    "out_dir",
    "Folder for vectors.json (an existing one not written by this command needs --force).",
    folder=True,
    required=True,
)
@click.option("--games", default=40, show_default=True, help="Random games to take cases from.")
@click.option("--seed", default=0, show_default=True, help="Seed of the games.")
@click.option("--force", is_flag=True, help="Replace a vectors.json this command did not write.")
def vectors(model_spec: str, out_dir: Path, games: int, seed: int, force: bool) -> None:
    """Write conformance vectors of a model: states, throws and the exact laws.

    A port is right when it reproduces every exact law to 1e-12 and its sampling passes
    the chi-square test against them (see docs/model-format.md, section 10).
    """
    from tower.files.outputs import OutputFolder
    from tower.model.fileformat import canonical
    from tower.model.vectors import conformance_vectors

    if games < 1:
        raise click.BadParameter("must be at least 1", param_hint="--games")
    tower_model = _open(model_spec)
    folder = OutputFolder(out_dir, "model vectors", force=force)
    folder.check(["vectors.json"])
    vec = conformance_vectors(tower_model, games=games, seed=seed)
    folder.write_text("vectors.json", canonical(vec) + "\n")
    path = out_dir / "vectors.json"
    click.echo(
        f"{path}: {len(vec['cases'])} exact-law cases, {len(vec['games'])} games, "
        f"{len(vec['chi_square']['cases'])} chi-square cases (model {tower_model.name}, "
        f"sha256 {tower_model.doc['sha256'][:12]}...)"
    )


@model.command()
@out_option("out_dir", "The web page's folder.", folder=True, default="web")
@click.option(
    "--model",
    "model_specs",
    multiple=True,
    default=["shipped:marrakesh"],
    show_default=True,
    help="Models to embed (repeatable): a model file or shipped:NAME.",
)
def bundle(out_dir: Path, model_specs: tuple[str, ...]) -> None:
    """Write the web page's generated scripts: OUT/tower-model.js and OUT/models/NAME.js.

    Only files this command wrote before are replaced; anything else is left alone.
    """
    from tower.webbundle import bundle_text, check_generated, model_script, write_generated

    jobs = [(out_dir / "tower-model.js", bundle_text())]
    for spec in model_specs:
        m = _open(spec)
        jobs.append((out_dir / "models" / f"{m.name}.js", model_script(m.name, m.dumps())))
    try:
        for path, _ in jobs:  # refuse before writing anything
            check_generated(path)
    except FileExistsError as exc:
        raise TowerError(str(exc)) from None
    for path, text in jobs:
        changed = write_generated(path, text)
        click.echo(f"{path}: {'written' if changed else 'up to date'}")
