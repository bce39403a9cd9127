"""``tower bench SUBJECT [--json]``: speed figures with a baseline measured in the same run."""

from __future__ import annotations

import importlib
import json

import click

#: subject -> module in :mod:`tower.bench` exposing ``run(**options) -> dict``.
SUBJECTS = ("physics", "model", "game", "load", "battle")


@click.command()
@click.argument("subject", type=click.Choice(SUBJECTS))
@click.option("--json", "as_json", is_flag=True, help="Print the figures as one JSON object.")
@click.option("--quick", is_flag=True, help="Fewer repetitions (noisier figures).")
def bench(subject: str, as_json: bool, quick: bool) -> None:
    """Measure the speed of SUBJECT against a baseline measured in the same run."""
    module = importlib.import_module(f"tower.bench.{subject}")
    figures = module.run(quick=quick)
    if as_json:
        click.echo(json.dumps(figures, indent=2, sort_keys=True))
    else:
        width = max(len(k) for k in figures)
        for key, value in figures.items():
            shown = f"{value:,.3f}" if isinstance(value, float) else str(value)
            click.echo(f"{key:<{width}}  {shown}")
